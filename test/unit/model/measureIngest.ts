// Not a test: a quick measurement of model ingest (run by hand, on a quiet machine):
//   node --import tsx --expose-gc test/unit/model/measureIngest.ts [dispatches=1000000]
// Feeds decoded dispatch records (the objects the protocol's decoder produces) in batches of
// 1,000, as record messages arrive, with the analyzer running every 33 ms of wall time (the VS
// Code layer's throttle), and prints records/s and the model's memory per 100,000 retained
// dispatches.
import { performance } from 'node:perf_hooks';
import type { BusRecord, DispatchRecord, HandlerRecord } from '../../../runtime-probe/src/protocol/index';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const N = Number(process.argv[2] ?? 1_000_000);
const BATCH = 1000;
const TYPES = Array.from({ length: 50 }, (_, i) => `type.${i}`);

function subscribeAll(model: Model): void {
  const recs: BusRecord[] = [];
  for (let i = 0; i < TYPES.length; i++) {
    for (let k = 0; k < 3; k++) {
      recs.push({
        kind: 'subscribe',
        time: 0,
        subscriptionId: i * 3 + k + 1,
        bus: (i % 3) + 1,
        type: TYPES[i],
        priority: k === 0 ? 10 : 0,
        label: `Handler${i}.${k}`,
        owner: `Owner#${i}`,
        once: false,
        site: { file: '/app/src/system.ts', line: 10 + i, column: 5, functionName: 'init' },
      });
    }
  }
  model.applyRecords(recs);
}

function makeBatches(withHandlers: boolean): BusRecord[][] {
  const batches: BusRecord[][] = [];
  let batch: BusRecord[] = [];
  for (let seq = 1; seq <= N; seq++) {
    const ti = seq % TYPES.length;
    const start = seq * 0.001; // 1 µs apart: a million a second
    if (withHandlers) {
      for (let k = 0; k < 2; k++) {
        const h: HandlerRecord = { kind: 'handler', seq, subscriptionId: ti * 3 + k + 1, start: start + k * 0.0001, duration: 0.0001, consumed: false };
        batch.push(h);
      }
    }
    const d: DispatchRecord = {
      kind: 'dispatch',
      seq,
      bus: (ti % 3) + 1,
      type: TYPES[ti],
      start,
      duration: 0.0005,
      delivered: seq % 97 === 0 ? 0 : 3,
      consumedBy: seq % 13 === 0 ? ti * 3 + 1 : 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    };
    batch.push(d);
    if (batch.length >= BATCH) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length) batches.push(batch);
  return batches;
}

function run(label: string, withHandlers: boolean): void {
  const batches = makeBatches(withHandlers);
  const records = batches.reduce((n, b) => n + b.length, 0);
  gc();
  const mem = (): number => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers; // the ring's typed arrays live outside the JS heap
  };
  const heapBefore = mem();
  const model = new Model({ timelineCapacity: 200_000, handlerSliceCapacity: 200_000 });
  subscribeAll(model);
  const analyzer = new Analyzer(model);
  let analyses = 0;
  let analysisMs = 0;
  let lastAnalysis = performance.now();
  const t0 = performance.now();
  for (const b of batches) {
    model.applyRecords(b);
    const now = performance.now();
    if (now - lastAnalysis >= 33) {
      analyzer.run();
      analyses++;
      analysisMs += performance.now() - now;
      lastAnalysis = performance.now();
    }
  }
  const ingestMs = performance.now() - t0;
  analyzer.run();
  gc();
  const heapAfter = mem();
  const modelBytes = heapAfter - heapBefore;
  const retained = model.timeline.size;
  console.log(
    `${label}: ${N.toLocaleString('en')} dispatches (${records.toLocaleString('en')} records) in ${ingestMs.toFixed(0)} ms ` +
      `→ ${((N / ingestMs) * 1000).toLocaleString('en', { maximumFractionDigits: 0 })} dispatches/s, ` +
      `${((records / ingestMs) * 1000).toLocaleString('en', { maximumFractionDigits: 0 })} records/s; ` +
      `analyzer ran ${analyses}× (${analysisMs.toFixed(1)} ms total); warnings ${analyzer.warnings.length}`,
  );
  console.log(
    `  model memory (heap + array buffers, input batches excluded): ${(modelBytes / 1e6).toFixed(1)} MB for ${retained.toLocaleString('en')} retained dispatches ` +
      `(${(((modelBytes / retained) * 100_000) / 1e6).toFixed(2)} MB per 100,000; ring columns ${(model.timeline.byteLength / 1e6).toFixed(1)} MB + handler slices ${(model.handlerSlices.byteLength / 1e6).toFixed(1)} MB)`,
  );
  batches.length = 0;
}

run('dispatch records only', false);
run('dispatch + 2 handler records each', true);
