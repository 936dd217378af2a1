// A page's `performance.now()` moves in 100 µs steps when the page is not cross-origin isolated
// (Chromium). Dispatch times are interpolated between clock reads, so two equal reads say only
// that the true times lie within a step of them: every stated bound must cover the step. The
// recorder runs on a coarse clock over a fake-but-monotone true clock, writes real frames, and a
// real StreamDecoder reads them after the welcome, as the extension does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { encodeControlFrame, StreamDecoder, type DispatchRecord, type WelcomeMessage } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, RecorderCore, type RecorderClock } from '../../../runtime-probe/src/recorder/recorder';
import { encodeColumns } from '../../../runtime-probe/src/recorder/dispatch-columns';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { WindowClock } from '../../../runtime-probe/src/recorder/window-clock';
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

/** Records 4,000 dispatches on the coarse clock into a sink of `version`; decodes them with the welcome. */
async function recordAndDecode(version: number): Promise<{ ds: DispatchRecord[]; trueStart: number[] }> {
  const rec = new RecorderCore({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
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
    clockStep: rec.windowClock.step,
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

for (const version of [6, 4]) {
  test(`version ${version}: on a 100 µs clock every dispatch's true start lies within start ± startBound, and no bound is below the step`, async () => {
    const { ds, trueStart } = await recordAndDecode(version);
    assert.equal(ds.length, 4000, 'every dispatch recorded');
    const first = Math.min(...ds.map((d) => d.seq));
    let outside = 0;
    let worst = '';
    for (const d of ds) {
      const t = trueStart[d.seq - first];
      const bound = d.startBound ?? 0;
      assert.ok(bound >= STEP_MS, `a bound of ${(bound * 1000).toFixed(1)} µs on a clock of 100 µs steps`);
      if (Math.abs(t - d.start) > bound) {
        outside++;
        worst ||= `seq ${d.seq}: true ${t.toFixed(4)}, recorded ${d.start.toFixed(4)} ± ${(bound * 1000).toFixed(1)} µs`;
      }
    }
    assert.equal(outside, 0, `dispatches outside their stated bound (first: ${worst})`);
  });
}

test('times the probe resolves itself (varint dispatch records) state the step too', () => {
  const clock = new WindowClock(coarse, () => undefined);
  assert.ok(Math.abs(clock.step - STEP_MS) < 1e-9, `measured a step of ${clock.step} ms`);
  const truth: number[] = [];
  for (let i = 0; i < 500; i++) {
    truth.push(trueNow);
    clock.next();
    trueNow += (i % 7) * 0.003;
  }
  clock.close();
  for (let k = 1; k <= 500; k++) {
    const { time, bound } = clock.resolve(k);
    assert.ok(bound >= STEP_MS, `tick ${k}: a bound of ${(bound * 1000).toFixed(1)} µs`);
    assert.ok(Math.abs(truth[k - 1] - time) <= bound, `tick ${k}: true ${truth[k - 1]}, resolved ${time} ± ${bound}`);
  }
});

test('a fine clock (Node) states no step: its bounds stay as they were', () => {
  const rec = new RecorderCore({
    maxBufferedRecords: 1024,
    config: DEFAULT_RECORDING_CONFIG,
    sanitize: undefined,
    host: { clock: performance, isProxy: undefined },
  });
  assert.equal(rec.windowClock.step, 0);
  rec.shutdown();
});
