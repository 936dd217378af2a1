// The producer end of a cross-thread queue, used in a worker (or any other thread):
//
//   const producer = connectProducer<GameEvents>(workerData.port);
//   producer.enqueue('item.picked', { itemId: 7, picker: 'ann' });
//
// Each enqueue posts one message, so the structured clone runs inside the call: a payload that
// cannot be cloned throws there, in the worker, naming the event. MessagePort delivery is FIFO and
// a posted message is already in the consumer's port queue when postMessage returns, so nothing the
// worker posted is lost when it exits, throws or is terminated afterwards.
// Each event carries its enqueue time and the hello the producer's thread id: the consumer's
// recorder writes both into the event's dispatch record, which the inspector draws a flow from.
import { describeValue } from '../delegates/disposable';
import { PRODUCER_CLOSE, PRODUCER_EVENT, PRODUCER_HELLO, type CloneableEvents, type CloneablePayload, type ProducerPortEnd } from './cross-thread';
import type { EventMap, EventName, PayloadArgs } from './types';
import { runtime } from './runtime';

/** The typed producer end of `bus.openProducerPort()`. */
export interface Producer<E extends EventMap> {
  /**
   * Posts the event to the bus that opened the port; it is queued there and dispatched by that
   * thread's `flush()` (or `autoFlush`).
   * @throws TypeError on an empty type name, a payload the structured clone refuses (the
   * DataCloneError is its `cause`), or after `close()`.
   */
  enqueue<K extends EventName<E>>(type: K, ...payload: PayloadArgs<CloneablePayload<E[K]>>): void;
  /** Events posted so far. */
  readonly posted: number;
  /** Closes the port; the consumer dispatches what was posted before. Idempotent. */
  close(): void;
}

function isPortEnd(value: unknown): value is ProducerPortEnd {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ProducerPortEnd).postMessage === 'function' &&
    typeof (value as ProducerPortEnd).close === 'function'
  );
}

/** The caller's frame, for the consumer's inspector and warnings: one stack read per producer. */
function callerLine(): string {
  const stack = new Error().stack;
  if (typeof stack !== 'string') return '';
  // [0] "Error", [1] callerLine, [2] connectProducer, [3] the app's call.
  const lines = stack.split('\n');
  return lines.length > 3 ? lines[3].trim() : '';
}

/**
 * This thread's `worker_threads.threadId` (0 on the main thread and in web workers): from the Node
 * entry when it is loaded here, else read without importing a Node built-in (this file runs in
 * browsers too; `process.getBuiltinModule` is Node ≥ 20.16).
 */
function ownThreadId(): number {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const id = runtime.threadId ?? (proc?.getBuiltinModule?.('node:worker_threads') as { threadId?: unknown } | undefined)?.threadId;
    return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : 0;
  } catch {
    return 0;
  }
}

/** This thread's `performance.timeOrigin`, read once (a getter into the runtime on every read in Node). */
let timeOrigin = NaN;

/** Now on the epoch-aligned clock every thread's recorder shares (the consumer's recorder subtracts its time origin). */
function epochNow(): number {
  if (timeOrigin !== timeOrigin) timeOrigin = performance.timeOrigin;
  return timeOrigin + performance.now();
}

function isDataCloneError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'DataCloneError';
}

class PortProducer<E extends EventMap> implements Producer<E> {
  posted = 0;
  private port: ProducerPortEnd | null;

  constructor(port: ProducerPortEnd) {
    this.port = port;
  }

  enqueue<K extends EventName<E>>(type: K, ...payload: PayloadArgs<CloneablePayload<E[K]>>): void;
  enqueue(type: string, payload?: unknown): void {
    if (typeof type !== 'string' || type.length === 0 || type === '*') {
      throw new TypeError(`Producer.enqueue: type must be a non-empty event name other than '*' (got ${describeValue(type)})`);
    }
    const port = this.port;
    if (port === null) throw new TypeError(`Producer.enqueue("${type}"): the producer is closed`);
    try {
      port.postMessage([PRODUCER_EVENT, type, payload, epochNow()]);
    } catch (error) {
      if (!isDataCloneError(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new TypeError(
        `Producer.enqueue("${type}"): the payload cannot be sent to the bus's thread: ${reason}. ` +
          'Payloads are structured-cloned: functions, symbols, class instances with methods and weak collections do not cross threads.',
        { cause: error },
      );
    }
    this.posted++;
  }

  close(): void {
    const port = this.port;
    if (port === null) return;
    this.port = null;
    try {
      port.postMessage([PRODUCER_CLOSE]);
    } finally {
      port.close();
    }
  }
}

/**
 * The producer end of a port opened with `bus.openProducerPort()` and transferred to this thread:
 * `enqueue(type, payload)` is typed by the same event map as the bus, and a payload type that the
 * structured clone cannot carry (functions, symbols, …) does not type-check.
 * @throws TypeError when `port` is not a MessagePort.
 */
export function connectProducer<E extends EventMap & CloneableEvents<E>>(port: ProducerPortEnd): Producer<E> {
  if (!isPortEnd(port)) {
    throw new TypeError(`connectProducer: port must be the MessagePort returned by bus.openProducerPort() (got ${describeValue(port)})`);
  }
  port.postMessage([PRODUCER_HELLO, callerLine(), ownThreadId()]);
  return new PortProducer<E>(port);
}
