// A worker thread's side: its buses are recorded by a recorder of its own (the same recorder core as
// the main thread's: no socket, no discovery file) whose sinks post their frames to the main thread,
// one sink per stream the main thread serves (a client, a trace file), so each stream gets exact
// definitions, snapshot and drop counts. The main thread wraps the frames for its clients
// (thread-hub.ts). Nothing here blocks the worker: a post is a copy into the channel, and once the
// main thread is MAX_FORWARD_BYTES_IN_FLIGHT behind, batches are dropped and counted instead.

import path from 'node:path';
import { BroadcastChannel, threadId } from 'node:worker_threads';
import * as workerThreads from 'node:worker_threads';
import { setBusTracer, primaryBusTracer } from '../bus/tracer';
import { applyConditions } from '../debug/apply-conditions';
import type { ProbeSnapshot } from '../protocol/messages';
import { reportProbeFailure } from '../probe/report';
import { DEFAULT_MAX_BUFFERED_RECORDS, DEFAULT_RECORDING_CONFIG, NODE_RECORDER_HOST, RecorderCore, type RecorderClock } from '../recorder/recorder';
import { RecordSink } from '../recorder/sink';
import { buildSnapshot } from '../recorder/snapshot';
import { isMainMessage, MAX_FORWARD_BYTES_IN_FLIGHT, type ThreadsEnvironment, type WorkerToMain } from './channel';

/** A worker's seqs start at threadId · 2^32: unique across the threads of a process, and within a safe integer. */
const SEQ_SPAN = 2 ** 32;

class ForwardSink extends RecordSink {
  closed = false;
  constructor(
    readonly key: number,
    private readonly forwarder: WorkerForwarder,
    /** The main thread's stream's: at 6 the worker's dispatches go as columns (its frames are wrapped, not rewritten). */
    version: number,
  ) {
    super();
    this.protocolVersion = version;
  }

  canAccept(bytes: number): boolean {
    return !this.closed && this.forwarder.inFlight() + bytes <= MAX_FORWARD_BYTES_IN_FLIGHT;
  }

  write(frame: Uint8Array, records = 0, dispatches = 0): void {
    if (this.closed) return;
    this.forwarder.post({ t: 'frame', thread: threadId, key: this.key, frame, records, dispatches }, frame.length);
  }
}

/** The worker's name: Node ≥ 22.? tells it (`threadName`); else the file that loaded the package first. */
function workerName(): string {
  const named = (workerThreads as { threadName?: unknown }).threadName;
  if (typeof named === 'string' && named !== '' && named !== 'WorkerThread') return named;
  // The outermost frame of the first load is the worker's script (or what it imported first).
  let script = '';
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 200;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const line of stack.split('\n')) {
    const m = /^\s*at (?:.*? \()?(.+?):\d+:\d+\)?$/.exec(line);
    if (m !== null && !m[1].startsWith('node:')) script = m[1];
  }
  return script === '' ? `worker ${threadId}` : path.basename(script.replace(/^file:\/\//, ''));
}

export class WorkerForwarder {
  readonly recorder: RecorderCore;
  private readonly channel: BroadcastChannel;
  private readonly credit = new Int32Array(new SharedArrayBuffer(4));
  /** Bytes posted, mod 2^32 (compared with `credit[0]`, the bytes the main thread took). */
  private sent = 0;
  private readonly sinks = new Map<number, ForwardSink>();
  /** The thread's own trace files (`probe.record` in this worker): recorded beside the forwarding. */
  private readonly localSinks = new Set<RecordSink>();
  private exited = false;

  constructor(env: ThreadsEnvironment) {
    const shift = performance.timeOrigin - env.timeOrigin;
    // The main thread's clock: records of every thread share one time origin.
    const clock: RecorderClock = { timeOrigin: env.timeOrigin, now: () => performance.now() + shift };
    this.recorder = new RecorderCore({
      host: { ...NODE_RECORDER_HOST, clock },
      maxBufferedRecords: DEFAULT_MAX_BUFFERED_RECORDS,
      config: DEFAULT_RECORDING_CONFIG,
      sanitize: undefined,
      seqBase: threadId * SEQ_SPAN,
    });
    this.channel = new BroadcastChannel(env.channel);
    this.channel.onmessage = (event: unknown) => this.onMessage((event as { data: unknown }).data);
    // The channel must not keep the worker alive (after `onmessage`: setting it refs the channel).
    (this.channel as { unref?: () => void }).unref?.();
    this.post({ t: 'hello', thread: threadId, name: workerName(), startedAt: performance.timeOrigin, credit: this.credit.buffer as SharedArrayBuffer }, 0);
    // A worker that ends normally delivers what it recorded: its exit handlers still post.
    process.once('exit', () => this.exit());
  }

  inFlight(): number {
    return (this.sent - Atomics.load(this.credit, 0)) >>> 0;
  }

  post(message: WorkerToMain, bytes: number): void {
    try {
      this.channel.postMessage(message);
      this.sent = (this.sent + bytes) >>> 0;
    } catch (error) {
      reportProbeFailure('forwarding records to the main thread', error);
    }
  }

  private onMessage(data: unknown): void {
    if (!isMainMessage(data) || this.exited) return;
    try {
      if (data.t === 'config') {
        this.recorder.configure(data.config);
      } else if (data.t === 'conditions') {
        applyConditions(data.conditions, data.muted);
      } else if (data.t === 'break-on') {
        // The bus breaks where the recorder says so (and the inspector gate lets it: debug/inspector-gate.ts).
        this.recorder.setBreakOn(new Set(data.types.filter((t): t is string => typeof t === 'string')));
      } else if (data.t === 'attach') {
        if (data.thread !== 0 && data.thread !== threadId) return;
        if (this.sinks.has(data.key)) return;
        const sink = new ForwardSink(data.key, this, data.version ?? 5);
        this.sinks.set(data.key, sink);
        this.updateTracer();
        // Definitions, then the snapshot (posted in order after them), then the live records.
        this.recorder.attach(sink, [], () => {
          this.post({ t: 'snapshot', thread: threadId, key: data.key, snapshot: this.snapshot() }, 0);
          return undefined;
        });
      } else {
        const sink = this.sinks.get(data.key);
        if (sink === undefined) return;
        this.sinks.delete(data.key);
        sink.closed = true;
        this.recorder.detach(sink, false);
        this.updateTracer();
      }
    } catch (error) {
      reportProbeFailure("serving the main thread's probe", error);
    }
  }

  /**
   * A trace file of this thread's own (`probe.record` in the worker): the same recorder writes it, so
   * the thread's buses stay in the main thread's session while it records.
   */
  attachLocal(sink: RecordSink, preamble: readonly Uint8Array[], afterDefinitions: () => Uint8Array | undefined): void {
    this.localSinks.add(sink);
    this.updateTracer();
    this.recorder.attach(sink, preamble, afterDefinitions);
  }

  /** Ends a trace file of `attachLocal`, after delivering what was recorded up to now. */
  detachLocal(sink: RecordSink): void {
    if (!this.localSinks.delete(sink)) return;
    this.recorder.detach(sink, true);
    this.updateTracer();
  }

  /** The thread's buses, on the main thread's clock. */
  private snapshot(): ProbeSnapshot {
    const s = buildSnapshot(this.recorder);
    const shift = performance.timeOrigin - this.recorder.timeOrigin;
    return { ...s, time: s.time + shift, timeOrigin: this.recorder.timeOrigin };
  }

  /** The worker's recorder is the bus tracer while some stream wants this thread. */
  private updateTracer(): void {
    const want = this.sinks.size > 0 || this.localSinks.size > 0;
    const installed = primaryBusTracer() === this.recorder;
    if (want && !installed) {
      this.recorder.tracingStarted();
      setBusTracer(this.recorder);
    } else if (!want && installed) {
      setBusTracer(undefined);
      this.recorder.shutdown();
    }
  }

  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    try {
      for (const sink of this.sinks.values()) this.recorder.flushTo(sink);
    } catch (error) {
      reportProbeFailure('forwarding the last records to the main thread', error);
    }
    this.post({ t: 'bye', thread: threadId, exitedAt: performance.timeOrigin + performance.now() }, 0);
  }
}
