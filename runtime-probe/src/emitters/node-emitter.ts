// Node's EventEmitter. The emitter's listener storage is never touched: `listeners()`,
// `rawListeners()`, `listenerCount()`, `eventNames()` and `_events` stay exactly as without the probe.
//  - Subscriptions: the methods that add or remove listeners are wrapped; after each call the shadow
//    is synced with the stored list (so `once` → `on`, `removeAllListeners` → `removeListener`, a
//    `newListener` listener adding listeners, all come out right, whatever the order of calls).
//  - Dispatches: while something records, `emit` is wrapped; otherwise the instance's `emit` own
//    property is the emitter's own `emit` (no cost at all). While recording, the wrapper runs the
//    same steps as Node's own `emit` (events.js), timing each listener: snapshot of the stored list,
//    listeners called with the emitter as `this`, the first throw propagating unchanged, promise
//    results handed to `captureRejections` the way Node does. An `'error'` with no listener and any
//    class that overrides `emit` run the original `emit` instead (the dispatch is recorded without
//    per-listener timings), so nothing can differ from Node there.
//  - `newListener` / `removeListener` emits are lifecycle, not dispatches: they go straight through.
// `watchNodeEmitter` installs these as own properties of one instance; the functions below take the
// instance and its bus as arguments so a prototype-wide patch can call them too.

import { EventEmitter } from 'node:events';
import { currentDispatchTracer, type DispatchTracer } from '../bus/tracer';
import { eventBreakDone } from '../debug/event-breaks';
import {
  breakRequested,
  callListener,
  dispatchEnd,
  dispatchStart,
  EmitterBus,
  handlerEnd,
  handlerError,
  handlerStart,
  payloadOf,
  timingOn,
  type EntryKind,
  type EventKey,
  type ListenerSubscription,
} from './emitter-bus';
import { installMethods, methodOf, type InstalledMethods } from './own-methods';

const proto = EventEmitter.prototype as unknown as Record<PropertyKey, unknown>;
const nodeEmit = EventEmitter.prototype.emit;
/** Node's private captureRejections flag (an own symbol of the prototype and of every instance). */
const kCapture: symbol | undefined = Object.getOwnPropertySymbols(proto).find((s) => s.description === 'kCapture');
const kRejection = Symbol.for('nodejs.rejection');
const kErrorMonitor = EventEmitter.errorMonitor;

type Stored = Function & { listener?: unknown };
type Events = Record<PropertyKey, Stored | Stored[] | undefined>;
interface NodeEmitterLike {
  _events?: Events;
  emit(type: EventKey, ...args: unknown[]): boolean;
}

/** A once wrapper (Node's `_onceWrap`) carries the user's listener as `.listener`. */
function userListener(entry: unknown): unknown {
  // Node's removeAllListeners may pass `undefined` (its loop over a list that shrinks under it).
  if (typeof entry !== 'function' && (typeof entry !== 'object' || entry === null)) return entry;
  const inner = (entry as { listener?: unknown }).listener;
  return typeof inner === 'function' ? inner : entry;
}

export const NODE_ENTRY_KIND: EntryKind = {
  label(entry) {
    const fn = userListener(entry) as { name?: unknown };
    return typeof fn.name === 'string' && fn.name !== '' ? fn.name : undefined;
  },
  once(entry) {
    return userListener(entry) !== entry;
  },
};

export function isNodeEmitter(target: object): target is EventEmitter {
  return target instanceof EventEmitter;
}

/** Node stores keys as property keys: symbols as they are, anything else as its string. */
export function nodeKey(type: unknown): PropertyKey {
  return typeof type === 'symbol' ? type : typeof type === 'string' ? type : String(type);
}

const ONE: unknown[] = [undefined];
const NONE: readonly unknown[] = [];

/**
 * The stored list of `key`, read without copying (`_events`, what Node's own methods read). The
 * result is only valid until the next call here; `sync` does not keep it.
 */
function storedEntries(target: NodeEmitterLike, key: PropertyKey): ArrayLike<unknown> {
  const events = target._events;
  if (events === undefined || events === null || typeof events !== 'object') {
    return (EventEmitter.prototype.rawListeners as (this: unknown, k: PropertyKey) => unknown[]).call(target, key);
  }
  const stored = events[key];
  if (stored === undefined) return NONE;
  if (typeof stored === 'function') {
    ONE[0] = stored;
    return ONE;
  }
  return stored;
}

/** Brings the shadow of `key` in line with the emitter. */
export function syncNodeKey(bus: EmitterBus, target: NodeEmitterLike, type: unknown, prepend: boolean, reason: 'dispose' | 'once' | 'clear'): void {
  const key = nodeKey(type);
  bus.sync(key, storedEntries(target, key), prepend, reason);
  ONE[0] = undefined;
}

/** Every key the emitter or the shadow knows (after `removeAllListeners()`, or when watching starts). */
export function syncNodeAll(bus: EmitterBus, target: NodeEmitterLike, reason: 'clear' | 'dispose'): void {
  const keys = new Set<PropertyKey>(bus.keys() as PropertyKey[]);
  const events = target._events;
  if (events !== undefined && events !== null && typeof events === 'object') for (const k of Reflect.ownKeys(events)) keys.add(k);
  for (const key of keys) syncNodeKey(bus, target, key, false, reason);
}

// ---------------------------------------------------------------------------------------------
// captureRejections, as Node's events.js does it (addCatch / emitUnhandledRejectionOrErr)

function emitUnhandledRejectionOrErr(ee: Record<PropertyKey, unknown> & NodeEmitterLike, err: unknown, type: EventKey, args: unknown[]): void {
  const handler = ee[kRejection];
  if (typeof handler === 'function') {
    handler.call(ee, err, type, ...args);
  } else {
    const k = kCapture as symbol;
    const prev = ee[k];
    try {
      ee[k] = false;
      ee.emit('error', err);
    } finally {
      ee[k] = prev;
    }
  }
}

function addCatch(that: Record<PropertyKey, unknown> & NodeEmitterLike, promise: unknown, type: EventKey, args: unknown[]): void {
  if (!that[kCapture as symbol]) return;
  try {
    const then = (promise as { then?: unknown }).then;
    if (typeof then === 'function') {
      then.call(promise, undefined, function (err: unknown) {
        process.nextTick(emitUnhandledRejectionOrErr, that, err, type, args);
      });
    }
  } catch (err) {
    that.emit('error', err);
  }
}

// ---------------------------------------------------------------------------------------------
// emit while recording

/** Whether `tracedNodeEmit` may replicate Node's loop for an emitter whose `emit` is `original`. */
export function canReplicateEmit(original: Function): boolean {
  return original === nodeEmit && kCapture !== undefined;
}

/**
 * One traced `emit(type, ...args)`. `replicate`: the emitter's `emit` is Node's own (per-listener
 * timings); otherwise `original` runs and the dispatch is recorded as a whole.
 */
export function tracedNodeEmit(
  tracer: DispatchTracer,
  bus: EmitterBus,
  target: NodeEmitterLike,
  original: Function,
  replicate: boolean,
  type: EventKey,
  args: unknown[],
): boolean {
  const key = nodeKey(type);
  const name = bus.typeName(key);
  if (!replicate || (type === 'error' && storedEntries(target, key).length === 0)) {
    // Node's own throw for an unhandled 'error' (its stack enhancement included), or an `emit` we
    // must not second-guess: the original runs; the dispatch is recorded around it.
    const delivered = storedEntries(target, key).length;
    ONE[0] = undefined;
    const seq = dispatchStart(tracer, bus, name, payloadOf(args));
    try {
      return Reflect.apply(original, target, [type, ...args]) as boolean;
    } finally {
      dispatchEnd(tracer, seq, type === 'error' && delivered === 0 ? 0 : delivered);
    }
  }
  const events = target._events;
  if (type === 'error' && events !== undefined && events[kErrorMonitor] !== undefined) target.emit(kErrorMonitor, ...args);
  const stored = events === undefined ? undefined : events[key];
  if (stored === undefined) {
    const seq = dispatchStart(tracer, bus, name, payloadOf(args));
    dispatchEnd(tracer, seq, 0);
    return false;
  }
  // Node's `arrayClone` of the stored list: listeners added or removed meanwhile do not change this emit.
  const listeners: Stored[] = typeof stored === 'function' ? [stored] : stored.slice();
  const subs = bus.sync(key, listeners, false, 'dispose');
  const seq = dispatchStart(tracer, bus, name, payloadOf(args));
  const len = listeners.length;
  let delivered = 0;
  try {
    for (let i = 0; i < len; ++i) {
      const sub: ListenerSubscription | undefined = subs[i];
      delivered++;
      if (sub !== undefined) handlerStart(tracer, seq, sub);
      let result: unknown;
      try {
        result = callListener(tracer, seq, sub, listeners[i], target, args);
      } catch (error) {
        if (sub !== undefined) {
          handlerError(tracer, seq, bus, sub, error);
          handlerEnd(tracer, seq, sub);
        }
        throw error;
      }
      if (sub !== undefined) handlerEnd(tracer, seq, sub);
      if (result !== undefined && result !== null) addCatch(target as Record<PropertyKey, unknown> & NodeEmitterLike, result, type, args);
    }
  } finally {
    dispatchEnd(tracer, seq, delivered);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// One instance

const ADDERS = ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener'] as const;
const REMOVERS = ['off', 'removeListener'] as const;

/** Installs the wrappers on `target`; the returned handle restores its own properties exactly. */
export function watchNodeEmitter(target: EventEmitter, bus: EmitterBus): InstalledMethods {
  const emitter = target as unknown as NodeEmitterLike;
  const originals = new Map<string, Function>();
  for (const name of [...ADDERS, ...REMOVERS, 'removeAllListeners', 'emit']) originals.set(name, methodOf(target, name));
  const wrappers: Record<string, Function> = {};

  for (const name of ADDERS) {
    const original = originals.get(name) as Function;
    const prepend = name.startsWith('prepend');
    wrappers[name] = {
      [name](this: unknown, type: unknown): unknown {
        if (this !== target) return Reflect.apply(original, this, arguments);
        try {
          return Reflect.apply(original, this, arguments);
        } finally {
          syncNodeKey(bus, emitter, type, prepend, 'dispose');
        }
      },
    }[name];
  }
  for (const name of REMOVERS) {
    const original = originals.get(name) as Function;
    wrappers[name] = {
      [name](this: unknown, type: unknown, listener: unknown): unknown {
        if (this !== target) return Reflect.apply(original, this, arguments);
        try {
          return Reflect.apply(original, this, arguments);
        } finally {
          // Node's once wrapper removes itself by passing the wrapper (users pass their own function).
          syncNodeKey(bus, emitter, type, false, userListener(listener) !== listener ? 'once' : 'dispose');
        }
      },
    }[name];
  }
  {
    const original = originals.get('removeAllListeners') as Function;
    wrappers.removeAllListeners = function removeAllListeners(this: unknown, type?: unknown): unknown {
      if (this !== target) return Reflect.apply(original, this, arguments);
      const all = arguments.length === 0;
      try {
        return Reflect.apply(original, this, arguments);
      } finally {
        if (all) syncNodeAll(bus, emitter, 'clear');
        else syncNodeKey(bus, emitter, type, false, 'clear');
      }
    };
  }
  const originalEmit = originals.get('emit') as Function;
  {
    const original = originalEmit;
    const replicate = canReplicateEmit(original);
    wrappers.emit = function emit(this: unknown, type: unknown): unknown {
      const tracer = currentDispatchTracer();
      if (tracer === undefined || this !== target || type === 'newListener' || type === 'removeListener') {
        return Reflect.apply(original, this, arguments);
      }
      const args: unknown[] = [];
      for (let i = 1; i < arguments.length; i++) args.push(arguments[i]);
      if (breakRequested(tracer, bus, bus.typeName(nodeKey(type)), payloadOf(args))) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
        // `emit` call. Step out to see it.
        // eslint-disable-next-line no-debugger
        debugger;
        eventBreakDone();
      }
      return tracedNodeEmit(tracer, bus, emitter, original, replicate, type, args);
    };
  }
  // `emit` is the wrapper only while something records; otherwise the emitter's own `emit`.
  const emitWrapper = wrappers.emit;
  wrappers.emit = timingOn() ? emitWrapper : originalEmit;
  const installed = installMethods(target, wrappers);
  bus.onTiming = (on) => installed.replace('emit', on ? emitWrapper : originalEmit);
  bus.register();
  // Listeners registered before watching: subscriptions from now on (their site is this call's).
  syncNodeAll(bus, emitter, 'dispose');
  return installed;
}
