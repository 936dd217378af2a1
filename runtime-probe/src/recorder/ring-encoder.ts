// Drain side of the ring: one slot → one wire record, reading the slot through the same declared
// layouts (layouts.ts) the hot path wrote it with. Off the hot path; no Node built-ins.

import { putSvarint, putUvarint } from '../protocol/bytes';
import type { ProducedOrigin } from '../bus/runtime';
import { BLOCK_ENTRY_BYTES } from '../protocol/dispatch-block';
import { toNs, type RecordWriter } from '../protocol/record-writer';
import { RecordCode } from '../protocol/records';
import {
  BusCreatedSlot,
  BusDisposedSlot,
  DepthLimitSlot,
  DispatchSlot,
  EnqueueSlot,
  FlushSlot,
  HandlerErrorSlot,
  HandlerSlot,
  OwnerCollectedSlot,
  PayloadSlot,
  SubscribeSlot,
  UnsubscribeSlot,
} from './layouts';
import type { WindowClock } from './window-clock';

/**
 * Encodes a run of dispatch slots from slot `pos` as one record — dispatch columns (version 6,
 * dispatch-columns.ts) or a dispatch block (version 4, dispatch-block-encoder.ts); the recorder host
 * gives them. Returns the slots written; 0 when the slot at `pos` cannot start one.
 */
export type RunEncoder = (
  ring: Float64Array,
  pos: number,
  size: number,
  capacity: number,
  w: RecordWriter,
  clock: WindowClock,
  stopBytes: number,
  countsBus: number,
  counts: Float64Array,
  traceIds: readonly (string | null)[],
  origins: readonly (string | ProducedOrigin | null)[],
) => number;
export type ColumnsEncoder = RunEncoder;

/** A duration's bound is sent when above this (ms); below, `startBound` says enough. */
export const DURATION_BOUND_SENT_MS = 0.1;

/** Entries per dispatch block at most (a block's reads are looked up once per block). */
export const MAX_BLOCK_ENTRIES = 4096;
/** Entries are built here as u32s (one store per field), then copied into the batch at once. */
export const entryScratch = new Uint32Array((MAX_BLOCK_ENTRIES * BLOCK_ENTRY_BYTES) >> 2);

/** The strings of the slots that have them (see the layouts' `sideA`/`sideB`), by slot index. */
export interface SideStrings {
  readonly sideA: (string | null)[];
  /** A dispatch's is its producer-port origin (bus/runtime.ts), not a string. */
  readonly sideB: (string | ProducedOrigin | null)[];
  /** The recorder's time origin (epoch ms): an origin's enqueue time is epoch ms. */
  readonly timeOrigin: number;
}

/**
 * Writes the record in the slot at `b` (slot index `pos`) and clears its side strings. Dispatch
 * ticks are resolved through `clock` (closed by the caller first).
 * Throws on an unknown code (the caller discards and counts what is left).
 */
export function encodeSlot(ring: Float64Array, b: number, pos: number, side: SideStrings, w: RecordWriter, clock: WindowClock): void {
  const code = ring[b];
  switch (code) {
    case RecordCode.Dispatch: {
      let start = ring[b + DispatchSlot.start];
      let bound = ring[b + DispatchSlot.startBound];
      if (start !== start) {
        const t = clock.resolve(ring[b + DispatchSlot.startTick]);
        start = t.time;
        bound = t.bound;
      }
      let end = ring[b + DispatchSlot.end];
      let endBound = 0;
      if (end !== end) {
        const t = clock.resolve(ring[b + DispatchSlot.endTick]);
        end = t.time;
        endBound = t.bound;
      }
      // Stated only when an end fell in a long window (a slow handler inside it): usually small.
      const durationBound = bound + endBound > DURATION_BOUND_SENT_MS ? bound + endBound : 0;
      const origin = side.sideB[pos] as ProducedOrigin | null;
      w.dispatch(
        ring[b + DispatchSlot.seq],
        start,
        end > start ? end - start : 0,
        bound,
        ring[b + DispatchSlot.bus],
        ring[b + DispatchSlot.type],
        ring[b + DispatchSlot.delivered],
        ring[b + DispatchSlot.consumedBy],
        ring[b + DispatchSlot.depth],
        ring[b + DispatchSlot.parentSeq],
        ring[b + DispatchSlot.site],
        durationBound,
        origin === null ? 0 : origin[0],
        side.sideA[pos],
        origin === null ? 0 : start + side.timeOrigin - origin[1],
      );
      side.sideA[pos] = null;
      side.sideB[pos] = null;
      return;
    }
    case RecordCode.Handler: {
      w.handler(
        ring[b + HandlerSlot.seq],
        ring[b + HandlerSlot.subscription],
        ring[b + HandlerSlot.start],
        ring[b + HandlerSlot.duration],
        ring[b + HandlerSlot.consumed] === 1,
        ring[b + HandlerSlot.sampleEvery],
      );
      return;
    }
    case RecordCode.HandlerError: {
      w.handlerError(
        ring[b + HandlerErrorSlot.seq],
        ring[b + HandlerErrorSlot.subscription],
        ring[b + HandlerErrorSlot.time],
        side.sideA[pos] ?? '',
        side.sideB[pos] as string | null,
      );
      side.sideA[pos] = null;
      side.sideB[pos] = null;
      return;
    }
    case RecordCode.Payload:
      w.payload(ring[b + PayloadSlot.seq], side.sideA[pos] ?? 'null', ring[b + PayloadSlot.truncated] === 1);
      side.sideA[pos] = null;
      return;
    case RecordCode.Subscribe: {
      w.subscribe(
        ring[b + SubscribeSlot.time],
        ring[b + SubscribeSlot.subscription],
        ring[b + SubscribeSlot.bus],
        ring[b + SubscribeSlot.type],
        ring[b + SubscribeSlot.priority],
        ring[b + SubscribeSlot.label],
        side.sideA[pos],
        ring[b + SubscribeSlot.once] === 1,
        ring[b + SubscribeSlot.site],
        ring[b + SubscribeSlot.ownerId],
        ring[b + SubscribeSlot.origin],
      );
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.Unsubscribe: {
      w.unsubscribe(ring[b + UnsubscribeSlot.time], ring[b + UnsubscribeSlot.subscription], ring[b + UnsubscribeSlot.reason], ring[b + UnsubscribeSlot.calls]);
      return;
    }
    case RecordCode.Enqueue: {
      w.enqueue(ring[b + EnqueueSlot.time], ring[b + EnqueueSlot.bus], ring[b + EnqueueSlot.type], ring[b + EnqueueSlot.queueLength]);
      return;
    }
    case RecordCode.Flush:
      w.flush(ring[b + FlushSlot.time], ring[b + FlushSlot.bus], ring[b + FlushSlot.dispatched]);
      return;
    case RecordCode.DepthLimit: {
      w.depthLimit(
        ring[b + DepthLimitSlot.time],
        ring[b + DepthLimitSlot.bus],
        ring[b + DepthLimitSlot.type],
        ring[b + DepthLimitSlot.depth],
        ring[b + DepthLimitSlot.parentSeq],
      );
      return;
    }
    case RecordCode.OwnerCollected: {
      w.ownerCollected(
        ring[b + OwnerCollectedSlot.time],
        ring[b + OwnerCollectedSlot.bus],
        side.sideA[pos],
        ring[b + OwnerCollectedSlot.removed],
        ring[b + OwnerCollectedSlot.ownerId],
      );
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.BusCreated:
      w.busCreated(
        ring[b + BusCreatedSlot.time],
        ring[b + BusCreatedSlot.bus],
        ring[b + BusCreatedSlot.name],
        ring[b + BusCreatedSlot.busKind],
        ring[b + BusCreatedSlot.className],
      );
      return;
    case RecordCode.BusDisposed:
      w.busDisposed(ring[b + BusDisposedSlot.time], ring[b + BusDisposedSlot.bus]);
      return;
    default:
      throw new Error(`ring slot with unknown record code ${code}`);
  }
}

/** Index of the last clock read at or before `tick` (0 when none is): a binary search, per run. */
export function lastReadAtOrBefore(readTicks: Float64Array, reads: number, tick: number): number {
  let r0 = 0;
  let hi = reads - 1;
  while (r0 < hi) {
    const mid = (r0 + hi + 1) >> 1;
    if (readTicks[mid] <= tick) r0 = mid;
    else hi = mid - 1;
  }
  return r0;
}

/**
 * The head both run layouts share (dispatch-block.ts): code, entries, seqBase, then reads r0 … r1
 * (first absolute, then deltas). Writes at `q` into room the caller reserved; returns the position after.
 */
export function writeBlockHead(buf: Uint8Array, q: number, code: number, n: number, seqBase: number, clock: WindowClock, r0: number, r1: number): number {
  const readTicks = clock.sampleTicks;
  const readTimes = clock.sampleTimes;
  buf[q++] = code;
  q = putUvarint(buf, q, n);
  q = putUvarint(buf, q, seqBase);
  q = putUvarint(buf, q, r1 - r0 + 1);
  q = putUvarint(buf, q, readTicks[r0]);
  let prevNs = toNs(readTimes[r0]);
  q = putSvarint(buf, q, prevNs);
  for (let i = r0 + 1; i <= r1; i++) {
    q = putUvarint(buf, q, readTicks[i] - readTicks[i - 1]);
    const ns = toNs(readTimes[i]);
    q = putSvarint(buf, q, ns - prevNs);
    prevNs = ns;
  }
  return q;
}
