// The adapter core: a watched emitter seen as a bus. Whatever the emitter's kind (Node EventEmitter,
// EventTarget, mitt, nanoevents), the emitter keeps its own listener storage — the truth — and this
// object keeps a shadow of it: one subscription per stored entry, in the same order, created and
// retired by comparing the shadow with the emitter's list after each call that may change it
// (`sync`). Nothing here changes the emitter; the adapters decide where to call `sync` and how to
// time a dispatch. A process-wide patch of a prototype reuses this class per instance.
//
// Reports go through the same tracer seam as EventBus (bus/tracer.ts), with ids from the process's
// one id space (bus/runtime.ts), so the recorder, protocol, extension and inspector need no change.

import { describeValue } from '../delegates/disposable';
import type { BusKind } from '../protocol/records';
import type { SiteOrigin } from '../protocol/site-origin';
import { eventBreakWanted } from '../debug/event-breaks';
import { runtime, takeBusId, takeSubscriptionId } from '../bus/runtime';
import { callInScope } from '../bus/scoped-call';
import {
  allBuses,
  currentBusTracer,
  registerBus,
  unregisterBus,
  type DispatchTracer,
  type HandlerCall,
  type SourceSite,
  type TracedBus,
  type TracedSubscription,
  type UnsubscribeReason,
} from '../bus/tracer';

/** An event name as an emitter stores it (mitt and nanoevents accept any Map key / property key). */
export type EventKey = unknown;

/** How an adapter reads one stored entry (a listener function, a once wrapper, a listener record…). */
export interface EntryKind {
  /** The function's name (of the user's function, not of a wrapper), or undefined. */
  label(entry: unknown): string | undefined;
  once(entry: unknown): boolean;
}

/** One stored listener entry as a subscription. `entry` is the emitter's own stored value. */
export class ListenerSubscription implements TracedSubscription {
  readonly priority = 0;
  readonly ownerDescription: string | undefined = undefined;
  calls = 0;
  site: SourceSite | undefined = undefined;
  /** The adapter's per-entry data (the EventTarget adapter keeps the callback it replaced). */
  patch: unknown = undefined;
  /**
   * Whose code subscribed (process-wide instrumentation: the first frame outside the probe that is
   * not Node's, else Node's own frame), for `isLibraryBus`; undefined for `watch`.
   */
  origin: SiteOrigin | undefined = undefined;
  constructor(
    readonly id: number,
    readonly type: string,
    readonly label: string | undefined,
    readonly once: boolean,
    readonly createdAt: number,
    public entry: unknown,
  ) {}
}

const NO_SUBS: readonly ListenerSubscription[] = Object.freeze([]);

let tracerFailureReported = false;
/** A tracer must never break the app: its errors are swallowed and reported once. */
export function tracerFailed(error: unknown): void {
  if (tracerFailureReported) return;
  tracerFailureReported = true;
  try {
    console.error('[busscope] the installed tracer threw while tracing a watched emitter; further tracer errors are ignored:', error);
  } catch {
    // nothing left to report to
  }
}

/** `Symbol(desc)` for symbols (what the views show), the string itself for strings. */
export function eventName(key: EventKey): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'symbol') return key.toString();
  try {
    return String(key);
  } catch {
    return describeValue(key);
  }
}

/** Instances per class name, for `ClassName#n` names. */
const instancesByClass = new Map<string, number>();

/** `ClassName#n`, n counting the watched instances of that class name from 1. */
export function defaultBusName(className: string): string {
  const n = (instancesByClass.get(className) ?? 0) + 1;
  instancesByClass.set(className, n);
  return `${className}#${n}`;
}

/** The target's constructor name, or `fallback` (never runs a getter that could throw into the app). */
export function classNameOf(target: object, fallback: string): string {
  try {
    const ctor = (target as { constructor?: unknown }).constructor;
    if (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '' && ctor !== Object) return ctor.name;
  } catch {
    // a hostile getter: use the fallback
  }
  return fallback;
}

/**
 * Whether dispatches are traced now (a dispatch tracer is installed). Adapters put their timing code
 * in place only while this holds — an `emit` wrapper, per-listener timing callbacks — so with nobody
 * recording a watched emitter runs its own code. The swap follows the tracer slot through the
 * runtime's slot setters (rare: when recording starts or stops), for every watched emitter.
 */
let timing = false;
let hooked = false;
/**
 * Follows the tracer slot from the first watched emitter on (not at load: a page that imports the
 * browser entry without watching anything carries none of this, and a bundler can drop it).
 */
function hookTiming(): void {
  if (hooked) return;
  hooked = true;
  timing = runtime.dispatchTracer !== undefined;
  runtime.copies.push((_tracer, dispatchTracer) => {
    const on = dispatchTracer !== undefined;
    if (on === timing) return;
    timing = on;
    for (const bus of allBuses()) if (bus instanceof EmitterBus) bus.timingChanged(on);
  });
}

/** See `timing` above. */
export function timingOn(): boolean {
  return timing;
}

/**
 * A watched emitter as a bus. The shadow lists are replaced, not mutated, when an entry leaves or is
 * inserted before others, so a traced dispatch keeps iterating the list it started with; appends
 * are done in place (a running dispatch only reads indexes below its own length).
 */
export class EmitterBus implements TracedBus {
  readonly busId: number;
  readonly createdAt: number;
  private readonly lists = new Map<EventKey, ListenerSubscription[]>();
  private readonly names = new Map<EventKey, string>();
  private registration: WeakRef<TracedBus> | undefined;
  private closed = false;
  /** Set by the adapter: puts its timing code in (`true`) or takes it out. */
  onTiming: ((on: boolean) => void) | undefined = undefined;
  /** `origin` given to the subscriptions `sync` creates next (process-wide instrumentation). */
  nextOrigin: SiteOrigin | undefined = undefined;
  /** When set, decides each new subscription's origin from its entry instead (listeners found already there). */
  originOfEntry: ((entry: unknown) => SiteOrigin | undefined) | undefined = undefined;
  /** Set whenever the shadow gains or loses a subscription (read and cleared by whoever caches on it). */
  listenersChanged = false;
  /** Cached by process-wide instrumentation: every listener comes from a library or Node (siteOrigin). */
  library = false;

  constructor(
    readonly name: string,
    private readonly kind: EntryKind,
    /** What the emitter is and its class (sent with the bus's definition, for the analyses' wording). */
    readonly busKind: BusKind,
    readonly className: string,
  ) {
    this.busId = takeBusId();
    this.createdAt = Date.now();
    hookTiming();
  }

  /** Registers the bus with the probe (reports it created). Separate so subclasses finish constructing first. */
  register(): void {
    if (this.registration === undefined) this.registration = registerBus(this);
  }

  get disposed(): boolean {
    return this.closed;
  }

  *tracedSubscriptions(): IterableIterator<TracedSubscription> {
    for (const list of this.lists.values()) yield* list;
  }

  /** The event name shown for `key` (cached: a symbol's text is built once). */
  typeName(key: EventKey): string {
    if (typeof key === 'string') return key;
    let name = this.names.get(key);
    if (name === undefined) {
      name = eventName(key);
      this.names.set(key, name);
    }
    return name;
  }

  /** Keys with a shadow list (possibly empty). */
  keys(): EventKey[] {
    return [...this.lists.keys()];
  }

  /** The shadow list of `key` as it is now (not synced). */
  subscriptionsOf(key: EventKey): readonly ListenerSubscription[] {
    return this.lists.get(key) ?? NO_SUBS;
  }

  /**
   * Aligns the shadow of `key` with `current` (the emitter's stored entries, compared by identity)
   * and returns it, so that `result[i].entry === current[i]`. Entries that left are reported
   * unsubscribed with `reason`, new ones subscribed (the tracer captures the subscribe site from the
   * stack, which holds the app's call). `prepend`: the change, if any, was at the front, which decides
   * which of two identical entries is the new one.
   */
  sync(key: EventKey, current: ArrayLike<unknown>, prepend: boolean, reason: UnsubscribeReason): readonly ListenerSubscription[] {
    if (this.closed) return NO_SUBS;
    const old = this.lists.get(key) ?? NO_SUBS;
    const n = current.length;
    const m = old.length;
    if (m === n) {
      let same = true;
      for (let i = 0; i < n; i++) {
        if (old[i].entry !== current[i]) {
          same = false;
          break;
        }
      }
      if (same) return old;
    }
    // Common prefix and suffix; what lies between left (old) or arrived (current).
    const limit = Math.min(m, n);
    let head = 0;
    let tail = 0;
    if (prepend) {
      while (tail < limit && old[m - 1 - tail].entry === current[n - 1 - tail]) tail++;
      while (head < limit - tail && old[head].entry === current[head]) head++;
    } else {
      while (head < limit && old[head].entry === current[head]) head++;
      while (tail < limit - head && old[m - 1 - tail].entry === current[n - 1 - tail]) tail++;
    }
    const removedEnd = m - tail;
    const addedEnd = n - tail;
    let next: ListenerSubscription[];
    if (head === m && tail === 0 && old !== NO_SUBS) {
      next = old as ListenerSubscription[]; // a pure append: in place
    } else {
      next = old.slice(0, head);
    }
    const name = this.typeName(key);
    const added: ListenerSubscription[] = [];
    for (let i = head; i < addedEnd; i++) {
      const entry = current[i];
      const sub = new ListenerSubscription(takeSubscriptionId(), name, this.kind.label(entry), this.kind.once(entry), Date.now(), entry);
      sub.origin = this.originOfEntry !== undefined ? this.originOfEntry(entry) : this.nextOrigin;
      added.push(sub);
      next.push(sub);
    }
    if (next !== old) for (let i = removedEnd; i < m; i++) next.push(old[i]);
    if (n === 0) this.lists.delete(key);
    else this.lists.set(key, next);
    this.listenersChanged = true;
    for (let i = head; i < removedEnd; i++) this.retired(old[i], reason);
    for (const sub of added) this.reportSubscribed(sub);
    return next;
  }

  /** Called when tracing starts or stops (see `timing`). */
  timingChanged(on: boolean): void {
    if (this.closed || this.onTiming === undefined) return;
    try {
      this.onTiming(on);
    } catch (error) {
      tracerFailed(error);
    }
  }

  /** Hook for adapters that attach something to each entry (called when an entry leaves the shadow). */
  protected onRetire(_sub: ListenerSubscription): void {}

  private retired(sub: ListenerSubscription, reason: UnsubscribeReason): void {
    this.onRetire(sub);
    const tracer = currentBusTracer();
    if (tracer === undefined) return;
    try {
      tracer.unsubscribed(this, sub, reason);
    } catch (error) {
      tracerFailed(error);
    }
  }

  private reportSubscribed(sub: ListenerSubscription): void {
    const tracer = currentBusTracer();
    if (tracer === undefined) return;
    try {
      tracer.subscribed(this, sub);
    } catch (error) {
      tracerFailed(error);
    }
  }

  /**
   * Stops watching: every shadow subscription is reported gone (reason `clear`: the listeners stay
   * registered on the emitter, but the bus leaves the views), then the bus itself. Idempotent.
   */
  close(): void {
    if (this.closed) return;
    const tracer = currentBusTracer();
    for (const list of this.lists.values()) {
      for (const sub of list) {
        this.onRetire(sub);
        if (tracer === undefined) continue;
        try {
          tracer.unsubscribed(this, sub, 'clear');
        } catch (error) {
          tracerFailed(error);
        }
      }
    }
    this.lists.clear();
    this.closed = true;
    if (tracer !== undefined) {
      try {
        tracer.busDisposed(this);
      } catch (error) {
        tracerFailed(error);
      }
    }
    if (this.registration !== undefined) unregisterBus(this.registration);
  }
}

/** What the probe reports for a watched emitter that was garbage-collected without being unwatched. */
export class CollectedBus implements TracedBus {
  constructor(
    readonly busId: number,
    readonly name: string,
    readonly createdAt: number,
  ) {}
  tracedSubscriptions(): Iterable<TracedSubscription> {
    return NO_SUBS;
  }
  reportGone(): void {
    const tracer = currentBusTracer();
    if (tracer === undefined) return;
    try {
      tracer.busDisposed(this);
    } catch (error) {
      tracerFailed(error);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Dispatch helpers for the adapters' traced paths (called only while a DispatchTracer is installed)

/** True when a client asked to break on this event (and a payload condition, if any, holds). */
export function breakRequested(tracer: DispatchTracer, bus: TracedBus, type: string, payload: unknown): boolean {
  try {
    return tracer.shouldBreak(bus, type) && eventBreakWanted(bus.busId, bus.name, type, payload);
  } catch (error) {
    tracerFailed(error);
    return false;
  }
}

/**
 * Starts a traced dispatch. Depth and parent are left to the recorder (0, 0): it nests a dispatch
 * under the one running on its own stack, which covers emits inside bus handlers and the reverse.
 */
export function dispatchStart(tracer: DispatchTracer, bus: TracedBus, type: string, payload: unknown): number {
  try {
    return tracer.dispatchStart(bus, type, 0, 0, payload);
  } catch (error) {
    tracerFailed(error);
    return 0;
  }
}

export function dispatchEnd(tracer: DispatchTracer, seq: number, delivered: number): void {
  try {
    tracer.dispatchEnd(seq, delivered, 0);
  } catch (error) {
    tracerFailed(error);
  }
}

/** The traced `dispatchEvent` in progress on one EventTarget (seq 0: none), read by its listeners' timing code. */
export interface RunningEventDispatch {
  seq: number;
  delivered: number;
}

/** A bus that forgets `once` listeners the target dropped during a dispatch (Node's EventTarget). */
export interface OnceSync {
  syncType(type: string, reason: 'once'): void;
}

/**
 * One traced `dispatchEvent` on a watched EventTarget (browser or Node): a dispatch around
 * `dispatch.apply(thisArg, args)`, with the target's running dispatch set for its listeners and put
 * back afterwards (dispatches nest), then `once` listeners synced when `onceSync` is given. The
 * caller handles event breakpoints itself, so the `debugger` stays one frame below the app's call.
 */
export function tracedEventDispatch(
  tracer: DispatchTracer,
  bus: TracedBus & { readonly running: RunningEventDispatch },
  event: Event,
  dispatch: Function,
  thisArg: unknown,
  args: ArrayLike<unknown>,
  onceSync: OnceSync | null,
): unknown {
  const type = event.type;
  const running = bus.running;
  const outerSeq = running.seq;
  const outerDelivered = running.delivered;
  const seq = dispatchStart(tracer, bus, type, event);
  running.seq = seq;
  running.delivered = 0;
  try {
    return Reflect.apply(dispatch, thisArg, args);
  } finally {
    dispatchEnd(tracer, seq, running.delivered);
    running.seq = outerSeq;
    running.delivered = outerDelivered;
    // `once` records left before their callback ran.
    if (onceSync !== null) onceSync.syncType(type, 'once');
  }
}

export function handlerStart(tracer: DispatchTracer, seq: number, sub: ListenerSubscription): void {
  sub.calls++;
  try {
    tracer.handlerStart(seq, sub);
  } catch (error) {
    tracerFailed(error);
  }
}

export function handlerEnd(tracer: DispatchTracer, seq: number, sub: ListenerSubscription): void {
  try {
    tracer.handlerEnd(seq, sub, false);
  } catch (error) {
    tracerFailed(error);
  }
}

export function handlerError(tracer: DispatchTracer, seq: number, bus: TracedBus, sub: ListenerSubscription, error: unknown): void {
  try {
    tracer.handlerError(seq, bus, sub, error);
  } catch (tracerError) {
    tracerFailed(tracerError);
  }
}

function applyListener(this: unknown, listener: Function, args: ArrayLike<unknown>): unknown {
  return Reflect.apply(listener, this, args);
}

/**
 * Calls one listener of a traced emit: `listener.apply(target, args)`, inside the tracer's scope for
 * it when the tracer keeps one (OpenTelemetry's context: spans a listener starts are its children).
 */
export function callListener(
  tracer: DispatchTracer,
  seq: number,
  sub: ListenerSubscription | undefined,
  listener: Function,
  target: unknown,
  args: ArrayLike<unknown>,
): unknown {
  if (sub === undefined || tracer.callHandler === undefined) return Reflect.apply(listener, target, args);
  return callInScope(tracer, seq, sub, applyListener as HandlerCall, target, listener, args, tracerFailed);
}

/** The payload a dispatch record shows for listener arguments: the one argument, or all of them. */
export function payloadOf(args: readonly unknown[]): unknown {
  return args.length === 1 ? args[0] : args.length === 0 ? undefined : args;
}
