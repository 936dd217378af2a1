// Dispatch start times at detail `dispatch` come from a clock read about once per 40 µs window and
// interpolated at drain (window-clock.ts). On a dense workload with known handler busy-waits (0–20 µs,
// 8 types, some nested, split over many tasks), the stated bounds must be honest: ≥ 99% of starts
// lie within their bound of the true start. The true start (the tracer's dispatchStart) is known to
// lie between a performance.now() right before dispatching and one at the first handler's entry.
// Not a speed test: it asserts correctness, and bounded work (the clock is read on a minority of ticks).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import type { DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

function spinUs(us: number): void {
  const end = performance.now() + us / 1000;
  while (performance.now() < end);
}

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;
type Events = { [K in (typeof TYPES)[number]]: number };

test('interpolated dispatch starts lie within their stated bound of the true start (dense workload)', async () => {
  const rec = new Recorder({
    maxBufferedRecords: 65_536,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new DecodingSink();
  const bus = new EventBus<Events>({ name: 'accuracy' });
  /** Per dispatch, in dispatch (= sequence) order: the true start lies in [before, after]. */
  const MAX = 40_000;
  const before = new Float64Array(MAX);
  const after = new Float64Array(MAX);
  let count = 0;
  const open: number[] = [];
  let seed = 7;
  const rand = (n: number): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const dispatch = (type: (typeof TYPES)[number], v: number): void => {
    const i = count++;
    open.push(i);
    before[i] = performance.now();
    bus.dispatch(type, v);
    open.pop();
  };
  for (const type of TYPES) {
    bus.subscribe(type, (v) => {
      after[open[open.length - 1] as number] = performance.now();
      spinUs(v % 21); // 0–20 µs, known from the payload
      // some nesting: collisions cause damage, damage causes a score change
      if (type === 'collide' && v % 3 === 0) dispatch('damage', rand(21));
      if (type === 'damage' && v % 2 === 0) dispatch('score', rand(21));
    });
  }
  let firstSeq: number;
  try {
    rec.attach(sink, [], () => undefined);
    firstSeq = rec.lastSequence + 1;
    for (let task = 0; task < 60; task++) {
      for (let i = 0; i < 250; i++) dispatch(TYPES[rand(TYPES.length)], rand(1000));
      await new Promise((r) => setImmediate(r)); // task boundaries: the clock is read once per task too
    }
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }
  const dispatches = sink.records.filter((r): r is DispatchRecord => r.kind === 'dispatch');
  assert.equal(dispatches.length, count, 'one record per dispatch');
  let honest = 0;
  let within50 = 0;
  const errors: number[] = [];
  for (const d of dispatches) {
    const i = d.seq - firstSeq;
    assert.ok(i >= 0 && i < count, `seq ${d.seq}`);
    assert.ok(d.startBound !== undefined && d.startBound >= 0.001, 'every record states its bound');
    const error = d.start < before[i] ? before[i] - d.start : d.start > after[i] ? d.start - after[i] : 0;
    errors.push(error);
    if (error <= (d.startBound ?? 0)) honest++;
    if (error <= 0.05) within50++;
  }
  errors.sort((a, b) => a - b);
  const n = dispatches.length;
  const p99 = errors[Math.floor(n * 0.99)] * 1000;
  const reads = rec.windowClock.reads;
  const summary = `${n} dispatches: ${((100 * honest) / n).toFixed(2)}% within their bound, ${((100 * within50) / n).toFixed(2)}% within ±50 µs, p99 error ${p99.toFixed(1)} µs, ${reads} clock reads for ${2 * n} ticks`;
  assert.ok(honest / n >= 0.99, summary);
  // ±50 µs is the target on an idle machine; this one is shared (preemption inside a window
  // widens it, and the bound says so), so the test holds the target loosely and the bench reports it.
  assert.ok(within50 / n >= 0.95, summary);
  assert.ok(reads < n, `bounded work: fewer clock reads than dispatches (${summary})`);
  console.log(`# ${summary}`);
});
