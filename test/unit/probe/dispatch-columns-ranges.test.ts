// The version-6 columns encoder (recorder/dispatch-columns.ts) picks each column's width and base
// from the values of a run, in 32-bit integer arithmetic. Field values at the edges — a column whose
// values cross a width boundary mid-run, bit 31 set, start ticks going backwards (a parent written
// after its children), spans and parent deltas at and past the 4-byte limit, worker-sized sequence
// numbers — must still decode to exactly what was recorded, and to what the version-4 blocks say.
// Hand-made ring slots, drained as the recorder's drain does (columns, else a block, else alone).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  RecordDecoder,
  RecordWriter,
  type BusRecord,
  type DispatchRecord,
  type RecordSink,
} from '../../../runtime-probe/src/protocol/index';
import { TARGET_BATCH_BYTES } from '../../../runtime-probe/src/protocol/limits';
import { RecordCode } from '../../../runtime-probe/src/protocol/records';
import { encodeColumns } from '../../../runtime-probe/src/recorder/dispatch-columns';
import { DispatchSlot, SLOT_WIDTH } from '../../../runtime-probe/src/recorder/layouts';
import { encodeDispatchBlock } from '../../../runtime-probe/src/recorder/dispatch-block-encoder';
import { encodeSlot, type SideStrings } from '../../../runtime-probe/src/recorder/ring-encoder';
import { WindowClock } from '../../../runtime-probe/src/recorder/window-clock';

interface Slot {
  seq: number;
  parentSeq: number;
  startTick: number;
  endTick: number;
  type: number;
  delivered: number;
  consumedBy: number;
  depth: number;
  site: number;
  traceId?: string;
}

const BUS = 3;
const TYPES = ['a', 'b', 'c'];
const SITES = 300;
/** ms per tick of the test's clock: every slot's ticks are clock reads, so every time is exact. */
const MS_PER_TICK = 0.001;

/** The slots: one run of awkward values, then entries that cannot go in columns, then a plain run. */
function slots(): Slot[] {
  const out: Slot[] = [];
  const s = 3 * 2 ** 32 + 5; // a worker's seqs (threadId · 2^32 + n)
  // Children 1 … 39 of the dispatch s, each written when it ends, then s itself, started first and
  // ended last: its start tick goes back past all of theirs, its span is above 2 bytes.
  for (let i = 1; i < 40; i++) {
    out.push({
      seq: s + i,
      parentSeq: s,
      startTick: 1000 + i * 10,
      endTick: 1000 + i * 10 + 3,
      type: i % 3,
      delivered: i % 2 === 0 ? 1 : 257, // differing in bit 8 alone
      // small, then across 256 mid-run, then past 2 bytes, then with bit 31 set, then small again
      consumedBy: i < 10 ? i : i < 20 ? 200 + (i - 10) * 10 : i === 20 ? 70_000 : i === 21 ? 0x8000_0010 : i - 20,
      depth: 1,
      site: i % 2 === 0 ? 255 : 256, // across a byte, in the same run
    });
  }
  out.push({ seq: s, parentSeq: 0, startTick: 995, endTick: 80_000, type: 0, delivered: 1, consumedBy: 0, depth: 0, site: 1 });
  // Parent deltas around the limits: 2 bytes, past 2 bytes, exactly 4 bytes, past 4 bytes.
  const t = 2 ** 33;
  out.push({ seq: t + 1, parentSeq: t + 1 - 0xffff, startTick: 80_010, endTick: 80_011, type: 1, delivered: 1, consumedBy: 0, depth: 1, site: 0 });
  out.push({ seq: t + 2, parentSeq: t + 2 - 0x10000, startTick: 80_020, endTick: 80_021, type: 1, delivered: 1, consumedBy: 0, depth: 1, site: 0 });
  out.push({ seq: t + 3, parentSeq: t + 3 - 0xffff_ffff, startTick: 80_030, endTick: 80_031, type: 2, delivered: 1, consumedBy: 0, depth: 1, site: 0 });
  out.push({ seq: t + 4, parentSeq: t + 4 - 2 ** 32, startTick: 80_040, endTick: 80_041, type: 2, delivered: 1, consumedBy: 0, depth: 1, site: 0 });
  // A span of exactly 4 bytes' worth of ticks is out of reach of the reads here; a trace id ends a run.
  out.push({
    seq: t + 5,
    parentSeq: 0,
    startTick: 80_050,
    endTick: 80_051,
    type: 0,
    delivered: 0,
    consumedBy: 0,
    depth: 0,
    site: 0,
    traceId: '0af7651916cd43dd8448eb211c80319c',
  });
  for (let i = 6; i < 30; i++) {
    // consumedBy differing in bit 16 alone
    out.push({
      seq: t + i,
      parentSeq: 0,
      startTick: 80_000 + i * 10,
      endTick: 80_000 + i * 10 + 1,
      type: i % 3,
      delivered: 1,
      consumedBy: i % 2 === 0 ? 7 : 0x1_0007,
      depth: 0,
      site: 2,
    });
  }
  return out;
}

/** The records the drain writes for `list` (with columns, or with blocks only), decoded; and the per-type counts it kept. */
function drain(list: Slot[], columns: boolean, bus = BUS): { records: DispatchRecord[]; counts: number[]; inColumns: number; sinkBuses: number[] } {
  const cap = list.length + 3;
  const ring = new Float64Array(cap * SLOT_WIDTH);
  const traceIds: (string | null)[] = new Array<string | null>(cap).fill(null);
  const origins: null[] = new Array<null>(cap).fill(null);
  // Start the ring a little before its end, so runs wrap around.
  const first = 2;
  const ticks = new Set<number>();
  list.forEach((slot, i) => {
    const b = ((first + i) % cap) * SLOT_WIDTH;
    ring[b] = RecordCode.Dispatch;
    ring[b + DispatchSlot.seq] = slot.seq;
    ring[b + DispatchSlot.parentSeq] = slot.parentSeq;
    ring[b + DispatchSlot.startTick] = slot.startTick;
    ring[b + DispatchSlot.endTick] = slot.endTick;
    ring[b + DispatchSlot.start] = NaN;
    ring[b + DispatchSlot.end] = NaN;
    ring[b + DispatchSlot.bus] = bus;
    // String ids are 1-based and type ids index `counts`: type k is string k + 1.
    ring[b + DispatchSlot.type] = slot.type + 1;
    ring[b + DispatchSlot.delivered] = slot.delivered;
    ring[b + DispatchSlot.consumedBy] = slot.consumedBy;
    ring[b + DispatchSlot.depth] = slot.depth;
    ring[b + DispatchSlot.site] = slot.site;
    traceIds[(first + i) % cap] = slot.traceId ?? null;
    ticks.add(slot.startTick).add(slot.endTick);
  });
  // A clock read at every tick a slot names.
  const clock: WindowClock = new WindowClock({ now: (): number => clock.tick * MS_PER_TICK, timeOrigin: 0 }, () => undefined);
  for (const k of [...ticks].sort((x, y) => x - y)) {
    clock.tick = k;
    clock.close();
  }
  const w = new RecordWriter();
  TYPES.forEach((name, id) => w.stringDef(id + 1, name));
  w.stringDef(TYPES.length + 1, 'file.ts');
  for (let id = 1; id <= SITES; id++) w.siteDef(id, TYPES.length + 1, id, 1, 0);
  const counts = new Float64Array(TYPES.length + 1);
  const side: SideStrings = { sideA: traceIds, sideB: origins, timeOrigin: 0 };
  let pos = first;
  let size = list.length;
  let inColumns = 0;
  while (size > 0) {
    let n = columns ? encodeColumns(ring, pos, size, cap, w, clock, TARGET_BATCH_BYTES, bus, counts, traceIds, origins) : 0;
    inColumns += n;
    if (n === 0) n = encodeDispatchBlock(ring, pos, size, cap, w, clock, TARGET_BATCH_BYTES, bus, counts, traceIds, origins);
    if (n === 0) {
      counts[ring[pos * SLOT_WIDTH + DispatchSlot.type]]++;
      encodeSlot(ring, pos * SLOT_WIDTH, pos, side, w, clock);
      n = 1;
    }
    pos = (pos + n) % cap;
    size -= n;
  }
  const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  frames.push(w.finish());
  const out: BusRecord[] = [];
  const d = new RecordDecoder();
  d.version = 6;
  // The extension's path too: runs into a record sink (the model's), their columns as they come.
  const sinkBuses: number[] = [];
  const viaSink = new RecordDecoder();
  viaSink.version = 6;
  const sink: RecordSink = {
    dispatch: (_seq, b) => void sinkBuses.push(b),
    dispatchRun: (c) => {
      for (let i = 0; i < c.count; i++) sinkBuses.push(c.bus[i]);
    },
    record: () => undefined,
  };
  for (let f = frames.next(); f; f = frames.next()) {
    if (f.kind !== FrameKind.Records) continue;
    d.decode(f.body, out);
    viaSink.decodeInto(f.body, sink);
  }
  return { records: out.filter((r): r is DispatchRecord => r.kind === 'dispatch'), counts: [...counts].slice(1), inColumns, sinkBuses };
}

test('dispatch columns: values across width boundaries, bit 31, backward start ticks and parent deltas at 4 bytes decode exactly as recorded', () => {
  const list = slots();
  const viaColumns = drain(list, true);
  const viaBlocks = drain(list, false);
  assert.ok(viaColumns.inColumns >= 60, `${viaColumns.inColumns} of ${list.length} entries went in columns: the awkward run among them`);
  assert.equal(viaColumns.records.length, list.length, 'every dispatch exactly once');
  assert.deepEqual(viaColumns.records, viaBlocks.records, 'the same records as the version-4 blocks');
  assert.deepEqual(viaColumns.counts, viaBlocks.counts);
  assert.deepEqual(
    viaColumns.counts,
    TYPES.map((_, k) => list.filter((s) => s.type === k).length),
    'each dispatch counted once for its type',
  );
  list.forEach((slot, i) => {
    const d = viaColumns.records[i];
    assert.deepEqual(
      [d.seq, d.parentSeq, d.bus, d.type, d.delivered, d.consumedBy, d.depth, d.site === null ? 0 : d.site.line],
      [slot.seq, slot.parentSeq, BUS, TYPES[slot.type], slot.delivered, slot.consumedBy, slot.depth, slot.site],
      `entry ${i} (seq ${slot.seq})`,
    );
    assert.ok(Math.abs(d.start - slot.startTick * MS_PER_TICK) < 1e-6, `entry ${i}: start ${d.start}`);
    assert.ok(Math.abs(d.duration - (slot.endTick - slot.startTick) * MS_PER_TICK) < 1e-6, `entry ${i}: duration ${d.duration}`);
  });
});

test("dispatch columns: a bus id beyond 2^32 (a page's Web Worker's) goes in columns, as the bus column's base, and decodes exactly", () => {
  const list = slots();
  const bus = 9 * 2 ** 32 + 1;
  const wide = drain(list, true, bus);
  const narrow = drain(list, true);
  assert.equal(wide.inColumns, narrow.inColumns, 'the same runs as with a small bus id');
  assert.ok(wide.inColumns >= 60);
  assert.deepEqual(
    wide.records,
    narrow.records.map((r) => ({ ...r, bus })),
    'the same records, on that bus',
  );
  assert.deepEqual(
    wide.sinkBuses,
    list.map(() => bus),
    "a record sink's runs carry that bus too (not the column's 32-bit values)",
  );
});
