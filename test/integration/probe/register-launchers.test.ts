// The register hook behind a launcher (#10: "only the launched process and its workers start a
// probe"). NODE_OPTIONS reaches every Node process of `npm start`: npm itself loads the hook first,
// and must neither start a probe nor claim BUSSCOPE_REGISTER_ROOT, or the app (its child) stays off.
// Real processes: the npm on this machine running a package.json script, a launcher under
// node_modules that spawns the app (nodemon, tsx's CLI), one that runs the app in its own process
// (ts-node's CLI), and the app run directly.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanup, onCleanup, ROOT, tempDir, withTimeout } from './helpers';

after(cleanup);

const REGISTER_CJS = path.join(ROOT, 'runtime-probe/dist/register.cjs');

/** The app: reports whether it has a probe and who claimed the root, then spawns a child node that reports the same. */
const APP = `const { execFileSync } = require('node:child_process');
const { EventEmitter } = require('node:events');
const hub = new EventEmitter();
hub.on('tick', function onTick() {});
setTimeout(() => {
  const probe = globalThis[Symbol.for('busscope.probe')];
  const child = JSON.parse(execFileSync(process.execPath, [require('node:path').join(__dirname, 'child.js')], { encoding: 'utf8' }));
  // Probes that listen now (the launcher is still running): the pids of the discovery files.
  let discovered = [];
  try { discovered = require('node:fs').readdirSync(process.env.BUSSCOPE_DISCOVERY_DIR).map((f) => Number(f.split('-')[0])); } catch {}
  console.log('APP ' + JSON.stringify({ pid: process.pid, started: probe?.info !== undefined, root: process.env.BUSSCOPE_REGISTER_ROOT, child, discovered }));
  process.exit(0);
}, 400);
`;
const CHILD = `setTimeout(() => {
  const probe = globalThis[Symbol.for('busscope.probe')];
  console.log(JSON.stringify({ started: probe?.info !== undefined }));
  process.exit(0);
}, 200);
`;
/** Spawns the app (its argument) as a child process and waits for it, like nodemon or tsx's CLI. */
const SPAWNING_LAUNCHER = `const { spawn } = require('node:child_process');
const child = spawn(process.execPath, [require('node:path').resolve(process.argv[2])], { stdio: 'inherit' });
child.on('exit', (code) => {
  const probe = globalThis[Symbol.for('busscope.probe')];
  console.log('LAUNCHER ' + JSON.stringify({ pid: process.pid, started: probe?.info !== undefined }));
  process.exit(code ?? 1);
});
`;
/** Runs the app (its argument) in its own process, like ts-node's CLI. */
const IN_PROCESS_RUNNER = `require(require('node:path').resolve(process.argv[2]));
`;
/** Imports the app (its argument, an ES module) in its own process, like a test runner importing specs or a CLI importing app.mjs. */
const ESM_IMPORTING_TOOL = `const { pathToFileURL } = require('node:url');
import(pathToFileURL(require('node:path').resolve(process.argv[2])).href).catch((e) => { console.error(e); process.exit(1); });
`;
/** The app as an ES module (the same report). */
const ESM_APP = `import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
const require = createRequire(import.meta.url);
const __dirname = require('node:path').dirname(fileURLToPath(import.meta.url));
${APP}`;

interface AppReport {
  readonly pid: number;
  readonly started: boolean;
  readonly root: string | undefined;
  readonly child: { readonly started: boolean };
  readonly discovered: readonly number[];
}

function project(prefix: string): string {
  const dir = tempDir(prefix);
  fs.writeFileSync(path.join(dir, 'app.js'), APP);
  fs.writeFileSync(path.join(dir, 'app.mjs'), ESM_APP);
  fs.writeFileSync(path.join(dir, 'child.js'), CHILD);
  fs.writeFileSync(path.join(dir, 'user-hook.mjs'), 'globalThis.userHookRan = true;\n');
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'launched-app', version: '1.0.0', private: true, scripts: { start: 'node app.js' } }),
  );
  for (const [name, source] of [
    ['spawning-launcher', SPAWNING_LAUNCHER],
    ['in-process-runner', IN_PROCESS_RUNNER],
    ['esm-importing-tool', ESM_IMPORTING_TOOL],
  ]) {
    fs.mkdirSync(path.join(dir, 'node_modules', name), { recursive: true });
    fs.writeFileSync(path.join(dir, 'node_modules', name, 'cli.js'), source);
  }
  return dir;
}

/** Runs `command args` in `dir` with NODE_OPTIONS=--require <register>, as a debug launch injects it; resolves with stdout. */
async function launch(dir: string, command: string, args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('BUSSCOPE') || k === 'NODE_OPTIONS' || k.startsWith('npm_')) delete env[k];
  Object.assign(env, {
    NODE_OPTIONS: `--require ${JSON.stringify(REGISTER_CJS)}`,
    BUSSCOPE_DISCOVERY_DIR: path.join(dir, 'discovery'),
    npm_config_update_notifier: 'false',
    npm_config_cache: path.join(dir, 'npm-cache'),
  });
  const child: ChildProcess = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const code = await withTimeout(exited, 30_000, `${command} ${args.join(' ')}`);
  assert.equal(code, 0, `${command} ${args.join(' ')} exited with ${code}: ${err}`);
  assert.doesNotMatch(err, /\[busscope\]/, 'nothing to report on stderr');
  return out;
}

function report(out: string, tag: 'APP' | 'LAUNCHER'): AppReport {
  const line = out.split('\n').find((l) => l.startsWith(`${tag} `));
  assert.ok(line, `no ${tag} line in ${JSON.stringify(out)}`);
  return JSON.parse(line.slice(tag.length + 1)) as AppReport;
}

function hasNpm(): boolean {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test(
  "npm run start: the app (npm's child) has the probe and claims the root; npm has none; the app's own child stays off",
  { skip: hasNpm() ? false : 'no npm on PATH' },
  async () => {
    const dir = project('busscope-register-npm-');
    const app = report(await launch(dir, 'npm', ['run', 'start', '--silent']), 'APP');
    assert.equal(app.started, true, 'the app started a probe');
    assert.equal(app.root, String(app.pid), 'the app claimed the root');
    assert.equal(app.child.started, false, "the app's child stays off");
    assert.deepEqual(app.discovered, [app.pid], "one probe: the app's (npm wrote no discovery file)");
  },
);

test("a launcher under node_modules that spawns the app (nodemon, tsx's CLI) stays off; the app it spawns has the probe", async () => {
  const dir = project('busscope-register-spawner-');
  const out = await launch(dir, process.execPath, [path.join(dir, 'node_modules/spawning-launcher/cli.js'), 'app.js']);
  const app = report(out, 'APP');
  const launcher = report(out, 'LAUNCHER');
  assert.equal(launcher.started, false, 'the launcher has no probe');
  assert.equal(app.started, true, 'the app has one');
  assert.equal(app.root, String(app.pid));
  assert.equal(app.child.started, false);
  assert.deepEqual(app.discovered, [app.pid]);
});

test("a tool under node_modules that runs the app in its own process (ts-node's CLI) is the app: it has the probe", async () => {
  const dir = project('busscope-register-in-process-');
  const app = report(await launch(dir, process.execPath, [path.join(dir, 'node_modules/in-process-runner/cli.js'), 'app.js']), 'APP');
  assert.equal(app.started, true, 'the process running the app has a probe');
  assert.equal(app.root, String(app.pid));
  assert.equal(app.child.started, false, 'its child stays off');
  assert.deepEqual(app.discovered, [app.pid]);
});

test("a tool under node_modules that imports the user's ES module itself is the app: it has the probe", async () => {
  const dir = project('busscope-register-esm-tool-');
  const app = report(await launch(dir, process.execPath, [path.join(dir, 'node_modules/esm-importing-tool/cli.js'), 'app.mjs']), 'APP');
  assert.equal(app.started, true, 'the process importing the app has a probe');
  assert.equal(app.root, String(app.pid));
  assert.equal(app.child.started, false, 'its child stays off');
  assert.deepEqual(app.discovered, [app.pid]);
});

test("the user's own --import hook (an ES module outside node_modules) does not make a spawning launcher the app", async () => {
  const dir = project('busscope-register-esm-hook-');
  const out = await launch(dir, process.execPath, ['--import', './user-hook.mjs', path.join(dir, 'node_modules/spawning-launcher/cli.js'), 'app.js']);
  const launcher = report(out, 'LAUNCHER');
  const app = report(out, 'APP');
  assert.equal(launcher.started, false, 'the launcher has no probe');
  assert.equal(app.started, true, 'the app it spawned has one');
  assert.deepEqual(app.discovered, [app.pid]);
});

test('the app run directly (also with an in-process --require hook of its own) has the probe, its child stays off', async () => {
  const dir = project('busscope-register-direct-');
  fs.writeFileSync(path.join(dir, 'hook.cjs'), 'globalThis.hooked = true;\n');
  const app = report(await launch(dir, process.execPath, ['--require', './hook.cjs', 'app.js']), 'APP');
  assert.equal(app.started, true);
  assert.equal(app.root, String(app.pid));
  assert.equal(app.child.started, false);
  assert.deepEqual(app.discovered, [app.pid]);
});
