// The bus's public types. Event maps are plain interfaces: `{ 'item.picked': { itemId: number }; tick: void }`.
import type { Disposable } from '../delegates/disposable';
import type { ProducerQueueOptions } from './cross-thread';

/**
 * The constraint on an event map: names to payload types. (`any` only because an `interface` has no
 * implicit index signature and so does not satisfy `Record<string, unknown>`; payload types always
 * come from your map.)
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EventMap = Record<string, any>;

/** The event names of a map. */
export type EventName<E extends EventMap> = keyof E & string;

/**
 * The payload argument(s) of `dispatch`/`enqueue` for payload type `P`: optional when `P` is
 * `void`/`undefined`, required otherwise.
 */
export type PayloadArgs<P> = [P] extends [void] ? [payload?: P] : [payload: P];

/** What a handler receives for payload type `P`: `void` payloads arrive as `undefined`. */
export type HandlerPayload<P> = P extends void ? undefined : P;

/** The payload a `'*'` subscriber receives: any event's payload. */
export type AnyPayload<E extends EventMap> = HandlerPayload<E[EventName<E>]>;

/** The payload a subscriber of `K` receives (`K` may be `'*'`). */
export type PayloadOf<E extends EventMap, K extends EventName<E> | '*'> = K extends EventName<E> ? HandlerPayload<E[K]> : AnyPayload<E>;

/**
 * A handler. Return `true` (or call `ctx.consume()`) to consume the event: handlers after it are
 * not called. Any other return value is ignored.
 */
export type Handler<E extends EventMap, K extends EventName<E> | '*'> = (payload: PayloadOf<E, K>, ctx: DispatchContext<E>) => unknown;

/**
 * What a handler learns about the dispatch calling it. The object is reused: it is valid only
 * during the handler call (read what you need before returning or awaiting).
 */
export interface DispatchContext<E extends EventMap> {
  /** The dispatched event's name (useful in `'*'` handlers). */
  readonly type: EventName<E>;
  /** Nesting level: 0 for a top-level dispatch, 1 for a dispatch made by a handler, and so on (across all buses). */
  readonly depth: number;
  /** The id of the subscription being called. */
  readonly subscriptionId: number;
  /** Consumes the event: no handler after this one is called. Same as returning `true`. */
  consume(): void;
}

/** Options for `subscribe`. */
export interface SubscribeOptions {
  /** Higher runs first; equal priorities run in subscription order. A finite number; default 0. */
  priority?: number;
  /**
   * The object this subscription belongs to, held weakly. When it is garbage-collected or
   * `isOwnerAlive` reports it dead, the subscription is removed instead of called.
   * `unsubscribeOwner(owner)` removes all of its subscriptions.
   */
  owner?: object;
  /** Remove the subscription before its first call. */
  once?: boolean;
  /** Aborting unsubscribes; an already-aborted signal subscribes nothing (an inactive Subscription is returned). */
  signal?: AbortSignal;
  /** A name shown in the inspector. */
  label?: string;
}

/** A subscription handle. Dispose it to unsubscribe (or `using sub = bus.subscribe(...)`). */
export interface Subscription extends Disposable {
  /** Positive integer, unique in the process, never reused. */
  readonly id: number;
  /** The subscribed event name, or `'*'`. */
  readonly type: string;
  /** False once unsubscribed for any reason (or when nothing was subscribed). */
  readonly active: boolean;
  /** Unsubscribes. Idempotent. */
  dispose(): void;
  /** Same as `dispose()`, for `using`. */
  [Symbol.dispose](): void;
}

/** A live subscription as `subscriptions()` reports it. */
export interface SubscriptionInfo {
  readonly id: number;
  /** Event name, or `'*'`. */
  readonly type: string;
  readonly priority: number;
  readonly label: string | undefined;
  /** The owner's description (constructor name, plus `#id` or `#name` when it has one), if it has an owner. */
  readonly owner: string | undefined;
  /** How many times the handler has been called. */
  readonly calls: number;
  /** When it subscribed, epoch milliseconds (read once per task, and at least every 64 subscriptions). */
  readonly createdAt: number;
  readonly once: boolean;
  /** The bus's name. */
  readonly bus: string;
}

/** What `dispatch` returns. Treat it as read-only: the objects are shared. */
export interface DispatchResult {
  /** Handlers called (including ones that threw). */
  readonly delivered: number;
  /** True when a handler consumed the event. */
  readonly consumed: boolean;
  /** The consuming subscription's id; absent when not consumed. */
  readonly consumedBy?: number;
}

/** What `onError` learns about a failed handler. */
export interface HandlerErrorInfo {
  /** The bus's name. */
  readonly bus: string;
  /** The dispatched event's name. */
  readonly type: string;
  /** The id of the subscription whose handler threw. */
  readonly subscriptionId: number;
}

/** Options for `new EventBus(options)`. */
export interface EventBusOptions {
  /** The bus's name, shown in the inspector; a named bus is a channel. Default `'default'`. */
  name?: string;
  /** Nested dispatch levels allowed before a nested `dispatch` throws `DispatchDepthError`. Positive integer; default 32. */
  maxDepth?: number;
  /** Receives every error a handler throws (default: `console.error`). Dispatch continues with the next handler. */
  onError?: (error: unknown, info: HandlerErrorInfo) => void;
  /**
   * Decides whether an owner may still be called. Default: false when `owner.disposed === true` or
   * `owner.isDisposed === true`. A dead owner's subscription is removed at its next dispatch.
   */
  isOwnerAlive?: (owner: object) => boolean;
  /** `'microtask'`: flush the queue in a microtask whenever it becomes non-empty. `'manual'` (default): call `flush()` yourself. */
  autoFlush?: 'manual' | 'microtask';
  /**
   * The bound on cross-thread queues (`openProducerPort()`): `cap` events waiting to flush (default
   * 100,000) beyond which arriving events are dropped, `drop` which ones (`'newest'`, default, or
   * `'oldest'`). Counted in `producerStats`, warned about once.
   */
  producerQueue?: ProducerQueueOptions;
  /**
   * Warn (once per subscribe site, with `process.emitWarning` as a `BusscopeOwnerCollectedWarning`,
   * or `console.warn` where there is no `process`) when subscriptions end because their owner was
   * garbage-collected. Default true; `false` silences it.
   */
  warnOnCollectedOwner?: boolean;
}
