// Property test: random programs of addEventListener (with once / signal / capture / passive, function
// listeners and handleEvent objects) / removeEventListener / AbortController.abort / dispatchEvent
// (cancelable or not) — also from inside listeners: adding and removing during a dispatch,
// preventDefault, stopImmediatePropagation, nested dispatches — run on a plain EventTarget (the
// reference) and on one watched by the probe. Both runs must produce the same trace: every listener
// call (which listener, `this`, the event's type / target / cancelable / defaultPrevented as that
// listener sees it), every dispatchEvent result, and after each step the same listeners as
// `events.getEventListeners` reports them. Done once with the probe recording, once idle. After each
// program the watch is disposed: own properties exactly as before, every listener still works and is
// still removable with the app's own function.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { probe } from '../../../runtime-probe/src/index';
import { currentDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { watchedBus } from '../../../runtime-probe/src/emitters/watch';
import { installProcessWide, processWideBus, uninstallProcessWide } from '../../../runtime-probe/src/emitters/process-wide';

const TYPES = ['a', 'b'] as const;
const LISTENERS = 5;
const SIGNALS = 2;
const CALL_BUDGET = 40;

interface AddOptions {
  readonly capture: boolean | undefined;
  readonly once: boolean | undefined;
  readonly passive: boolean | undefined;
  readonly signal: number | undefined;
  /** Pass a plain boolean (the `useCapture` form) instead of an options object. */
  readonly asBoolean: boolean;
}

type Script =
  | { kind: 'log' }
  | { kind: 'preventDefault' }
  | { kind: 'stopImmediate' }
  | { kind: 'add'; type: number; listener: number; options: AddOptions }
  | { kind: 'remove'; type: number; listener: number; capture: boolean }
  | { kind: 'abort'; signal: number }
  | { kind: 'dispatch'; type: number; cancelable: boolean };

type Step =
  | { kind: 'add'; type: number; listener: number; options: AddOptions }
  | { kind: 'remove'; type: number; listener: number; capture: boolean }
  | { kind: 'abort'; signal: number }
  | { kind: 'dispatch'; type: number; cancelable: boolean };

interface Program {
  readonly objects: readonly boolean[];
  readonly scripts: readonly Script[];
  readonly steps: readonly Step[];
}

const typeIndex = fc.integer({ min: 0, max: TYPES.length - 1 });
const listenerIndex = fc.integer({ min: 0, max: LISTENERS - 1 });
const addOptions: fc.Arbitrary<AddOptions> = fc.record({
  capture: fc.option(fc.boolean(), { nil: undefined }),
  once: fc.option(fc.boolean(), { nil: undefined }),
  passive: fc.option(fc.boolean(), { nil: undefined }),
  signal: fc.option(fc.integer({ min: 0, max: SIGNALS - 1 }), { nil: undefined }),
  asBoolean: fc.boolean(),
});
const add = fc.record({ kind: fc.constant('add' as const), type: typeIndex, listener: listenerIndex, options: addOptions });
const remove = fc.record({ kind: fc.constant('remove' as const), type: typeIndex, listener: listenerIndex, capture: fc.boolean() });
const abort = fc.record({ kind: fc.constant('abort' as const), signal: fc.integer({ min: 0, max: SIGNALS - 1 }) });
const dispatch = fc.record({ kind: fc.constant('dispatch' as const), type: typeIndex, cancelable: fc.boolean() });
const script: fc.Arbitrary<Script> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'log' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'preventDefault' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stopImmediate' as const }) },
  { weight: 2, arbitrary: add },
  { weight: 2, arbitrary: remove },
  { weight: 1, arbitrary: abort },
  { weight: 1, arbitrary: dispatch },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: add },
  { weight: 2, arbitrary: remove },
  { weight: 1, arbitrary: abort },
  { weight: 5, arbitrary: dispatch },
);
const program: fc.Arbitrary<Program> = fc.record({
  objects: fc.array(fc.boolean(), { minLength: LISTENERS, maxLength: LISTENERS }),
  scripts: fc.array(script, { minLength: LISTENERS, maxLength: LISTENERS }),
  steps: fc.array(step, { minLength: 1, maxLength: 30 }),
});

type Listener = ((event: Event) => void) | { handleEvent(event: Event): void };

async function run(p: Program, target: EventTarget, check?: (target: EventTarget) => void): Promise<unknown[]> {
  const log: unknown[] = [];
  let calls = 0;
  const controllers = Array.from({ length: SIGNALS }, () => new AbortController());
  const listeners: Listener[] = [];
  const idOf = (l: unknown): string => {
    const i = listeners.indexOf(l as Listener);
    return i >= 0 ? `L${i}` : 'unknown';
  };
  const options = (o: AddOptions): boolean | AddEventListenerOptions | undefined => {
    if (o.asBoolean) return o.capture;
    const out: AddEventListenerOptions = {};
    if (o.capture !== undefined) out.capture = o.capture;
    if (o.once !== undefined) out.once = o.once;
    if (o.passive !== undefined) out.passive = o.passive;
    if (o.signal !== undefined) out.signal = controllers[o.signal].signal;
    return out;
  };
  const act = (s: Step | Script, event: Event | undefined): void => {
    switch (s.kind) {
      case 'log':
        return;
      case 'preventDefault':
        event?.preventDefault();
        return;
      case 'stopImmediate':
        event?.stopImmediatePropagation();
        return;
      case 'add':
        target.addEventListener(TYPES[s.type], listeners[s.listener], options(s.options));
        return;
      case 'remove':
        target.removeEventListener(TYPES[s.type], listeners[s.listener], { capture: s.capture });
        return;
      case 'abort':
        controllers[s.signal].abort();
        return;
      case 'dispatch': {
        const e = new Event(TYPES[s.type], { cancelable: s.cancelable });
        log.push({ dispatched: target.dispatchEvent(e), defaultPrevented: e.defaultPrevented });
        return;
      }
    }
  };
  for (let i = 0; i < LISTENERS; i++) {
    const s = p.scripts[i];
    const id = `L${i}`;
    const body = function (self: unknown, event: Event): void {
      log.push({
        call: id,
        thisOk: self,
        type: event.type,
        targetOk: event.target === target,
        currentOk: event.currentTarget === target,
        cancelable: event.cancelable,
        prevented: event.defaultPrevented,
      });
      if (++calls > CALL_BUDGET) return;
      act(s, event);
      log.push({ after: id, prevented: event.defaultPrevented });
    };
    if (p.objects[i]) {
      const obj = {
        handleEvent(this: unknown, event: Event): void {
          body(this === obj ? 'object' : this === target ? 'target' : 'other', event);
        },
      };
      listeners.push(obj);
    } else {
      const fn = function (this: unknown, event: Event): void {
        body(this === target ? 'target' : 'other', event);
      };
      Object.defineProperty(fn, 'name', { value: `listener${i}` });
      listeners.push(fn);
    }
  }
  for (const st of p.steps) {
    act(st, undefined);
    log.push({ step: st.kind, state: TYPES.map((t) => getEventListeners(target, t).map(idOf)) });
    check?.(target);
    calls = 0;
  }
  // After the program: each listener still registered still runs once more, then is removed with
  // the app's own function (both captures) — which must leave nothing behind.
  for (const t of TYPES) {
    log.push({ final: t, result: target.dispatchEvent(new Event(t, { cancelable: true })) });
  }
  await new Promise((r) => setImmediate(r));
  return log;
}

function shadowMatches(target: EventTarget): void {
  const bus = watchedBus(target);
  assert.ok(bus !== undefined);
  for (const t of TYPES) {
    assert.deepEqual(
      bus.subscriptionsOf(t).map((s) => (s.entry as { listener: unknown }).listener),
      getEventListeners(target, t),
      `shadow of ${t}`,
    );
  }
}

function ownShape(o: object): unknown {
  return Reflect.ownKeys(o).map((k) => {
    const d = Object.getOwnPropertyDescriptor(o, k) as PropertyDescriptor;
    return {
      key: String(k),
      enumerable: d.enumerable,
      writable: d.writable,
      configurable: d.configurable,
      value: typeof d.value === 'object' ? 'object' : d.value,
    };
  });
}

async function checkProgram(p: Program, mode: 'recording' | 'idle'): Promise<void> {
  const reference = await run(p, new EventTarget());
  const target = new EventTarget();
  const shapeBefore = ownShape(target);
  const handle = probe.watch(target);
  const watched = await run(p, target, shadowMatches);
  assert.deepEqual(watched, reference);
  assert.equal(currentDispatchTracer() !== undefined, mode === 'recording');
  handle.dispose();
  assert.deepEqual(ownShape(target), shapeBefore);
  // Restored exactly: listeners registered while watched are the app's own again, removable with
  // the app's function, and they run with their own callbacks.
  const calls: string[] = [];
  const fn = (): void => {
    calls.push('fn');
  };
  const h2 = probe.watch(target);
  target.addEventListener('z', fn);
  h2.dispose();
  assert.deepEqual(getEventListeners(target, 'z'), [fn]);
  target.dispatchEvent(new Event('z'));
  target.removeEventListener('z', fn);
  target.dispatchEvent(new Event('z'));
  assert.deepEqual(calls, ['fn']);
  assert.deepEqual(getEventListeners(target, 'z'), []);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-watch-et-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a watched EventTarget behaves exactly like a plain one while the probe records', async () => {
  const recording = probe.record(path.join(tmp, 'et.trace'));
  try {
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgram(p, 'recording')),
      { numRuns: 300 },
    );
  } finally {
    await recording.stop();
  }
});

test('a watched EventTarget behaves exactly like a plain one with the probe started and nobody recording', async () => {
  await probe.start({ discovery: false });
  try {
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgram(p, 'idle')),
      { numRuns: 300 },
    );
  } finally {
    await probe.stop();
  }
});

// ---------------------------------------------------------------------------------------------
// The same programs on an EventTarget instrumented through EventTarget.prototype (BUSSCOPE_EMITTERS=all):
// reference with the prototype untouched, then the patch in for the instrumented run and out after it.

function protoShape(): unknown {
  const proto = EventTarget.prototype as unknown as Record<PropertyKey, unknown>;
  return Reflect.ownKeys(proto).map((k) => [String(k), Object.getOwnPropertyDescriptor(proto, k)]);
}

function processShadowMatches(target: EventTarget): void {
  const bus = processWideBus(target);
  for (const t of TYPES) {
    if (bus === undefined) {
      assert.deepEqual(getEventListeners(target, t), [], `no bus, so no listener of ${t}`);
      continue;
    }
    assert.deepEqual(
      bus.subscriptionsOf(t).map((s) => (s.entry as { listener: unknown }).listener),
      getEventListeners(target, t),
      `shadow of ${t}`,
    );
  }
}

async function checkProgramProcessWide(p: Program, mode: 'recording' | 'idle'): Promise<void> {
  const before = protoShape();
  const reference = await run(p, new EventTarget());
  const target = new EventTarget();
  const shapeBefore = ownShape(target);
  installProcessWide({ mode: 'all', classes: undefined, focus: () => new Set() });
  let instrumented: unknown[];
  try {
    instrumented = await run(p, target, processShadowMatches);
    assert.equal(currentDispatchTracer() !== undefined, mode === 'recording');
  } finally {
    uninstallProcessWide();
  }
  assert.deepEqual(instrumented, reference);
  assert.deepStrictEqual(protoShape(), before, 'EventTarget.prototype is exactly as before');
  assert.deepEqual(ownShape(target), shapeBefore);
  // Restored exactly: listeners registered while instrumented run with their own callbacks and are
  // removable with the app's own function.
  const calls: string[] = [];
  const fn = (): void => {
    calls.push('fn');
  };
  installProcessWide({ mode: 'all', classes: undefined, focus: () => new Set() });
  target.addEventListener('z', fn);
  uninstallProcessWide();
  assert.deepEqual(getEventListeners(target, 'z'), [fn]);
  target.dispatchEvent(new Event('z'));
  target.removeEventListener('z', fn);
  target.dispatchEvent(new Event('z'));
  assert.deepEqual(calls, ['fn']);
}

test('an EventTarget instrumented through its prototype behaves exactly like a plain one while the probe records', async () => {
  const recording = probe.record(path.join(tmp, 'et-proto.trace'));
  try {
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgramProcessWide(p, 'recording')),
      { numRuns: 300 },
    );
  } finally {
    await recording.stop();
  }
});

test('an EventTarget instrumented through its prototype behaves exactly like a plain one with nobody recording', async () => {
  await probe.start({ discovery: false });
  try {
    await fc.assert(
      fc.asyncProperty(program, (p) => checkProgramProcessWide(p, 'idle')),
      { numRuns: 300 },
    );
  } finally {
    await probe.stop();
  }
});
