// Process-wide instrumentation (BUSSCOPE_EMITTERS, probe.start({ emitters }), busscope-probe/register):
// which instances get a bus (all / app / class filter / Node's own / the probe's own / watched),
// library emitters recorded at lifecycle detail unless focused, emitters made before the probe,
// weak holding, exact restore of the prototypes, and the option / environment checks.
import { after, afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { probe } from '../../../runtime-probe/src/index';
import { allBuses, setDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { installProcessWide, processWideBus, uninstallProcessWide, type ProcessWideOptions } from '../../../runtime-probe/src/emitters/process-wide';
import { readProbeEnvironment } from '../../../runtime-probe/src/probe/environment';
import { RecordingTracer } from '../demo/recording-tracer';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-process-wide-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  uninstallProcessWide();
  setDispatchTracer(undefined);
});

// A dependency that subscribes: its frames are in node_modules, so its listeners are a library's.
const libDir = path.join(tmp, 'node_modules', 'somelib');
fs.mkdirSync(libDir, { recursive: true });
fs.writeFileSync(path.join(libDir, 'index.js'), 'module.exports = (ee, type) => ee.on(type, function libListener() {});\n');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const libSubscribe = require(path.join(libDir, 'index.js')) as (ee: EventEmitter, type: string) => void;

function install(options: Partial<ProcessWideOptions> = {}): Set<number> {
  const focus = new Set<number>();
  installProcessWide({ mode: 'all', classes: undefined, focus: () => focus, ...options });
  return focus;
}

class Shop extends EventEmitter {}
class Cart extends EventEmitter {}

test("an app emitter's emits are dispatches; a library emitter records none until a client focuses its bus", () => {
  const focus = install();
  const tracer = new RecordingTracer();
  setDispatchTracer(tracer);
  const app = new Shop();
  app.on('order', function onOrder() {});
  const lib = new Cart();
  libSubscribe(lib, 'item');
  const appBus = processWideBus(app);
  const libBus = processWideBus(lib);
  assert.ok(appBus !== undefined && libBus !== undefined, 'both are buses (mode all)');
  app.emit('order', 1);
  lib.emit('item', 2);
  assert.deepEqual(
    tracer.dispatches.map((d) => [d.bus, d.type, d.delivered]),
    [[appBus.name, 'order', 1]],
    'the library emitter is at lifecycle detail',
  );
  focus.add(libBus.busId);
  lib.emit('item', 3);
  assert.deepEqual(tracer.dispatches.map((d) => [d.bus, d.type]).at(-1), [libBus.name, 'item'], 'focused: full detail');
  // The app subscribing too makes it the app's emitter.
  focus.clear();
  lib.on('item', function appToo() {});
  lib.emit('item', 4);
  assert.deepEqual(tracer.dispatches.map((d) => [d.bus, d.type, d.delivered]).at(-1), [libBus.name, 'item', 2]);
});

test("mode app: only emitters with a listener from the app's own code get a bus", () => {
  install({ mode: 'app' });
  const lib = new Cart();
  libSubscribe(lib, 'item');
  assert.equal(processWideBus(lib), undefined, 'library listeners only: not instrumented');
  const app = new Shop();
  app.on('order', () => undefined);
  assert.ok(processWideBus(app) !== undefined);
  lib.on('item', () => undefined);
  const bus = processWideBus(lib);
  assert.ok(bus !== undefined, 'the app subscribed: instrumented from now on');
  assert.equal(bus.subscriptionsOf('item').length, 2, 'the earlier library listener is a subscription too');
});

test('a class filter instruments only the named classes', () => {
  install({ classes: new Set(['Shop']) });
  const shop = new Shop();
  const cart = new Cart();
  shop.on('a', () => undefined);
  cart.on('a', () => undefined);
  assert.ok(processWideBus(shop) !== undefined);
  assert.equal(processWideBus(cart), undefined);
});

test('emitters made before the probe started are seen as they add listeners or emit', () => {
  const early = new Shop();
  const first = function first(): void {};
  early.on('x', first);
  const quiet = new Shop();
  quiet.on('y', () => undefined);
  install();
  const tracer = new RecordingTracer();
  setDispatchTracer(tracer);
  early.on('x', function second() {});
  const bus = processWideBus(early);
  assert.ok(bus !== undefined);
  assert.deepEqual(
    bus.subscriptionsOf('x').map((s) => s.label),
    ['first', 'second'],
  );
  assert.equal(processWideBus(quiet), undefined);
  quiet.emit('y');
  assert.ok(processWideBus(quiet) !== undefined, 'seen when it emits while recording');
  assert.equal(tracer.dispatches.at(-1)?.type, 'y');
});

test("a socket Node made, whose listeners are all Node's own, gets no bus while nobody records", async () => {
  install();
  const server = net.createServer();
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const socket = await accepted;
  try {
    assert.ok(socket.listenerCount('end') > 0, 'Node added its own listeners');
    assert.equal(processWideBus(socket), undefined);
    assert.ok(processWideBus(server) !== undefined, 'the server has a listener from this file');
    socket.on('data', function appData() {});
    assert.ok(processWideBus(socket) !== undefined, 'the app listening makes it a bus');
  } finally {
    client.destroy();
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a target watched with probe.watch is instrumented by its own wrappers only (one bus, not two)', () => {
  install();
  const ee = new Shop();
  ee.on('a', () => undefined);
  const before = processWideBus(ee);
  assert.ok(before !== undefined);
  const handle = probe.watch(ee, { name: 'mine' });
  assert.equal(processWideBus(ee), undefined, 'the process-wide bus left');
  assert.ok(before.disposed);
  ee.on('a', () => undefined);
  assert.equal(processWideBus(ee), undefined);
  handle.dispose();
});

test('instances are held weakly: a collected emitter leaves the registry', async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return; // run with --expose-gc
  install();
  let busId = 0;
  (() => {
    const ee = new Shop();
    ee.on('a', () => undefined);
    busId = (processWideBus(ee) as { busId: number }).busId;
  })();
  for (let i = 0; i < 10 && [...allBuses()].some((b) => b.busId === busId); i++) {
    await new Promise((r) => setImmediate(r));
    gc();
  }
  assert.ok(![...allBuses()].some((b) => b.busId === busId), 'collected');
});

test('uninstalling restores both prototypes exactly (descriptors and identity) and closes every bus made', () => {
  const shape = (proto: object): unknown => Reflect.ownKeys(proto).map((k) => [String(k), Object.getOwnPropertyDescriptor(proto, k)]);
  const ee = shape(EventEmitter.prototype);
  const et = shape(EventTarget.prototype);
  install();
  const tracer = new RecordingTracer();
  setDispatchTracer(tracer);
  assert.notDeepEqual(shape(EventEmitter.prototype), ee);
  const shop = new Shop();
  shop.on('a', () => undefined);
  const target = new EventTarget();
  target.addEventListener('a', () => undefined);
  const buses = [processWideBus(shop), processWideBus(target)];
  uninstallProcessWide();
  assert.deepStrictEqual(shape(EventEmitter.prototype), ee);
  assert.deepStrictEqual(shape(EventTarget.prototype), et);
  for (const bus of buses) assert.ok(bus?.disposed, 'closed');
  setDispatchTracer(undefined);
  assert.deepStrictEqual(shape(EventEmitter.prototype), ee, 'tracing stopping after uninstall changes nothing');
});

test('probe.start({ emitters, emitterClasses }): bad values are precise TypeErrors', () => {
  assert.throws(() => probe.start({ emitters: 'some' as 'all' }), {
    name: 'TypeError',
    message: 'probe.start: options.emitters must be one of all, app, off (got "some")',
  });
  assert.throws(() => probe.start({ emitterClasses: 'Socket' as unknown as string[] }), {
    name: 'TypeError',
    message: 'probe.start: options.emitterClasses must be an array of class names (got "Socket")',
  });
  assert.throws(() => probe.start({ emitterClasses: ['Socket', ''] }), {
    name: 'TypeError',
    message: 'probe.start: options.emitterClasses[1] must be a non-empty class name (got "")',
  });
});

test('probe.start({ emitters: "all" }) instruments while started, and stop() puts the prototype back', async () => {
  const on = EventEmitter.prototype.on;
  await probe.start({ discovery: false, emitters: 'all' });
  try {
    assert.notEqual(EventEmitter.prototype.on, on);
    const shop = new Shop();
    shop.on('a', () => undefined);
    const bus = processWideBus(shop);
    assert.ok(bus !== undefined);
    assert.ok(
      probe.snapshot().buses.some((b) => b.id === bus.busId),
      'in the snapshot',
    );
  } finally {
    await probe.stop();
  }
  assert.equal(EventEmitter.prototype.on, on);
});

test('BUSSCOPE_EMITTERS and BUSSCOPE_EMITTER_CLASSES: accepted values, register defaults, one warning per bad value', () => {
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1' }).start, {});
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_EMITTERS: 'ALL' }).start, { emitters: 'all' });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_EMITTERS: 'app', BUSSCOPE_EMITTER_CLASSES: 'Socket, Server' }).start, {
    emitters: 'app',
    emitterClasses: ['Socket', 'Server'],
  });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_EMITTERS: 'all' }).start, undefined, 'without BUSSCOPE nothing starts');
  // Under register: on unless BUSSCOPE says off; every emitter unless BUSSCOPE_EMITTERS says otherwise.
  assert.deepEqual(readProbeEnvironment({}, 'register').start, { emitters: 'all' });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_EMITTERS: 'off' }, 'register').start, {});
  assert.equal(readProbeEnvironment({ BUSSCOPE: '0' }, 'register').start, undefined);
  const bad = readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_EMITTERS: 'everything' });
  assert.deepEqual(bad.start, {}, 'the probe starts; no emitter is instrumented');
  assert.deepEqual(bad.problems, [
    'BUSSCOPE_EMITTERS="everything" is not accepted (use one of all, app, off); no emitter is instrumented (the probe itself starts)',
  ]);
  const badClasses = readProbeEnvironment({ BUSSCOPE_EMITTER_CLASSES: 'Socket,,my-class' }, 'register');
  assert.deepEqual(badClasses.start, {});
  assert.deepEqual(badClasses.problems, [
    'BUSSCOPE_EMITTER_CLASSES="Socket,,my-class" is not accepted (use class names separated by commas, e.g. Socket,Server); no emitter is instrumented (the probe itself starts)',
  ]);
});

test("the instrumented prototype methods report Node's own names and lengths (on is named addListener)", () => {
  const shape = (): unknown => [
    ...['on', 'addListener', 'prependListener', 'once', 'prependOnceListener', 'off', 'removeListener', 'removeAllListeners', 'emit'].map((k) => {
      const f = (EventEmitter.prototype as unknown as Record<string, Function>)[k];
      return [k, f.name, f.length];
    }),
    ...['addEventListener', 'removeEventListener', 'dispatchEvent'].map((k) => {
      const f = (EventTarget.prototype as unknown as Record<string, Function>)[k];
      return [k, f.name, f.length];
    }),
  ];
  const before = shape();
  install();
  const tracer = new RecordingTracer();
  setDispatchTracer(tracer); // `emit` is the wrapper now
  assert.deepEqual(shape(), before);
});

test("Node's own listener functions are classified once: later connections' internal subscribes read no stack", async () => {
  install();
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const accepted: net.Socket[] = [];
  server.on('connection', (s) => accepted.push(s));
  const until = (n: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const check = (): void => (accepted.length >= n ? resolve() : void setTimeout(check, 5));
      check();
    });
  // The clients are another process, so only the accepting side runs here.
  const client = spawn(
    process.execPath,
    [
      '-e',
      `const net = require('net'); const all = []; let n = 0; const next = () => { all.push(net.connect(${port}, '127.0.0.1')); if (++n < 4) setTimeout(next, 150); }; next(); setTimeout(() => process.exit(0), 5000);`,
    ],
    { stdio: 'ignore' },
  );
  const E = Error as unknown as { captureStackTrace: (o: object, f?: Function) => void };
  const capture = E.captureStackTrace;
  try {
    await until(1);
    // Counted through Error.captureStackTrace, which is what reading the stack costs.
    let captures = 0;
    E.captureStackTrace = (o, f) => {
      captures++;
      capture(o, f);
    };
    await until(4);
    E.captureStackTrace = capture;
    assert.equal(captures, 0, 'connections like the first cost no stack read');
    assert.ok(
      accepted.every((s) => processWideBus(s) === undefined),
      'and get no bus',
    );
  } finally {
    E.captureStackTrace = capture;
    client.kill();
    for (const s of accepted) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("an app's subscribe on an instrumented emitter reads the stack once, shared by its origin and its site", async () => {
  await probe.start({ discovery: false, emitters: 'all' });
  const E = Error as unknown as { captureStackTrace: (o: object, f?: Function) => void };
  const capture = E.captureStackTrace;
  try {
    const shop = new Shop();
    shop.on('warm', () => undefined); // the bus exists; this file's line is a known site
    let captures = 0;
    E.captureStackTrace = (o, f) => {
      captures++;
      capture(o, f);
    };
    const perRequest = function perRequest(): void {};
    const line = lineOfCaller() + 3;
    shop.on('order', perRequest);
    shop.off('order', perRequest);
    shop.on('order', perRequest); // line
    E.captureStackTrace = capture;
    assert.equal(captures, 2, 'one stack read per subscribe (origin and site together), none per unsubscribe');
    const bus = processWideBus(shop);
    assert.ok(bus !== undefined);
    assert.equal(bus.subscriptionsOf('order')[0].origin, 'app', "the app's own code: not a library's");
    const sub = probe.snapshot().subscriptions.find((s) => s.bus === bus.busId && s.type === 'order');
    assert.equal(sub?.site?.file, __filename, "the site is the app's own call");
    assert.equal(sub?.site?.line, line);
  } finally {
    E.captureStackTrace = capture;
    await probe.stop();
  }
});

/** The line this is called from. */
function lineOfCaller(): number {
  return Number(/:(\d+):\d+\)?$/.exec(new Error().stack?.split('\n')[2] ?? '')?.[1]);
}
