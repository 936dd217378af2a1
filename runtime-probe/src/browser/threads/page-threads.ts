// The page's side (`addWorker(worker)`): hands each Web Worker a port of its own and feeds the page's
// one open link with each worker's records, as the Node main thread does for worker_threads
// (threads/thread-hub.ts): a worker's record batch is wrapped, not decoded — code 17, the thread id,
// then the worker's own batch — and its snapshot travels in a `thread` message (PROTOCOL.md, "Worker
// threads"). The page never buffers a worker's records: a batch the socket cannot take is dropped
// and counted into the link's `drops` (slow-client) at once, and the worker is credited.
// No Node built-ins here.

import { runtime, type PageThreadsSlot } from '../../bus/runtime';
import { putUvarint } from '../../protocol/bytes';
import { encodeFrame, FRAME_HEADER_BYTES, FrameKind } from '../../protocol/framing';
import { encodeControlFrame, type ProbeSnapshot, type RecordingConfig, type ThreadMessage } from '../../protocol/messages';
import { RecordCode } from '../../protocol/records';
import { DEFAULT_RECORDING_CONFIG } from '../../recorder/recorder-host';
import { eventBreaks, onEventBreaksChange } from '../../debug/event-breaks';
import type { PageLink } from '../page-link';
import { isWorkerToPage, MAX_THREAD_BLOCK, PAGE_PORT_MARK, type PageToWorker, type ProbePort, type WorkerToPage } from './messages';

/** What `addWorker` needs of a Worker (a DOM `Worker` is one). */
export interface PageWorker {
  postMessage(message: unknown, transfer: unknown[]): void;
  terminate(): void;
}

type Channel = new () => { readonly port1: ProbePort; readonly port2: unknown };

/** One worker handed a port: a thread once it said hello. */
class WorkerThread {
  /** Its id block (the thread id on the wire); 0 until hello. */
  id = 0;
  name = '';
  /** Epoch ms. */
  startedAt = 0;
  exitedAt: number | null = null;
  /** The link key this thread sent its snapshot for (its records follow it there). */
  joinedKey = 0;

  constructor(
    private readonly hub: PageThreads,
    readonly port: ProbePort,
  ) {}

  send(message: PageToWorker): void {
    try {
      this.port.postMessage(message);
    } catch {
      // The worker is gone.
    }
  }

  onMessage(data: unknown): void {
    if (this.exitedAt !== null) return;
    // A worker that speaks garbage loses only its own port.
    if (!isWorkerToPage(data)) return this.hub.exited(this, true);
    try {
      this.hub.handle(this, data);
    } catch {
      // What the page cannot encode for the link (a snapshot that does not serialise) ends this thread only.
      this.hub.exited(this, true);
    }
  }
}

class PageThreads {
  private readonly threads = new Set<WorkerThread>();
  private readonly workers = new WeakSet<object>();
  /** The link the workers follow, and its key (a new one per link: frames for an older link are stale). */
  private link: PageLink | undefined;
  private key = 0;
  private lastKey = 0;
  private config: RecordingConfig | undefined;
  /** The break types last sent to the workers. */
  private breakOn: readonly string[] = [];
  /** The conditions and mutes a debugger set in the page, as last sent (undefined: none ever set). */
  private conditions: Extract<PageToWorker, { t: 'conditions' }> | undefined;
  /** Records of workers that the link could not take (its socket over the limit). */
  droppedRecords = 0;

  constructor(private readonly slot: PageThreadsSlot) {
    // Conditions and mutes a debugger sets in the page hold in its workers too (their globals are their own).
    onEventBreaksChange(() => {
      const hook = eventBreaks();
      this.conditions = { t: 'conditions', conditions: Object.entries(hook.conditions()), muted: hook.muted() };
      for (const t of this.threads) if (t.id !== 0) t.send(this.conditions);
    });
  }

  add(worker: PageWorker): void {
    if (this.workers.has(worker)) return;
    this.workers.add(worker);
    const channel = new (globalThis as unknown as { MessageChannel: Channel }).MessageChannel();
    const thread = new WorkerThread(this, channel.port1);
    this.threads.add(thread);
    channel.port1.onmessage = (event) => thread.onMessage(event.data);
    // A terminated worker says nothing: its thread ends when the page terminates it.
    const terminate = worker.terminate;
    const ended = (): void => this.exited(thread, false);
    worker.terminate = function (this: PageWorker): void {
      ended();
      terminate.call(this);
    };
    worker.postMessage({ [PAGE_PORT_MARK]: 1 }, [channel.port2]);
  }

  /** The link opened, closed, or the extension reconfigured recording (page-link.ts calls it through the slot). */
  sync(): void {
    const link = this.slot.link as PageLink | undefined;
    if (link !== this.link) {
      const old = this.key;
      this.link = link;
      // Never reused: frames a worker posted for an older link may still be on their way.
      this.key = link === undefined ? 0 : ++this.lastKey;
      for (const t of this.threads) {
        t.joinedKey = 0;
        if (t.id === 0) continue;
        if (old !== 0) t.send({ t: 'detach', key: old });
      }
    }
    // Without a link nothing breaks (the extension that asked is gone): the workers hear that too.
    const breakOn = link === undefined ? [] : [...link.recorder.breakOn];
    if (breakOn.join('\n') !== this.breakOn.join('\n')) {
      this.breakOn = breakOn;
      for (const t of this.threads) if (t.id !== 0) t.send({ t: 'break-on', types: breakOn });
    }
    if (link === undefined) return;
    const config = link.recorder.config;
    const changed = config !== this.config;
    this.config = config;
    for (const t of this.threads) {
      if (t.id === 0) continue;
      if (changed) t.send({ t: 'config', config });
      if (t.joinedKey === 0) this.attach(t);
    }
  }

  private attach(t: WorkerThread): void {
    // Marked before the snapshot arrives, so a second sync does not ask twice; the snapshot itself is what joins.
    t.joinedKey = -this.key;
    t.send({ t: 'attach', key: this.key, version: this.link?.protocolVersion });
  }

  handle(t: WorkerThread, m: WorkerToPage): void {
    switch (m.t) {
      case 'hello': {
        if (t.id !== 0) return this.exited(t, true);
        if (m.thread < 1 || m.thread > MAX_THREAD_BLOCK || [...this.threads].some((o) => o.id === m.thread)) {
          // Two workers picked the same id block (about one pair in 2^18): their ids would collide.
          t.send({ t: 'refused', reason: `another worker of this page uses id block ${m.thread}; create this worker again to be seen` });
          this.threads.delete(t);
          t.port.onmessage = null;
          return;
        }
        t.id = m.thread;
        t.name = m.name.slice(0, 256) || `worker ${m.thread}`;
        t.startedAt = m.startedAt;
        const link = this.link;
        t.send({ t: 'joined', timeOrigin: performance.timeOrigin, config: link?.recorder.config ?? this.config ?? DEFAULT_RECORDING_CONFIG });
        if (this.breakOn.length > 0) t.send({ t: 'break-on', types: this.breakOn });
        if (this.conditions !== undefined) t.send(this.conditions);
        if (link !== undefined) this.attach(t);
        return;
      }
      case 'frame': {
        t.send({ t: 'credit', bytes: m.frame.length });
        const link = this.link;
        if (link === undefined || m.key !== this.key || t.id === 0 || m.frame.length <= FRAME_HEADER_BYTES || m.frame[4] !== FrameKind.Records) return;
        const wrapped = wrap(t.id, m.frame);
        // Definitions and drops (no counts) are never skipped; a batch the link cannot take is counted.
        if (m.records === 0 || link.canAccept(wrapped.length)) link.write(wrapped);
        else {
          link.slowDropped += m.records;
          link.slowDroppedDispatches += m.dispatches;
          this.droppedRecords += m.records;
          // The page's recorder may record nothing itself: it must still deliver these counts.
          link.recorder.drainSoon();
        }
        return;
      }
      case 'snapshot': {
        const link = this.link;
        if (link === undefined || m.key !== this.key || t.id === 0) return;
        t.joinedKey = this.key;
        link.write(encodeControlFrame(threadMessage(t, link, m.snapshot)));
        return;
      }
      case 'bye':
        t.exitedAt = m.exitedAt;
        return this.exited(t, false);
      default: {
        const never: never = m;
        throw new TypeError(`unknown worker message ${String(never)}`);
      }
    }
  }

  /** The worker ended (bye, terminate) or broke its port: the link hears once, and its port closes. */
  exited(t: WorkerThread, malformed: boolean): void {
    if (!this.threads.delete(t)) return;
    t.exitedAt ??= performance.timeOrigin + performance.now();
    const link = this.link;
    if (link !== undefined && t.id !== 0 && t.joinedKey === this.key) link.write(encodeControlFrame(threadMessage(t, link, null)));
    t.port.onmessage = null;
    t.port.close();
    if (malformed) {
      try {
        console.warn('[busscope] the page could not use a message from a worker; its thread is no longer recorded');
      } catch {
        // no console
      }
    }
  }
}

function threadMessage(t: WorkerThread, link: PageLink, snapshot: ProbeSnapshot | null): ThreadMessage {
  const origin = link.recorder.timeOrigin;
  return { type: 'thread', thread: t.id, name: t.name, startedAt: t.startedAt - origin, exitedAt: t.exitedAt === null ? null : t.exitedAt - origin, snapshot };
}

/** Code 17, the thread id, then the worker's batch body. */
function wrap(thread: number, frame: Uint8Array): Uint8Array {
  const head = new Uint8Array(9);
  head[0] = RecordCode.ThreadRecords;
  const n = putUvarint(head, 1, thread);
  const body = new Uint8Array(n + frame.length - FRAME_HEADER_BYTES);
  body.set(head.subarray(0, n), 0);
  body.set(frame.subarray(FRAME_HEADER_BYTES), n);
  return encodeFrame(FrameKind.Records, body);
}

/** The page's one hub, shared with every copy of the package in the page (the slot is on the shared runtime). */
function hub(): PageThreads {
  const slot = (runtime.pageThreads ??= {});
  if (slot.hub !== undefined) return slot.hub as PageThreads;
  const created = new PageThreads(slot);
  slot.hub = created;
  slot.changed = () => created.sync();
  created.sync();
  return created;
}

/**
 * Makes a dedicated Web Worker's buses a thread of this page's Busscope session (the worker calls
 * `connectToPage()`). Hands the worker a MessagePort of its own in a marked message, which the worker
 * entry takes before the app's listeners see it. Call it once per worker, before or after `connect`;
 * the worker's records travel over the page's one WebSocket. `worker.terminate()` ends its thread.
 * @throws TypeError when `worker` is not a Worker.
 */
export function addWorker(worker: PageWorker): void {
  const w = worker as unknown as Partial<PageWorker> | null;
  if (typeof w !== 'object' || w === null || typeof w.postMessage !== 'function' || typeof w.terminate !== 'function') {
    throw new TypeError(
      "addWorker: worker must be a dedicated Worker (new Worker(…)); a SharedWorker is no page's thread: it calls connect() itself, as an app of its own",
    );
  }
  if (typeof (globalThis as { MessageChannel?: unknown }).MessageChannel !== 'function') throw new TypeError('addWorker: this runtime has no MessageChannel');
  hub().add(w as PageWorker);
}
