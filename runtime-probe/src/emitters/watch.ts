// `probe.watch(target, { name? })`: one emitter the app already has, seen as a bus.
//
// Choices the issue leaves open:
//  - Watching a target that is already watched returns another handle on the same watch (same bus,
//    same name — a name passed the second time is ignored); the watch ends when every handle has
//    been disposed. Two parts of an app can watch the same emitter without undoing each other.
//  - Listeners registered before `watch` become subscriptions at once; their subscribe site is the
//    `watch` call (the stack of their real `on` call is gone).
//  - The probe holds watched targets weakly: the bus registry holds the bus by a WeakRef, the bus
//    reaches the target only through the wrappers the target itself holds, and a handle holds its
//    watch by a WeakRef. A target collected while watched is reported gone (FinalizationRegistry).

import { types } from 'node:util';
import { describeValue, disposeSymbol, type Disposable } from '../delegates/disposable';
import { CollectedBus, classNameOf, defaultBusName, EmitterBus } from './emitter-bus';
import { EventTargetBus, isEventTarget, unsupportedEventTarget, watchEventTarget } from './event-target';
import { FUNCTION_ENTRY_KIND } from './function-kind';
import { isMitt, watchMitt } from './mitt';
import { isNanoEvents, watchNanoEvents } from './nanoevents';
import { isNodeEmitter, NODE_ENTRY_KIND, watchNodeEmitter } from './node-emitter';
import type { InstalledMethods } from './own-methods';
import { setWatched } from './process-wide';

export interface WatchOptions {
  /** The bus name shown in every view (default `ClassName#n`). */
  readonly name?: string;
}

/** A handle on a watch: `dispose()` (idempotent) or `using`. */
export interface WatchHandle extends Disposable {
  /** The bus id the watched emitter has in records and views. */
  readonly busId: number;
  /** The bus name the watched emitter has in records and views. */
  readonly name: string;
  [Symbol.dispose](): void;
}

interface Watch {
  readonly bus: EmitterBus;
  readonly installed: InstalledMethods;
  handles: number;
}

/** Watched targets → their watch. Weak: a watch lives as long as its target, no longer. */
const watches = new WeakMap<object, Watch>();
const collected = new FinalizationRegistry<CollectedBus>((gone) => gone.reportGone());

function checkOptions(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`probe.watch: options must be an object (got ${describeValue(options)})`);
  }
  const name = (options as { name?: unknown }).name;
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(`probe.watch: options.name must be a non-empty string (got ${describeValue(name)})`);
  }
  return name;
}

type Kind = 'node-emitter' | 'event-target' | 'mitt' | 'nanoevents';

function kindOf(target: object): Kind | undefined {
  if (isNodeEmitter(target)) return 'node-emitter';
  if (isEventTarget(target)) return 'event-target';
  if (isMitt(target)) return 'mitt';
  if (isNanoEvents(target)) return 'nanoevents';
  return undefined;
}

/** Starts watching `target` (see `Probe.watch`). */
export function watch(target: unknown, options?: WatchOptions): WatchHandle {
  const givenName = checkOptions(options);
  if ((typeof target !== 'object' && typeof target !== 'function') || target === null) {
    throw new TypeError(`probe.watch: target must be an EventEmitter, an EventTarget, a mitt or a nanoevents emitter (got ${describeValue(target)})`);
  }
  const existing = watches.get(target);
  if (existing !== undefined) {
    existing.handles++;
    return handleFor(target, existing);
  }
  if (types.isProxy(target)) {
    // A Proxy's traps decide what defining and deleting properties do: restoring it exactly cannot be promised.
    throw new TypeError('probe.watch: target is a Proxy; watch the object behind it');
  }
  if (!Object.isExtensible(target)) {
    throw new TypeError('probe.watch: target is frozen, sealed or not extensible, so the probe cannot instrument it (nothing was changed)');
  }
  const kind = kindOf(target);
  if (kind === undefined) {
    throw new TypeError(
      `probe.watch: target must be a Node EventEmitter, an EventTarget, a mitt or a nanoevents emitter (got ${describeValue(target)} of class ${classNameOf(target, 'Object')})`,
    );
  }
  let bus: EmitterBus;
  let installed: InstalledMethods;
  switch (kind) {
    case 'node-emitter': {
      bus = new EmitterBus(givenName ?? defaultBusName(classNameOf(target, 'EventEmitter')), NODE_ENTRY_KIND);
      installed = watchNodeEmitter(target as Parameters<typeof watchNodeEmitter>[0], bus);
      break;
    }
    case 'event-target': {
      const et = target as EventTarget;
      const table = EventTargetBus.tableOf(et);
      if (table === undefined) throw unsupportedEventTarget(et);
      const etBus = new EventTargetBus(givenName ?? defaultBusName(classNameOf(target, 'EventTarget')), table);
      bus = etBus;
      installed = watchEventTarget(et, etBus);
      break;
    }
    case 'mitt': {
      bus = new EmitterBus(givenName ?? defaultBusName('mitt'), FUNCTION_ENTRY_KIND);
      installed = watchMitt(target as Parameters<typeof watchMitt>[0], bus);
      break;
    }
    case 'nanoevents': {
      bus = new EmitterBus(givenName ?? defaultBusName('nanoevents'), FUNCTION_ENTRY_KIND);
      installed = watchNanoEvents(target as Parameters<typeof watchNanoEvents>[0], bus);
      break;
    }
    default: {
      const never: never = kind;
      throw new TypeError(`probe.watch: unsupported kind ${String(never)}`);
    }
  }
  const w: Watch = { bus, installed, handles: 1 };
  watches.set(target, w);
  // Its own wrappers see it now: the process-wide instrumentation (if any) leaves it alone.
  setWatched(target, true);
  collected.register(target, new CollectedBus(bus.busId, bus.name, bus.createdAt), bus);
  return handleFor(target, w);
}

function handleFor(target: object, w: Watch): WatchHandle {
  // Weak both ways: a handle kept by the app must not keep the emitter (or its listeners) alive.
  const targetRef = new WeakRef(target);
  const watchRef = new WeakRef(w);
  const { busId, name } = w.bus;
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    const live = watchRef.deref();
    const t = targetRef.deref();
    if (live === undefined || t === undefined || watches.get(t) !== live) return;
    if (--live.handles > 0) return;
    watches.delete(t);
    collected.unregister(live.bus);
    // Own properties first: from here on the target is exactly as it was; then the bus leaves.
    live.installed.restore();
    live.bus.close();
    setWatched(t, false);
  };
  return {
    busId,
    name,
    dispose,
    [disposeSymbol]: dispose,
  } as WatchHandle;
}

/** @internal The bus of a watched target (tests). */
export function watchedBus(target: object): EmitterBus | undefined {
  return watches.get(target)?.bus;
}
