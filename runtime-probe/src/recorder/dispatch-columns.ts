// Dispatch columns (protocol version 6, protocol/dispatch-block.ts): the drain's runs of dispatch
// records column by column, each column at the width its range needs. Reached through the recorder
// host: Node's and a page's set it (a page's link speaks 6; the page ships no version-4 block encoder).
// No Node built-ins here.

import { BLOCK_ENTRY_BYTES, DISPATCH_COLUMNS, MAX_BLOCK_FIELD } from '../protocol/dispatch-block';
import { putUvarint } from '../protocol/bytes';
import { RecordCode } from '../protocol/records';
import { DispatchSlot, SLOT_WIDTH as SLOT_STRIDE } from './layouts';
import { entryScratch, lastReadAtOrBefore, MAX_BLOCK_ENTRIES, writeBlockHead, type ColumnsEncoder } from './ring-encoder';
import type { WindowClock } from './window-clock';

/**
 * A run of dispatch slots from slot `pos` as one dispatch-columns record, in one pass over the ring
 * (the slots are read once, then the columns from the scratch): the run ends where a dispatch block's
 * would (encodeDispatchBlock), or where a column would need more than 4 bytes. Returns the slots
 * written; 0 when the slot at `pos` cannot start one (the caller tries a dispatch block, then alone).
 */
export const encodeColumns: ColumnsEncoder = function encodeColumns(
  ring,
  pos,
  size,
  capacity,
  w,
  clock: WindowClock,
  stopBytes,
  countsBus,
  counts,
  traceIds,
  origins,
) {
  const W = SLOT_STRIDE;
  // Offsets are enum members: a bundler writes them in as numbers.
  const code = RecordCode.Dispatch;
  const oSeq = DispatchSlot.seq;
  const oParent = DispatchSlot.parentSeq;
  const oStartTick = DispatchSlot.startTick;
  const oEndTick = DispatchSlot.endTick;
  const oBus = DispatchSlot.bus;
  const oType = DispatchSlot.type;
  const oDelivered = DispatchSlot.delivered;
  const oConsumedBy = DispatchSlot.consumedBy;
  const oDepth = DispatchSlot.depth;
  const oSite = DispatchSlot.site;
  const reads = clock.keptReads;
  if (reads === 0 || countsBus > MAX_BLOCK_FIELD) return 0;
  const readTicks = clock.sampleTicks;
  const firstTick = readTicks[0];
  const lastTick = readTicks[reads - 1];
  // Room for the worst case (4-byte columns), as for a block.
  let max = Math.floor((stopBytes - w.position) / BLOCK_ENTRY_BYTES);
  if (max > size) max = size;
  if (max > MAX_BLOCK_ENTRIES) max = MAX_BLOCK_ENTRIES;
  const typeLimit = counts.length;
  const e = entryScratch;
  // Column k of entry i at k * max + i.
  const c1 = max;
  const c2 = 2 * max;
  const c3 = 3 * max;
  const c4 = 4 * max;
  const c5 = 5 * max;
  const c6 = 6 * max;
  const c7 = 7 * max;
  const c8 = 8 * max;
  const c9 = 9 * max;
  const seqBase = ring[pos * W + oSeq];
  let prevTick = 0;
  let minTick = Infinity;
  let maxTick = 0;
  let n = 0;
  let p = pos;
  while (n < max) {
    const b = p * W;
    if (ring[b] !== code || ring[b + oBus] !== countsBus || traceIds[p] !== null || origins[p] !== null) break;
    const startTick = ring[b + oStartTick];
    const endTick = ring[b + oEndTick];
    // 0: that time is known already, not a tick
    if (startTick < firstTick || endTick > lastTick || startTick === 0 || endTick === 0) break;
    const seq = ring[b + oSeq];
    const parentSeq = ring[b + oParent];
    const typeId = ring[b + oType];
    const delivered = ring[b + oDelivered];
    const consumedBy = ring[b + oConsumedBy];
    const depth = ring[b + oDepth];
    const site = ring[b + oSite];
    const parentDelta = parentSeq === 0 ? 0 : seq - parentSeq;
    const ds = seq - seqBase - n;
    const dt = startTick - prevTick;
    const zs = ds >= 0 ? ds * 2 : -ds * 2 - 1;
    const zt = dt >= 0 ? dt * 2 : -dt * 2 - 1;
    const span = endTick - startTick;
    if (
      typeId >= typeLimit ||
      delivered > MAX_BLOCK_FIELD ||
      consumedBy > MAX_BLOCK_FIELD ||
      depth > MAX_BLOCK_FIELD ||
      site > MAX_BLOCK_FIELD ||
      parentDelta > MAX_BLOCK_FIELD ||
      zs > MAX_BLOCK_FIELD ||
      (n > 0 && zt > MAX_BLOCK_FIELD) ||
      span > MAX_BLOCK_FIELD
    ) {
      break;
    }
    prevTick = startTick;
    if (startTick < minTick) minTick = startTick;
    if (endTick > maxTick) maxTick = endTick;
    e[n] = zs;
    e[c1 + n] = zt; // the first entry's is set below, from the block's first read
    e[c2 + n] = span;
    e[c3 + n] = countsBus;
    e[c4 + n] = typeId;
    e[c5 + n] = delivered;
    e[c6 + n] = consumedBy;
    e[c7 + n] = depth;
    e[c8 + n] = parentDelta;
    e[c9 + n] = site;
    n++;
    if (++p === capacity) p = 0;
  }
  if (n === 0) return 0;
  // The reads around the run: the last at or before its first tick … the first at or after its last.
  const r0 = lastReadAtOrBefore(readTicks, reads, minTick);
  let r1 = r0;
  while (readTicks[r1] < maxTick) r1++;
  const baseTick = readTicks[r0];
  const first = (ring[pos * W + oStartTick] - baseTick) * 2;
  if (first > MAX_BLOCK_FIELD) return 0;
  e[c1] = first;
  let q = w.position;
  const buf = w.reserveRaw(1 + 3 * 8 + (r1 - r0 + 1) * 16 + 64 + n * BLOCK_ENTRY_BYTES);
  q = writeBlockHead(buf, q, RecordCode.DispatchColumns, n, seqBase, clock, r0, r1);
  for (let k = 0, from = 0; k < DISPATCH_COLUMNS.length; k++, from += max) {
    const to = from + n;
    let min = e[from];
    let top = min;
    for (let i = from + 1; i < to; i++) {
      const v = e[i];
      if (v < min) min = v;
      else if (v > top) top = v;
    }
    const range = top - min;
    const width = range === 0 ? 0 : range < 0x100 ? 1 : range < 0x10000 ? 2 : 4;
    buf[q++] = width;
    q = putUvarint(buf, q, min);
    if (width === 1) for (let i = from; i < to; i++) buf[q++] = e[i] - min;
    else if (width === 2) {
      for (let i = from; i < to; i++) {
        const v = e[i] - min;
        buf[q++] = v;
        buf[q++] = v >>> 8;
      }
    } else if (width === 4) {
      for (let i = from; i < to; i++) {
        const v = e[i] - min;
        buf[q++] = v;
        buf[q++] = v >>> 8;
        buf[q++] = v >>> 16;
        buf[q++] = v >>> 24;
      }
    }
  }
  for (let i = c4; i < c4 + n; i++) counts[e[i]]++;
  w.commitRaw(q, n, n);
  return n;
};
