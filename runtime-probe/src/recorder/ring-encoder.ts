// Drain side of the ring: one slot → one wire record, reading the slot through the same declared
// layouts (layouts.ts) the hot path wrote it with. Off the hot path; no Node built-ins.

import { putSvarint, putUvarint } from '../protocol/bytes';
import { BLOCK_AT, BLOCK_ENTRY_BYTES, MAX_BLOCK_FIELD } from '../protocol/dispatch-block';
import { toNs, type RecordWriter } from '../protocol/record-writer';
import { RecordCode } from '../protocol/records';
import {
  BUS_CREATED,
  BUS_DISPOSED,
  DEPTH_LIMIT,
  DISPATCH,
  ENQUEUE,
  FLUSH,
  HANDLER,
  HANDLER_ERROR,
  OWNER_COLLECTED,
  PAYLOAD,
  SLOT_WIDTH as SLOT_STRIDE,
  SUBSCRIBE,
  UNSUBSCRIBE,
} from './layouts';
import type { WindowClock } from './window-clock';

/** A duration's bound is sent when above this (ms); below, `startBound` says enough. */
export const DURATION_BOUND_SENT_MS = 0.1;

/** Entries per dispatch block at most (a block's reads are looked up once per block). */
const MAX_BLOCK_ENTRIES = 4096;

/**
 * The drain's bulk: a run of dispatch slots from slot `pos` (at most `size`) as one dispatch block
 * (protocol/dispatch-block.ts) — per record a few loads and u32 stores, the ticks shipped as they are
 * with the clock reads around them (the reader interpolates). The run ends at the first slot that
 * is not a dispatch of bus `countsBus` with a type below `counts.length`, has a time already known
 * (a start resolved at an earlier drain, handler-detail exact times), a tick outside the kept reads
 * or a field beyond u32; or once the batch would pass `stopBytes`. Adds each record to `counts`.
 * Returns the slots written; 0 when the slot at `pos` cannot start a block (the caller encodes it
 * alone).
 */
export function encodeDispatchBlock(
  ring: Float64Array,
  pos: number,
  size: number,
  capacity: number,
  w: RecordWriter,
  clock: WindowClock,
  stopBytes: number,
  countsBus: number,
  counts: Float64Array,
): number {
  const W = SLOT_STRIDE;
  const at = DISPATCH.at;
  const code = DISPATCH.code;
  const reads = clock.keptReads;
  if (reads === 0) return 0;
  const readTicks = clock.sampleTicks;
  const firstTick = readTicks[0];
  const lastTick = readTicks[reads - 1];
  let max = Math.floor((stopBytes - w.position) / BLOCK_ENTRY_BYTES);
  if (max > size) max = size;
  if (max > MAX_BLOCK_ENTRIES) max = MAX_BLOCK_ENTRIES;
  const typeLimit = counts.length;
  // Pass 1: how far the run goes, its lowest seq and its tick span.
  let n = 0;
  let p = pos;
  let minSeq = Infinity;
  let maxSeq = 0;
  let minTick = Infinity;
  let maxTick = 0;
  while (n < max) {
    const b = p * W;
    if (ring[b] !== code || ring[b + at.bus] !== countsBus) break;
    const startTick = ring[b + at.startTick];
    const endTick = ring[b + at.endTick];
    // 0: that time is known already (NaN-free `start`/`end`), not a tick
    if (startTick < firstTick || endTick > lastTick || startTick === 0 || endTick === 0) break;
    const seq = ring[b + at.seq];
    const parentSeq = ring[b + at.parentSeq];
    if (
      ring[b + at.type] >= typeLimit ||
      ring[b + at.delivered] > MAX_BLOCK_FIELD ||
      ring[b + at.consumedBy] > MAX_BLOCK_FIELD ||
      ring[b + at.depth] > MAX_BLOCK_FIELD ||
      ring[b + at.site] > MAX_BLOCK_FIELD ||
      countsBus > MAX_BLOCK_FIELD ||
      (parentSeq !== 0 && seq - parentSeq > MAX_BLOCK_FIELD)
    ) {
      break;
    }
    if (seq < minSeq) minSeq = seq;
    if (seq > maxSeq) maxSeq = seq;
    if (startTick < minTick) minTick = startTick;
    if (endTick > maxTick) maxTick = endTick;
    n++;
    if (++p === capacity) p = 0;
  }
  if (n === 0 || maxSeq - minSeq > MAX_BLOCK_FIELD) return 0;
  // The reads around the run: the last at or before its first tick … the first at or after its last.
  let r0 = 0;
  let hi = reads - 1;
  while (r0 < hi) {
    const mid = (r0 + hi + 1) >> 1;
    if (readTicks[mid] <= minTick) r0 = mid;
    else hi = mid - 1;
  }
  let r1 = r0;
  while (readTicks[r1] < maxTick) r1++;
  const baseTick = readTicks[r0];
  const readTimes = clock.sampleTimes;
  // Header.
  let q = w.position;
  let buf = w.reserveRaw(1 + 3 * 8 + (r1 - r0 + 1) * 16 + n * BLOCK_ENTRY_BYTES);
  buf[q++] = RecordCode.DispatchBlock;
  q = putUvarint(buf, q, n);
  q = putUvarint(buf, q, minSeq);
  q = putUvarint(buf, q, r1 - r0 + 1);
  q = putUvarint(buf, q, baseTick);
  let prevNs = toNs(readTimes[r0]);
  q = putSvarint(buf, q, prevNs);
  for (let i = r0 + 1; i <= r1; i++) {
    q = putUvarint(buf, q, readTicks[i] - readTicks[i - 1]);
    const ns = toNs(readTimes[i]);
    q = putSvarint(buf, q, ns - prevNs);
    prevNs = ns;
  }
  // Pass 2: the entries.
  const view = w.rawView;
  p = pos;
  for (let i = 0; i < n; i++, q += BLOCK_ENTRY_BYTES) {
    const b = p * W;
    const seq = ring[b + at.seq];
    const parentSeq = ring[b + at.parentSeq];
    const typeId = ring[b + at.type];
    counts[typeId]++;
    view.setUint32(q + BLOCK_AT.seq, seq - minSeq, true);
    view.setUint32(q + BLOCK_AT.startTick, ring[b + at.startTick] - baseTick, true);
    view.setUint32(q + BLOCK_AT.endTick, ring[b + at.endTick] - baseTick, true);
    view.setUint32(q + BLOCK_AT.bus, countsBus, true);
    view.setUint32(q + BLOCK_AT.type, typeId, true);
    view.setUint32(q + BLOCK_AT.delivered, ring[b + at.delivered], true);
    view.setUint32(q + BLOCK_AT.consumedBy, ring[b + at.consumedBy], true);
    view.setUint32(q + BLOCK_AT.depth, ring[b + at.depth], true);
    view.setUint32(q + BLOCK_AT.parentDelta, parentSeq === 0 ? 0 : seq - parentSeq, true);
    view.setUint32(q + BLOCK_AT.site, ring[b + at.site], true);
    if (++p === capacity) p = 0;
  }
  w.commitRaw(q, n, n);
  return n;
}

/** The strings of the slots that have them (see the layouts' `sideA`/`sideB`), by slot index. */
export interface SideStrings {
  readonly sideA: (string | null)[];
  readonly sideB: (string | null)[];
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
      const at = DISPATCH.at;
      let start = ring[b + at.start];
      let bound = ring[b + at.startBound];
      if (start !== start) {
        const t = clock.resolve(ring[b + at.startTick]);
        start = t.time;
        bound = t.bound;
      }
      let end = ring[b + at.end];
      let endBound = 0;
      if (end !== end) {
        const t = clock.resolve(ring[b + at.endTick]);
        end = t.time;
        endBound = t.bound;
      }
      // Stated only when an end fell in a long window (a slow handler inside it): usually small.
      const durationBound = bound + endBound > DURATION_BOUND_SENT_MS ? bound + endBound : 0;
      w.dispatch(
        ring[b + at.seq],
        start,
        end > start ? end - start : 0,
        bound,
        ring[b + at.bus],
        ring[b + at.type],
        ring[b + at.delivered],
        ring[b + at.consumedBy],
        ring[b + at.depth],
        ring[b + at.parentSeq],
        ring[b + at.site],
        durationBound,
        0,
        null,
      );
      return;
    }
    case RecordCode.Handler: {
      const at = HANDLER.at;
      w.handler(ring[b + at.seq], ring[b + at.subscription], ring[b + at.start], ring[b + at.duration], ring[b + at.consumed] === 1);
      return;
    }
    case RecordCode.HandlerError: {
      const at = HANDLER_ERROR.at;
      w.handlerError(ring[b + at.seq], ring[b + at.subscription], ring[b + at.time], side.sideA[pos] ?? '', side.sideB[pos]);
      side.sideA[pos] = null;
      side.sideB[pos] = null;
      return;
    }
    case RecordCode.Payload:
      w.payload(ring[b + PAYLOAD.at.seq], side.sideA[pos] ?? 'null', ring[b + PAYLOAD.at.truncated] === 1);
      side.sideA[pos] = null;
      return;
    case RecordCode.Subscribe: {
      const at = SUBSCRIBE.at;
      w.subscribe(
        ring[b + at.time],
        ring[b + at.subscription],
        ring[b + at.bus],
        ring[b + at.type],
        ring[b + at.priority],
        ring[b + at.label],
        side.sideA[pos],
        ring[b + at.once] === 1,
        ring[b + at.site],
        ring[b + at.ownerId],
      );
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.Unsubscribe: {
      const at = UNSUBSCRIBE.at;
      w.unsubscribe(ring[b + at.time], ring[b + at.subscription], ring[b + at.reason], ring[b + at.calls]);
      return;
    }
    case RecordCode.Enqueue: {
      const at = ENQUEUE.at;
      w.enqueue(ring[b + at.time], ring[b + at.bus], ring[b + at.type], ring[b + at.queueLength]);
      return;
    }
    case RecordCode.Flush:
      w.flush(ring[b + FLUSH.at.time], ring[b + FLUSH.at.bus], ring[b + FLUSH.at.dispatched]);
      return;
    case RecordCode.DepthLimit: {
      const at = DEPTH_LIMIT.at;
      w.depthLimit(ring[b + at.time], ring[b + at.bus], ring[b + at.type], ring[b + at.depth], ring[b + at.parentSeq]);
      return;
    }
    case RecordCode.OwnerCollected: {
      const at = OWNER_COLLECTED.at;
      w.ownerCollected(ring[b + at.time], ring[b + at.bus], side.sideA[pos], ring[b + at.removed], ring[b + at.ownerId]);
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.BusCreated:
      w.busCreated(ring[b + BUS_CREATED.at.time], ring[b + BUS_CREATED.at.bus], ring[b + BUS_CREATED.at.name], ring[b + BUS_CREATED.at.busKind], ring[b + BUS_CREATED.at.className]);
      return;
    case RecordCode.BusDisposed:
      w.busDisposed(ring[b + BUS_DISPOSED.at.time], ring[b + BUS_DISPOSED.at.bus]);
      return;
    default:
      throw new Error(`ring slot with unknown record code ${code}`);
  }
}
