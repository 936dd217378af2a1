// Property test: random programs of on / addListener / prependListener / once / prependOnceListener /
// off / removeListener / removeAllListeners / emit — also from inside listeners (removal and addition
// during emit, nested emits), throwing listeners, 'error' with and without listeners, a Symbol event
// name, newListener / removeListener listeners, captureRejections — run on a plain EventEmitter (the
// reference) and on one watched by the probe. Both runs must produce the same trace: every listener
// call (which listener, `this`, arguments), every step's return value or thrown error (the very
// object the listener or the app threw), and after each step the same eventNames(), listenerCount(),
// listeners() and rawListeners() (once wrappers mapped back to their listener). The watched run is
// done twice: with the probe recording to a trace file (the traced emit path) and with the probe
// started and nobody recording (the idle path), and a third time with tracing switched on and off by
// the program itself, between and inside emits (the probe swaps its emit wrapper in and out). After each program the watch is disposed: the
// emitter's own properties are exactly as before and its listeners still work.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { probe } from '../../../runtime-probe/src/index';
import { currentDispatchTracer, setDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { RecordingTracer } from '../demo/recording-tracer';
import { watchedBus } from '../../../runtime-probe/src/emitters/watch';
import { installProcessWide, processWideBus, uninstallProcessWide } from '../../../runtime-probe/src/emitters/process-wide';

const SYM = Symbol('sym');
const TYPES = ['a', 'b', 'error', SYM, 'newListener', 'removeListener'] as const;
type TypeIndex = number;
const LISTENERS = 5;
const CALL_BUDGET = 60;
const ADD_METHODS = ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener'] as const;
const REMOVE_METHODS = ['off', 'removeListener'] as const;

type Script =
  | { kind: 'log' }
  | { kind: 'throw' }
  | { kind: 'return'; value: number }
  | { kind: 'reject' }
  | { kind: 'add'; method: (typeof ADD_METHODS)[number]; type: TypeIndex; listener: number }
  | { kind: 'remove'; method: (typeof REMOVE_METHODS)[number]; type: TypeIndex; listener: number }
  | { kind: 'removeAll'; type: TypeIndex | undefined }
  | { kind: 'emit'; type: TypeIndex }
  | { kind: 'toggle' };

type Step =
  | { kind: 'add'; method: (typeof ADD_METHODS)[number]; type: TypeIndex; listener: number }
  | { kind: 'remove'; method: (typeof REMOVE_METHODS)[number]; type: TypeIndex; listener: number }
  | { kind: 'removeAll'; type: TypeIndex | undefined }
  | { kind: 'emit'; type: TypeIndex; args: number }
  | { kind: 'emitError'; withObject: boolean }
  | { kind: 'toggle' };

interface Program {
  readonly captureRejections: boolean;
  readonly scripts: readonly Script[];
  readonly steps: readonly Step[];
}

const typeIndex = fc.integer({ min: 0, max: TYPES.length - 1 });
const listenerIndex = fc.integer({ min: 0, max: LISTENERS - 1 });
const script: fc.Arbitrary<Script> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'log' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'throw' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('return' as const), value: fc.integer({ min: 0, max: 9 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reject' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), method: fc.constantFrom(...ADD_METHODS), type: typeIndex, listener: listenerIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), method: fc.constantFrom(...REMOVE_METHODS), type: typeIndex, listener: listenerIndex }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeAll' as const), type: fc.option(typeIndex, { nil: undefined }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('emit' as const), type: typeIndex }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'toggle' as const }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), method: fc.constantFrom(...ADD_METHODS), type: typeIndex, listener: listenerIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), method: fc.constantFrom(...REMOVE_METHODS), type: typeIndex, listener: listenerIndex }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeAll' as const), type: fc.option(typeIndex, { nil: undefined }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('emit' as const), type: typeIndex, args: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('emitError' as const), withObject: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'toggle' as const }) },
);

/** Starts or stops tracing dispatches (the third test sets it; elsewhere a no-op). */
let toggleTracing: () => void = () => undefined;
const program: fc.Arbitrary<Program> = fc.record({
  captureRejections: fc.boolean(),
  scripts: fc.array(script, { minLength: LISTENERS, maxLength: LISTENERS }),
  steps: fc.array(step, { minLength: 1, maxLength: 30 }),
});

function typeLabel(t: unknown): string {
  return typeof t === 'symbol' ? t.toString() : String(t);
}

/** Runs a program on `ee` and returns everything the app could observe, as plain data. */
async function run(p: Program, ee: EventEmitter, check?: (ee: EventEmitter) => void): Promise<unknown[]> {
  const log: unknown[] = [];
  let calls = 0;
  const thrown = new Set<unknown>();
  const listeners: ((...args: unknown[]) => unknown)[] = [];
  const idOf = (fn: unknown): string => {
    const i = listeners.indexOf(fn as (...args: unknown[]) => unknown);
    if (i >= 0) return `L${i}`;
    const inner = (fn as { listener?: unknown }).listener;
    const j = listeners.indexOf(inner as (...args: unknown[]) => unknown);
    if (j >= 0) return `once(L${j})`;
    return typeof fn === 'function' ? `fn:${fn.name}` : typeLabel(fn);
  };
  const show = (v: unknown): unknown => {
    if (typeof v === 'function') return idOf(v);
    if (typeof v === 'symbol') return v.toString();
    if (v instanceof Error) return `${thrown.has(v) ? 'own' : 'other'} ${v.name}: ${v.message}`;
    return v;
  };
  const state = (): unknown => {
    const names = ee.eventNames().map(typeLabel);
    const perType = TYPES.map((t) => ({
      type: typeLabel(t),
      count: ee.listenerCount(t),
      listeners: ee.listeners(t).map(idOf),
      raw: ee.rawListeners(t).map(idOf),
    }));
    return { names, perType };
  };
  for (let i = 0; i < LISTENERS; i++) {
    const s = p.scripts[i];
    const id = i;
    const fn = function (this: unknown, ...args: unknown[]): unknown {
      log.push({ call: `L${id}`, thisIsEmitter: this === ee, args: args.map(show) });
      if (++calls > CALL_BUDGET) return undefined;
      switch (s.kind) {
        case 'log':
          return undefined;
        case 'throw': {
          const e = new Error(`from L${id}`);
          thrown.add(e);
          throw e;
        }
        case 'return':
          return s.value;
        case 'reject':
          return p.captureRejections ? Promise.reject(new Error(`rejected by L${id}`)) : Promise.resolve(id);
        case 'add':
          (ee[s.method] as (t: unknown, f: unknown) => unknown)(TYPES[s.type], listeners[s.listener]);
          return undefined;
        case 'remove':
          ee[s.method](TYPES[s.type], listeners[s.listener]);
          return undefined;
        case 'removeAll':
          if (s.type === undefined) ee.removeAllListeners();
          else ee.removeAllListeners(TYPES[s.type]);
          return undefined;
        case 'toggle':
          toggleTracing();
          return undefined;
        case 'emit':
          // A nested emit; its outcome is part of the trace.
          try {
            log.push({ nested: ee.emit(TYPES[s.type], `nested-${id}`) });
          } catch (error) {
            log.push({ nestedThrew: show(error) });
          }
          return undefined;
      }
    };
    Object.defineProperty(fn, 'name', { value: `listener${i}` });
    listeners.push(fn);
  }
  // captureRejections hands a rejection to this method on a later tick, as (err, type, ...args).
  (ee as unknown as Record<symbol, unknown>)[Symbol.for('nodejs.rejection')] = (err: unknown, type: unknown, ...args: unknown[]) => {
    log.push({ rejection: err instanceof Error ? err.message : String(err), type: typeLabel(type), args: args.map(show) });
  };
  ee.setMaxListeners(0);
  for (const st of p.steps) {
    let outcome: unknown;
    try {
      switch (st.kind) {
        case 'add':
          outcome = (ee[st.method] as (t: unknown, f: unknown) => unknown)(TYPES[st.type], listeners[st.listener]) === ee;
          break;
        case 'remove':
          outcome = ee[st.method](TYPES[st.type], listeners[st.listener]) === ee;
          break;
        case 'removeAll':
          outcome = (st.type === undefined ? ee.removeAllListeners() : ee.removeAllListeners(TYPES[st.type])) === ee;
          break;
        case 'emit': {
          const args = Array.from({ length: st.args }, (_, k) => ({ k }));
          outcome = ee.emit(TYPES[st.type], ...args);
          break;
        }
        case 'toggle':
          toggleTracing();
          outcome = undefined;
          break;
        case 'emitError': {
          const e = new Error('emitted');
          thrown.add(e);
          outcome = st.withObject ? ee.emit('error', e) : ee.emit('error', 'a string');
          break;
        }
      }
    } catch (error) {
      outcome = { threw: show(error), code: (error as { code?: unknown }).code };
    }
    log.push({ step: st.kind, outcome: show(outcome), state: state() });
    check?.(ee);
    calls = 0;
  }
  // Rejections reach the emitter on a later tick.
  await new Promise((r) => setImmediate(r));
  return log;
}

/** The shadow the probe keeps must match the emitter's stored lists after every step. */
function shadowMatches(ee: EventEmitter): void {
  const bus = watchedBus(ee);
  assert.ok(bus !== undefined, 'the emitter is watched');
  for (const t of TYPES) {
    assert.deepEqual(
      bus.subscriptionsOf(t).map((s) => s.entry),
      ee.rawListeners(t),
      `shadow of ${typeLabel(t)}`,
    );
  }
}

function ownShape(o: object): unknown {
  return Reflect.ownKeys(o).map((k) => {
    const d = Object.getOwnPropertyDescriptor(o, k) as PropertyDescriptor;
    return { key: typeLabel(k), enumerable: d.enumerable, writable: d.writable, configurable: d.configurable, isFunction: typeof d.value === 'function' };
  });
}

async function checkProgram(p: Program, mode: 'recording' | 'idle' | 'toggling'): Promise<void> {
  const reference = await run(p, new EventEmitter({ captureRejections: p.captureRejections }));
  const ee = new EventEmitter({ captureRejections: p.captureRejections });
  const shapeBefore = ownShape(ee);
  const handle = probe.watch(ee, { name: 'watched' });
  const watched = await run(p, ee, shadowMatches);
  assert.deepEqual(watched, reference);
  // Still the mode we meant: a dispatch tracer exactly while recording.
  if (mode !== 'toggling') assert.equal(currentDispatchTracer() !== undefined, mode === 'recording');
  const rejection = (ee as unknown as Record<symbol, unknown>)[Symbol.for('nodejs.rejection')];
  handle.dispose();
  assert.deepEqual(ownShape(ee), [
    ...(shapeBefore as unknown[]),
    { key: 'Symbol(nodejs.rejection)', enumerable: true, writable: true, configurable: true, isFunction: true },
  ]);
  assert.equal((ee as unknown as Record<symbol, unknown>)[Symbol.for('nodejs.rejection')], rejection);
  // Listeners added while watched stay registered and still work.
  const names = ee.eventNames();
  for (const t of names) assert.equal(ee.listenerCount(t), ee.rawListeners(t).length);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-watch-prop-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a watched EventEmitter behaves exactly like a plain one while the probe records', async () => {
  const recording = probe.record(path.join(tmp, 'ee.trace'));
  try {
    assert.ok(currentDispatchTracer() !== undefined, 'recording installs the dispatch tracer');
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgram(p, 'recording')),
      { numRuns: 300 },
    );
  } finally {
    await recording.stop();
  }
  assert.ok(fs.statSync(recording.file).size > 0);
});

test('a watched EventEmitter behaves exactly like a plain one with the probe started and nobody recording', async () => {
  await probe.start({ discovery: false });
  try {
    assert.equal(currentDispatchTracer(), undefined, 'nobody records: no dispatch tracer');
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgram(p, 'idle')),
      { numRuns: 300 },
    );
  } finally {
    await probe.stop();
  }
});

test('a watched EventEmitter behaves exactly like a plain one while tracing starts and stops between and during emits', async () => {
  await probe.start({ discovery: false });
  const tracer = new RecordingTracer();
  toggleTracing = () => setDispatchTracer(currentDispatchTracer() === undefined ? tracer : undefined);
  try {
    await fc.assert(
      fc.asyncProperty(program, async (p) => {
        setDispatchTracer(undefined);
        await checkProgram(p, 'toggling');
      }),
      { numRuns: 300 },
    );
    assert.ok(tracer.dispatches.length > 0, 'some emits were traced');
  } finally {
    toggleTracing = () => undefined;
    setDispatchTracer(undefined);
    await probe.stop();
  }
});

// ---------------------------------------------------------------------------------------------
// The same programs on an emitter instrumented through EventEmitter.prototype (BUSSCOPE_EMITTERS=all,
// busscope-probe/register): the reference runs with the prototype untouched, then the patch goes in
// for the instrumented run and comes out after it — the prototype exactly as before.

function protoShape(): unknown {
  const proto = EventEmitter.prototype as unknown as Record<PropertyKey, unknown>;
  return Reflect.ownKeys(proto).map((k) => [typeLabel(k), Object.getOwnPropertyDescriptor(proto, k)]);
}

/** The prototype patch's shadow must match the stored lists after every step (no bus: no listeners ever added). */
function processShadowMatches(ee: EventEmitter): void {
  const bus = processWideBus(ee);
  for (const t of TYPES) {
    if (bus === undefined) {
      assert.deepEqual(ee.rawListeners(t), [], `no bus, so no listener of ${typeLabel(t)}`);
      continue;
    }
    assert.deepEqual(
      bus.subscriptionsOf(t).map((s) => s.entry),
      ee.rawListeners(t),
      `shadow of ${typeLabel(t)}`,
    );
  }
}

async function checkProgramProcessWide(p: Program, mode: 'recording' | 'idle' | 'toggling'): Promise<void> {
  const before = protoShape();
  const referenceEmitter = new EventEmitter({ captureRejections: p.captureRejections });
  const reference = await run(p, referenceEmitter);
  installProcessWide({ mode: 'all', classes: undefined, focus: () => new Set() });
  let instrumented: unknown[];
  const ee = new EventEmitter({ captureRejections: p.captureRejections });
  try {
    instrumented = await run(p, ee, processShadowMatches);
    if (mode !== 'toggling') assert.equal(currentDispatchTracer() !== undefined, mode === 'recording');
  } finally {
    uninstallProcessWide();
  }
  assert.deepEqual(instrumented, reference);
  assert.deepStrictEqual(protoShape(), before, 'EventEmitter.prototype is exactly as before');
  assert.deepEqual(ownShape(ee), ownShape(referenceEmitter), 'the instance gained no own property');
  assert.equal(processWideBus(ee), undefined);
}

test('an EventEmitter instrumented through its prototype behaves exactly like a plain one while the probe records', async () => {
  const recording = probe.record(path.join(tmp, 'proto.trace'));
  try {
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgramProcessWide(p, 'recording')),
      { numRuns: 300 },
    );
  } finally {
    await recording.stop();
  }
});

test('an EventEmitter instrumented through its prototype behaves exactly like a plain one with nobody recording', async () => {
  await probe.start({ discovery: false });
  try {
    assert.equal(currentDispatchTracer(), undefined);
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgramProcessWide(p, 'idle')),
      { numRuns: 300 },
    );
  } finally {
    await probe.stop();
  }
});

test('an EventEmitter instrumented through its prototype behaves exactly like a plain one while tracing starts and stops', async () => {
  await probe.start({ discovery: false });
  const tracer = new RecordingTracer();
  toggleTracing = () => setDispatchTracer(currentDispatchTracer() === undefined ? tracer : undefined);
  try {
    await fc.assert(
      fc.asyncProperty(program, async (p) => {
        setDispatchTracer(undefined);
        await checkProgramProcessWide(p, 'toggling');
      }),
      { numRuns: 300 },
    );
    assert.ok(tracer.dispatches.length > 0, 'some emits were traced');
  } finally {
    toggleTracing = () => undefined;
    setDispatchTracer(undefined);
    await probe.stop();
  }
});

test("removeAllListeners over duplicate 'removeListener' listeners throws Node's own error, watched or instrumented (found by the property above)", () => {
  const outcome = (mode: 'plain' | 'watched' | 'prototype'): unknown => {
    const ee = new EventEmitter();
    const handle = mode === 'watched' ? probe.watch(ee) : undefined;
    if (mode === 'prototype') installProcessWide({ mode: 'all', classes: undefined, focus: () => new Set() });
    try {
      const fn = function listener0(): void {};
      ee.on('removeListener', fn);
      ee.on('removeListener', fn);
      ee.prependOnceListener('removeListener', fn);
      // Node's loop passes `undefined` to removeListener here, which Node itself rejects.
      try {
        ee.removeAllListeners();
        return { threw: false, left: ee.rawListeners('removeListener').length };
      } catch (error) {
        return { threw: (error as { code?: unknown }).code, left: ee.rawListeners('removeListener').length };
      }
    } finally {
      handle?.dispose();
      if (mode === 'prototype') uninstallProcessWide();
    }
  };
  const reference = outcome('plain');
  assert.deepEqual(outcome('watched'), reference);
  assert.deepEqual(outcome('prototype'), reference);
});
