// What a page and its Web Workers say to each other about recording (`addWorker` in the page,
// `connectToPage` in the worker), over a MessageChannel of their own: the page hands the worker one
// port in a marked message, so the app's own messages never carry the probe's. The worker's frames
// are its recorder's, unchanged; the page wraps them for its one WebSocket (page-threads.ts), as the
// Node main thread does for worker_threads (threads/thread-hub.ts). No Node built-ins here.

import type { ProbeSnapshot, RecordingConfig } from '../../protocol/messages';

/** The marked message that carries the page's port to the worker (`event.ports[0]`). */
export const PAGE_PORT_MARK = 'busscope.page-port';

/**
 * A worker's bus, subscription and owner ids, and its dispatch seqs, start at thread · 2^32 + 1,
 * where `thread` is a block the worker picks at random when the worker entry loads (it must know it
 * before the page answers: an app creates buses as its modules load). The page's own ids stay
 * below 2^32; the page refuses a second worker with a block in use, so ids never collide.
 */
export const THREAD_SPAN = 2 ** 32;
/** Blocks 1 … 2^18 − 1: owner ids ride in flags fields up to 2^50 − 1 (PROTOCOL.md, owner ids). */
export const MAX_THREAD_BLOCK = 2 ** 18 - 1;

/** The part of a MessagePort used here (the page's end or the worker's). */
export interface ProbePort {
  postMessage(message: unknown): void;
  onmessage: ((event: { readonly data: unknown }) => unknown) | null;
  close(): void;
}

/** Page → worker. */
export type PageToWorker =
  /** Taken in as thread `hello.thread`: record on the page's clock, with its settings. */
  | { readonly t: 'joined'; readonly timeOrigin: number; readonly config: RecordingConfig }
  | { readonly t: 'refused'; readonly reason: string }
  /** The page's link opened (`key` names it): send definitions, a snapshot, then records. */
  /** `version`: the link's protocol version (at 6 the worker writes dispatch columns; absent: 5). */
  | { readonly t: 'attach'; readonly key: number; readonly version?: number }
  | { readonly t: 'detach'; readonly key: number }
  | { readonly t: 'config'; readonly config: RecordingConfig }
  /** Event breakpoints: the types the extension asked the page to break on. */
  | { readonly t: 'break-on'; readonly types: readonly string[] }
  /**
   * The payload conditions a debugger installed in the page ([type, source]) and the types it muted:
   * the worker compiles them into its own hook (debug/apply-conditions.ts), as Node's workers do.
   */
  | { readonly t: 'conditions'; readonly conditions: readonly (readonly [string, string])[]; readonly muted: readonly string[] }
  /** The page took this many bytes of frames off the port (the worker's bound on what it has in flight). */
  | { readonly t: 'credit'; readonly bytes: number };

/** Worker → page. Times are epoch ms. */
export type WorkerToPage =
  | { readonly t: 'hello'; readonly thread: number; readonly name: string; readonly startedAt: number }
  | { readonly t: 'frame'; readonly key: number; readonly frame: Uint8Array; readonly records: number; readonly dispatches: number }
  | { readonly t: 'snapshot'; readonly key: number; readonly snapshot: ProbeSnapshot }
  | { readonly t: 'bye'; readonly exitedAt: number };

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** Shape check of what arrives on the page's end of a worker's port (the snapshot is checked where it is used). */
export function isWorkerToPage(value: unknown): value is WorkerToPage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  switch (m.t) {
    case 'hello':
      return isCount(m.thread) && typeof m.name === 'string' && typeof m.startedAt === 'number';
    case 'frame':
      return isCount(m.key) && m.frame instanceof Uint8Array && isCount(m.records) && isCount(m.dispatches);
    case 'snapshot':
      return isCount(m.key) && typeof m.snapshot === 'object' && m.snapshot !== null;
    case 'bye':
      return typeof m.exitedAt === 'number';
    default:
      return false;
  }
}

export function isPageToWorker(value: unknown): value is PageToWorker {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  switch (m.t) {
    case 'joined':
      return typeof m.timeOrigin === 'number' && typeof m.config === 'object' && m.config !== null;
    case 'refused':
      return typeof m.reason === 'string';
    case 'attach':
    case 'detach':
      return isCount(m.key);
    case 'config':
      return typeof m.config === 'object' && m.config !== null;
    case 'break-on':
      return Array.isArray(m.types);
    case 'conditions':
      return Array.isArray(m.conditions) && Array.isArray(m.muted);
    case 'credit':
      return isCount(m.bytes);
    default:
      return false;
  }
}
