import type { SiteOrigin } from './site-origin';

// Records: the high-volume stream, carried in binary record batches (FrameKind.Records).
// This file defines the decoded form — a discriminated union on `kind` — and the wire codes.
// Wire layouts are in record-writer.ts / record-decoder.ts and PROTOCOL.md ("Records").
//
// Conventions of the decoded form:
//  - times (`time`, `start`) are milliseconds since the stream's time origin (`welcome.timeOrigin`,
//    epoch ms), with 1 ns precision; `duration` is milliseconds;
//  - `bus` is a bus id (the snapshot and `bus-created` records name it);
//  - `seq` numbers dispatches, from 1, per process; `parentSeq` 0 means a top-level dispatch;
//  - absent optional values are `null` (so records survive JSON unchanged);
//  - strings and sites arrive interned (`string`/`site` records define ids before first use);
//    decoded records carry them resolved.

/** Why a subscription ended. `clear` also covers `bus.dispose()`. Wire code = index. */
export const UNSUBSCRIBE_REASONS = ['dispose', 'once', 'signal', 'owner', 'dead-owner', 'collected', 'clear'] as const;
export type UnsubscribeReason = (typeof UNSUBSCRIBE_REASONS)[number];

/**
 * Why records were dropped. Wire code = index.
 * - `buffer-full`: the app produced records faster than the probe drained its ring buffer
 *   (`maxBufferedRecords`); every sink misses them.
 * - `slow-client`: this sink (client socket or file) had more than its byte limit pending.
 */
export const DROP_REASONS = ['buffer-full', 'slow-client'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** A source location (subscribe site, sampled dispatch site). */
export interface SiteInfo {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly functionName: string | null;
}

/** Wire codes of record kinds (the first byte of every record). */
export const RecordCode = {
  String: 1,
  Site: 2,
  BusCreated: 3,
  BusDisposed: 4,
  Subscribe: 5,
  Unsubscribe: 6,
  Dispatch: 7,
  Handler: 8,
  HandlerError: 9,
  Payload: 10,
  Enqueue: 11,
  Flush: 12,
  DepthLimit: 13,
  OwnerCollected: 14,
  Drops: 15,
  /** Version 4: a run of dispatch records in fixed-width entries (dispatch-block.ts); decodes to `dispatch` records. */
  DispatchBlock: 16,
  /**
   * Version 5: a worker thread's record batch, wrapped by the main thread's probe: threadId, then the
   * thread's records to the frame's end (the only record of its frame), read with that thread's own
   * string and site tables. Decodes to a `records` message with `thread`.
   */
  ThreadRecords: 17,
  /** Version 6: a dispatch block in columns of the width each needs (dispatch-block.ts); decodes to `dispatch` records. */
  DispatchColumns: 18,
} as const;
export type RecordCode = (typeof RecordCode)[keyof typeof RecordCode];

/** Defines string id `id` (ids start at 1; 0 means "none"). */
export interface StringRecord {
  readonly kind: 'string';
  readonly id: number;
  readonly text: string;
}
/** Defines site id `id` (ids start at 1; 0 means "none"). */
export interface SiteRecord {
  readonly kind: 'site';
  readonly id: number;
  readonly site: SiteInfo;
}
/**
 * What a bus is (wire code = index): Busscope's EventBus, or an emitter watched as a bus. An
 * emitter's listener errors leave its `emit` (the bus catches them), which the analyses must say.
 */
export const BUS_KINDS = ['bus', 'node-emitter', 'event-target', 'mitt', 'nanoevents'] as const;
export type BusKind = (typeof BUS_KINDS)[number];

/** Keys of the extension block of a version-3 `bus-created` record (PROTOCOL.md, "Version 3"). */
export const BUS_EXTENSION = {
  /** BusKind code, unsigned varint. */
  kind: 1,
  /** The instance's class name, →string id (unsigned varint). */
  className: 2,
} as const;

export interface BusCreatedRecord {
  readonly kind: 'bus-created';
  readonly time: number;
  readonly bus: number;
  readonly name: string;
  /** Optional (version 3): what the bus is. Absent from older streams: read the name then. */
  readonly busKind?: BusKind;
  /** Optional (version 3): the instance's class name (`Hub` for a watched `class Hub extends EventEmitter`). */
  readonly className?: string;
  /**
   * The worker thread that created the bus (version 5; not on the wire: the reader tags the
   * `bus-created` records of a `thread-records` batch). Absent: the main thread.
   */
  readonly thread?: number;
}
export interface BusDisposedRecord {
  readonly kind: 'bus-disposed';
  readonly time: number;
  readonly bus: number;
}
export interface SubscribeRecord {
  readonly kind: 'subscribe';
  readonly time: number;
  readonly subscriptionId: number;
  readonly bus: number;
  readonly type: string;
  readonly priority: number;
  readonly label: string | null;
  /** Owner description (constructor name and id/name), not the owner itself. */
  readonly owner: string | null;
  /**
   * The owner object's per-process id (positive, never reused; the same owner has the same id on
   * every bus). Absent without an owner, and from probes that predate it: then only `owner` names it.
   */
  readonly ownerId?: number;
  readonly once: boolean;
  readonly site: SiteInfo | null;
  /**
   * Whose code subscribed, as the probe judged it (process-wide emitters read the subscribing stack
   * themselves: Node's own listeners have no `site`, which skips Node's frames). Absent when the
   * probe did not say (an EventBus, a watched emitter, older probes), and always for a subscription
   * with an owner (the flags' upper bits carry the owner id then).
   */
  readonly origin?: SiteOrigin;
}
export interface UnsubscribeRecord {
  readonly kind: 'unsubscribe';
  readonly time: number;
  readonly subscriptionId: number;
  readonly reason: UnsubscribeReason;
  /** Times its handler was called over its lifetime. */
  readonly calls: number;
}
/**
 * Keys of the optional fields at the end of a version-2 dispatch record (PROTOCOL.md, "Extension
 * block"). Readers skip keys they do not know, so fields can be added without a new version.
 */
export const DISPATCH_EXTENSION = {
  /** The producing thread's id (`worker_threads.threadId`) of an event posted through a producer port, unsigned varint. */
  threadId: 1,
  /** Distributed-tracing trace id, string. */
  traceId: 2,
  /** `durationBound`, duration (unsigned varint, ns): sent only when an end fell in a long window. */
  durationBound: 3,
  /**
   * When a producer port's event was enqueued in its thread: unsigned varint, ns from then to the
   * dispatch's start (0 when the threads' clocks put it after). Sent with `threadId`.
   */
  enqueuedAt: 4,
} as const;

/** One dispatch, written when it ends (so nested dispatches precede their parent). */
export interface DispatchRecord {
  readonly kind: 'dispatch';
  readonly seq: number;
  readonly bus: number;
  readonly type: string;
  /**
   * The dispatch's start. From protocol version 2 it may be interpolated between two clock reads
   * (the probe reads the clock about once per 40 µs, not per dispatch): the true start lies within
   * `startBound` of it.
   */
  readonly start: number;
  /**
   * Error bound of `start` (ms, ≥ 0.001 when interpolated, 0 when read exactly). Absent in version-1
   * streams, whose starts were clock reads.
   */
  readonly startBound?: number;
  readonly duration: number;
  /** Handlers called. */
  readonly delivered: number;
  /** Subscription id that consumed the event, 0 when none did. */
  readonly consumedBy: number;
  /** 0 for a top-level dispatch. */
  readonly depth: number;
  readonly parentSeq: number;
  /** The dispatching code, when this dispatch was sampled for its site. */
  readonly site: SiteInfo | null;
  /**
   * Optional (version 2 extension block): the true duration lies within this (ms) of `duration`.
   * Sent only when it is large (a handler ran long inside one clock window); absent means small.
   */
  readonly durationBound?: number;
  /** Optional (version 2 extension block): the producing thread's id. */
  readonly threadId?: number;
  /** Optional (version 2 extension block): a distributed-tracing trace id. */
  readonly traceId?: string;
  /** Optional (version 2 extension block, with `threadId`): when the producing thread enqueued the event (ms, session clock). */
  readonly enqueuedAt?: number;
}
/** One handler call (detail level `handlers`), written when it returns or throws. */
export interface HandlerRecord {
  readonly kind: 'handler';
  readonly seq: number;
  readonly subscriptionId: number;
  readonly start: number;
  readonly duration: number;
  readonly consumed: boolean;
  /**
   * Optional (detail `handlers` samples): this call was timed on one dispatch in N of its type and
   * stands for N calls — the model weights its counts and histograms by it. Absent: every call was
   * timed (N = 1), as in streams that predate sampling.
   */
  readonly sampleEvery?: number;
}
export interface HandlerErrorRecord {
  readonly kind: 'handler-error';
  readonly seq: number;
  readonly subscriptionId: number;
  readonly time: number;
  /** `Name: message` of the thrown value (or its string form when it is not an Error). */
  readonly message: string;
  readonly stack: string | null;
}
/** The dispatched payload (payload capture on), written at dispatch start. */
export interface PayloadRecord {
  readonly kind: 'payload';
  readonly seq: number;
  /** JSON of the sanitized payload, cut at the size cap. */
  readonly json: string;
  readonly truncated: boolean;
}
export interface EnqueueRecord {
  readonly kind: 'enqueue';
  readonly time: number;
  readonly bus: number;
  readonly type: string;
  /** Queue length after this enqueue. */
  readonly queueLength: number;
}
export interface FlushRecord {
  readonly kind: 'flush';
  readonly time: number;
  readonly bus: number;
  /** Events dispatched by this flush. */
  readonly dispatched: number;
}
export interface DepthLimitRecord {
  readonly kind: 'depth-limit';
  readonly time: number;
  readonly bus: number;
  readonly type: string;
  /** The depth that was refused. */
  readonly depth: number;
  /** The dispatch whose handler attempted it (0 when not recording dispatches). */
  readonly parentSeq: number;
}
export interface OwnerCollectedRecord {
  readonly kind: 'owner-collected';
  readonly time: number;
  readonly bus: number;
  readonly owner: string | null;
  /** The owner's per-process id, as in `SubscribeRecord.ownerId` (absent when not known). */
  readonly ownerId?: number;
  /** Subscriptions removed (each also has an `unsubscribe` record with reason `collected`). */
  readonly removed: number;
}
/** Records this sink did not get. Exact: `count` records, of which `dispatches` were dispatch records. */
export interface DropsRecord {
  readonly kind: 'drops';
  readonly count: number;
  readonly dispatches: number;
  readonly reason: DropReason;
}

export type BusRecord =
  | StringRecord
  | SiteRecord
  | BusCreatedRecord
  | BusDisposedRecord
  | SubscribeRecord
  | UnsubscribeRecord
  | DispatchRecord
  | HandlerRecord
  | HandlerErrorRecord
  | PayloadRecord
  | EnqueueRecord
  | FlushRecord
  | DepthLimitRecord
  | OwnerCollectedRecord
  | DropsRecord;

export type BusRecordKind = BusRecord['kind'];

/** Every record kind, in wire-code order (index + 1 = RecordCode). */
export const RECORD_KINDS: readonly BusRecordKind[] = [
  'string',
  'site',
  'bus-created',
  'bus-disposed',
  'subscribe',
  'unsubscribe',
  'dispatch',
  'handler',
  'handler-error',
  'payload',
  'enqueue',
  'flush',
  'depth-limit',
  'owner-collected',
  'drops',
];
