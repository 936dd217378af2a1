// What the threads of one process say to each other about recording (Node's worker_threads). The
// main thread publishes THREADS_ENVIRONMENT_KEY with `setEnvironmentData` when the package loads,
// so every worker created afterwards (a worker's own workers included: environment data is
// inherited) finds the shared id counters, the channel's name and the main thread's clock origin.
// The channel is a BroadcastChannel: nothing has to be transferred to a worker, so a worker the app
// created before `probe.start()` still joins, and the app's own `parentPort` is never touched.

/** `setEnvironmentData` key. */
export const THREADS_ENVIRONMENT_KEY = 'busscope.threads';

/** What the main thread publishes to its workers. */
export interface ThreadsEnvironment {
  /** [bus, subscription, owner]: the next id of each (Int32, Atomics): ids unique across threads. */
  readonly ids: SharedArrayBuffer;
  /** BroadcastChannel name, per process. */
  readonly channel: string;
  /** The main thread's `performance.timeOrigin`: workers record on its clock. */
  readonly timeOrigin: number;
  /**
   * Int32 [1 while the main thread's inspector is open]: a debugger attached there reaches every
   * worker (js-debug attaches to workers through it), while `inspector.url()` in a worker says nothing
   * of it. Written by the main thread's inspector gate, read by the workers' (debug/inspector-gate.ts).
   */
  readonly inspector?: SharedArrayBuffer;
}

/** Bytes a worker may have posted that the main thread has not taken yet; beyond, batches are dropped and counted. */
export const MAX_FORWARD_BYTES_IN_FLIGHT = 4 * 1024 * 1024;

/** Main → workers. `thread` 0: every worker. */
export type MainToWorker =
  /** `version`: the protocol version the stream speaks, so the worker writes what its reader reads (absent: 5). */
  | { readonly t: 'attach'; readonly key: number; readonly thread: number; readonly version?: number }
  | { readonly t: 'detach'; readonly key: number }
  /** The main thread's recording settings (a client's `configure`): every worker records the same way. */
  | { readonly t: 'config'; readonly config: import('../protocol/messages').RecordingConfig }
  /** The types every client asked to break on (the union, as the main thread's recorder has it): workers' buses break on them too. */
  | { readonly t: 'break-on'; readonly types: readonly string[] }
  /**
   * The payload conditions a debugger installed in the main thread ([type, source]) and the types it
   * muted: each worker compiles the same conditions into its own hook (debug/event-breaks.ts). Code that
   * is already in this process, passed between its threads; never over the probe's socket.
   */
  | { readonly t: 'conditions'; readonly conditions: readonly (readonly [string, string])[]; readonly muted: readonly string[] };

/** Worker → main. Times are epoch ms. */
export type WorkerToMain =
  | {
      readonly t: 'hello';
      readonly thread: number;
      readonly name: string;
      readonly startedAt: number;
      /** Int32 [bytes the main thread took], mod 2^32: the worker's bound on what it has in flight. */
      readonly credit: SharedArrayBuffer;
    }
  | { readonly t: 'frame'; readonly thread: number; readonly key: number; readonly frame: Uint8Array; readonly records: number; readonly dispatches: number }
  | { readonly t: 'snapshot'; readonly thread: number; readonly key: number; readonly snapshot: import('../protocol/messages').ProbeSnapshot }
  | { readonly t: 'bye'; readonly thread: number; readonly exitedAt: number };

export function isWorkerMessage(value: unknown): value is WorkerToMain {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { t?: unknown }).t === 'string' &&
    typeof (value as { thread?: unknown }).thread === 'number'
  );
}

export function isMainMessage(value: unknown): value is MainToWorker {
  const t = typeof value === 'object' && value !== null ? (value as { t?: unknown }).t : undefined;
  return (
    (t === 'attach' && ['number', 'undefined'].includes(typeof (value as { version?: unknown }).version)) ||
    t === 'detach' ||
    (t === 'config' && typeof (value as { config?: unknown }).config === 'object') ||
    (t === 'break-on' && Array.isArray((value as { types?: unknown }).types)) ||
    (t === 'conditions' && Array.isArray((value as { conditions?: unknown }).conditions) && Array.isArray((value as { muted?: unknown }).muted))
  );
}
