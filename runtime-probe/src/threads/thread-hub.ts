// The main thread's side: knows the app's worker threads (each says `hello` when the package loads
// in it; `process.on('worker')` tells when one exits, crash or terminate included) and feeds every
// version-5 stream of the probe (client connections, trace files) with each worker's records. A
// worker's record batch is wrapped, not decoded: code 17, the thread id, then the worker's own
// batch, which readers decode with that thread's string and site tables (PROTOCOL.md, "Worker
// threads"). The main thread never buffers a worker's records: a batch its stream cannot take is
// dropped and counted into that stream's `drops` (slow-client) at once, and the worker is credited.

import { BroadcastChannel, type Worker } from 'node:worker_threads';
import { ByteWriter } from '../protocol/bytes';
import { FrameKind } from '../protocol/framing';
import { encodeControlFrame, type ProbeSnapshot, type RecordingConfig, type ThreadMessage } from '../protocol/messages';
import { RecordCode } from '../protocol/records';
import { eventBreaks, onEventBreaksChange } from '../debug/event-breaks';
import { reportProbeFailure } from '../probe/report';
import type { RecordSink } from '../recorder/sink';
import { isWorkerMessage, type MainToWorker, type WorkerToMain } from './channel';

interface KnownThread {
  readonly id: number;
  readonly name: string;
  /** Epoch ms. */
  readonly startedAt: number;
  exitedAt: number | null;
  readonly credit: Int32Array;
}

interface Stream {
  readonly sink: RecordSink;
  /** Threads that sent this stream their snapshot (their records follow it). */
  readonly joined: Set<number>;
  /** The recorder's `drainSoon`: it delivers the drops counted into the sink. */
  readonly drainSoon: () => void;
}

/** Frame header (4 length bytes, 1 kind byte) of the worker's frames. */
const HEADER = 5;

export class ThreadHub {
  private readonly channel: BroadcastChannel;
  private readonly threads = new Map<number, KnownThread>();
  private readonly streams = new Map<number, Stream>();
  private readonly keys = new WeakMap<RecordSink, number>();
  private nextKey = 1;
  private readonly writer = new ByteWriter(16);
  /** Records of workers that some stream could not take (its socket over the limit). */
  droppedRecords = 0;

  constructor(
    channelName: string,
    /** The main thread's time origin (epoch ms): thread times are sent relative to it. */
    private readonly timeOrigin: number,
  ) {
    this.channel = new BroadcastChannel(channelName);
    this.channel.onmessage = (event: unknown) => this.onMessage((event as { data: unknown }).data);
    // Never keeps the app alive (after `onmessage`: setting it refs the channel).
    (this.channel as { unref?: () => void }).unref?.();
    // Conditions and mutes a debugger sets in this thread hold in the workers too (their globals are their own).
    onEventBreaksChange(() => this.conditionsChanged());
    // Exits the worker could not report itself (terminate(), an uncaught error, process.exit in it).
    process.on('worker', (worker: Worker) => {
      const id = worker.threadId;
      worker.once('exit', () => this.exited(id, performance.timeOrigin + performance.now()));
    });
  }

  /** Worker threads known (for tests and the snapshot): id, name, times (epoch ms). */
  get knownThreads(): readonly Omit<KnownThread, 'credit'>[] {
    return [...this.threads.values()];
  }

  /** The main recorder's settings, which the workers' recorders follow (sent again to each worker that says hello). */
  private config: RecordingConfig | undefined;

  setConfig(config: RecordingConfig): void {
    if (this.config === config) return;
    this.config = config;
    this.send({ t: 'config', config });
  }

  /** The types clients break on (the main recorder's set), which the workers' recorders follow (sent again to each worker that says hello). */
  private breakOn: readonly string[] = [];

  setBreakOn(types: ReadonlySet<string>): void {
    const next = [...types].sort();
    if (next.length === this.breakOn.length && next.every((t, i) => t === this.breakOn[i])) return;
    this.breakOn = next;
    this.send({ t: 'break-on', types: next });
  }

  /**
   * A version-5 stream starts (after its welcome, definitions and snapshot): every worker joins it,
   * told the stream's version (at 6 a worker writes dispatch columns: its frames are wrapped, not rewritten).
   */
  attachStream(sink: RecordSink, drainSoon: () => void): void {
    if (this.keys.has(sink)) return;
    const key = this.nextKey++;
    this.keys.set(sink, key);
    this.streams.set(key, { sink, joined: new Set(), drainSoon });
    this.send({ t: 'attach', key, thread: 0, version: sink.protocolVersion });
  }

  detachStream(sink: RecordSink): void {
    const key = this.keys.get(sink);
    if (key === undefined) return;
    this.keys.delete(sink);
    this.streams.delete(key);
    this.send({ t: 'detach', key });
  }

  /** The main thread's conditions and mutes, as last sent (undefined: none ever set). */
  private conditions: Extract<MainToWorker, { t: 'conditions' }> | undefined;

  private conditionsChanged(): void {
    const hook = eventBreaks();
    this.conditions = { t: 'conditions', conditions: Object.entries(hook.conditions()), muted: hook.muted() };
    this.send(this.conditions);
  }

  private send(message: MainToWorker): void {
    try {
      this.channel.postMessage(message);
    } catch (error) {
      reportProbeFailure('asking worker threads for their records', error);
    }
  }

  private onMessage(data: unknown): void {
    if (!isWorkerMessage(data)) return;
    try {
      this.handle(data);
    } catch (error) {
      reportProbeFailure("receiving a worker thread's records", error);
    }
  }

  private handle(m: WorkerToMain): void {
    switch (m.t) {
      case 'hello': {
        if (!(m.credit instanceof SharedArrayBuffer)) return;
        this.threads.set(m.thread, { id: m.thread, name: m.name, startedAt: m.startedAt, exitedAt: null, credit: new Int32Array(m.credit) });
        if (this.config !== undefined) this.send({ t: 'config', config: this.config });
        if (this.breakOn.length > 0) this.send({ t: 'break-on', types: this.breakOn });
        if (this.conditions !== undefined) this.send(this.conditions);
        // Streams already open want this worker too.
        for (const [key, stream] of this.streams) this.send({ t: 'attach', key, thread: m.thread, version: stream.sink.protocolVersion });
        return;
      }
      case 'frame': {
        const thread = this.threads.get(m.thread);
        if (thread !== undefined) Atomics.add(thread.credit, 0, m.frame.length);
        const stream = this.streams.get(m.key);
        if (stream === undefined || m.frame.length <= HEADER || m.frame[4] !== FrameKind.Records) return;
        const wrapped = this.wrap(m.thread, m.frame);
        const sink = stream.sink;
        // Definitions and drops (no counts) are never skipped; a batch the stream cannot take is counted.
        if (m.records === 0 || sink.canAccept(wrapped.length)) sink.write(wrapped);
        else {
          sink.slowDropped += m.records;
          sink.slowDroppedDispatches += m.dispatches;
          this.droppedRecords += m.records;
          // The main recorder may record nothing itself: it must still deliver these counts.
          stream.drainSoon();
        }
        return;
      }
      case 'snapshot': {
        const stream = this.streams.get(m.key);
        const thread = this.threads.get(m.thread);
        if (stream === undefined || thread === undefined) return;
        stream.joined.add(m.thread);
        stream.sink.write(encodeControlFrame(this.threadMessage(thread, m.snapshot)));
        return;
      }
      case 'bye':
        this.exited(m.thread, m.exitedAt);
        return;
      default: {
        const never: never = m;
        throw new Error(`unknown worker message ${String(never)}`);
      }
    }
  }

  private exited(id: number, at: number): void {
    const thread = this.threads.get(id);
    if (thread === undefined || thread.exitedAt !== null) return;
    thread.exitedAt = at;
    for (const stream of this.streams.values()) {
      if (!stream.joined.delete(id)) continue;
      stream.sink.write(encodeControlFrame(this.threadMessage(thread, null)));
    }
    // Its id is never reused (threadIds are per process): forget it.
    this.threads.delete(id);
  }

  private threadMessage(thread: KnownThread, snapshot: ProbeSnapshot | null): ThreadMessage {
    return {
      type: 'thread',
      thread: thread.id,
      name: thread.name,
      startedAt: thread.startedAt - this.timeOrigin,
      exitedAt: thread.exitedAt === null ? null : thread.exitedAt - this.timeOrigin,
      snapshot,
    };
  }

  /** Code 17, the thread id, then the worker's batch body. */
  private wrap(thread: number, frame: Uint8Array): Uint8Array {
    const w = this.writer;
    w.reset();
    w.u8(RecordCode.ThreadRecords);
    w.uvarint(thread);
    const head = w.written();
    // One copy of the worker's batch, straight into the frame (its header written in place).
    const bodyLength = head.length + frame.length - HEADER;
    const out = new Uint8Array(HEADER + bodyLength);
    new DataView(out.buffer).setUint32(0, bodyLength + 1, true);
    out[4] = FrameKind.Records;
    out.set(head, HEADER);
    out.set(frame.subarray(HEADER), HEADER + head.length);
    return out;
  }
}

let hub: ThreadHub | undefined;

/** The main thread's hub, once threads/environment.ts installed it. */
export function mainThreadHub(): ThreadHub | undefined {
  return hub;
}

export function setMainThreadHub(h: ThreadHub): void {
  hub = h;
}
