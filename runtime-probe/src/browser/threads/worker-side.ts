// A Web Worker's side (`connectToPage()`): its buses are recorded by a recorder of its own (the same
// recorder core as the page's) whose sinks post their frames to the page through the port the page
// handed over (`addWorker`), one sink per link the page opens, so each link gets exact definitions,
// snapshot and drop counts. The page wraps them for its one WebSocket (page-threads.ts). Nothing here
// blocks the worker: a post is a copy into the port, and once the page is MAX_FORWARD_BYTES_IN_FLIGHT
// behind, batches are dropped and counted instead. Without a page to talk to, the worker records
// nothing and runs as it would without the probe. No Node built-ins here.

import { runtime } from '../../bus/runtime';
import type { ProbeSnapshot } from '../../protocol/messages';
import { DEFAULT_MAX_BUFFERED_RECORDS, DEFAULT_RECORDING_CONFIG, RecorderCore } from '../../recorder/recorder-core';
import { encodeColumns } from '../../recorder/dispatch-columns';
import { RecordSink } from '../../recorder/sink';
import { buildSnapshot } from '../../recorder/snapshot';
import { MAX_FORWARD_BYTES_IN_FLIGHT } from '../../threads/channel';
import { applyConditions } from '../../debug/apply-conditions';
import { setPageBreakOn } from '../page-breaks';
import { startTracing, stopTracing } from '../page-recorder';
import { isPageToWorker, MAX_THREAD_BLOCK, PAGE_PORT_MARK, THREAD_SPAN, type ProbePort, type WorkerToPage } from './messages';

export type WorkerConnectionState = 'connecting' | 'open' | 'refused' | 'closed';

export interface WorkerConnection {
  /** `connecting` until the page takes the worker in (`addWorker`), then `open`. */
  readonly state: WorkerConnectionState;
  /** Why the worker cannot be a thread of its page (state `refused`). */
  readonly refusal: string | undefined;
  /** Resolves once the page took the worker in (rejects when refused or closed first). */
  readonly ready: Promise<void>;
  /** Stops recording; the page shows the thread as exited. Idempotent. */
  close(): void;
}

export interface ConnectToPageOptions {
  /** The thread's name in Busscope (default: the Worker's `name` option, else its script's file name). */
  readonly name?: string;
}

interface PortMessageEvent {
  readonly data: unknown;
  readonly ports: readonly ProbePort[];
  stopImmediatePropagation(): void;
}

interface WorkerScope {
  addEventListener(type: 'message', listener: (event: PortMessageEvent) => void): void;
  readonly name?: string;
  readonly location?: { readonly pathname?: string };
}

/** True in a dedicated worker (`new Worker(…)`), where the page can hand over a port. */
function inDedicatedWorker(): boolean {
  const g = globalThis as { DedicatedWorkerGlobalScope?: abstract new () => unknown };
  return typeof g.DedicatedWorkerGlobalScope === 'function' && globalThis instanceof g.DedicatedWorkerGlobalScope;
}

/** This worker's id block (0: not in a dedicated worker). */
let block = 0;
/** Why this worker's ids may collide with the page's (ids were taken before the block was reserved). */
let unclean: string | undefined;
let pagePort: ProbePort | undefined;
let active: PageThreadLink | undefined;

/**
 * What `busscope-probe/browser/worker` runs as it loads (apps need not call it): reserves this worker's id block before the app's modules create
 * buses, and catches the page's port (stopping the marked message there, so the app never sees it).
 */
export function joinPageWhenAsked(): void {
  if (block !== 0 || !inDedicatedWorker()) return;
  const random = new Uint32Array(1);
  globalThis.crypto.getRandomValues(random);
  block = 1 + (random[0] % MAX_THREAD_BLOCK);
  if (runtime.nextBusId !== 1 || runtime.nextSubscriptionId !== 1 || runtime.nextOwnerId !== 1) {
    unclean = 'this worker created buses or subscriptions before it imported busscope-probe/browser/worker: import it first';
  }
  const base = block * THREAD_SPAN + 1;
  runtime.nextBusId = Math.max(runtime.nextBusId, base);
  runtime.nextSubscriptionId = Math.max(runtime.nextSubscriptionId, base);
  runtime.nextOwnerId = Math.max(runtime.nextOwnerId, base);
  (globalThis as unknown as WorkerScope).addEventListener('message', (event) => {
    const data: unknown = event.data;
    if (typeof data !== 'object' || data === null || (data as Record<string, unknown>)[PAGE_PORT_MARK] !== 1 || event.ports.length !== 1) return;
    event.stopImmediatePropagation();
    if (pagePort !== undefined) return;
    pagePort = event.ports[0];
    active?.begin(pagePort);
  });
}

/**
 * Makes this worker's buses a thread of its page's Busscope session: call it in a dedicated Web
 * Worker that the page passed to `addWorker`. The worker keeps working the same whether or not the
 * page takes it in. Once per worker (a closed thread does not come back).
 * @throws TypeError outside a dedicated worker, on bad options, or when called before in this worker.
 */
export function connectToPage(options: ConnectToPageOptions = {}): WorkerConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('connectToPage: options must be an object { name? }');
  const { name } = options;
  if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > 256))
    throw new TypeError('connectToPage: name must be a non-empty string of at most 256 characters');
  if (!inDedicatedWorker())
    throw new TypeError(
      'connectToPage: call it in a dedicated Web Worker (new Worker(…)); a page, a shared worker or a service worker connects with connect()',
    );
  if (block === 0)
    throw new TypeError("connectToPage: this worker did not load busscope-probe/browser/worker (import it first: it reserves the worker's ids as it loads)");
  // Once per worker: the page ends the thread (and its port) when the worker closes it.
  if (active !== undefined) throw new TypeError(`connectToPage: this worker called it already (that connection is ${active.state})`);
  const link = (active = new PageThreadLink(name ?? defaultName()));
  // Where a debugger finds this thread's buses while the worker is paused (neither it nor the page
  // can answer then): the key and `snapshot()` a Node app's probe offers (probe.ts PROBE_GLOBAL_KEY),
  // read by the extension's debugging/pausedState.ts.
  const g = globalThis as { [key: symbol]: unknown };
  g[PAUSED_SNAPSHOT_KEY] ??= { snapshot: (): ProbeSnapshot => link.pausedSnapshot() };
  if (pagePort !== undefined) link.begin(pagePort);
  return link;
}

const PAUSED_SNAPSHOT_KEY = Symbol.for('busscope.probe');

function defaultName(): string {
  const scope = globalThis as unknown as WorkerScope;
  if (typeof scope.name === 'string' && scope.name !== '') return scope.name.slice(0, 256);
  const file = (scope.location?.pathname ?? '').split('/').pop() ?? '';
  return file === '' ? `worker ${block}` : file.slice(0, 256);
}

class ForwardSink extends RecordSink {
  closed = false;
  constructor(
    readonly key: number,
    private readonly link: PageThreadLink,
    version: unknown,
  ) {
    super();
    this.protocolVersion = typeof version === 'number' ? version : 5;
  }

  canAccept(bytes: number): boolean {
    return !this.closed && this.link.inFlight + bytes <= MAX_FORWARD_BYTES_IN_FLIGHT;
  }

  write(frame: Uint8Array, records = 0, dispatches = 0): void {
    if (this.closed) return;
    // A view into a larger buffer would clone all of it.
    const own = frame.byteOffset === 0 && frame.byteLength === frame.buffer.byteLength ? frame : frame.slice();
    this.link.post({ t: 'frame', key: this.key, frame: own, records, dispatches }, own.length);
  }
}

class PageThreadLink implements WorkerConnection {
  state: WorkerConnectionState = 'connecting';
  refusal: string | undefined;
  readonly ready: Promise<void>;
  private settle: ((error?: Error) => void) | undefined;
  private port: ProbePort | undefined;
  private recorder: RecorderCore | undefined;
  private readonly sinks = new Map<number, ForwardSink>();
  /** Bytes posted and bytes the page took: the difference is what is in flight. */
  private sent = 0;
  private credited = 0;

  constructor(private readonly name: string) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Nobody need await it: an unobserved rejection must not become an error in the worker's console.
    this.ready.catch(() => undefined);
    if (unclean !== undefined) this.refuse(unclean);
  }

  get inFlight(): number {
    return this.sent - this.credited;
  }

  begin(port: ProbePort): void {
    if (this.state !== 'connecting' || this.port !== undefined) return;
    this.port = port;
    port.onmessage = (event) => this.onMessage(event.data);
    this.post({ t: 'hello', thread: block, name: this.name, startedAt: performance.timeOrigin }, 0);
  }

  post(message: WorkerToPage, bytes: number): void {
    try {
      this.port?.postMessage(message);
      this.sent += bytes;
    } catch {
      // The page is gone or the message cannot be cloned: this worker goes on without it.
      this.detachAll();
    }
  }

  close(): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    if (wasOpen) {
      // What it recorded reaches the page before it says it exited.
      for (const sink of this.sinks.values()) this.recorder?.flushTo(sink);
      this.post({ t: 'bye', exitedAt: performance.timeOrigin + performance.now() }, 0);
    }
    this.detachAll();
    if (this.port !== undefined) this.port.onmessage = null;
    this.resolve(new Error('closed before the page took the worker in'));
  }

  private resolve(error?: Error): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.(error);
  }

  private refuse(reason: string): void {
    this.state = 'refused';
    this.refusal = reason;
    try {
      console.warn(`[busscope] this worker is not a thread of its page: ${reason}`);
    } catch {
      // no console
    }
    this.resolve(new Error(reason));
  }

  private onMessage(data: unknown): void {
    if (this.state === 'closed' || this.state === 'refused' || !isPageToWorker(data)) return;
    switch (data.t) {
      case 'joined': {
        if (this.recorder !== undefined) return;
        // The page's clock: the worker's records need no conversion there.
        const shift = performance.timeOrigin - data.timeOrigin;
        this.recorder = new RecorderCore({
          host: {
            clock: { timeOrigin: data.timeOrigin, now: () => performance.now() + shift },
            isProxy: undefined,
            // Written while the page's link speaks 6 (its bus ids, beyond 2^32, go in the bus column's base).
            encodeColumns,
            // Once this worker loaded `busscope-probe/browser/payloads` (read on each use).
            get capturePayload() {
              return runtime.optional?.pageCapture;
            },
          },
          maxBufferedRecords: DEFAULT_MAX_BUFFERED_RECORDS,
          config: DEFAULT_RECORDING_CONFIG,
          sanitize: undefined,
          seqBase: block * THREAD_SPAN,
        });
        this.recorder.configure(data.config);
        this.state = 'open';
        this.resolve();
        return;
      }
      case 'refused':
        this.refuse(data.reason);
        this.port?.close();
        return;
      case 'config':
        this.recorder?.configure(data.config);
        return;
      case 'break-on':
        if (this.recorder !== undefined)
          setPageBreakOn(
            this.recorder,
            data.types.filter((t): t is string => typeof t === 'string'),
          );
        return;
      case 'conditions':
        applyConditions(data.conditions, data.muted);
        return;
      case 'credit':
        this.credited += data.bytes;
        return;
      case 'attach': {
        const r = this.recorder;
        if (r === undefined || this.sinks.has(data.key)) return;
        const sink = new ForwardSink(data.key, this, data.version);
        this.sinks.set(data.key, sink);
        startTracing(r);
        // Definitions, then the snapshot (posted in order after them), then the live records.
        r.attach(sink, [], () => {
          this.post({ t: 'snapshot', key: data.key, snapshot: this.snapshot(r) }, 0);
          return undefined;
        });
        return;
      }
      case 'detach': {
        const sink = this.sinks.get(data.key);
        if (sink === undefined) return;
        this.sinks.delete(data.key);
        this.detach(sink);
        return;
      }
      default: {
        const never: never = data;
        throw new TypeError(`unknown page message ${String(never)}`);
      }
    }
  }

  private detach(sink: ForwardSink): void {
    sink.closed = true;
    const r = this.recorder;
    if (r === undefined) return;
    r.detach(sink, false);
    if (r.sinkCount === 0) stopTracing(r);
  }

  private detachAll(): void {
    const sinks = [...this.sinks.values()];
    this.sinks.clear();
    for (const sink of sinks) this.detach(sink);
  }

  /** For a debugger while the worker is paused: its buses and the dispatches in progress. */
  pausedSnapshot(): ProbeSnapshot {
    const r = this.recorder;
    return r === undefined ? buildSnapshot(undefined) : this.snapshot(r);
  }

  /** The thread's buses, on the page's clock. */
  private snapshot(r: RecorderCore): ProbeSnapshot {
    const s = buildSnapshot(r);
    const shift = performance.timeOrigin - r.timeOrigin;
    return { ...s, time: s.time + shift, timeOrigin: r.timeOrigin };
  }
}
