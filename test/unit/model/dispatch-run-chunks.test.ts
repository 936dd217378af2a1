// The model takes a dispatch run in chunks: each chunk's counters row by row, then its timeline rows
// in one `DispatchRing.pushRun` (column copies, at most two stretches around the ring's end); the
// decoder fills a dispatch-columns run column by column. Both must leave exactly the state that one
// row at a time leaves: the same physical ring columns (a row lands where a row-by-row push puts
// it, also when a run is longer than the ring), the same running maxima behind range queries, and
// the same counters — on a real trace whose runs are interleaved with lifecycle records and nested
// dispatches, into a timeline smaller than one run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFile } from '../../../runtime-probe/src/client/index';
import { ByteWriter, DispatchColumns, RecordCode, RecordDecoder, type BusRecord, type RecordSink } from '../../../runtime-probe/src/protocol/index';
import { DispatchRing } from '../../../runtime-probe/src/analysis/model/dispatchRing';
import { Model, buildSnapshot } from '../../../runtime-probe/src/analysis/model/index';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-chunks-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Every column of the ring, physical index by physical index, and what range queries find. */
function ringState(t: DispatchRing): unknown {
  const columns = {
    seq: [...t.seq],
    start: [...t.start],
    maxEndSoFar: [...t.maxEndSoFar],
    parentSeq: [...t.parentSeq],
    duration: [...t.duration],
    bus: [...t.bus],
    typeIndex: [...t.typeIndex],
    delivered: [...t.delivered],
    consumedBy: [...t.consumedBy],
    depth: [...t.depth],
    siteIndex: [...t.siteIndex],
    startBound: [...t.startBound],
  };
  const ranges: number[][] = [];
  if (t.size > 0) {
    const first = t.start[t.physicalIndex(0)];
    const last = t.start[t.physicalIndex(t.size - 1)];
    for (let k = 0; k <= 8; k++) {
      const from = first + ((last - first) * k) / 8;
      const hits: number[] = [];
      t.forEachInRange(from, from + (last - first) / 16, (i) => void hits.push(i));
      ranges.push(hits);
    }
  }
  return { columns, ranges, size: t.size, written: t.written, overwritten: t.overwritten };
}

type Events = { input: { v: number }; move: { v: number }; collide: { v: number }; damage: { v: number }; late: { v: number } };

/** Dispatch runs with subscriptions coming and going between them, nested and consumed dispatches. */
async function recordInterleavedTrace(file: string): Promise<void> {
  const recording = probe.record(file, { detail: 'dispatch', captureStacks: false });
  const bus = new EventBus<Events>({ name: 'chunks' });
  bus.subscribe('input', () => undefined);
  bus.subscribe('move', () => undefined);
  bus.subscribe('collide', (e) => {
    if (e.v % 4 === 2) bus.dispatch('damage', e); // nested
  });
  bus.subscribe('damage', (e, ctx) => {
    if (e.v % 3 === 0) ctx.consume();
  });
  const types = ['input', 'move', 'collide', 'damage'] as const;
  let late: { dispose(): void } | null = null;
  for (let i = 0; i < 12_000; i++) {
    bus.dispatch(types[(i * 7) % 4], { v: i });
    if (i % 700 === 0) {
      // lifecycle records between (and inside) runs
      if (late === null) late = bus.subscribe('late', () => undefined);
      else {
        late.dispose();
        late = null;
      }
      bus.dispatch('late', { v: i });
    }
    if (i % 2500 === 0) await new Promise((r) => setImmediate(r));
  }
  bus.dispose();
  await recording.stop();
}

test('a model fed runs in chunks into a timeline smaller than a run equals the model fed record objects, column by column', async () => {
  const file = path.join(tmp, 'interleaved.bustrace');
  await recordInterleavedTrace(file);
  // 700 rows: smaller than a chunk and than most runs, and no divisor of either (stretches wrap).
  const options = { timelineCapacity: 700 };
  const objects = new Model(options);
  for await (const m of readTraceFile(file)) objects.apply(m);
  const runs = new Model(options);
  let applied = 0;
  for await (const m of readTraceFile(file, runs.recordSink)) {
    if (m.type === 'records') applied += m.applied ?? 0;
    runs.apply(m);
  }
  assert.ok(objects.totalDispatches >= 12_000, `dispatches: ${objects.totalDispatches}`);
  assert.ok(applied >= 12_000, 'the records went through the sink');
  assert.equal(runs.totalDispatches, objects.totalDispatches);
  assert.equal(runs.timeline.overwritten, objects.totalDispatches - 700);
  assert.deepEqual(ringState(runs.timeline), ringState(objects.timeline));
  const counters = (model: Model): unknown => JSON.parse(JSON.stringify({ snapshot: buildSnapshot(model), now: model.now }));
  assert.deepEqual(counters(runs), counters(objects));
  assert.ok(runs.allTypes().some((t) => t.consumed > 0) && runs.allTypes().some((t) => t.maxDepth > 0), 'consumption and nesting were exercised');
});

test('dispatch ring: pushRun leaves the ring as pushRow does, across its end and for runs longer than the ring', () => {
  const rowArb = fc.record({
    gap: fc.double({ min: -3, max: 5, noNaN: true }),
    duration: fc.double({ min: 0, max: 20, noNaN: true }),
    bound: fc.double({ min: 0, max: 1, noNaN: true }),
    small: fc.nat(5),
  });
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.array(fc.array(rowArb, { minLength: 1, maxLength: 90 }), { minLength: 1, maxLength: 6 }),
      (capacity, runs) => {
        const byRun = new DispatchRing(capacity);
        const byRow = new DispatchRing(capacity);
        let seq = 0;
        let time = 100;
        for (const run of runs) {
          const c = new DispatchColumns(run.length);
          c.reset(run.length);
          const typeIndex = new Uint32Array(run.length);
          const siteIndex = new Int32Array(run.length);
          for (let i = 0; i < run.length; i++) {
            const r = run[i];
            time += r.gap;
            c.seq[i] = ++seq;
            c.bus[i] = 1 + r.small;
            c.typeId[i] = 3;
            c.type[i] = 't';
            c.start[i] = time;
            c.startBound[i] = r.bound;
            c.duration[i] = r.duration;
            c.durationBound[i] = 0;
            c.delivered[i] = r.small;
            c.consumedBy[i] = r.small % 2;
            c.depth[i] = r.small % 3;
            c.parentSeq[i] = r.small === 0 ? 0 : seq - r.small;
            c.site[i] = null;
            typeIndex[i] = r.small + 7;
            siteIndex[i] = r.small - 1;
          }
          c.count = run.length;
          // as the model does: a run in chunks (here of up to 32 rows)
          for (let from = 0; from < run.length; from += 32) {
            const to = Math.min(run.length, from + 32);
            byRun.pushRun(c, from, to, typeIndex.subarray(from, to), siteIndex.subarray(from, to));
          }
          for (let i = 0; i < run.length; i++) byRow.pushRow(c, i, typeIndex[i], siteIndex[i]);
          assert.deepEqual(ringState(byRun), ringState(byRow));
        }
      },
    ),
    { numRuns: 300 },
  );
});

/**
 * A dispatch-columns record (dispatch-block.ts) from its reads and rows, each column at the width
 * its largest value needs.
 */
function columnsRecord(
  seqBase: number,
  reads: readonly (readonly [tick: number, timeNs: number])[],
  rows: readonly { seqOffset: number; startTick: number; span: number; type: number; depth: number; parentDelta: number }[],
): Uint8Array {
  const w = new ByteWriter();
  w.u8(RecordCode.String);
  w.uvarint(1);
  w.string('move');
  w.u8(RecordCode.DispatchColumns);
  w.uvarint(rows.length);
  w.uvarint(seqBase);
  w.uvarint(reads.length);
  let tick = 0;
  let time = 0;
  reads.forEach(([t, ns], i) => {
    w.uvarint(i === 0 ? t : t - tick);
    w.svarint(ns - time);
    tick = t;
    time = ns;
  });
  const zig = (v: number): number => (v < 0 ? -2 * v - 1 : 2 * v);
  let prev = reads[0][0];
  const columns = [
    rows.map((r) => zig(r.seqOffset)),
    rows.map((r) => {
      const d = zig(r.startTick - prev);
      prev = r.startTick;
      return d;
    }),
    rows.map((r) => r.span),
    rows.map(() => 1),
    rows.map((r) => r.type),
    rows.map((_, i) => i % 3),
    rows.map((_, i) => (i % 5 === 0 ? 7 : 0)),
    rows.map((r) => r.depth),
    rows.map((r) => r.parentDelta),
    rows.map(() => 0),
  ];
  for (const values of columns) {
    const base = Math.min(...values);
    const max = Math.max(...values) - base;
    const width = max === 0 ? 0 : max < 0x100 ? 1 : max < 0x10000 ? 2 : 4;
    w.u8(width);
    w.uvarint(base);
    for (const v of values) for (let b = 0; b < width; b++) w.u8(((v - base) / 2 ** (8 * b)) & 0xff);
  }
  return w.toBytes();
}

test('a dispatch-columns record reaches a run sink exactly as record objects, for ticks on, between, beyond and before the reads', () => {
  const readArb = fc.array(fc.record({ dTick: fc.integer({ min: 0, max: 50 }), dNs: fc.integer({ min: -5, max: 400_000 }) }), { minLength: 1, maxLength: 12 });
  const rowArb = fc.record({
    seqOffset: fc.integer({ min: -3, max: 3 }),
    tick: fc.integer({ min: -5, max: 400 }),
    span: fc.integer({ min: 0, max: 60 }),
    depth: fc.nat(2),
  });
  fc.assert(
    fc.property(readArb, fc.array(rowArb, { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 100_000 }), (readSteps, rowSpecs, stepNs) => {
      let t = 5;
      let ns = 1_000_000;
      const reads = readSteps.map(({ dTick, dNs }) => {
        t += dTick;
        ns += dNs;
        return [t, ns] as const;
      });
      // Ticks around the reads (some repeat a read, some lie past the last, a few go back in time).
      const rows = rowSpecs.map((r, i) => ({
        seqOffset: i === 0 ? Math.max(0, r.seqOffset) : r.seqOffset,
        startTick: reads[0][0] + r.tick,
        span: r.span,
        type: 1,
        depth: r.depth,
        parentDelta: r.depth === 0 ? 0 : 1,
      }));
      const body = columnsRecord(1000, reads, rows);
      const listed: BusRecord[] = [];
      const listDecoder = new RecordDecoder();
      listDecoder.blockClock.stepNs = stepNs;
      listDecoder.decode(body, listed);
      const got: unknown[] = [];
      const runDecoder = new RecordDecoder();
      runDecoder.blockClock.stepNs = stepNs;
      const sink: RecordSink = {
        dispatch: () => assert.fail('a run went one dispatch at a time'),
        record: () => undefined,
        dispatchRun: (c) => {
          for (let i = 0; i < c.count; i++) {
            got.push([
              c.seq[i],
              c.bus[i],
              c.type[i],
              c.start[i],
              c.startBound[i],
              c.duration[i],
              c.durationBound[i],
              c.delivered[i],
              c.consumedBy[i],
              c.depth[i],
              c.parentSeq[i],
              c.site[i],
            ]);
          }
        },
      };
      runDecoder.decodeInto(body, sink);
      const expected = listed
        .filter((r) => r.kind === 'dispatch')
        .map((r) => [r.seq, r.bus, r.type, r.start, r.startBound, r.duration, r.durationBound ?? 0, r.delivered, r.consumedBy, r.depth, r.parentSeq, r.site]);
      assert.equal(expected.length, rows.length);
      assert.deepEqual(got, expected);
    }),
    { numRuns: 400 },
  );
});
