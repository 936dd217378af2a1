// A page's Web Workers number their buses from block · 2^32 + 1. The model's timeline and the
// columns the inspector draws from must keep those ids whole: a 32-bit column kept the low bits, so
// a worker's dispatches pointed at bus 1 (or at no bus) in the timeline and its details.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BusRecord } from '../../../runtime-probe/src/protocol/records';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { dispatchesInRange, timelineColumns } from '../../../runtime-probe/src/analysis/model/queries';

test("a Web Worker's bus id beyond 2^32 stays whole in the timeline, its range queries and the inspector's columns", () => {
  const WORKER_BUS = 9 * 2 ** 32 + 1;
  const model = new Model();
  const records: BusRecord[] = [
    { kind: 'bus-created', time: 1, bus: 1, name: 'page-bus' },
    { kind: 'bus-created', time: 1, bus: WORKER_BUS, name: 'worker-bus' },
  ];
  for (let i = 0; i < 10; i++) {
    const bus = i % 2 === 0 ? WORKER_BUS : 1;
    records.push({
      kind: 'dispatch',
      seq: i + 1,
      bus,
      type: 'job',
      start: 2 + i,
      duration: 0.5,
      delivered: 0,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  model.applyRecords(records);
  const want = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? WORKER_BUS : 1));
  const t = model.timeline;
  assert.deepEqual(
    Array.from({ length: t.size }, (_, k) => t.row(k).bus),
    want,
  );
  assert.deepEqual(
    dispatchesInRange(model, 0, 100).map((d) => d.bus),
    want,
  );
  assert.deepEqual([...timelineColumns(model, 0, 100).bus], want);
  assert.ok(model.buses.has(WORKER_BUS));
});
