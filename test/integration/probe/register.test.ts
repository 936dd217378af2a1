// `node --require busscope-probe/register` / `--import`: real app processes that do not use
// busscope-probe, the BUILT register script, real sockets and the real client. The probe starts by
// itself (discovery file, socket), the app's emitters are buses with the app's subscribe lines and
// their emits are dispatches; the probe's own socket is not one of them; child processes that
// inherit NODE_OPTIONS stay off unless BUSSCOPE_CHILDREN=1; an app with its own copy of the package
// gets one probe; an app whose prototypes cannot be patched runs as before, with one line on stderr
// and its own --require hook intact.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { listDiscoveredApps } from '../../../runtime-probe/src/discovery/index';
import { cleanup, connect, onCleanup, ROOT, tempDir, waitFor, withTimeout } from './helpers';

after(cleanup);

const REGISTER_CJS = path.join(ROOT, 'runtime-probe/dist/register.cjs');
const REGISTER_MJS = path.join(ROOT, 'runtime-probe/dist/register.mjs');

interface Run {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** Runs `node <args>` in `cwd` with a clean BUSSCOPE_* environment plus `env`. */
function run(cwd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(clean)) if (k.startsWith('BUSSCOPE') || k === 'NODE_OPTIONS') delete clean[k];
  const child = spawn(process.execPath, args, { cwd, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await withTimeout(exited, 5000, 'app exit').catch(() => undefined);
    }
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

const APP_CJS = `const { EventEmitter } = require('node:events');
class Shop extends EventEmitter {}
const shop = new Shop();
shop.on('order', function onOrder() {});
setInterval(() => shop.emit('order', { id: 1 }), 20);
`;

async function discovered(dir: string, pid: number): Promise<{ host: string; port: number; token: string }> {
  let found: { host: string; port: number; token: string } | undefined;
  await waitFor(
    () => {
      found = listDiscoveredApps({ dir, clean: false }).find((a) => a.pid === pid);
      return found !== undefined;
    },
    10_000,
    `discovery file of ${pid}`,
  );
  return found as { host: string; port: number; token: string };
}

test('node --require busscope-probe/register: the probe starts by itself and the app’s emitters are buses with their subscribe lines and dispatches', async () => {
  const dir = tempDir('busscope-register-cjs-');
  const discovery = path.join(dir, 'discovery');
  fs.writeFileSync(path.join(dir, 'app.js'), APP_CJS);
  const app = run(dir, ['--require', REGISTER_CJS, 'app.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  const info = await discovered(discovery, app.child.pid as number);
  const c = await connect(info);
  const snapshot = await c.client.requestSnapshot();
  const shop = snapshot.buses.find((b) => b.name === 'Shop#1');
  assert.ok(shop !== undefined, `Shop#1 among ${snapshot.buses.map((b) => b.name).join(', ')}`);
  const sub = snapshot.subscriptions.find((s) => s.bus === shop.id && s.type === 'order');
  assert.equal(sub?.label, 'onOrder');
  assert.equal(sub?.site?.file, path.join(dir, 'app.js'));
  assert.equal(sub?.site?.line, 4);
  // The probe's own server and client socket are not the app's emitters.
  assert.deepEqual(
    snapshot.buses.filter((b) => /^(Socket|Server)#/.test(b.name)),
    [],
  );
  await waitFor(() => c.records().some((r) => r.kind === 'dispatch' && r.bus === shop.id && r.type === 'order'), 5000, 'a dispatch of order');
  assert.equal(app.stderr(), '', 'nothing on stderr');
});

test('an app names itself under register: BUSSCOPE_NAME set by its main module, or its own probe.start({ name }), is the name in Apps', async () => {
  const dir = tempDir('busscope-register-name-');
  const discovery = path.join(dir, 'discovery');
  // As the demo does: the name is set when the main module runs, after the hook started the probe.
  fs.writeFileSync(path.join(dir, 'env-named.js'), `process.env.BUSSCOPE_NAME = 'named-in-main';\n${APP_CJS}`);
  const byEnv = run(dir, ['--require', REGISTER_CJS, 'env-named.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  await discovered(discovery, byEnv.child.pid as number);
  const entry = listDiscoveredApps({ dir: discovery, clean: false }).find((a) => a.pid === byEnv.child.pid);
  assert.equal(entry?.name, 'named-in-main');
  const c = await connect(entry as { host: string; port: number; token: string });
  assert.equal(c.client.welcome.app.name, 'named-in-main');
  // The app's own start, with the package it has installed (here: the built one), names it too.
  fs.writeFileSync(
    path.join(dir, 'start-named.js'),
    `require(${JSON.stringify(path.join(ROOT, 'runtime-probe/dist/index.cjs'))}).probe.start({ name: 'named-by-start' });\n${APP_CJS}`,
  );
  const byStart = run(dir, ['--require', REGISTER_CJS, 'start-named.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  await discovered(discovery, byStart.child.pid as number);
  assert.equal(listDiscoveredApps({ dir: discovery, clean: false }).find((a) => a.pid === byStart.child.pid)?.name, 'named-by-start');
});

test('node --import busscope-probe/register: the same for an ES module app', async () => {
  const dir = tempDir('busscope-register-esm-');
  const discovery = path.join(dir, 'discovery');
  fs.writeFileSync(
    path.join(dir, 'app.mjs'),
    `import { EventEmitter } from 'node:events';
const bell = new EventEmitter();
bell.on('ring', function onRing() {});
setInterval(() => bell.emit('ring'), 20);
`,
  );
  const app = run(dir, ['--import', REGISTER_MJS, 'app.mjs'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  const info = await discovered(discovery, app.child.pid as number);
  const c = await connect(info);
  // The ES module app runs after the preload, maybe after the socket is already listening.
  await waitFor(() => c.records().some((r) => r.kind === 'dispatch' && r.type === 'ring'), 10_000, 'a dispatch of ring');
  const snapshot = await c.client.requestSnapshot();
  const sub = snapshot.subscriptions.find((s) => s.label === 'onRing');
  assert.ok(sub !== undefined, 'the listener is a subscription');
  assert.equal(sub.site?.line, 3);
  assert.ok(
    c.records().some((r) => r.kind === 'dispatch' && r.bus === sub.bus && r.type === 'ring'),
    'its emits are its dispatches',
  );
});

const PARENT = `const { execFileSync } = require('node:child_process');
setTimeout(() => {
  const out = execFileSync(process.execPath, ['child.js'], { encoding: 'utf8' });
  const probe = globalThis[Symbol.for('busscope.probe')];
  console.log(JSON.stringify({ pid: process.pid, started: probe?.info !== undefined, child: JSON.parse(out) }));
  process.exit(0);
}, 300);
`;
const CHILD = `setTimeout(() => {
  const probe = globalThis[Symbol.for('busscope.probe')];
  console.log(JSON.stringify({ loaded: probe !== undefined, started: probe?.info !== undefined, root: process.env.BUSSCOPE_REGISTER_ROOT }));
  process.exit(0);
}, 300);
`;

test('child processes inheriting NODE_OPTIONS stay off (and pass the root pid on) unless BUSSCOPE_CHILDREN=1', async () => {
  const dir = tempDir('busscope-register-children-');
  fs.writeFileSync(path.join(dir, 'parent.js'), PARENT);
  fs.writeFileSync(path.join(dir, 'child.js'), CHILD);
  const env = { BUSSCOPE_DISCOVERY_DIR: path.join(dir, 'discovery'), NODE_OPTIONS: `--require ${JSON.stringify(REGISTER_CJS)}` };
  const off = run(dir, ['parent.js'], env);
  assert.equal(await withTimeout(off.exited, 15_000, 'parent exit'), 0, off.stderr());
  const a = JSON.parse(off.stdout()) as { pid: number; started: boolean; child: { loaded: boolean; started: boolean; root: string } };
  assert.equal(a.started, true, 'the launched process has a probe');
  assert.deepEqual(a.child, { loaded: true, started: false, root: String(a.pid) }, 'the child loaded the hook and stayed off');
  assert.equal(off.stderr(), '', 'silently');

  const on = run(dir, ['parent.js'], { ...env, BUSSCOPE_CHILDREN: '1' });
  assert.equal(await withTimeout(on.exited, 15_000, 'parent exit'), 0, on.stderr());
  const b = JSON.parse(on.stdout()) as { pid: number; child: { started: boolean; root: string } };
  assert.deepEqual(b.child, { loaded: true, started: true, root: String(b.pid) }, 'asked for: the child starts its own');
});

test('an app with its own copy of busscope-probe (and --require busscope-probe/register) gets one probe, which sees its buses and its emitters', async () => {
  const dir = tempDir('busscope-register-copies-');
  const discovery = path.join(dir, 'discovery');
  const pkg = path.join(dir, 'node_modules', 'busscope-probe');
  fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'runtime-probe/package.json'), path.join(pkg, 'package.json'));
  for (const f of ['index.cjs', 'index.mjs', 'register.cjs', 'register.mjs'])
    fs.copyFileSync(path.join(ROOT, 'runtime-probe/dist', f), path.join(pkg, 'dist', f));
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `const { EventBus, probe } = require('busscope-probe');
const { EventEmitter } = require('node:events');
const bus = new EventBus({ name: 'own-bus' });
bus.subscribe('tick', function onTick() {});
const door = new EventEmitter();
door.on('open', function onOpen() {});
probe.start({ name: 'two-copies' }).then((info) => {
  console.log(JSON.stringify({ same: probe === globalThis[Symbol.for('busscope.probe')], port: info.port }));
});
setInterval(() => { bus.dispatch('tick', {}); door.emit('open'); }, 20);
`,
  );
  // The package's own export, as an app that installed it writes it.
  const app = run(dir, ['--require', 'busscope-probe/register', 'app.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  const info = await discovered(discovery, app.child.pid as number);
  await waitFor(() => app.stdout().includes('\n'), 10_000, 'the app’s own probe.start resolved');
  const told = JSON.parse(app.stdout()) as { same: boolean; port: number };
  assert.deepEqual(told, { same: true, port: info.port }, 'the app’s probe is the register’s, on the same port');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(listDiscoveredApps({ dir: discovery, clean: false }).filter((a) => a.pid === app.child.pid).length, 1, 'one discovery file');
  const c = await connect(info);
  const snapshot = await c.client.requestSnapshot();
  const own = snapshot.buses.find((b) => b.name === 'own-bus');
  assert.ok(own !== undefined, 'the app’s EventBus (its own copy) is seen');
  assert.ok(snapshot.subscriptions.some((s) => s.bus === own.id && s.type === 'tick'));
  assert.ok(
    snapshot.subscriptions.some((s) => s.label === 'onOpen'),
    'and its emitter',
  );
});

test('when the prototypes cannot be patched the app runs exactly as before, with one line on stderr, and keeps its own --require hook', async () => {
  const dir = tempDir('busscope-register-fail-');
  fs.writeFileSync(
    path.join(dir, 'own-hook.js'),
    `const { EventEmitter } = require('node:events');
globalThis.ownHook = EventEmitter.prototype.on;
// Writable (Node's own subclasses assign theirs) but not configurable: it cannot be redefined.
Object.defineProperty(EventEmitter.prototype, 'on', { value: EventEmitter.prototype.on, writable: true, configurable: false });
`,
  );
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `const { EventEmitter } = require('node:events');
const e = new EventEmitter();
let got = 0;
e.on('x', (n) => (got += n));
e.emit('x', 2);
console.log(JSON.stringify({ got, ownHook: globalThis.ownHook === EventEmitter.prototype.on, once: EventEmitter.prototype.once.name, emit: EventEmitter.prototype.emit.name }));
`,
  );
  const env = { BUSSCOPE_DISCOVERY_DIR: path.join(dir, 'discovery') };
  const plain = run(dir, ['--require', './own-hook.js', 'app.js'], env);
  assert.equal(await withTimeout(plain.exited, 10_000, 'plain exit'), 0);
  const hooked = run(dir, ['--require', './own-hook.js', '--require', REGISTER_CJS, 'app.js'], env);
  assert.equal(await withTimeout(hooked.exited, 10_000, 'the app exits by itself'), 0);
  assert.equal(hooked.stdout(), plain.stdout(), 'the app sees what it saw without the hook');
  const lines = hooked
    .stderr()
    .split('\n')
    .filter((l) => l !== '');
  assert.equal(lines.length, 1, hooked.stderr());
  assert.match(lines[0], /^\[busscope\] .*instrumenting the process's emitters \(BUSSCOPE_EMITTERS=off turns it off\) failed/);
});

test('an http server with keep-alive clients under register, recorded: the app’s server and its leak on a shared emitter at full detail, Node’s per-connection sockets without dispatches', async () => {
  const dir = tempDir('busscope-register-http-');
  const discovery = path.join(dir, 'discovery');
  fs.writeFileSync(
    path.join(dir, 'server.js'),
    `const http = require('node:http');
const shared = new (require('node:events').EventEmitter)();
shared.setMaxListeners(0);
const server = http.createServer((req, res) => { shared.on('tick', function leak() {}); res.end('ok'); });
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`,
  );
  const app = run(dir, ['--require', REGISTER_CJS, 'server.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  const info = await discovered(discovery, app.child.pid as number);
  await waitFor(() => app.stdout().includes('\n'), 10_000, 'the server listens');
  const { port } = JSON.parse(app.stdout()) as { port: number };
  const c = await connect(info);
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
  onCleanup(() => agent.destroy());
  const get = (): Promise<string> =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
  const bodies = await Promise.all(Array.from({ length: 20 }, () => get()));
  assert.deepEqual(new Set(bodies), new Set(['ok']));
  await c.client.ping();
  const records = c.records();
  const names = new Map<number, string>();
  for (const r of records) if (r.kind === 'bus-created') names.set(r.bus, r.name);
  const snapshot = await c.client.requestSnapshot();
  for (const b of snapshot.buses) names.set(b.id, b.name);
  const dispatched = new Set(records.flatMap((r) => (r.kind === 'dispatch' ? [`${names.get(r.bus)?.replace(/#\d+$/, '')}:${r.type}`] : [])));
  assert.ok(dispatched.has('Server:request'), `the app's server dispatches: ${[...dispatched].join(', ')}`);
  assert.ok(![...dispatched].some((d) => d.startsWith('Socket:')), `Node's sockets record no dispatches: ${[...dispatched].join(', ')}`);
  const leaks = snapshot.subscriptions.filter((s) => s.label === 'leak');
  assert.equal(leaks.length, 20, 'one leaked listener per request on the shared emitter');
  assert.ok(
    leaks.every((s) => s.site?.file === path.join(dir, 'server.js') && s.site.line === 4),
    'with the app’s own subscribe line',
  );
  assert.equal(app.stderr(), '');
});

test('worker threads under register: no second probe, one discovery entry, the app and its workers run, and one line says why', async () => {
  const dir = tempDir('busscope-register-workers-');
  const discovery = path.join(dir, 'discovery');
  // Two workers that add listeners and stay alive until told; each reports whether its own
  // EventEmitter prototype was patched (Node aliases on and addListener; the patch wraps each).
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    `const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const { EventEmitter } = require('node:events');
if (isMainThread) {
  const hub = new EventEmitter();
  hub.on('main', function onMain() {});
  const workers = [new Worker(__filename), new Worker(__filename)];
  let up = 0;
  for (const w of workers) {
    w.on('error', (e) => console.log('worker error ' + e.message));
    w.on('message', (m) => {
      console.log('worker ' + m);
      if (++up === workers.length) console.log('all up');
    });
  }
  setInterval(() => hub.emit('main', 1), 20);
} else {
  const own = new EventEmitter();
  own.on('job', function onJob() {});
  parentPort.postMessage(EventEmitter.prototype.on === EventEmitter.prototype.addListener ? 'unpatched' : 'patched');
  setInterval(() => own.emit('job'), 20);
}
`,
  );
  const app = run(dir, ['--require', REGISTER_CJS, 'app.js'], { BUSSCOPE_DISCOVERY_DIR: discovery });
  const pid = app.child.pid as number;
  const info = await discovered(discovery, pid);
  await waitFor(() => app.stdout().includes('all up'), 10_000, 'both workers up');
  // Give a worker's probe, were there one, time to write its discovery file.
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(app.stdout().match(/worker \w+/g), ['worker unpatched', 'worker unpatched']);
  const entries = listDiscoveredApps({ dir: discovery, clean: false }).filter((a) => a.pid === pid);
  assert.equal(entries.length, 1, `one Apps entry for the pid: ${entries.map((e) => e.port).join(', ')}`);
  assert.equal(app.child.exitCode, null, 'the app runs');
  const c = await connect(info);
  const snapshot = await c.client.requestSnapshot();
  assert.ok(
    snapshot.buses.some((b) => b.name === 'EventEmitter#1' || b.className === 'EventEmitter'),
    "the main thread's emitters are seen",
  );
  const lines = app
    .stderr()
    .split('\n')
    .filter((l) => l.includes('worker threads are not instrumented'));
  assert.equal(lines.length, 1, `one line, not one per worker: ${app.stderr()}`);
});
