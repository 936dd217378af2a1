// The part of `watch` every runtime shares (Node's `probe.watch`, the browser entry's `watch`): the
// argument checks, one watch per target however many handles, weak references both ways, and
// disposal that restores the target. What differs per runtime — which kinds of emitter it knows and
// how it tells a Proxy — comes in as `WatchRuntime`. No Node built-ins here (the browser bundle
// includes it).

import { describeValue, disposeSymbol, type Disposable } from '../delegates/disposable';
import { CollectedBus, type EmitterBus } from './emitter-bus';
import type { InstalledMethods } from './own-methods';

export interface WatchOptions {
  /** The bus name shown in every view (default `ClassName#n`). */
  readonly name?: string;
  /**
   * Browser only: the event types of an EventTarget that are recorded. Required for `window`,
   * `document` and DOM nodes (so `mousemove` cannot flood the page); other EventTargets record every
   * type unless it is given. Node's `probe.watch` ignores it.
   */
  readonly types?: readonly string[];
}

/** A handle on a watch: `dispose()` (idempotent) or `using`. */
export interface WatchHandle extends Disposable {
  /** The bus id the watched emitter has in records and views. */
  readonly busId: number;
  /** The bus name the watched emitter has in records and views. */
  readonly name: string;
  [Symbol.dispose](): void;
}

/** One kind of emitter a runtime can watch. */
export interface WatchKind {
  is(target: object): boolean;
  /** Creates the bus and wraps the target; throws TypeError (having changed nothing) when it cannot. */
  watch(target: object, name: string | undefined, options: WatchOptions | undefined): { readonly bus: EmitterBus; readonly installed: InstalledMethods };
}

export interface WatchRuntime {
  /** `probe.watch` in Node, `watch` in the browser: the prefix of every TypeError. */
  readonly caller: string;
  /** What the target must be, for messages ("a Node EventEmitter, an EventTarget, …"). */
  readonly expected: string;
  readonly kinds: readonly WatchKind[];
  readonly isProxy: ((value: object) => boolean) | undefined;
  /** Told when a target starts (true) or stops (false) being watched. */
  readonly onWatched?: (target: object, watched: boolean) => void;
}

interface Watch {
  readonly bus: EmitterBus;
  readonly installed: InstalledMethods;
  handles: number;
}

/** Watched targets → their watch. Weak: a watch lives as long as its target, no longer. Shared by every runtime's `watch`. */
const watches = /* @__PURE__ */ new WeakMap<object, Watch>();
const collected = /* @__PURE__ */ new FinalizationRegistry<CollectedBus>((gone) => gone.reportGone());

function checkOptions(caller: string, options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`${caller}: options must be an object (got ${describeValue(options)})`);
  }
  const name = (options as { name?: unknown }).name;
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name.length === 0) {
    throw new TypeError(`${caller}: options.name must be a non-empty string (got ${describeValue(name)})`);
  }
  return name;
}

/** The target's class name without running a hostile getter. */
function classOf(target: object): string {
  try {
    const ctor = (target as { constructor?: unknown }).constructor;
    if (typeof ctor === 'function' && ctor.name !== '') return ctor.name;
  } catch {
    // hostile getter
  }
  return 'Object';
}

/** Starts watching `target` with `rt`'s kinds (see `Probe.watch`). */
export function watchWith(rt: WatchRuntime, target: unknown, options?: WatchOptions): WatchHandle {
  const givenName = checkOptions(rt.caller, options);
  if ((typeof target !== 'object' && typeof target !== 'function') || target === null) {
    throw new TypeError(`${rt.caller}: target must be ${rt.expected} (got ${describeValue(target)})`);
  }
  const existing = watches.get(target);
  if (existing !== undefined) {
    existing.handles++;
    return handleFor(rt, target, existing);
  }
  if (rt.isProxy?.(target) === true) {
    // A Proxy's traps decide what defining and deleting properties do: restoring it exactly cannot be promised.
    throw new TypeError(`${rt.caller}: target is a Proxy; watch the object behind it`);
  }
  if (!Object.isExtensible(target)) {
    throw new TypeError(`${rt.caller}: target is frozen, sealed or not extensible, so the probe cannot instrument it (nothing was changed)`);
  }
  const kind = rt.kinds.find((k) => k.is(target));
  if (kind === undefined) {
    throw new TypeError(`${rt.caller}: target must be ${rt.expected} (got ${describeValue(target)} of class ${classOf(target)})`);
  }
  const { bus, installed } = kind.watch(target, givenName, options);
  const w: Watch = { bus, installed, handles: 1 };
  watches.set(target, w);
  rt.onWatched?.(target, true);
  collected.register(target, new CollectedBus(bus.busId, bus.name, bus.createdAt), bus);
  return handleFor(rt, target, w);
}

function handleFor(rt: WatchRuntime, target: object, w: Watch): WatchHandle {
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
    rt.onWatched?.(t, false);
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
