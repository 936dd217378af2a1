// The consumer side of cross-thread queues: the ports a bus opened with `openProducerPort()`, and
// what arrives on them. Each port is a dedicated MessageChannel (never the app's `parentPort`), so
// the app's own messages and ours never mix. A port keeps its thread alive, as any MessagePort with
// a listener does, until the producer closes it (its thread ended, or `producer.close()`) or the
// bus is disposed: so everything a worker posted before it exited is received, even when its
// 'exit' event comes first. No Node built-ins: Node's MessagePort is used through its EventEmitter
// side when it has one (no MessageEvent per message), the web one through `onmessage`.
// The cap and its drops are applied here, to the bus's queue, not in the bus: this file is an
// optional part (optional-parts.ts), so a page that cannot open producer ports does not carry it.
import { PRODUCER_CLOSE, PRODUCER_EVENT, PRODUCER_HELLO, type ProducerDropPolicy, type ProducerStats } from './cross-thread';
import { runtime, type ProducedOrigin } from './runtime';
import { currentContextCarrier } from './tracer';

let carrierFailureReported = false;

/**
 * The ambient context an event from another thread arrives in (as `enqueue` captures it for a local
 * one), so its dispatch runs in it whenever flushed. A carrier must never break the event: on a
 * failure it has none (reported once).
 */
function arrivalContext(): unknown {
  const carrier = currentContextCarrier();
  if (carrier === undefined) return undefined;
  try {
    return carrier.capture();
  } catch (error) {
    if (!carrierFailureReported) {
      carrierFailureReported = true;
      try {
        console.error("[busscope] the context carrier threw on a producer port's event; further errors are ignored:", error);
      } catch {
        // nothing left to report to
      }
    }
    return undefined;
  }
}

/** A batch of drops at a bus's cap, for a running probe (`runtime.optional.producerDrops`). */
export interface ProducerDropReport {
  readonly bus: number;
  /** Dropped since the previous report of this bus. */
  readonly dropped: number;
  readonly totalDropped: number;
  readonly policy: ProducerDropPolicy;
  readonly cap: number;
}

/** What the inbox needs of its bus (EventBus's @internal queue). */
export interface ProducerConsumer {
  readonly name: string;
  readonly busId: number;
  readonly producerCap: number;
  readonly producerDrop: ProducerDropPolicy;
  /** The queue: parallel arrays from `queueHead` on (types, payloads, contexts or producer origins holding them). */
  readonly queueTypes: string[];
  readonly queuePayloads: unknown[];
  readonly queueContexts: unknown[];
  queueHead: number;
  /** Queues one event (schedules its flush, tells the tracer). */
  pushQueued(type: string, payload: unknown, origin?: ProducedOrigin): void;
}

/** The consumer end of one channel. */
interface ConsumerPort {
  postMessage(message: unknown): void;
  close(): void;
  start?(): void;
  on?(event: string, listener: (value: unknown) => void): unknown;
  addEventListener?(event: string, listener: (event: { data?: unknown }) => void): unknown;
  onmessage?: ((event: { data: unknown }) => void) | null;
}

interface ChannelLike {
  readonly port1: ConsumerPort;
  readonly port2: unknown;
}

/** A producer port as connected: where its producer connected from, for warnings and the inspector. */
export interface ConnectedProducer {
  /** The producer's `connectProducer` call as its stack showed it ('' before it connected or when unknown). */
  site: string;
  /** The producer's `worker_threads.threadId` (0 before it connected, on a main thread, or when it could not say). */
  thread: number;
}

export class ProducerInbox implements ProducerStats {
  openPorts = 0;
  received = 0;
  dropped = 0;
  discarded = 0;
  private readonly ports = new Set<ConsumerPort>();
  private warned = false;
  /** Drops not yet reported to the probe, and the policy/cap they were dropped under. */
  private unreported = 0;
  private reportPolicy: ProducerDropPolicy = 'newest';
  private reportCap = 0;
  private waiters: (() => void)[] = [];
  /** The bus was disposed: whatever still arrives is discarded. */
  private disposed = false;

  constructor(private readonly bus: ProducerConsumer) {}

  /** Opens a channel; returns the end to transfer to the producer's thread. */
  open(): unknown {
    const Channel = (globalThis as { MessageChannel?: new () => ChannelLike }).MessageChannel;
    if (typeof Channel !== 'function') {
      throw new TypeError(`EventBus.openProducerPort: this runtime has no MessageChannel (bus "${this.bus.name}")`);
    }
    const channel = new Channel();
    const port = channel.port1;
    const producer: ConnectedProducer = { site: '', thread: 0 };
    const receive = (message: unknown): void => this.receive(port, producer, message);
    const closed = (): void => this.closed(port);
    if (typeof port.on === 'function') {
      port.on('message', receive);
      port.on('close', closed);
    } else {
      port.onmessage = (event) => receive(event.data);
      port.addEventListener?.('close', closed);
      port.start?.();
    }
    this.ports.add(port);
    this.openPorts++;
    return channel.port2;
  }

  private receive(port: ConsumerPort, producer: ConnectedProducer, message: unknown): void {
    // Same process, but another thread's code: anything that is not our message is discarded, counted.
    if (!Array.isArray(message)) {
      this.discarded++;
      return;
    }
    switch (message[0]) {
      case PRODUCER_EVENT: {
        const type = message[1];
        if (typeof type !== 'string' || type.length === 0 || type === '*') {
          this.discarded++;
          return;
        }
        this.received++;
        // Where it came from, for the inspector's flow from the producer's enqueue to this dispatch.
        const at = message[3];
        this.accept(type, message[2], producer, typeof at === 'number' && Number.isFinite(at) ? at : NaN);
        return;
      }
      case PRODUCER_HELLO: {
        producer.site = typeof message[1] === 'string' ? message[1].slice(0, 1024) : '';
        const thread = message[2];
        producer.thread = typeof thread === 'number' && Number.isSafeInteger(thread) && thread > 0 ? thread : 0;
        const report = runtime.optional?.producerConnected;
        try {
          report?.(this.bus.busId, producer.site);
        } catch {
          // reporting must never break the app
        }
        return;
      }
      case PRODUCER_CLOSE:
        port.close();
        // Node reports the close as an event too; web ports may not: closed() is idempotent per port.
        this.closed(port);
        return;
      default:
        this.discarded++;
    }
  }

  /** Queues one event that arrived from a producer, or drops at the cap (the newest: this one; the oldest: the queue's head). */
  private accept(type: string, payload: unknown, producer: ConnectedProducer, enqueuedAt: number): void {
    if (this.disposed) {
      this.discarded++;
      return;
    }
    const bus = this.bus;
    const types = bus.queueTypes;
    const cap = bus.producerCap;
    if (types.length - bus.queueHead >= cap) {
      this.noteDropped(cap, bus.producerDrop, producer);
      if (bus.producerDrop === 'newest') return;
      // Arrivals are tasks, never inside a flush: the head can move here.
      const head = bus.queueHead;
      bus.queuePayloads[head] = undefined;
      bus.queueContexts[head] = undefined;
      bus.queueHead = head + 1;
      if (head >= 1024 && head * 2 >= types.length) {
        // A consumer that never flushes must not grow the arrays with dropped slots. All three move
        // together: a context (or origin) left behind would belong to another event from then on.
        types.splice(0, head + 1);
        bus.queuePayloads.splice(0, head + 1);
        bus.queueContexts.splice(0, head + 1);
        bus.queueHead = 0;
      }
    }
    // No origin without both (a producer on a main thread or in a web worker has no thread id).
    if (producer.thread === 0 || enqueuedAt !== enqueuedAt) bus.pushQueued(type, payload);
    else bus.pushQueued(type, payload, [producer.thread, enqueuedAt, arrivalContext()]);
  }

  private closed(port: ConsumerPort): void {
    if (!this.ports.delete(port)) return;
    this.openPorts--;
    if (this.openPorts === 0 && this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** The counts, as `bus.producerStats` gives them (a copy). */
  stats(): ProducerStats {
    return { openPorts: this.openPorts, received: this.received, dropped: this.dropped, discarded: this.discarded };
  }

  /** Resolves once every port opened so far has closed (everything posted on them has been received). */
  whenClosed(): Promise<void> {
    if (this.openPorts === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** An event was dropped at the cap: counted, and said once per bus (the inspector gets a record). */
  private noteDropped(cap: number, policy: ProducerDropPolicy, producer: ConnectedProducer): void {
    this.dropped++;
    // Batched: one report per turn of the event loop (a port delivers its backlog in one turn), not one per event.
    if (this.unreported++ === 0) setTimeout(() => this.reportDrops(), 0);
    this.reportPolicy = policy;
    this.reportCap = cap;
    if (this.warned) return;
    this.warned = true;
    try {
      const from = producer.site === '' ? '' : ` (the first from the producer connected ${producer.site})`;
      console.warn(
        `[busscope] bus "${this.bus.name}": ${cap} events are waiting to flush, the producer queue's cap; dropping the ${policy} ` +
          `events from producer threads${from}, counted in bus.producerStats.dropped. Flush more often, or raise producerQueue.cap. (Said once per bus.)`,
      );
    } catch {
      // a warning must never break the app
    }
  }

  private reportDrops(): void {
    const dropped = this.unreported;
    if (dropped === 0) return;
    this.unreported = 0;
    const report = runtime.optional?.producerDrops;
    if (report === undefined) return;
    try {
      report({ bus: this.bus.busId, dropped, totalDropped: this.dropped, policy: this.reportPolicy, cap: this.reportCap });
    } catch {
      // reporting must never break the app
    }
  }

  /** The bus is disposed: every port closes (what was still in flight is not received). */
  closeAll(): void {
    this.disposed = true;
    this.reportDrops();
    for (const port of [...this.ports]) {
      try {
        port.close();
      } catch {
        // already closed
      }
      this.closed(port);
    }
  }
}
