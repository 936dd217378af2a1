// What crosses a producer port (bus.openProducerPort() ↔ connectProducer): the messages, and the
// compile-time rule that a payload must survive the structured clone. No Node built-ins: a
// MessagePort is a web-standard global (Node ≥ 15, browsers, web workers).
import type { EventMap } from './types';

/**
 * The port `openProducerPort()` returns, to transfer to a worker: the runtime's MessagePort (Node's
 * `worker_threads` one, or the DOM's where the DOM types are loaded).
 */
export type TransferablePort = InstanceType<typeof MessagePort>;

/** Message tags. Every message is an array whose first element is one of these. */
/** `[PRODUCER_EVENT, type, payload, enqueuedAt]` (enqueuedAt: epoch ms, `performance.timeOrigin + performance.now()` in the producer's thread). */
export const PRODUCER_EVENT = 0;
/**
 * `[PRODUCER_HELLO, site, threadId]`: sent once by `connectProducer` (site: the connecting call's
 * stack line or ''; threadId: the producer's `worker_threads.threadId`, 0 when it cannot say).
 */
export const PRODUCER_HELLO = 1;
/** `[PRODUCER_CLOSE]`: `producer.close()`; the consumer closes its end. */
export const PRODUCER_CLOSE = 2;

/** What a consumer does when its queue is full: drop the arriving event, or the oldest queued one. */
export type ProducerDropPolicy = 'oldest' | 'newest';

/** Options for the consumer side of producer ports (`new EventBus({ producerQueue })`). */
export interface ProducerQueueOptions {
  /**
   * Events waiting to flush beyond which events arriving from producers are dropped (positive
   * integer; default 100,000). The bus's own thread's `enqueue` is never refused (with `'oldest'`
   * the dropped head may be any queued event).
   */
  cap?: number;
  /** `'newest'` (default): the arriving event is dropped; `'oldest'`: the head of the queue is (whoever queued it). */
  drop?: ProducerDropPolicy;
}

/** Counts of the consumer side (`bus.producerStats`). */
export interface ProducerStats {
  /** Ports opened with `openProducerPort()` and not yet closed (by the producer's exit, `close()`, or `dispose()`). */
  readonly openPorts: number;
  /** Events that arrived from producers (queued or dropped). */
  readonly received: number;
  /** Events dropped because the queue was at its cap. */
  readonly dropped: number;
  /** Events that arrived after `dispose()`, and messages that were not a producer's (both discarded). */
  readonly discarded: number;
}

/**
 * The end of a port a producer uses: a `MessagePort` (Node's `worker_threads` one or the web one)
 * satisfies it; so does anything with the same `postMessage`/`close`.
 */
export interface ProducerPortEnd {
  postMessage(message: unknown): void;
  close(): void;
}

/** Things structured clone refuses (DataCloneError) or that arrive as something else. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any function at all is what structured clone refuses
type NotCloneable = Function | symbol | WeakMap<object, unknown> | WeakSet<object> | WeakRef<object> | Promise<unknown>;
/** Objects the structured clone copies whole (their methods live on the prototype and come back). */
type ClonedWhole = Date | RegExp | ArrayBuffer | ArrayBufferView | Error | boolean | number | string | bigint;

/**
 * `P` as far as the structured clone can carry it: functions, symbols, weak collections and promises
 * become `never` wherever they occur, so a payload holding one does not type-check. A class with
 * methods is rejected too: its instance would arrive as a plain object without them.
 */
export type CloneablePayload<P> = P extends NotCloneable
  ? never
  : P extends ClonedWhole | null | undefined | void
    ? P
    : P extends ReadonlyMap<infer K, infer V>
      ? Map<CloneablePayload<K>, CloneablePayload<V>>
      : P extends ReadonlySet<infer V>
        ? Set<CloneablePayload<V>>
        : P extends object
          ? { [K in keyof P]: CloneablePayload<P[K]> }
          : P;

/** An event map whose every payload can cross a thread: `E` itself when it can. */
export type CloneableEvents<E extends EventMap> = { [K in keyof E]: CloneablePayload<E[K]> };
