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
import { DispatchColumns } from '../../../runtime-probe/src/protocol/index';
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
