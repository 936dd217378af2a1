// probe.watch: what the probe reports for each kind of emitter (a real trace file, read back with the
// real decoder), refusals that change nothing, restoring exactly, watching twice, weak holding,
// event breakpoints.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mitt from 'mitt';
import { createNanoEvents } from 'nanoevents';
import { probe } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord } from '../../../runtime-probe/src/protocol/index';
import { allBuses, setBusTracer, setDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { eventBreaks } from '../../../runtime-probe/src/debug/event-breaks';
import { RecordingTracer } from '../demo/recording-tracer';

const THIS_FILE = path.basename(__filename);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-watch-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Records `body` to a trace file and returns its data records (the real recorder and decoder). */
async function traced(name: string, body: () => void): Promise<BusRecord[]> {
  const file = path.join(tmp, `${name}.trace`);
  const recording = probe.record(file);
  try {
    body();
  } finally {
    await recording.stop();
  }
  const messages = await readTraceFileMessages(file);
  return messages.flatMap((m) => (m.type === 'records' ? m.records.filter((r) => r.kind !== 'string' && r.kind !== 'site') : []));
}

function ownShape(o: object): unknown {
  return Reflect.ownKeys(o).map((k) => [String(k), Object.getOwnPropertyDescriptor(o, k)]);
}

test('an EventEmitter: named bus, subscriptions with label, site and once, dispatches with per-listener timings, Symbol names', async () => {
  class OrderQueue extends EventEmitter {}
  const q = new OrderQueue();
  const sym = Symbol('drained');
  let handle: ReturnType<typeof probe.watch> | undefined;
  const records = await traced('ee', () => {
    handle = probe.watch(q);
    q.on('order', function onOrder() {}); // subscribe line A
    q.once('order', function onFirstOrder() {});
    q.on(sym, () => undefined);
    q.emit('order', { id: 1 });
    q.emit(sym);
    q.emit('nobody');
    q.removeAllListeners('order');
  });
  assert.ok(handle);
  assert.match(handle.name, /^OrderQueue#\d+$/);
  const bus = records.find((r) => r.kind === 'bus-created' && r.bus === handle?.busId);
  assert.ok(bus && bus.kind === 'bus-created');
  assert.equal(bus.name, handle.name);
  const subs = records.filter((r) => r.kind === 'subscribe' && r.bus === bus.bus);
  assert.deepEqual(
    subs.map((s) => s.kind === 'subscribe' && [s.type, s.label, s.once]),
    [
      ['order', 'onOrder', false],
      ['order', 'onFirstOrder', true],
      ['Symbol(drained)', null, false],
    ],
  );
  for (const s of subs) {
    assert.ok(s.kind === 'subscribe' && s.site !== null, 'a subscribe site');
    assert.equal(path.basename(s.site.file), THIS_FILE, 'the site is the app’s own call');
  }
  const dispatches = records.filter((r) => r.kind === 'dispatch' && r.bus === bus.bus);
  assert.deepEqual(
    dispatches.map((d) => d.kind === 'dispatch' && [d.type, d.delivered]),
    [
      ['order', 2],
      ['Symbol(drained)', 1],
      ['nobody', 0],
    ],
  );
  const first = dispatches[0];
  assert.ok(first.kind === 'dispatch');
  const handlers = records.filter((r) => r.kind === 'handler' && r.seq === first.seq);
  assert.deepEqual(
    handlers.map((h) => h.kind === 'handler' && h.subscriptionId),
    subs.slice(0, 2).map((s) => s.kind === 'subscribe' && s.subscriptionId),
  );
  const unsubs = records.filter((r) => r.kind === 'unsubscribe');
  const onceId = subs[1].kind === 'subscribe' && subs[1].subscriptionId;
  const orderId = subs[0].kind === 'subscribe' && subs[0].subscriptionId;
  assert.deepEqual(
    unsubs
      .filter((u) => u.kind === 'unsubscribe' && (u.subscriptionId === onceId || u.subscriptionId === orderId))
      .map((u) => u.kind === 'unsubscribe' && [u.subscriptionId, u.reason]),
    [
      [onceId, 'once'],
      [orderId, 'clear'],
    ],
  );
  handle.dispose();
});

test('newListener / removeListener emits are lifecycle, not dispatches; throwing listeners are recorded and rethrown', async () => {
  const ee = new EventEmitter();
  const seen: unknown[] = [];
  const boom = new Error('boom');
  let caught: unknown;
  let handle: ReturnType<typeof probe.watch> | undefined;
  const records = await traced('meta', () => {
    handle = probe.watch(ee, { name: 'meta' });
    ee.on('newListener', (type) => seen.push(type));
    ee.on('removeListener', (type) => seen.push(`-${String(type)}`));
    const thrower = function thrower(): void {
      throw boom;
    };
    ee.on('x', thrower);
    try {
      ee.emit('x');
    } catch (error) {
      caught = error;
    }
    ee.off('x', thrower);
  });
  assert.equal(caught, boom);
  assert.deepEqual(seen, ['removeListener', 'x', '-x']);
  assert.ok(handle);
  const types = records.filter((r) => r.kind === 'dispatch' && r.bus === handle?.busId).map((r) => r.kind === 'dispatch' && r.type);
  assert.deepEqual(types, ['x']);
  const errors = records.filter((r) => r.kind === 'handler-error');
  assert.equal(errors.length, 1);
  assert.ok(errors[0].kind === 'handler-error' && errors[0].message.includes('boom'));
  handle.dispose();
});

test('an EventTarget, a mitt and a nanoevents emitter are buses too', async () => {
  const target = new EventTarget();
  const m = mitt<{ ping: number; '*': unknown }>();
  const n = createNanoEvents<{ tick: (a: number, b: number) => void }>();
  const calls: unknown[] = [];
  const handles: ReturnType<typeof probe.watch>[] = [];
  const records = await traced('others', () => {
    handles.push(probe.watch(target, { name: 'target' }), probe.watch(m), probe.watch(n));
    target.addEventListener('go', function onGo() {
      calls.push('go');
    });
    target.addEventListener('go', {
      handleEvent() {
        calls.push('handleEvent');
      },
    });
    m.on('ping', function onPing(v) {
      calls.push(['ping', v]);
    });
    m.on('*', function onAny(type, v) {
      calls.push(['*', type, v]);
    });
    const unbind = n.on('tick', function onTick(this: unknown, a, b) {
      calls.push(['tick', a, b, Array.isArray(this)]);
    });
    target.dispatchEvent(new Event('go'));
    m.emit('ping', 7);
    n.emit('tick', 1, 2);
    unbind();
    n.emit('tick', 3, 4);
  });
  assert.deepEqual(calls, ['go', 'handleEvent', ['ping', 7], ['*', 'ping', 7], ['tick', 1, 2, true]]);
  const [t, mm, nn] = handles;
  assert.equal(t.name, 'target');
  assert.match(mm.name, /^mitt#\d+$/);
  assert.match(nn.name, /^nanoevents#\d+$/);
  const summary = (busId: number): unknown =>
    records
      .filter((r) => (r.kind === 'dispatch' || r.kind === 'subscribe') && r.bus === busId)
      .map((r) => (r.kind === 'dispatch' ? ['dispatch', r.type, r.delivered] : r.kind === 'subscribe' ? ['subscribe', r.type, r.label] : r.kind));
  assert.deepEqual(summary(t.busId), [
    ['subscribe', 'go', 'onGo'],
    ['subscribe', 'go', 'handleEvent'],
    ['dispatch', 'go', 2],
  ]);
  assert.deepEqual(summary(mm.busId), [
    ['subscribe', 'ping', 'onPing'],
    ['subscribe', '*', 'onAny'],
    ['dispatch', 'ping', 2],
  ]);
  assert.deepEqual(summary(nn.busId), [
    ['subscribe', 'tick', 'onTick'],
    ['dispatch', 'tick', 1],
    ['dispatch', 'tick', 0],
  ]);
  const handlerCount = records.filter((r) => r.kind === 'handler').length;
  assert.equal(handlerCount, 5, 'one timing per listener call');
  for (const h of handles) h.dispose();
});

test('disposing restores each kind exactly: own property names and descriptors; listeners added meanwhile still work', () => {
  class Widget extends EventEmitter {}
  const kinds: [string, object, () => void][] = [];
  const ee = new Widget();
  ee.on('a', () => undefined);
  kinds.push(['EventEmitter', ee, () => ee.on('b', () => undefined)]);
  const et = new EventTarget();
  kinds.push(['EventTarget', et, () => et.addEventListener('b', () => undefined)]);
  const m = mitt();
  kinds.push(['mitt', m, () => m.on('b', () => undefined)]);
  const n = createNanoEvents();
  kinds.push(['nanoevents', n, () => n.on('b', () => undefined)]);
  for (const [kind, target, addListener] of kinds) {
    const before = ownShape(target);
    const handle = probe.watch(target);
    assert.notDeepEqual(ownShape(target), before, `${kind}: watching installs something`);
    addListener();
    handle.dispose();
    handle.dispose(); // idempotent
    const afterShape = ownShape(target) as [string, PropertyDescriptor][];
    // Listener storage changed (a listener was added), method properties are back as they were.
    assert.deepEqual(
      afterShape.map(([k]) => k),
      (before as [string, PropertyDescriptor][]).map(([k]) => k),
      `${kind}: own property names`,
    );
    for (const [k, d] of before as [string, PropertyDescriptor][]) {
      if (typeof d.value === 'function') assert.deepEqual(Object.getOwnPropertyDescriptor(target, k), d, `${kind}: ${k}`);
    }
  }
  // The listeners added while watched still run.
  let ran = 0;
  ee.on('c', () => ran++);
  const h = probe.watch(ee);
  ee.on('c', () => ran++);
  h.dispose();
  ee.emit('c');
  assert.equal(ran, 2);
});

test('refusals are TypeErrors and change nothing: frozen, sealed, non-extensible, Proxy, none of the four kinds, bad options', () => {
  const frozen = Object.freeze(new EventEmitter());
  const sealed = Object.seal(new EventEmitter());
  const closed = Object.preventExtensions(new EventTarget());
  const proxied = new Proxy(new EventEmitter(), {});
  for (const [what, target, message] of [
    ['frozen', frozen, /frozen, sealed or not extensible/],
    ['sealed', sealed, /frozen, sealed or not extensible/],
    ['non-extensible', closed, /frozen, sealed or not extensible/],
    ['proxy', proxied, /target is a Proxy/],
    ['plain object', { on() {} }, /must be a Node EventEmitter, an EventTarget, a mitt or a nanoevents emitter/],
    ['function', () => undefined, /must be a Node EventEmitter/],
  ] as const) {
    const before = ownShape(target);
    const busesBefore = [...allBuses()].length;
    assert.throws(
      () => probe.watch(target),
      (e: unknown) => e instanceof TypeError && message.test(e.message),
      what,
    );
    assert.deepEqual(ownShape(target), before, `${what}: unchanged`);
    assert.equal([...allBuses()].length, busesBefore, `${what}: no bus`);
  }
  for (const bad of [null, undefined, 42, 'emitter']) {
    assert.throws(() => probe.watch(bad as unknown as object), /probe\.watch: target must be/);
  }
  assert.throws(() => probe.watch(new EventEmitter(), { name: '' }), /options\.name must be a non-empty string/);
  assert.throws(() => probe.watch(new EventEmitter(), 'x' as unknown as object), /options must be an object/);
  // A non-configurable own method cannot be restored: refused before anything is installed.
  const pinned = new EventEmitter();
  Object.defineProperty(pinned, 'emit', { value: pinned.emit, configurable: false });
  const before = ownShape(pinned);
  assert.throws(() => probe.watch(pinned), /own property "emit" is not configurable/);
  assert.deepEqual(ownShape(pinned), before);
});

test('watching a watched target returns another handle on the same watch; it ends with the last handle', () => {
  const ee = new EventEmitter();
  const before = ownShape(ee);
  const a = probe.watch(ee, { name: 'first' });
  const b = probe.watch(ee, { name: 'second' });
  assert.equal(b.busId, a.busId);
  assert.equal(b.name, 'first');
  a.dispose();
  a.dispose();
  assert.notDeepEqual(ownShape(ee), before, 'still watched through b');
  b.dispose();
  assert.deepEqual(ownShape(ee), before);
  const c = probe.watch(ee);
  assert.notEqual(c.busId, a.busId, 'a new watch after the last handle');
  c.dispose();
});

test('watched targets are held weakly: a dropped emitter is collected and its bus reported gone', async (t) => {
  if (typeof globalThis.gc !== 'function') return t.skip('needs --expose-gc');
  const disposed: number[] = [];
  class NotingDisposals extends RecordingTracer {
    override busDisposed(...args: unknown[]): void {
      disposed.push((args[0] as { busId: number }).busId);
    }
  }
  const tracer = new NotingDisposals();
  tracer.install();
  try {
    let busId = 0;
    let handle: ReturnType<typeof probe.watch> | undefined;
    let ref: WeakRef<object> | undefined;
    (() => {
      const ee = new EventEmitter();
      ee.on('x', () => ee); // a listener that closes over the emitter
      handle = probe.watch(ee);
      busId = handle.busId;
      ref = new WeakRef(ee);
    })();
    for (let i = 0; i < 20 && ref?.deref() !== undefined; i++) {
      await new Promise((r) => setImmediate(r));
      globalThis.gc();
    }
    assert.equal(ref?.deref(), undefined, 'the emitter was collected although its watch handle is still held');
    assert.ok(handle);
    for (let i = 0; i < 20 && !disposed.includes(busId); i++) {
      await new Promise((r) => setTimeout(r, 5));
      globalThis.gc();
    }
    assert.ok(disposed.includes(busId), 'bus reported gone');
    assert.equal(
      [...allBuses()].some((b) => b.busId === busId),
      false,
    );
    handle.dispose(); // harmless
  } finally {
    tracer.uninstall();
  }
});

test('event breakpoints apply to watched emitters: the break is asked for, its condition sees the payload', () => {
  class BreakOnTick extends RecordingTracer {
    override shouldBreak(...args: unknown[]): boolean {
      return args[1] === 'tick';
    }
  }
  const tracer = new BreakOnTick();
  tracer.install();
  const hook = eventBreaks();
  const seen: unknown[] = [];
  hook.setConditions([['tick', 'p.n > 1', (payload) => (seen.push(payload), false)]]);
  try {
    const ee = new EventEmitter();
    const target = new EventTarget();
    const handles = [probe.watch(ee), probe.watch(target)];
    ee.on('tick', () => undefined);
    ee.emit('tick', { n: 2 });
    ee.emit('other', { n: 3 });
    const ev = new Event('tick');
    target.dispatchEvent(ev);
    assert.deepEqual(seen, [{ n: 2 }, ev]);
    for (const h of handles) h.dispose();
  } finally {
    hook.clearConditions();
    tracer.uninstall();
    setBusTracer(undefined);
    setDispatchTracer(undefined);
  }
});

test('an EventTarget listener runs with no probe frame while nobody records, and is timed while recording', async () => {
  const target = new EventTarget();
  const stacks: string[] = [];
  target.addEventListener('x', () => void stacks.push(new Error().stack ?? ''));
  const handle = probe.watch(target);
  target.dispatchEvent(new Event('x'));
  const records = await traced('timing-swap', () => target.dispatchEvent(new Event('x')));
  target.dispatchEvent(new Event('x'));
  handle.dispose();
  const probeFrame = /timedListener/; // the probe's per-listener timing callback
  assert.deepEqual(
    stacks.map((s) => probeFrame.test(s)),
    [false, true, false],
  );
  assert.equal(records.filter((r) => r.kind === 'handler').length, 1);
});

test('a class that overrides emit keeps its override; its emits are recorded whole, without per-listener timings', async () => {
  const seen: string[] = [];
  class Logged extends EventEmitter {
    override emit(type: string | symbol, ...args: unknown[]): boolean {
      seen.push(`emit ${String(type)}`);
      return super.emit(type, ...args);
    }
  }
  const ee = new Logged();
  ee.on('x', (v) => void seen.push(`listener ${String(v)}`));
  let handle: ReturnType<typeof probe.watch> | undefined;
  let returned: boolean | undefined;
  const records = await traced('override', () => {
    handle = probe.watch(ee);
    returned = ee.emit('x', 1);
  });
  assert.equal(returned, true);
  assert.deepEqual(seen, ['emit x', 'listener 1']);
  const d = records.filter((r) => r.kind === 'dispatch' && r.bus === handle?.busId);
  assert.deepEqual(
    d.map((r) => r.kind === 'dispatch' && [r.type, r.delivered]),
    [['x', 1]],
  );
  assert.equal(records.filter((r) => r.kind === 'handler').length, 0);
  handle?.dispose();
});
