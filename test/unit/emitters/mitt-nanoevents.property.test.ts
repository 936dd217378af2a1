// Property test for mitt and nanoevents, like the EventEmitter one: random programs of on / off (mitt:
// with a handler, or without one to clear the type; nanoevents: the unbind function `on` returned) /
// emit — also from inside listeners (removal and addition during emit, nested emits), throwing
// listeners, mitt's '*' handlers, a Symbol event name — run on a plain instance (the reference) and
// on one watched by the probe, with the probe recording (the traced emit path) and started with
// nobody recording (the idle path). Both runs must give the same trace: every listener call (which
// listener, `this`, arguments), every step's return value or thrown error (the very object thrown),
// and after each step the same stored lists (mitt's `all`, nanoevents' `events`). The probe's shadow
// matches the stored lists after every step; disposing the watch leaves the instance's own
// properties exactly as before.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import mitt from 'mitt';
import { createNanoEvents } from 'nanoevents';
import { probe } from '../../../runtime-probe/src/index';
import { currentDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { watchedBus } from '../../../runtime-probe/src/emitters/watch';

const SYM = Symbol('sym');
const TYPES = ['a', 'b', '*', SYM] as const;
const LISTENERS = 5;
const CALL_BUDGET = 60;

type Script =
  | { kind: 'log' }
  | { kind: 'throw' }
  | { kind: 'return'; value: number }
  | { kind: 'add'; type: number; listener: number }
  | { kind: 'remove'; type: number; listener: number }
  | { kind: 'clear'; type: number }
  | { kind: 'emit'; type: number };
type Step =
  | { kind: 'add'; type: number; listener: number }
  | { kind: 'remove'; type: number; listener: number }
  | { kind: 'clear'; type: number }
  | { kind: 'emit'; type: number; args: number };
interface Program {
  readonly scripts: readonly Script[];
  readonly steps: readonly Step[];
}

const typeIndex = fc.integer({ min: 0, max: TYPES.length - 1 });
const listenerIndex = fc.integer({ min: 0, max: LISTENERS - 1 });
const program: fc.Arbitrary<Program> = fc.record({
  scripts: fc.array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant({ kind: 'log' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'throw' as const }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('return' as const), value: fc.integer({ min: 0, max: 9 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), type: typeIndex, listener: listenerIndex }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), type: typeIndex, listener: listenerIndex }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), type: typeIndex }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('emit' as const), type: typeIndex }) },
    ),
    { minLength: LISTENERS, maxLength: LISTENERS },
  ),
  steps: fc.array(
    fc.oneof(
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('add' as const), type: typeIndex, listener: listenerIndex }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), type: typeIndex, listener: listenerIndex }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), type: typeIndex }) },
      { weight: 5, arbitrary: fc.record({ kind: fc.constant('emit' as const), type: typeIndex, args: fc.integer({ min: 0, max: 3 }) }) },
    ),
    { minLength: 1, maxLength: 30 },
  ),
});

function typeLabel(t: unknown): string {
  return typeof t === 'symbol' ? t.toString() : String(t);
}

/** The operations a program uses, for one library. */
interface Flavor<E extends object> {
  readonly name: string;
  create(): E;
  add(e: E, type: unknown, fn: (...args: unknown[]) => unknown): unknown;
  remove(e: E, type: unknown, fn: (...args: unknown[]) => unknown): unknown;
  clear(e: E, type: unknown): unknown;
  emit(e: E, type: unknown, args: unknown[]): unknown;
  /** The stored lists, as the app could read them. */
  stored(e: E): [unknown, readonly unknown[]][];
}

type Mitt = ReturnType<typeof mitt<Record<string | symbol, unknown>>>;
const MITT: Flavor<Mitt> = {
  name: 'mitt',
  create: () => mitt<Record<string | symbol, unknown>>(),
  add: (e, type, fn) => e.on(type as string, fn),
  remove: (e, type, fn) => e.off(type as string, fn),
  clear: (e, type) => e.off(type as string),
  // mitt's emit takes one payload; more arguments are ignored by mitt and must be by the probe too.
  emit: (e, type, args) => (e.emit as (t: unknown, ...a: unknown[]) => unknown)(type, ...args),
  stored: (e) => [...e.all.entries()].map(([k, v]) => [k, [...(v as unknown[])]]),
};

type Nano = ReturnType<typeof createNanoEvents> & { unbinds?: Map<unknown, () => void> };
const unbinds = new WeakMap<object, Map<string, () => void>>();
const NANO: Flavor<Nano> = {
  name: 'nanoevents',
  create: () => createNanoEvents() as Nano,
  add(e, type, fn) {
    const unbind = e.on(type as string, fn as () => void);
    let m = unbinds.get(e);
    if (m === undefined) unbinds.set(e, (m = new Map()));
    m.set(`${typeLabel(type)}|${fn.name}`, unbind);
    return typeof unbind;
  },
  remove(e, type, fn) {
    // nanoevents removes through the function `on` returned (the latest for this listener and type).
    return unbinds.get(e)?.get(`${typeLabel(type)}|${fn.name}`)?.();
  },
  clear(e, type) {
    // No clear in nanoevents' API: unbind every listener of the type, the way an app would.
    const m = unbinds.get(e);
    if (m === undefined) return undefined;
    for (const [k, unbind] of m) if (k.startsWith(`${typeLabel(type)}|`)) unbind();
    return undefined;
  },
  emit: (e, type, args) => (e.emit as (t: unknown, ...a: unknown[]) => unknown)(type, ...args),
  stored: (e) => Reflect.ownKeys(e.events).map((k) => [k, [...((e.events as Record<PropertyKey, unknown[]>)[k] ?? [])]]),
};

async function run<E extends object>(flavor: Flavor<E>, p: Program, e: E, check?: (e: E) => void): Promise<unknown[]> {
  const log: unknown[] = [];
  let calls = 0;
  const thrown = new Set<unknown>();
  const listeners: ((...args: unknown[]) => unknown)[] = [];
  const idOf = (fn: unknown): string => {
    const i = listeners.indexOf(fn as (...args: unknown[]) => unknown);
    return i >= 0 ? `L${i}` : typeof fn === 'function' ? `fn:${fn.name}` : typeLabel(fn);
  };
  const show = (v: unknown): unknown => {
    if (typeof v === 'function') return idOf(v);
    if (typeof v === 'symbol') return v.toString();
    if (v instanceof Error) return `${thrown.has(v) ? 'own' : 'other'} ${v.name}: ${v.message}`;
    return v;
  };
  const state = (): unknown => flavor.stored(e).map(([k, list]) => [typeLabel(k), list.map(idOf)]);
  for (let i = 0; i < LISTENERS; i++) {
    const s = p.scripts[i];
    const id = i;
    const fn = function (this: unknown, ...args: unknown[]): unknown {
      // `this`: mitt calls handlers unbound (undefined in strict code), nanoevents as the array's method.
      log.push({ call: `L${id}`, thisKind: Array.isArray(this) ? 'array' : this === undefined ? 'undefined' : typeof this, args: args.map(show) });
      if (++calls > CALL_BUDGET) return undefined;
      switch (s.kind) {
        case 'log':
          return undefined;
        case 'throw': {
          const err = new Error(`from L${id}`);
          thrown.add(err);
          throw err;
        }
        case 'return':
          return s.value;
        case 'add':
          flavor.add(e, TYPES[s.type], listeners[s.listener]);
          return undefined;
        case 'remove':
          flavor.remove(e, TYPES[s.type], listeners[s.listener]);
          return undefined;
        case 'clear':
          flavor.clear(e, TYPES[s.type]);
          return undefined;
        case 'emit':
          try {
            log.push({ nested: show(flavor.emit(e, TYPES[s.type], [`nested-${id}`])) });
          } catch (error) {
            log.push({ nestedThrew: show(error) });
          }
          return undefined;
      }
    };
    Object.defineProperty(fn, 'name', { value: `listener${i}` });
    listeners.push(fn);
  }
  for (const st of p.steps) {
    let outcome: unknown;
    try {
      switch (st.kind) {
        case 'add':
          outcome = flavor.add(e, TYPES[st.type], listeners[st.listener]);
          break;
        case 'remove':
          outcome = flavor.remove(e, TYPES[st.type], listeners[st.listener]);
          break;
        case 'clear':
          outcome = flavor.clear(e, TYPES[st.type]);
          break;
        case 'emit':
          outcome = flavor.emit(
            e,
            TYPES[st.type],
            Array.from({ length: st.args }, (_, k) => ({ k })),
          );
          break;
      }
    } catch (error) {
      outcome = { threw: show(error) };
    }
    log.push({ step: st.kind, outcome: show(outcome), state: state() });
    check?.(e);
    calls = 0;
  }
  return log;
}

function shadowMatches<E extends object>(flavor: Flavor<E>): (e: E) => void {
  return (e) => {
    const bus = watchedBus(e);
    assert.ok(bus !== undefined, 'the instance is watched');
    const stored = new Map(flavor.stored(e));
    for (const t of TYPES) {
      assert.deepEqual(
        bus.subscriptionsOf(t).map((s) => s.entry),
        [...(stored.get(t) ?? [])],
        `shadow of ${typeLabel(t)}`,
      );
    }
  };
}

function ownShape(o: object): unknown {
  return Reflect.ownKeys(o).map((k) => {
    const d = Object.getOwnPropertyDescriptor(o, k) as PropertyDescriptor;
    return { key: typeLabel(k), enumerable: d.enumerable, writable: d.writable, configurable: d.configurable, value: d.value };
  });
}

async function checkProgram<E extends object>(flavor: Flavor<E>, p: Program, mode: 'recording' | 'idle'): Promise<void> {
  const reference = await run(flavor, p, flavor.create());
  const e = flavor.create();
  const shapeBefore = ownShape(e);
  const handle = probe.watch(e);
  assert.match(handle.name, new RegExp(`^${flavor.name}#\\d+$`));
  const watched = await run(flavor, p, e, shadowMatches(flavor));
  assert.deepEqual(watched, reference);
  assert.equal(currentDispatchTracer() !== undefined, mode === 'recording');
  handle.dispose();
  assert.deepEqual(ownShape(e), shapeBefore, 'own properties exactly as before the watch');
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-mitt-nano-prop-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

for (const flavor of [MITT, NANO] as Flavor<object>[]) {
  test(`a watched ${flavor.name} instance behaves exactly like a plain one while the probe records`, async () => {
    const recording = probe.record(path.join(tmp, `${flavor.name}.trace`));
    try {
      assert.ok(currentDispatchTracer() !== undefined, 'recording installs the dispatch tracer');
      await fc.assert(
        fc.asyncProperty(program, (p) => checkProgram(flavor, p, 'recording')),
        { numRuns: 300 },
      );
    } finally {
      await recording.stop();
    }
  });

  test(`a watched ${flavor.name} instance behaves exactly like a plain one with the probe started and nobody recording`, async () => {
    await probe.start({ discovery: false });
    try {
      await fc.assert(
        fc.asyncProperty(program, (p) => checkProgram(flavor, p, 'idle')),
        { numRuns: 300 },
      );
    } finally {
      await probe.stop();
    }
  });
}
