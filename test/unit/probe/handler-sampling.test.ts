// Detail `handlers` times a sample of dispatches (recorder/handler-sampler.ts): the real bus, the real
// recorder (with a deterministic clock: each handler advances it by a known time), real frames, the
// stream decoder and the extension's model. The model's weighted figures must estimate every call:
// p95 and call counts of a handler with known times in known proportions, with sampling on; the first
// 32 dispatches of every type are timed, and every throw is recorded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { encodeControlFrame, PROTOCOL_VERSION, StreamDecoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, RecorderCore, type RecorderClock } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DurationHistogram, Model, subscriptionView } from '../../../runtime-probe/src/analysis/model/index';
import { warningsOf } from '../analyses/helpers';
import { FIRST_SAMPLED } from '../../../runtime-probe/src/recorder/handler-sampler';

/** Time moves only when the workload says so (ms). */
class StepClock implements RecorderClock {
  t = 1;
  readonly timeOrigin = Date.now();
  now(): number {
    return this.t;
  }
}

class ModelSink extends RecordSink {
  readonly stream = new StreamDecoder();
  readonly records: BusRecord[] = [];
  constructor(readonly model: Model) {
    super();
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    for (const m of this.stream.push(frame)) {
      if (m.type === 'records') this.records.push(...m.records);
      this.model.apply(m);
    }
  }
}

/** Handler times of the `frame` handler and their shares: p95 lies in the slow class (90% below it). */
const FAST_MS = 0.002;
const MEDIUM_MS = 0.02;
const SLOW_MS = 0.2;
const FRAMES = 200_000;
const INPUT_EVERY = 10;
const THROW_EVERY = 7;

test('detail "handlers" samples busy types, and the model\'s weighted p95 and counts stay right', () => {
  const clock = new StepClock();
  const rec = new RecorderCore({
    host: { clock, isProxy: undefined },
    maxBufferedRecords: 65_536,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'handlers', captureStacks: false, dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const model = new Model();
  const sink = new ModelSink(model);
  // Attached first: the subscriptions' records reach the model.
  const welcome = encodeControlFrame({
    type: 'welcome',
    protocolVersion: PROTOCOL_VERSION,
    probeVersion: '0.1.0',
    app: { pid: 1, name: 'sampling', cwd: '/', startTime: rec.timeOrigin, runtime: 'node' },
    timeOrigin: rec.timeOrigin,
    config: rec.config,
  });
  rec.attach(sink, [welcome], () => undefined);
  const bus = new EventBus<{ frame: number; input: number }>({ name: 'sampled' });
  // The truth: every `frame` handler time, bucketed exactly as the model buckets them.
  const truth = new DurationHistogram();
  // A hash of the call number (not an LCG, whose high bits repeat with a power-of-two stride).
  let call = 0;
  const random = (): number => {
    let x = Math.imul(++call ^ 0x5bd1e995, 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    return ((x ^ (x >>> 16)) >>> 0) / 2 ** 32;
  };
  const frameSub = bus.subscribe('frame', () => {
    const r = random();
    const ms = r < 0.85 ? FAST_MS : r < 0.9 ? MEDIUM_MS : SLOW_MS;
    clock.t += ms;
    truth.add(ms);
  });
  const otherSub = bus.subscribe('frame', () => void (clock.t += 0.001));
  let inputCalls = 0;
  let throws = 0;
  const inputSub = bus.subscribe('input', () => {
    clock.t += 0.001;
    if (++inputCalls % THROW_EVERY === 0) {
      throws++;
      throw new Error(`input ${inputCalls} failed`);
    }
  });
  const errors = console.error;
  console.error = () => undefined; // the bus reports handler errors; 2,857 of them here
  let inputs = 0;
  try {
    for (let i = 0; i < FRAMES; i++) {
      clock.t += 0.001; // the app's own work between dispatches
      bus.dispatch('frame', i);
      // `input` begins halfway, when `frame` is sampled 1 in many: its own first dispatches are timed.
      if (i >= FRAMES / 2 && i % INPUT_EVERY === 0) {
        bus.dispatch('input', i);
        inputs++;
      }
    }
    rec.flushTo(sink);
  } finally {
    console.error = errors;
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }

  // Every dispatch is recorded (untimed ones at detail `dispatch`).
  const dispatches = sink.records.filter((r): r is Extract<BusRecord, { kind: 'dispatch' }> => r.kind === 'dispatch');
  assert.equal(dispatches.length, FRAMES + inputs);
  assert.equal(model.totalDispatches, FRAMES + inputs);
  const handlerRecords = sink.records.filter((r): r is Extract<BusRecord, { kind: 'handler' }> => r.kind === 'handler');
  const frameRecords = handlerRecords.filter((r) => r.subscriptionId === frameSub.id);

  // Sampling happened: far fewer timed calls than calls, and the records say their weight.
  assert.ok(frameRecords.length < FRAMES / 10, `${frameRecords.length} of ${FRAMES} frame calls timed`);
  assert.ok(frameRecords.some((r) => (r.sampleEvery ?? 1) > 10));
  // A timed call is timed exactly (the handler's own time, read at its boundaries).
  for (const r of frameRecords)
    assert.ok(
      [FAST_MS, MEDIUM_MS, SLOW_MS].some((ms) => Math.abs(r.duration - ms) < 1e-6),
      `duration ${r.duration}`,
    );

  // The model's weighted figures estimate every call.
  const frame = model.subscriptions.get(frameSub.id);
  const h = frame?.durations;
  assert.ok(frame !== undefined && h !== undefined && h !== null);
  assert.equal(h.samples, frameRecords.length);
  const within = (got: number, want: number, rel: number, what: string): void =>
    assert.ok(Math.abs(got - want) <= want * rel, `${what}: ${got}, want ${want} ± ${rel * 100}%`);
  within(h.count, FRAMES, 0.01, 'frame calls');
  within(frame.calls, FRAMES, 0.01, 'frame subscription calls');
  within(h.quantile(0.95), truth.quantile(0.95), 0.15, 'p95 (ms)');
  within(h.quantile(0.5), truth.quantile(0.5), 0.15, 'p50 (ms)');
  // About 4,000 timed calls, 1 in 50 on average, with random gaps: an estimate of the 10% slow class
  // has a standard error of about 5% (simulated over seeds: no bias); ±20% is 4 of them.
  within(h.countAtLeast(SLOW_MS / 2), truth.countAtLeast(SLOW_MS / 2), 0.2, 'calls of the slow class');
  within(h.mean, truth.mean, 0.2, 'mean (ms)');
  within(model.subscriptions.get(otherSub.id)?.durations?.count ?? 0, FRAMES, 0.01, 'second frame handler calls');
  within(model.totalHandlerCalls, FRAMES * 2 + inputs, 0.01, 'handler calls');

  // The view and the slow-handler analysis say they are estimates, and from how many timed calls.
  const timing = subscriptionView(frame).timing;
  assert.ok(timing !== null && timing.sampleEvery !== undefined && timing.sampleEvery > 10, JSON.stringify(timing));
  const slow = warningsOf(model, 'slow-handler', { slowHandler: { p95Ms: 0.1, minCalls: 10, minSlowCalls: 3, maxMs: 0 } });
  const warning = slow.find((w) => w.subjects.subscriptions?.includes(frameSub.id));
  assert.ok(warning !== undefined, 'the frame handler is slow at p95');
  assert.match(warning.explanation, /estimated from [\d,]+ timed calls, sampled 1 in \d+/);
  assert.ok(warning.evidence.sampleEvery !== undefined && warning.evidence.sampleEvery > 10);
  within(warning.evidence.calls, FRAMES, 0.01, 'calls in the evidence');

  // The first 32 dispatches of each type are timed — `input`'s too, though it began when `frame` was sampled 1 in many.
  const timedSeqs = new Set(handlerRecords.map((r) => r.seq));
  for (const type of ['frame', 'input']) {
    const ofType = dispatches.filter((d) => d.type === type).sort((a, b) => a.seq - b.seq);
    for (const d of ofType.slice(0, FIRST_SAMPLED))
      assert.ok(timedSeqs.has(d.seq), `${type} dispatch #${d.seq} among the first ${FIRST_SAMPLED} was not timed`);
  }
  // Every throw is recorded, timed or not.
  assert.ok(throws > 100);
  assert.equal(sink.records.filter((r) => r.kind === 'handler-error').length, throws);
  assert.equal(model.subscriptions.get(inputSub.id)?.errors, throws);
});

test('a dispatch nested in a timed handler, and one around untimed handlers, are recorded whole', () => {
  const clock = new StepClock();
  const rec = new RecorderCore({
    host: { clock, isProxy: undefined },
    maxBufferedRecords: 65_536,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'handlers', captureStacks: false, dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const model = new Model();
  const sink = new ModelSink(model);
  const bus = new EventBus<{ outer: number; inner: number }>({ name: 'nested' });
  bus.subscribe('outer', (i) => {
    clock.t += 0.01;
    bus.dispatch('inner', i);
    clock.t += 0.01;
  });
  bus.subscribe('inner', () => void (clock.t += 0.005));
  try {
    rec.attach(sink, [], () => undefined);
    for (let i = 0; i < 20_000; i++) {
      clock.t += 0.001;
      bus.dispatch('outer', i);
    }
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }
  const dispatches = sink.records.filter((r): r is Extract<BusRecord, { kind: 'dispatch' }> => r.kind === 'dispatch');
  assert.equal(dispatches.length, 40_000);
  const bySeq = new Map(dispatches.map((d) => [d.seq, d]));
  const handlers = sink.records.filter((r): r is Extract<BusRecord, { kind: 'handler' }> => r.kind === 'handler');
  assert.ok(handlers.length < 20_000, `${handlers.length} handler records`);
  for (const r of handlers) {
    const d = bySeq.get(r.seq);
    assert.ok(d !== undefined);
    // A timed outer handler includes its nested dispatch, timed or not; a timed inner handler its own time.
    assert.ok(Math.abs(r.duration - (d.type === 'outer' ? 0.025 : 0.005)) < 1e-6, `${d.type} handler took ${r.duration}`);
    assert.ok(Math.abs(d.duration - r.duration) < 1e-6, `${d.type} dispatch took ${d.duration}, its handler ${r.duration}`);
  }
  for (const d of dispatches) if (d.type === 'inner') assert.equal(bySeq.get(d.parentSeq)?.type, 'outer');
});

test('a workload with a period (every 4th call slow) is not aliased by the sampling', () => {
  const clock = new StepClock();
  const rec = new RecorderCore({
    host: { clock, isProxy: undefined },
    maxBufferedRecords: 65_536,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'handlers', captureStacks: false, dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const model = new Model();
  const sink = new ModelSink(model);
  rec.attach(sink, [], () => undefined);
  const bus = new EventBus<{ tick: number }>({ name: 'periodic' });
  let calls = 0;
  const sub = bus.subscribe('tick', () => void (clock.t += ++calls % 4 === 0 ? 0.05 : 0.001));
  try {
    for (let i = 0; i < 100_000; i++) {
      clock.t += 0.001;
      bus.dispatch('tick', i);
    }
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }
  const h = model.subscriptions.get(sub.id)?.durations;
  assert.ok(h !== undefined && h !== null && h.samples < 10_000, `${h?.samples} timed calls`);
  const slow = h.countAtLeast(0.025);
  // Aliased, a stride of 4 would see all slow calls or none; random gaps see a quarter (±4 standard errors).
  assert.ok(Math.abs(slow - 25_000) < 4_000, `${slow} slow calls estimated, 25,000 made`);
  assert.ok(Math.abs(h.count - 100_000) < 1_000, `${h.count} calls estimated`);
});
