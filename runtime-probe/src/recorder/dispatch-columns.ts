// Dispatch columns (protocol version 6, protocol/dispatch-block.ts): the drain's runs of dispatch
// records column by column, each column at the width its range needs. Reached through the recorder
// host: Node's and a page's set it (a page's link speaks 6; the page ships no version-4 block encoder).
// No Node built-ins here.

import { BLOCK_ENTRY_BYTES, MAX_BLOCK_FIELD } from '../protocol/dispatch-block';
import { putUvarint } from '../protocol/bytes';
import { RecordCode } from '../protocol/records';
import { DispatchSlot, SLOT_WIDTH as SLOT_STRIDE } from './layouts';
import { entryScratch, lastReadAtOrBefore, MAX_BLOCK_ENTRIES, writeBlockHead, type ColumnsEncoder } from './ring-encoder';
import type { WindowClock } from './window-clock';

/** The columns as i32s, in the block encoder's scratch: the gather stores each field once, in integer arithmetic. */
const scratch = new Int32Array(entryScratch.buffer);
// The ten columns of DISPATCH_COLUMNS (protocol/dispatch-block.ts), at e, c1 … c9: a literal, so a
// page's bundle ships no column names (the dispatch-columns decoding tests fail if the two disagree).
const COLUMNS = 10;
/** Per column k: at 2k the AND of its values (the bits all have), at 2k + 1 the AND of their complements (the bits none has). */
const columnBits = new Int32Array(2 * COLUMNS);

/** Value `v` of entry `i` of column `k` (columns of `rows` entries). Small: inlined, nine per dispatch. */
function put(v: number, i: number, k: number, rows: number): void {
  v |= 0;
  scratch[i + k * rows] = v;
  columnBits[2 * k] &= v;
  columnBits[2 * k + 1] &= ~v;
}

/**
 * A run of dispatch slots from slot `pos` as one dispatch-columns record, in one pass over the ring:
 * each slot's fields go into the column scratch as they are read, and each column's bits are
 * gathered on the way, so the widths are known at the end without a second look at the values. The
 * run ends where a dispatch block's would (encodeDispatchBlock), or at an entry whose fields add up
 * past 4 bytes (so that none of them does: one test, not one per field). Returns the slots written;
 * 0 when the slot at `pos` cannot start one (the caller tries a dispatch block, then alone).
 *
 * A column's width is what the bits that differ between its values need, its base the bits all of
 * them share above that width: a value less the base is then the value's low bytes (no borrow),
 * which a width-1 column gets by a native copy of the scratch into the batch. That is the minimal
 * width unless a column's values straddle a multiple of 256 or 65,536 (a byte more, rarely).
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
  const reads = clock.keptReads;
  if (reads === 0) return 0;
  const readTicks = clock.sampleTicks;
  const firstTick = readTicks[0];
  const lastTick = readTicks[reads - 1];
  const seqBase = ring[pos * W + DispatchSlot.seq];
  // The first entry's start is written from the run's first read, at or after the first kept one:
  // its delta from the latter bounds it in the test below.
  let prevTick = firstTick;
  // Room for the worst case (4-byte columns), as for a block.
  let max = ((stopBytes - w.position) / BLOCK_ENTRY_BYTES) | 0;
  if (max > size) max = size;
  if (max > MAX_BLOCK_ENTRIES) max = MAX_BLOCK_ENTRIES;
  const typeLimit = counts.length;
  const e = scratch;
  // Column k of entry i at k * max + i.
  const bits = columnBits;
  // ANDs start with every bit set.
  bits.fill(-1);
  let minTick = Infinity;
  let maxTick = 0;
  let n = 0;
  let p = pos;
  while (n < max) {
    const b = p * W;
    if (ring[b] !== RecordCode.Dispatch || ring[b + DispatchSlot.bus] !== countsBus || traceIds[p] !== null || origins[p] !== null) break;
    const startTick = ring[b + DispatchSlot.startTick];
    const endTick = ring[b + DispatchSlot.endTick];
    // 0: that time is known already, not a tick (an end tick is never below its start's)
    if (startTick < firstTick || startTick === 0 || endTick > lastTick || endTick < startTick) break;
    const seq = ring[b + DispatchSlot.seq];
    const parentSeq = ring[b + DispatchSlot.parentSeq];
    const typeId = ring[b + DispatchSlot.type];
    const delivered = ring[b + DispatchSlot.delivered];
    const consumedBy = ring[b + DispatchSlot.consumedBy];
    const depth = ring[b + DispatchSlot.depth];
    const site = ring[b + DispatchSlot.site];
    const parentDelta = parentSeq === 0 ? 0 : seq - parentSeq;
    const ds = seq - seqBase - n;
    const dt = startTick - prevTick;
    const zs = ds >= 0 ? ds * 2 : -ds * 2 - 1;
    const zt = dt >= 0 ? dt * 2 : -dt * 2 - 1;
    const span = endTick - startTick;
    // None of them negative: when the sum fits 4 bytes, each does.
    if (typeId >= typeLimit || zs + zt + (span + delivered) + (consumedBy + depth + (parentDelta + site)) > MAX_BLOCK_FIELD) break;
    prevTick = startTick;
    if (startTick < minTick) minTick = startTick;
    if (endTick > maxTick) maxTick = endTick;
    counts[typeId]++;
    put(zs, n, 0, max);
    // The first entry's start is put below (here into the bus column, which is set after).
    put(zt, n, n === 0 ? 3 : 1, max);
    put(span, n, 2, max);
    put(typeId, n, 4, max);
    put(delivered, n, 5, max);
    put(consumedBy, n, 6, max);
    put(depth, n, 7, max);
    put(parentDelta, n, 8, max);
    put(site, n, 9, max);
    n++;
    if (++p === capacity) p = 0;
  }
  if (n === 0) return 0;
  // The reads around the run: the last at or before its first tick … the first at or after its last.
  const r0 = lastReadAtOrBefore(readTicks, reads, minTick);
  let r1 = r0;
  while (readTicks[r1] < maxTick) r1++;
  const first = (ring[pos * W + DispatchSlot.startTick] - readTicks[r0]) * 2;
  put(first, 0, 1, max);
  let q = w.position;
  const buf = w.reserveRaw(1 + 3 * 8 + (r1 - r0 + 1) * 16 + 64 + n * BLOCK_ENTRY_BYTES);
  q = writeBlockHead(buf, q, RecordCode.DispatchColumns, n, seqBase, clock, r0, r1);
  for (let k = 0, from = 0; k < COLUMNS; k++, from += max) {
    const all = bits[2 * k];
    const spread = (all ^ ~bits[2 * k + 1]) >>> 0;
    // The bus column (3) is the run's bus, constant (a run ends at a change of bus): width 0, its
    // base a varint of any size (a page's Web Workers' bus ids are beyond 2^32).
    const width = spread === 0 || k === 3 ? 0 : spread < 0x100 ? 1 : spread < 0x10000 ? 2 : 4;
    // At width 4 the base is all shared bits: 1 << 32 is 1.
    const base = k === 3 ? countsBus : (all & ~((1 << (8 * width)) - 1)) >>> 0;
    buf[q++] = width;
    q = putUvarint(buf, q, base);
    const to = from + n;
    if (width === 1) {
      // Each value to its low byte, natively.
      buf.set(e.subarray(from, to), q);
      q += n;
    } else if (width !== 0) {
      for (let i = from; i < to; i++) {
        const v = e[i] ^ base;
        buf[q++] = v;
        buf[q++] = v >> 8;
        if (width === 4) {
          buf[q++] = v >> 16;
          buf[q++] = v >> 24;
        }
      }
    }
  }
  w.commitRaw(q, n, n);
  return n;
};
