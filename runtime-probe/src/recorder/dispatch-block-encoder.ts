// Dispatch blocks (protocol version 4, protocol/dispatch-block.ts): what the drain writes for a
// stream one of whose sinks speaks 4 or 5 (a version-6 stream gets dispatch columns). Reached through
// the recorder host (Node's sets it): a page's link speaks 6, so the page bundle does without it.
// No Node built-ins here all the same.

import { BLOCK_AT, BLOCK_ENTRY_BYTES, MAX_BLOCK_FIELD } from '../protocol/dispatch-block';
import { RecordCode } from '../protocol/records';
import { DispatchSlot, SLOT_WIDTH as SLOT_STRIDE } from './layouts';
import { entryScratch, lastReadAtOrBefore, MAX_BLOCK_ENTRIES, writeBlockHead, type RunEncoder } from './ring-encoder';

const entryBytes = new Uint8Array(entryScratch.buffer);
/** The wire is little-endian; a Uint32Array is the platform's order. */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function swapBytes(bytes: Uint8Array, length: number): void {
  for (let i = 0; i < length; i += 4) {
    const a = bytes[i];
    const b = bytes[i + 1];
    bytes[i] = bytes[i + 3];
    bytes[i + 1] = bytes[i + 2];
    bytes[i + 2] = b;
    bytes[i + 3] = a;
  }
}

/**
 * The drain's bulk: a run of dispatch slots from slot `pos` (at most `size`) as one dispatch block
 * (protocol/dispatch-block.ts) — per record a few loads and u32 stores, the ticks shipped as they are
 * with the clock reads around them (the reader interpolates). The run ends at the first slot that
 * is not a dispatch of bus `countsBus` with a type below `counts.length`, carries a trace id (in
 * `traceIds`, the dispatch layout's side string: blocks have no room for it) or a producer-port
 * origin (in `origins`, likewise), has a time already known
 * (a start resolved at an earlier drain, handler-detail exact times), a tick outside the kept reads
 * or a field beyond u32; or once the batch would pass `stopBytes`. Adds each record to `counts`.
 * Returns the slots written; 0 when the slot at `pos` cannot start a block (the caller encodes it
 * alone).
 */
export const encodeDispatchBlock: RunEncoder = function encodeDispatchBlock(
  ring,
  pos,
  size,
  capacity,
  w,
  clock,
  stopBytes,
  countsBus,
  counts,
  traceIds,
  origins,
) {
  const W = SLOT_STRIDE;
  const code = RecordCode.Dispatch;
  // Offsets as locals: the loops below run per record.
  const oSeq = DispatchSlot.seq;
  const oStartTick = DispatchSlot.startTick;
  const oEndTick = DispatchSlot.endTick;
  const oBus = DispatchSlot.bus;
  const oType = DispatchSlot.type;
  const oDelivered = DispatchSlot.delivered;
  const oConsumedBy = DispatchSlot.consumedBy;
  const oDepth = DispatchSlot.depth;
  const oParent = DispatchSlot.parentSeq;
  const oSite = DispatchSlot.site;
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
    if (ring[b] !== code || ring[b + oBus] !== countsBus || traceIds[p] !== null || origins[p] !== null) break;
    const startTick = ring[b + oStartTick];
    const endTick = ring[b + oEndTick];
    // 0: that time is known already (NaN-free `start`/`end`), not a tick
    if (startTick < firstTick || endTick > lastTick || startTick === 0 || endTick === 0) break;
    const seq = ring[b + oSeq];
    const parentSeq = ring[b + oParent];
    if (
      ring[b + oType] >= typeLimit ||
      ring[b + oDelivered] > MAX_BLOCK_FIELD ||
      ring[b + oConsumedBy] > MAX_BLOCK_FIELD ||
      ring[b + oDepth] > MAX_BLOCK_FIELD ||
      ring[b + oSite] > MAX_BLOCK_FIELD ||
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
  const r0 = lastReadAtOrBefore(readTicks, reads, minTick);
  let r1 = r0;
  while (readTicks[r1] < maxTick) r1++;
  const baseTick = readTicks[r0];
  let q = w.position;
  const buf = w.reserveRaw(1 + 3 * 8 + (r1 - r0 + 1) * 16 + n * BLOCK_ENTRY_BYTES);
  q = writeBlockHead(buf, q, RecordCode.DispatchBlock, n, minSeq, clock, r0, r1);
  // Pass 2: the entries, as u32s in a scratch array, then one copy into the batch.
  const e = entryScratch;
  const eSeq = BLOCK_AT.seq >> 2;
  const eStartTick = BLOCK_AT.startTick >> 2;
  const eEndTick = BLOCK_AT.endTick >> 2;
  const eBus = BLOCK_AT.bus >> 2;
  const eType = BLOCK_AT.type >> 2;
  const eDelivered = BLOCK_AT.delivered >> 2;
  const eConsumedBy = BLOCK_AT.consumedBy >> 2;
  const eDepth = BLOCK_AT.depth >> 2;
  const eParent = BLOCK_AT.parentDelta >> 2;
  const eSite = BLOCK_AT.site >> 2;
  const perEntry = BLOCK_ENTRY_BYTES >> 2;
  p = pos;
  for (let i = 0, j = 0; i < n; i++, j += perEntry) {
    const b = p * W;
    const seq = ring[b + oSeq];
    const parentSeq = ring[b + oParent];
    const typeId = ring[b + oType];
    counts[typeId]++;
    e[j + eSeq] = seq - minSeq;
    e[j + eStartTick] = ring[b + oStartTick] - baseTick;
    e[j + eEndTick] = ring[b + oEndTick] - baseTick;
    e[j + eBus] = countsBus;
    e[j + eType] = typeId;
    e[j + eDelivered] = ring[b + oDelivered];
    e[j + eConsumedBy] = ring[b + oConsumedBy];
    e[j + eDepth] = ring[b + oDepth];
    e[j + eParent] = parentSeq === 0 ? 0 : seq - parentSeq;
    e[j + eSite] = ring[b + oSite];
    if (++p === capacity) p = 0;
  }
  const bytes = n * BLOCK_ENTRY_BYTES;
  if (!LITTLE_ENDIAN) swapBytes(entryBytes, bytes);
  buf.set(entryBytes.subarray(0, bytes), q);
  q += bytes;
  w.commitRaw(q, n, n);
  return n;
};
