// A page's `performance.now()` moves in 100 µs steps when the page is not cross-origin isolated
// (Chromium). Dispatch times are interpolated between clock reads, so two equal reads say only
// that the true times lie within a step of them: every stated bound must cover the step. The
// recorder runs on a coarse clock over a fake-but-monotone true clock, writes real frames, and a
// real StreamDecoder reads them after the welcome, as the extension does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { encodeControlFrame, ProtocolError, StreamDecoder, type DispatchRecord, type WelcomeMessage } from '../../../runtime-probe/src/protocol/index';
import type { DetailLevel } from '../../../runtime-probe/src/protocol/messages';
import { DEFAULT_RECORDING_CONFIG, RecorderCore, type RecorderClock } from '../../../runtime-probe/src/recorder/recorder';
import { encodeColumns } from '../../../runtime-probe/src/recorder/dispatch-columns';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { measureClockStep } from '../../../runtime-probe/src/browser/clock-step';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

const STEP_MS = 0.1;

/** The true time (ms): advanced by the workload, and by 20 ns a read (a read takes time). */
let trueNow = 1000;
/** Chromium's clock outside cross-origin isolation: the true time floored to 100 µs. */
const coarse: RecorderClock = {
  timeOrigin: 1_700_000_000_000,
  now() {
    trueNow += 0.00002;
    return Math.floor(trueNow / STEP_MS) * STEP_MS;
  },
};

class FrameSink extends RecordSink {
  readonly frames: Uint8Array[] = [];
  constructor(version: number) {
    super();
    this.protocolVersion = version;
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame.slice());
  }
}

/** Records 4,000 dispatches on the coarse clock into a sink of `version`; decodes them after the page's welcome. */
async function recordAndDecode(version: number, detail: DetailLevel): Promise<{ ds: DispatchRecord[]; trueStart: number[] }> {
  const rec = new RecorderCore({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail, captureStacks: false },
    sanitize: undefined,
    host: { clock: coarse, isProxy: undefined, encodeColumns },
  });
  const sink = new FrameSink(version);
  const welcome: WelcomeMessage = {
    type: 'welcome',
    protocolVersion: version,
    probeVersion: '0.0.0',
    app: { pid: 1, name: 'coarse', cwd: '/', startTime: 0, runtime: 'browser' },
    timeOrigin: coarse.timeOrigin,
    clockStep: measureClockStep(coarse), // as page-link.ts sends it
    config: rec.config,
  };
  const trueStart: number[] = [];
  setBusTracer(rec);
  try {
    rec.attach(sink, [encodeControlFrame(welcome)], () => undefined);
    const bus = new EventBus<{ a: number; b: number; c: number }>({ name: 'coarse' });
    // handlers of 0–20 µs: many dispatches share a 100 µs step, so reads around them are often equal
    bus.subscribe('a', () => void (trueNow += 0.002));
    bus.subscribe('b', (n) => void (trueNow += (n % 11) * 0.002));
    bus.subscribe('c', () => void (trueNow += 0.0005));
    const types = ['a', 'b', 'c'] as const;
    for (let task = 0; task < 20; task++) {
      for (let i = 0; i < 200; i++) {
        trueStart.push(trueNow);
        bus.dispatch(types[(i * 7 + task) % 3], i);
      }
      await new Promise((r) => setImmediate(r));
      trueNow += 0.37; // idle between tasks
      if (task % 5 === 4) rec.flushTo(sink);
    }
    rec.flushTo(sink);
    rec.detach(sink, false);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
  const decoder = new StreamDecoder();
  const ds: DispatchRecord[] = [];
  for (const f of sink.frames) for (const m of decoder.push(f)) if (m.type === 'records') for (const r of m.records) if (r.kind === 'dispatch') ds.push(r);
  return { ds, trueStart };
}

test('the page measures its clock: a 100 µs step', () => {
  assert.ok(Math.abs(measureClockStep(coarse) - STEP_MS) < 1e-9, `measured ${measureClockStep(coarse)} ms`);
});

// Version 6: dispatch columns; 4: dispatch blocks (both interpolated by the reader); at detail
// `handlers` every dispatch reads the clock and goes as a varint dispatch record (startBound 0).
for (const [version, detail] of [
  [6, 'dispatch'],
  [4, 'dispatch'],
  [6, 'handlers'],
] as const) {
  test(`version ${version}, detail ${detail}: on a 100 µs clock every dispatch's true start lies within start ± startBound, and no bound is below the step`, async () => {
    const { ds, trueStart } = await recordAndDecode(version, detail);
    assert.equal(ds.length, 4000, 'every dispatch recorded');
    const first = Math.min(...ds.map((d) => d.seq));
    let outside = 0;
    let worst = '';
    for (const d of ds) {
      const t = trueStart[d.seq - first];
      const bound = d.startBound ?? 0;
      assert.ok(bound >= STEP_MS - 1e-9, `a bound of ${(bound * 1000).toFixed(1)} µs on a clock of 100 µs steps`);
      assert.ok((d.durationBound ?? 0) >= 2 * STEP_MS - 1e-9, 'a duration is two reads, each a step off');
      if (Math.abs(t - d.start) > bound) {
        outside++;
        worst ||= `seq ${d.seq}: true ${t.toFixed(4)}, recorded ${d.start.toFixed(4)} ± ${(bound * 1000).toFixed(1)} µs`;
      }
    }
    assert.equal(outside, 0, `dispatches outside their stated bound (first: ${worst})`);
  });
}

test('welcome.clockStep is optional and never negative', () => {
  const welcome = (extra: object): Uint8Array =>
    encodeControlFrame({
      type: 'welcome',
      protocolVersion: 6,
      probeVersion: '0',
      app: { pid: 1, name: 'n', cwd: '/', startTime: 0, runtime: 'node' },
      timeOrigin: 0,
      config: DEFAULT_RECORDING_CONFIG,
      ...extra,
    } as WelcomeMessage);
  const first = (f: Uint8Array): unknown => new StreamDecoder().push(f)[0];
  assert.equal((first(welcome({})) as WelcomeMessage).clockStep, undefined, 'absent (the Node probe, older traces): the 1 µs floor as before');
  assert.equal((first(welcome({ clockStep: 0.1 })) as WelcomeMessage).clockStep, 0.1);
  assert.throws(
    () => first(welcome({ clockStep: -1 })),
    (e: unknown) => e instanceof ProtocolError && e.code === 'malformed',
  );
});
