// The typed event bus. Hot-path rules (the benchmark holds us to them): a detached dispatch allocates
// nothing (contexts are preallocated per depth, results are shared frozen objects), never copies the
// listener list (a list is replaced instead of mutated only when it changes while a dispatch runs),
// reads the tracer slot once, keeps the traced work in a separate method, and stays small enough for
// the engine to inline it into the caller (uncommon cases live in dispatchGeneral).
import { describeValue, disposeSymbol } from '../delegates/disposable';
import { contextAt, contexts, makeConsumedResult, notConsumedResult } from './dispatch-context';
import { runsBefore } from './priority';
import { callInScope } from './scoped-call';
import { DispatchDepthError, DispatchStackOverflowError } from './errors';
import type { ProducerDropPolicy, ProducerStats, TransferablePort } from './cross-thread';
import type { ProducerInbox } from './producer-inbox';
import { warnOwnerCollected } from './owner-warning';
import { runtime, takeBusId, takeSubscriptionId, type ProducedOrigin } from './runtime';
import {
  defaultIsOwnerAlive,
  describeOwner,
  INACTIVE,
  ListenerList,
  OwnerGroup,
  PLAIN,
  STAR,
  SubscriptionRecord,
  type Snapshot,
  type StoredHandler,
} from './subscription';
import {
  currentBusTracer,
  currentContextCarrier,
  currentDispatchTracer,
  registerBus,
  unregisterBus,
  type ContextCarrier,
  type DispatchTracer,
  type HandlerCall,
  type TracedBus,
  type TracedSubscription,
  type UnsubscribeReason,
} from './tracer';
import type {
  DispatchResult,
  EventBusOptions,
  EventMap,
  EventName,
  Handler,
  HandlerErrorInfo,
  PayloadArgs,
  SubscribeOptions,
  Subscription,
  SubscriptionInfo,
} from './types';
import { checkFunction, checkOptionsObject, checkTypeName, isAbortSignal, isOwnerObject } from './validate';

/**
 * Dispatches running right now, on every bus of the process (so cross-bus ping-pong is caught too):
 * the nesting depth a dispatch starting now runs at. The fast loop runs only at depth 0 and sets it to 1.
 */
let dispatchDepth = 0;

/** @internal The nesting depth a dispatch starting now runs at (read by fused-dispatch.ts too). */
export const depthNow = (): number => dispatchDepth;
/** Traced path only: the sequence number of the traced dispatch running at each depth (0 = none). */
const seqStack: number[] = [];
/** @internal The list of every type nobody subscribed to; never mutated (subscribing creates a real list). */
export const NO_SUBSCRIBERS = new ListenerList({ removeSubscription: () => false }, '');
// Its gate is never open: an unknown type takes the merging loop, which finds the bus's '*' subscribers.
NO_SUBSCRIBERS.gate = STAR;
/**
 * @internal The fused dispatch (fused-dispatch.ts): installed by the Node recorder while it is this copy's
 * dispatch tracer and lets the bus write its records. Left out of pages and workers, which never install it.
 */
export type FusedDispatch = (bus: FusableBus, type: string, payload: unknown) => DispatchResult;
/** @internal What the fused dispatch reaches of a bus (its own copy's: the members are the bus's @internal ones). */
export interface FusableBus {
  readonly busId: number;
  readonly maxDepth: number;
  readonly flushing: boolean;
  readonly lastType: unknown;
  readonly lastList: ListenerList;
  lookup(type: string): ListenerList;
  dispatchUntraced(type: string, payload: unknown): DispatchResult;
  dispatchTraced(tracer: DispatchTracer, type: string, payload: unknown): DispatchResult;
}
let fused: FusedDispatch | undefined;
/** @internal */
export function setFusedDispatch(f: FusedDispatch | undefined): void {
  fused = f;
}
/** What the one-entry type cache holds when it holds nothing: equal to no value a caller can pass. */
const NO_TYPE: unique symbol = Symbol('no type');
const releasedHandler: StoredHandler = () => undefined;

/**
 * A stack overflow on its way to the outermost dispatch (see `EventBus.overflowed`); null when none.
 * Allocated only when the stack has overflowed.
 */
let overflow: { busName: string; type: string; depth: number; seenAt: number } | null = null;

/** The engine's "out of stack" error: V8's and JavaScriptCore's RangeError, SpiderMonkey's InternalError. */
function isStackOverflow(error: unknown): boolean {
  if (error instanceof RangeError) return typeof error.message === 'string' && error.message.includes('call stack');
  return error instanceof Error && error.name === 'InternalError' && typeof error.message === 'string' && error.message.includes('recursion');
}

let tracerFailureReported = false;
/** A tracer must never break the app: its errors are swallowed and reported once. */
function tracerFailed(error: unknown): void {
  // Out of stack while an overflow unwinds: not the tracer's fault, and the bus reports the overflow.
  if (tracerFailureReported || (overflow !== null && isStackOverflow(error))) return;
  tracerFailureReported = true;
  try {
    console.error('[busscope] the installed tracer threw; further tracer errors are ignored:', error);
  } catch {
    // nothing left to report to
  }
}

function defaultOnError(error: unknown, info: HandlerErrorInfo): void {
  console.error(`[busscope] handler of "${info.type}" on bus "${info.bus}" (subscription ${info.subscriptionId}) threw:`, error);
}

function toInfo(sub: SubscriptionRecord, bus: string): SubscriptionInfo {
  return {
    id: sub.id,
    type: sub.type,
    priority: sub.priority,
    label: sub.label,
    owner: sub.ownerDescription,
    calls: sub.calls,
    createdAt: sub.createdAt,
    once: sub.once,
    bus,
  };
}

/**
 * A strongly typed, synchronous event bus over an event map:
 *
 * ```ts
 * interface GameEvents { 'health.changed': { current: number; max: number }; tick: void }
 * const bus = new EventBus<GameEvents>({ name: 'gameplay' });
 * const sub = bus.subscribe('health.changed', (e) => bar.set(e.current / e.max), { owner: widget, priority: 10 });
 * bus.dispatch('health.changed', { current: 80, max: 100 });
 * bus.dispatch('tick');
 * sub.dispose();
 * ```
 *
 * After `dispose()` the bus stays usable but inert: `subscribe` returns an inactive Subscription,
 * `dispatch` delivers to nobody, `enqueue` drops the event.
 */
// The fast loop's FailSink too (structurally: the interface is internal, kept out of the .d.ts).
export class EventBus<E extends EventMap> implements TracedBus {
  /** Unique per process, never reused. */
  readonly busId: number;
  /** The bus's name (a named bus is a channel). */
  readonly name: string;
  /** When the bus was created, epoch milliseconds. */
  readonly createdAt: number;
  /** Nested dispatch levels this bus allows before a nested `dispatch` throws `DispatchDepthError`. */
  readonly maxDepth: number;

  /** True while there are '*' subscribers: then every list of the bus has its STAR gate bit (see `updateStars`). */
  private stars = false;
  /** @internal One-entry cache of the last dispatched type's list (a Map lookup costs more than the rest of a dispatch). */
  lastType: string | typeof NO_TYPE = NO_TYPE;
  /** @internal */
  lastList: ListenerList = NO_SUBSCRIBERS;
  private readonly onError: (error: unknown, info: HandlerErrorInfo) => void;
  private readonly isOwnerAlive: (owner: object) => boolean;
  private readonly warnOnCollectedOwner: boolean;
  private readonly byType = new Map<string, ListenerList>();
  private readonly wildcard: ListenerList = new ListenerList(this, '*');
  private count = 0;
  /** Created with the first owned subscription. */
  private owners: WeakMap<object, OwnerGroup> | null = null;
  private registry: FinalizationRegistry<OwnerGroup> | null = null;
  // The queue (@internal: a producer port's cap drops from it, producer-inbox.ts).
  /** @internal */
  readonly queueTypes: string[] = [];
  /** @internal */
  readonly queuePayloads: unknown[] = [];
  /**
   * @internal Per queued event, the ambient context its `enqueue` ran in (undefined without a context
   * carrier), or, for an event from a producer port, its origin (an array that holds that context).
   */
  readonly queueContexts: unknown[] = [];
  /** @internal */
  queueHead = 0;
  /** @internal Read by the recorder (TracedBus.flushing). */
  flushing = false;
  private flushScheduled = false;
  private readonly scheduledFlush: (() => void) | null;
  private closed = false;
  private readonly registration: WeakRef<TracedBus>;
  /** @internal Events waiting to flush beyond which events from producer ports are dropped. */
  readonly producerCap: number;
  /** @internal */
  readonly producerDrop: ProducerDropPolicy;
  /** Created by the first `openProducerPort()`. */
  private inbox: ProducerInbox | null = null;

  /**
   * @param options `name` (default `'default'`), `maxDepth` (default 32), `onError` (default
   * `console.error`), `isOwnerAlive` (default: not `disposed`/`isDisposed`), `autoFlush`,
   * `warnOnCollectedOwner` (default true).
   */
  constructor(options?: EventBusOptions) {
    checkOptionsObject('new EventBus', options);
    const name = options?.name ?? 'default';
    if (typeof name !== 'string' || name.length === 0) {
      throw new TypeError(`new EventBus: options.name must be a non-empty string (got ${describeValue(name)})`);
    }
    const maxDepth = options?.maxDepth ?? 32;
    if (typeof maxDepth !== 'number' || !Number.isInteger(maxDepth) || maxDepth < 1) {
      throw new TypeError(`new EventBus: options.maxDepth must be a positive integer (got ${describeValue(maxDepth)})`);
    }
    const onError = options?.onError ?? defaultOnError;
    checkFunction('new EventBus', 'options.onError', onError);
    const isOwnerAlive = options?.isOwnerAlive ?? defaultIsOwnerAlive;
    checkFunction('new EventBus', 'options.isOwnerAlive', isOwnerAlive);
    const warnOnCollectedOwner = options?.warnOnCollectedOwner ?? true;
    if (typeof warnOnCollectedOwner !== 'boolean') {
      throw new TypeError(`new EventBus: options.warnOnCollectedOwner must be a boolean (got ${describeValue(warnOnCollectedOwner)})`);
    }
    const autoFlush = options?.autoFlush ?? 'manual';
    if (autoFlush !== 'manual' && autoFlush !== 'microtask') {
      throw new TypeError(`new EventBus: options.autoFlush must be 'manual' or 'microtask' (got ${describeValue(autoFlush)})`);
    }
    const producerQueue = options?.producerQueue;
    checkOptionsObject('new EventBus', producerQueue);
    const producerCap = producerQueue?.cap ?? 100_000;
    if (typeof producerCap !== 'number' || !Number.isInteger(producerCap) || producerCap < 1) {
      throw new TypeError(`new EventBus: options.producerQueue.cap must be a positive integer (got ${describeValue(producerCap)})`);
    }
    const producerDrop = producerQueue?.drop ?? 'newest';
    if (producerDrop !== 'newest' && producerDrop !== 'oldest') {
      throw new TypeError(`new EventBus: options.producerQueue.drop must be 'newest' or 'oldest' (got ${describeValue(producerDrop)})`);
    }
    this.producerCap = producerCap;
    this.producerDrop = producerDrop;
    this.busId = takeBusId();
    this.name = name;
    this.createdAt = Date.now();
    this.maxDepth = maxDepth;
    this.updateStars();
    this.onError = onError;
    this.isOwnerAlive = isOwnerAlive;
    this.warnOnCollectedOwner = warnOnCollectedOwner;
    this.scheduledFlush =
      autoFlush === 'microtask'
        ? () => {
            this.flushScheduled = false;
            this.flush();
          }
        : null;
    this.registration = registerBus(this);
  }

  /** True after `dispose()`. (So a bus can itself be an owner: a disposed bus counts as dead.) */
  get disposed(): boolean {
    return this.closed;
  }

  /**
   * Subscribes `handler` to `type` (`'*'`: every event of this bus). The handler gets
   * `(payload, ctx)`; returning `true` or calling `ctx.consume()` stops the handlers after it.
   * Subscribing during a dispatch takes effect from the next dispatch.
   * @throws TypeError on a bad argument (the bus is left unchanged).
   */
  subscribe<K extends EventName<E> | '*'>(type: K, handler: Handler<E, K>, options?: SubscribeOptions): Subscription {
    checkTypeName('subscribe', type, true);
    checkFunction('EventBus.subscribe', 'handler', handler);
    checkOptionsObject('EventBus.subscribe', options);
    let priority = 0;
    let owner: object | undefined;
    let once = false;
    let signal: AbortSignal | undefined;
    let label: string | undefined;
    if (options !== undefined) {
      if (options.priority !== undefined) {
        priority = options.priority;
        if (typeof priority !== 'number' || !Number.isFinite(priority)) {
          throw new TypeError(`EventBus.subscribe: options.priority must be a finite number (got ${describeValue(priority)})`);
        }
      }
      if (options.owner !== undefined) {
        owner = options.owner;
        if (!isOwnerObject(owner)) {
          throw new TypeError(`EventBus.subscribe: options.owner must be an object (got ${describeValue(owner)})`);
        }
      }
      if (options.once !== undefined) {
        once = options.once;
        if (typeof once !== 'boolean') throw new TypeError(`EventBus.subscribe: options.once must be a boolean (got ${describeValue(once)})`);
      }
      if (options.signal !== undefined) {
        signal = options.signal;
        if (!isAbortSignal(signal)) {
          throw new TypeError(`EventBus.subscribe: options.signal must be an AbortSignal (got ${describeValue(signal)})`);
        }
      }
      if (options.label !== undefined) {
        label = options.label;
        if (typeof label !== 'string') throw new TypeError(`EventBus.subscribe: options.label must be a string (got ${describeValue(label)})`);
      }
    }
    const id = takeSubscriptionId();
    if (this.closed || (signal !== undefined && signal.aborted)) {
      // Nothing is subscribed: an inactive handle, so callers need no special case.
      return new SubscriptionRecord(id, type, releasedHandler, priority, label, once, null, null);
    }
    const list = type === '*' ? this.wildcard : this.listFor(type);
    const sub = new SubscriptionRecord(id, type, handler as unknown as StoredHandler, priority, label, once, list, signal ?? null);
    // The record itself is the abort listener (an EventListener object): no closure per subscription.
    if (signal !== undefined) signal.addEventListener('abort', sub);
    if (owner !== undefined) {
      const group = this.groupFor(owner);
      sub.attachOwner(group);
      group.subs.push(sub);
    }
    list.insert(sub, depthNow() > 0);
    if (type === '*') this.updateStars();
    this.count++;
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      // Called directly from here so the tracer sees the user's call two frames up.
      try {
        tracer.subscribed(this, sub);
      } catch (error) {
        tracerFailed(error);
      }
    }
    return sub;
  }

  /**
   * Dispatches synchronously to the subscribers of `type` and of `'*'`, highest priority first.
   * Returns how many handlers ran and who consumed it. The result object is shared: read it, don't keep mutating it.
   * @throws DispatchDepthError when nested dispatches (across all buses) exceed `maxDepth`.
   */
  dispatch<K extends EventName<E>>(type: K, ...payload: PayloadArgs<E[K]>): DispatchResult;
  dispatch(type: string, payload?: unknown): DispatchResult {
    // Kept small so the engine can inline it into the caller; everything uncommon is elsewhere.
    const tracer = currentDispatchTracer();
    if (tracer !== undefined) {
      // The recorder alone at detail `dispatch`, under Node: the bus writes the record itself.
      if (fused) return fused(this, type, payload);
      if (breakRequested(tracer, this, type, payload)) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the code that
        // dispatched this event. Step out to see the dispatch site.
        // eslint-disable-next-line no-debugger
        debugger;
        runtime.optional?.eventBreakDone?.();
      }
      return this.dispatchTraced(tracer, type, payload);
    }
    return this.dispatchUntraced(type, payload);
  }

  /** @internal The dispatch without a tracer: the fast loop, or the general one for everything it leaves out. */
  dispatchUntraced(type: string, payload: unknown): DispatchResult {
    const typed = type === this.lastType ? this.lastList : this.lookup(type);
    // One gate for everything the fast loop leaves out: the list's gate counts its owned and `once`
    // subscriptions and has a bit for its bus's '*' subscribers, and any running dispatch (this one
    // is nested, re-entrant or not) means the checking loop. So the fast loop runs at depth 0.
    if ((typed.gate | dispatchDepth) !== 0) return this.dispatchGeneral(typed, type, payload);
    const snap = typed.snap;
    // The snapshot is the handlers' ctx. Call counts are not incremented per handler: `runs` counts
    // this dispatch for every subscription of the list, and `settle` takes back what was not called.
    typed.runs++;
    typed.fast = 1;
    dispatchDepth = 1;
    let stop: number;
    // try/catch rather than try/finally: the engine's finally costs ~1.3 ns per dispatch here.
    try {
      // Unrolled generated code for short lists, else (or under a CSP) a loop: see dispatch-code.ts.
      stop = snap.run(snap.handlers, payload, snap, this);
    } catch (error) {
      // An error escaping the error path (out of stack): it stopped at the handler that threw.
      dispatchDepth = 0;
      typed.fast = 0;
      typed.settle(snap, snap.index);
      throw error;
    }
    dispatchDepth = 0;
    typed.fast = 0;
    // Every handler ran, none consumed, and the list did not change under the loop (`replace`
    // clears the running snapshot's result): the common case.
    const result = snap.result;
    if (stop < 0 && result !== null) return result;
    const delivered = typed.settle(snap, stop);
    return stop < 0 ? notConsumedResult(delivered) : consumedResult(snap.subs[stop], delivered);
  }

  /** @internal The fast loop's error path (FailSink): a handler of `snap` at `index` threw. */
  handlerFailedAt(error: unknown, snap: Snapshot, index: number): void {
    this.handlerThrew(error, snap.type, snap.subs[index]);
  }

  /**
   * A handler of the untraced loops threw. Under a bracketing tracer (detail `dispatch`) the tracer
   * still hears of it, with the sequence number of the dispatch that ran the handler.
   */
  private handlerThrew(error: unknown, type: string, sub: SubscriptionRecord): void {
    const tracer = currentDispatchTracer();
    if (tracer !== undefined && tracer.handlerHooks === false) {
      // A stack overflow is recorded once, by the outermost dispatch (nested ones rethrow here).
      const reported = isStackOverflow(error) ? this.overflowed(error, type) : error;
      try {
        tracer.handlerError(seqStack[depthNow() - 1] ?? 0, this, sub, reported);
      } catch (tracerError) {
        tracerFailed(tracerError);
      }
      error = reported;
    }
    this.handlerFailed(error, type, sub);
  }

  /**
   * @internal The dispatch while a DispatchTracer records. Without per-handler calls (detail `dispatch`) the
   * tracer sees its start and its end, and the handlers run in the untraced loops at their detached
   * cost; else the traced loop (`runTraced`) runs them with the tracer's calls.
   */
  dispatchTraced(tracer: DispatchTracer, type: string, payload: unknown): DispatchResult {
    const depth = depthNow();
    // A refused dispatch is never started.
    const typed = type === this.lastType ? this.lastList : this.lookup(type);
    if (depth > this.maxDepth) this.refuseDepth(type, depth);
    while (seqStack.length <= depth) seqStack.push(0);
    const parentSeq = depth > 0 ? seqStack[depth - 1] : 0;
    let seq = 0;
    try {
      seq = tracer.dispatchStart(this, type, depth, parentSeq, payload);
    } catch (error) {
      tracerFailed(error);
    }
    // The tracer wants this dispatch's handlers (read after the start: detail `handlers` times a sample of them).
    if (tracer.handlerHooks !== false) return this.runTraced(tracer, typed, type, payload, depth, seq);
    seqStack[depth] = seq;
    let result: DispatchResult;
    // try/catch and the end written twice rather than try/finally: the engine's finally costs more.
    try {
      result = this.dispatchUntraced(type, payload);
    } catch (error) {
      // An error escaping the handlers' error path (out of stack): the dispatch ended all the same.
      seqStack[depth] = 0;
      endDispatch(tracer, seq, 0, 0);
      throw error;
    }
    seqStack[depth] = 0;
    endDispatch(tracer, seq, result.delivered, result.consumedBy ?? 0);
    return result;
  }

  /**
   * Everything the small loop in `dispatch` leaves out: unknown types, `'*'` subscribers (merged with
   * the typed ones by priority, then subscription order), the depth limit and deep nesting.
   */
  private dispatchGeneral(typed: ListenerList, type: string, payload: unknown): DispatchResult {
    const depth = depthNow();
    if (depth > this.maxDepth) this.refuseDepth(type, depth);
    const a = typed.list;
    const an = a.length;
    const wildcard = this.wildcard;
    const w = wildcard.list;
    const wn = w.length;
    if (an + wn === 0) return notConsumedResult(0);
    const ctx = depth < contexts.length ? contexts[depth] : contextAt(depth);
    ctx.type = type;
    ctx.consumed = false;
    dispatchDepth++;
    let delivered = 0;
    let consumer: SubscriptionRecord | null = null;
    try {
      let i = 0;
      let j = 0;
      while (i < an || j < wn) {
        const sub = j >= wn || (i < an && runsBefore(a[i].priority, a[i].id, w[j].priority, w[j].id)) ? a[i++] : w[j++];
        let handler: StoredHandler | null = sub.handler;
        if (sub.kind !== PLAIN) {
          handler = this.admit(sub, type);
          if (handler === null) continue;
        }
        delivered++;
        sub.callCount++;
        ctx.subscriptionId = sub.id;
        try {
          if (handler(payload, ctx) === true || ctx.consumed) {
            consumer = sub;
            break;
          }
        } catch (error) {
          ctx.consumed = false;
          this.handlerThrew(error, type, sub);
        }
      }
    } finally {
      dispatchDepth--;
    }
    return consumer === null ? notConsumedResult(delivered) : consumedResult(consumer, delivered);
  }

  /** The traced loop of dispatch `seq` (started): the handlers, with the tracer's per-handler calls when it wants them. */
  private runTraced(tracer: DispatchTracer, typed: ListenerList, type: string, payload: unknown, depth: number, seq: number): DispatchResult {
    const a = typed.list;
    const an = a.length;
    const wildcard = this.wildcard;
    const w = wildcard.list;
    const wn = w.length;
    // False while the tracer has no use for per-handler calls (recording at detail `dispatch`).
    const hooks = tracer.handlerHooks !== false;
    // A consumer that runs handlers in a scope of its own (OpenTelemetry's context).
    const scoped = tracer.callHandler !== undefined;
    const ctx = depth < contexts.length ? contexts[depth] : contextAt(depth);
    ctx.type = type;
    ctx.consumed = false;
    seqStack[depth] = seq;
    dispatchDepth++;
    let delivered = 0;
    let consumer: SubscriptionRecord | null = null;
    try {
      let i = 0;
      let j = 0;
      while (i < an || j < wn) {
        const sub = j >= wn || (i < an && runsBefore(a[i].priority, a[i].id, w[j].priority, w[j].id)) ? a[i++] : w[j++];
        let handler: StoredHandler | null = sub.handler;
        if (sub.kind !== PLAIN) {
          handler = this.admit(sub, type);
          if (handler === null) continue;
        }
        delivered++;
        sub.callCount++;
        ctx.subscriptionId = sub.id;
        if (hooks) {
          try {
            tracer.handlerStart(seq, sub);
          } catch (error) {
            tracerFailed(error);
          }
        }
        let consumed = false;
        try {
          const returned = scoped ? callInScope(tracer, seq, sub, handler as HandlerCall, undefined, payload, ctx, tracerFailed) : handler(payload, ctx);
          consumed = returned === true || ctx.consumed;
        } catch (error) {
          ctx.consumed = false;
          // A stack overflow is recorded once, by the outermost dispatch (nested ones rethrow here).
          const reported = isStackOverflow(error) ? this.overflowed(error, type) : error;
          try {
            tracer.handlerError(seq, this, sub, reported);
          } catch (tracerError) {
            tracerFailed(tracerError);
          }
          this.handlerFailed(reported, type, sub);
        }
        if (hooks) {
          try {
            tracer.handlerEnd(seq, sub, consumed);
          } catch (error) {
            tracerFailed(error);
          }
        }
        if (consumed) {
          consumer = sub;
          break;
        }
      }
    } finally {
      dispatchDepth--;
      seqStack[depth] = 0;
      endDispatch(tracer, seq, delivered, consumer === null ? 0 : consumer.id);
    }
    return consumer === null ? notConsumedResult(delivered) : consumedResult(consumer, delivered);
  }

  /**
   * The checks for a subscription that is not PLAIN: returns the handler to call, or null when it is
   * inactive (unsubscribed earlier in this dispatch) or was removed instead of called (owner
   * collected or dead). A `once` subscription is removed here, before its handler runs.
   */
  private admit(sub: SubscriptionRecord, type: string): StoredHandler | null {
    if (sub.kind === INACTIVE) return null;
    const group = sub.group;
    if (group !== null) {
      const owner = group.ref.deref();
      if (owner === undefined) {
        this.collectOwner(group);
        return null;
      }
      let alive: boolean;
      try {
        alive = this.isOwnerAlive(owner);
      } catch (error) {
        // Unknown state: skip this call but keep the subscription; the error is the app's to see.
        this.handlerFailed(error, type, sub);
        return null;
      }
      if (!alive) {
        this.removeSubscription(sub, 'dead-owner');
        return null;
      }
    }
    const handler = sub.handler; // read before removal releases it
    if (sub.once) this.removeSubscription(sub, 'once');
    return handler;
  }

  private refuseDepth(type: string, depth: number): never {
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      try {
        tracer.depthLimitHit(this, type, depth);
      } catch (error) {
        tracerFailed(error);
      }
    }
    throw new DispatchDepthError(this.name, type, depth, this.maxDepth);
  }

  /** Reports a handler's (or `isOwnerAlive`'s) error to `onError`; cold, so the dispatch loops stay as they are. */
  private handlerFailed(error: unknown, type: string, sub: SubscriptionRecord): void {
    if (isStackOverflow(error)) error = this.overflowed(error, type);
    try {
      this.onError(error, { bus: this.name, type, subscriptionId: sub.id });
    } catch (secondary) {
      try {
        console.error(`[busscope] onError of bus "${this.name}" threw while reporting a handler error:`, secondary, 'original error:', error);
      } catch {
        // the dispatch must go on whatever happens here
      }
    }
  }

  /**
   * A handler ran out of stack. Reporting it where it happened is useless: `onError` (and
   * `console.error`) would overflow again, and each enclosing level would go on with its next
   * handler, which may recurse all over again. So a nested dispatch rethrows it, abandoning its
   * remaining handlers, until the outermost dispatch (depth 0), which has the stack to report it:
   * it returns the error to report there, once. The first (deepest) level that catches it notes the
   * depth and event; the ones above only pass it on.
   */
  private overflowed(error: unknown, type: string): DispatchStackOverflowError {
    const depth = depthNow() - 1; // the depth of the dispatch whose handler threw
    let o = overflow;
    // Depths seen while unwinding only decrease; a deeper one means the app caught an earlier overflow.
    if (o === null || depth >= o.seenAt) o = overflow = { busName: this.name, type, depth, seenAt: depth };
    o.seenAt = depth;
    if (depth > 0) throw error;
    overflow = null;
    return new DispatchStackOverflowError(o.busName, o.type, o.depth, this.name, type, error);
  }

  /**
   * Queues an event; `flush()` dispatches the queue in FIFO order (with `autoFlush: 'microtask'`, a
   * microtask does). Dropped after `dispose()`.
   * @throws TypeError on a bad type name.
   */
  enqueue<K extends EventName<E>>(type: K, ...payload: PayloadArgs<E[K]>): void;
  enqueue(type: string, payload?: unknown): void {
    checkTypeName('enqueue', type, false);
    if (this.closed) return;
    this.pushQueued(type, payload);
  }

  /**
   * Opens a cross-thread queue into this bus: a dedicated MessageChannel whose other end you
   * transfer to a worker, where `connectProducer<E>(port)` turns it into a typed producer. Its
   * events are structured-cloned, queued here in the order each producer posted them, and
   * dispatched on this thread by `flush()` (or `autoFlush`). Beyond `producerQueue.cap` events
   * waiting to flush, arriving events are dropped (`producerQueue.drop`), counted in
   * `producerStats` and warned about once. The port keeps this thread alive until its producer
   * closes it (the worker ends, or `producer.close()`) or the bus is disposed.
   *
   * ```ts
   * const port = bus.openProducerPort();
   * new Worker(file, { workerData: { port }, transferList: [port] });
   * ```
   * Producer ports come with the `busscope-probe` and `busscope-probe/bus` entries, not with
   * `busscope-probe/browser` (kept small for pages): a page that opens them imports 'busscope-probe/bus'.
   * @throws TypeError after `dispose()`, or where the runtime has no MessageChannel.
   * @throws Error when neither `busscope-probe` nor `busscope-probe/bus` is loaded.
   */
  openProducerPort(): TransferablePort {
    if (this.closed) throw new TypeError(`EventBus.openProducerPort: bus "${this.name}" is disposed`);
    let inbox = this.inbox;
    if (inbox === null) {
      const open = runtime.optional?.producerQueue;
      if (open === undefined) {
        throw new Error("EventBus.openProducerPort: add import 'busscope-probe/bus' (producer ports are not in 'busscope-probe/browser')");
      }
      inbox = this.inbox = open(this);
    }
    return inbox.open() as TransferablePort;
  }

  /** Counts of the cross-thread queues into this bus (all zero before `openProducerPort()`). */
  get producerStats(): ProducerStats {
    return this.inbox?.stats() ?? { openPorts: 0, received: 0, dropped: 0, discarded: 0 };
  }

  /**
   * Resolves once every producer port opened so far is closed: from then on, everything their
   * producers posted has arrived (queued, or counted as dropped). A worker's 'exit' event can come
   * before its last events do; await this, then `flush()`.
   */
  producersClosed(): Promise<void> {
    return this.inbox?.whenClosed() ?? Promise.resolve();
  }

  /**
   * @internal Queues an event: from `enqueue`, or from a producer port (producer-inbox.ts, which
   * applies the cap first and gives the event's origin, which holds the context it arrived in).
   */
  pushQueued(type: string, payload: unknown, origin?: ProducedOrigin): void {
    const wasEmpty = this.queueHead === this.queueTypes.length;
    this.queueTypes.push(type);
    this.queuePayloads.push(payload);
    // The context this event was enqueued in, so its dispatch (whenever flushed) is its descendant;
    // for an event from another thread, its origin (holding the context it arrived in).
    const carrier = currentContextCarrier();
    this.queueContexts.push(origin ?? (carrier === undefined ? undefined : captureContext(carrier)));
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      try {
        tracer.enqueued(this, type, this.queueTypes.length - this.queueHead);
      } catch (error) {
        tracerFailed(error);
      }
    }
    const scheduled = this.scheduledFlush;
    if (scheduled !== null && wasEmpty && !this.flushScheduled && !this.flushing) {
      this.flushScheduled = true;
      queueMicrotask(scheduled);
    }
  }

  /**
   * Dispatches every queued event in FIFO order, including events enqueued while flushing. Returns
   * how many were dispatched. Calling `flush()` from inside a flush does nothing and returns 0.
   */
  flush(): number {
    if (this.flushing || this.queueHead === this.queueTypes.length) return 0;
    this.flushing = true;
    const types = this.queueTypes;
    const payloads = this.queuePayloads;
    const captured = this.queueContexts;
    const self = this as unknown as EventBus<EventMap>;
    let dispatched = 0;
    try {
      while (this.queueHead < types.length) {
        const i = this.queueHead;
        // A DispatchDepthError (or a stack overflow unwinding to the outermost dispatch) leaves this event at the head.
        let context = captured[i];
        if (Array.isArray(context)) {
          // A producer port's event: the recorder takes its origin at this dispatch's start.
          runtime.produced = context as unknown as ProducedOrigin;
          context = context[2];
        }
        const carrier = context === undefined ? undefined : currentContextCarrier();
        if (carrier === undefined) self.dispatch(types[i], payloads[i]);
        else carrier.run(context, self.dispatch, self, types[i], payloads[i]);
        dispatched++;
        if (this.closed) break; // disposed by a handler: the queue is already gone
        payloads[i] = undefined; // the queue must not keep payloads alive
        captured[i] = undefined;
        this.queueHead = i + 1;
      }
    } finally {
      // Normally empties the queue; if a dispatch threw, that event and the ones after it stay queued.
      types.splice(0, this.queueHead);
      payloads.splice(0, this.queueHead);
      captured.splice(0, this.queueHead);
      this.queueHead = 0;
      this.flushing = false;
      // Not taken when no recorder is installed, or when the dispatch was refused at maxDepth.
      runtime.produced = undefined;
      if (dispatched > 0) {
        const tracer = currentBusTracer();
        if (tracer !== undefined) {
          try {
            tracer.flushed(this, dispatched);
          } catch (error) {
            tracerFailed(error);
          }
        }
      }
    }
    return dispatched;
  }

  /** Number of queued events not yet flushed. */
  get queueLength(): number {
    return this.queueTypes.length - this.queueHead;
  }

  /**
   * Unsubscribes a subscription of this bus, given its handle or its id. Returns false when it was
   * not an active subscription of this bus.
   * @throws TypeError when the argument is neither a Subscription nor a positive integer.
   */
  unsubscribe(subscriptionOrId: Subscription | number): boolean {
    if (typeof subscriptionOrId === 'number') {
      if (!Number.isInteger(subscriptionOrId) || subscriptionOrId <= 0) {
        throw new TypeError(`EventBus.unsubscribe: an id must be a positive integer (got ${describeValue(subscriptionOrId)})`);
      }
      const sub = this.findById(subscriptionOrId);
      return sub !== undefined && this.removeSubscription(sub, 'dispose');
    }
    if (subscriptionOrId instanceof SubscriptionRecord) return this.removeSubscription(subscriptionOrId, 'dispose');
    throw new TypeError(`EventBus.unsubscribe: expected a Subscription returned by subscribe() or its id (got ${describeValue(subscriptionOrId)})`);
  }

  /**
   * Unsubscribes every subscription of `owner` on this bus; returns how many.
   * @throws TypeError when `owner` is not an object.
   */
  unsubscribeOwner(owner: object): number {
    if (!isOwnerObject(owner)) throw new TypeError(`EventBus.unsubscribeOwner: owner must be an object (got ${describeValue(owner)})`);
    const group = this.owners?.get(owner);
    if (group === undefined) return 0;
    let removed = 0;
    for (const sub of group.subs.slice()) if (this.removeSubscription(sub, 'owner')) removed++;
    return removed;
  }

  /** Unsubscribes everything (the bus stays usable). */
  clear(): void {
    for (const list of [...this.byType.values(), this.wildcard]) {
      if (list.list.length === 0) continue;
      // A fresh snapshot: a running dispatch keeps iterating its own (minus those not reached yet).
      for (const sub of list.unlinkAll()) this.retire(sub, 'clear');
    }
    this.updateStars();
  }

  /**
   * Subscriptions registered for exactly `type` (`'*'`: the wildcard ones; `'*'` subscribers are not
   * counted under event names). Without an argument: all subscriptions of the bus. Subscriptions of
   * dead owners count until a dispatch reaches and removes them.
   */
  listenerCount(type?: EventName<E> | '*'): number {
    if (type === undefined) return this.count;
    checkTypeName('listenerCount', type, true);
    if (type === '*') return this.wildcard.list.length;
    const list = this.byType.get(type);
    return list === undefined ? 0 : list.list.length;
  }

  /** Live subscriptions (of `type`, or all), in subscription order, as plain snapshots. */
  subscriptions(type?: EventName<E> | '*'): SubscriptionInfo[] {
    const out: SubscriptionInfo[] = [];
    if (type === undefined) {
      for (const sub of this.tracedSubscriptions()) out.push(toInfo(sub as SubscriptionRecord, this.name));
    } else {
      checkTypeName('subscriptions', type, true);
      const list = type === '*' ? this.wildcard : this.byType.get(type);
      if (list !== undefined) for (const sub of list.list) out.push(toInfo(sub, this.name));
    }
    return out.sort((x, y) => x.id - y.id);
  }

  /**
   * Unsubscribes everything (reason `clear`), drops the queue and unregisters the bus from the
   * probe. Afterwards `subscribe` returns inactive Subscriptions and `dispatch` delivers to nobody.
   * Idempotent.
   */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.inbox?.closeAll();
    this.queueTypes.length = 0;
    this.queuePayloads.length = 0;
    this.queueContexts.length = 0;
    this.queueHead = 0;
    this.clear();
    // Owner groups are all empty now; dropping the table and registry releases them at once.
    this.owners = null;
    this.registry = null;
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      try {
        tracer.busDisposed(this);
      } catch (error) {
        tracerFailed(error);
      }
    }
    unregisterBus(this.registration);
  }

  /** Same as `dispose()`, for `using`. */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** Live subscriptions, for the probe's snapshots (part of TracedBus). */
  *tracedSubscriptions(): IterableIterator<TracedSubscription> {
    for (const list of this.byType.values()) yield* list.list;
    yield* this.wildcard.list;
  }

  /** @internal Removes an active subscription of this bus. False when it was not one. */
  removeSubscription(sub: SubscriptionRecord, reason: UnsubscribeReason): boolean {
    // A subscription has a list exactly while it is active.
    const list = sub.list;
    if (list === null || list.bus !== this) return false;
    list.unlink(sub, depthNow() > 0);
    if (list === this.wildcard) this.updateStars();
    this.retire(sub, reason);
    return true;
  }

  /** Everything after a subscription left its list: counts, owner group, signal, tracer. */
  private retire(sub: SubscriptionRecord, reason: UnsubscribeReason): void {
    this.count--;
    const group = sub.release();
    if (group !== null) {
      const subs = group.subs;
      const i = subs.lastIndexOf(sub);
      if (i === subs.length - 1) subs.pop();
      else if (i >= 0) subs.splice(i, 1);
      // An emptied group stays (keyed weakly by its owner) so the owner's next subscription reuses
      // it instead of registering with the FinalizationRegistry again; it goes with the owner.
    }
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      try {
        tracer.unsubscribed(this, sub, reason);
      } catch (error) {
        tracerFailed(error);
      }
    }
  }

  /** The list of a subscribed type (created on the first subscription; '*' has its own). */
  private listFor(type: string): ListenerList {
    // The one-entry type cache first (it serves dispatch too): no Map lookup for the same type again.
    let list = type === this.lastType ? this.lastList : this.lookup(type);
    if (list === NO_SUBSCRIBERS) {
      // `lookup` left the type in the cache: point it at the new list.
      this.byType.set(type, (list = this.lastList = new ListenerList(this, type)));
      if (this.stars) list.gate |= STAR;
    }
    return list;
  }

  /**
   * @internal The listener list for a dispatched type (cold path of the one-entry cache). Unknown types get the
   * shared empty list, after the type name is validated. Lists are never removed, so a cached list
   * stays valid; `listFor` resets the cache when it creates one.
   */
  lookup(type: string): ListenerList {
    let list = this.byType.get(type);
    if (list === undefined) {
      checkTypeName('dispatch', type, false);
      list = NO_SUBSCRIBERS;
    }
    this.lastType = type;
    this.lastList = list;
    return list;
  }

  /**
   * Keeps `stars` in step with the '*' list: while there are '*' subscribers, every list of the bus
   * carries the STAR bit in its gate, so the fast loop's one test sends them to the merging loop.
   */
  private updateStars(): void {
    const stars = this.wildcard.list.length > 0;
    if (stars === this.stars) return;
    this.stars = stars;
    for (const list of this.byType.values()) list.gate ^= STAR;
  }

  private groupFor(owner: object): OwnerGroup {
    let owners = this.owners;
    if (owners === null) owners = this.owners = new WeakMap();
    let group = owners.get(owner);
    if (group === undefined) {
      group = new OwnerGroup(new WeakRef(owner), describeOwner(owner));
      owners.set(owner, group);
      let registry = this.registry;
      if (registry === null) registry = this.registry = new FinalizationRegistry((g: OwnerGroup) => this.collectOwner(g));
      registry.register(owner, group);
    }
    return group;
  }

  /** The owner was garbage-collected: remove all of its subscriptions (from the registry or a dispatch). */
  private collectOwner(group: OwnerGroup): void {
    const subs = group.subs.slice();
    let removed = 0;
    for (let i = 0; i < subs.length; i++) {
      if (this.removeSubscription(subs[i], 'collected')) subs[removed++] = subs[i];
    }
    if (removed === 0) return;
    subs.length = removed;
    // Said whether or not a probe is attached: the app lost handlers it may still need.
    if (this.warnOnCollectedOwner) warnOwnerCollected(this.name, group.description, subs);
    const tracer = currentBusTracer();
    if (tracer !== undefined) {
      try {
        tracer.ownerCollected(this, group.description, removed, group.ownerId);
      } catch (error) {
        tracerFailed(error);
      }
    }
  }

  private findById(id: number): SubscriptionRecord | undefined {
    for (const sub of this.tracedSubscriptions()) if (sub.id === id) return sub as SubscriptionRecord;
    return undefined;
  }
}

function breakRequested(tracer: DispatchTracer, bus: TracedBus, type: string, payload: unknown): boolean {
  try {
    // The payload condition (installed by a debugger, see ../debug/event-breaks) only for break types.
    // Registered by bus/optional-parts.ts, or in a page once breakpoints are set (browser/page-breaks.ts).
    if (!tracer.shouldBreak(bus, type)) return false;
    const wanted = runtime.optional?.eventBreakWanted;
    return wanted !== undefined && wanted(bus.busId, bus.name, type, payload);
  } catch (error) {
    tracerFailed(error);
    return false;
  }
}

/** A traced dispatch ended; a tracer must never break the app. */
function endDispatch(tracer: DispatchTracer, seq: number, delivered: number, consumedBy: number): void {
  try {
    tracer.dispatchEnd(seq, delivered, consumedBy);
  } catch (error) {
    tracerFailed(error);
  }
}

/** A carrier must never break `enqueue`: a failure means this event carries no context. */
function captureContext(carrier: ContextCarrier): unknown {
  try {
    return carrier.capture();
  } catch (error) {
    tracerFailed(error);
    return undefined;
  }
}

function consumedResult(sub: SubscriptionRecord, delivered: number): DispatchResult {
  const cached = sub.consumedResult;
  if (cached !== null && cached.delivered === delivered) return cached;
  const made = makeConsumedResult(delivered, sub.id);
  sub.consumedResult = made;
  return made;
}
