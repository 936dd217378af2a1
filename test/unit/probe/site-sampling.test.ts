// Dispatch sites are sampled: the first dispatch of each type, then every Nth (`dispatchSiteEvery`).
// A capture reads the stack (10–50 µs in a busy app), so for a type dispatched flat out every
// 1,000th capture cost as much as the detached dispatch itself (issue 11). A busy type now gets a
// bounded number of captures per period; a calm one keeps exactly every Nth. Bounded work, not speed:
// the test counts captures (dispatch records that carry a site).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import type { DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { PERIOD_CAPTURES, SITE_PERIOD_MS } from '../../../runtime-probe/src/recorder/site-sampler';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

type Events = { busy: number; calm: number };

async function record(every: number, run: (bus: EventBus<Events>) => Promise<void>): Promise<{ dispatches: DispatchRecord[]; ms: number }> {
  const rec = new Recorder({
    maxBufferedRecords: 65_536,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false, dispatchSiteEvery: every },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new DecodingSink();
  const bus = new EventBus<Events>({ name: 'sites' });
  bus.subscribe('busy', () => undefined);
  bus.subscribe('calm', () => undefined);
  const t0 = performance.now();
  try {
    rec.attach(sink, [], () => undefined);
    await run(bus);
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }
  return { dispatches: sink.of('dispatch'), ms: performance.now() - t0 };
}

test('a type dispatched flat out gets a bounded number of site captures per period, its first one included', async () => {
  const N = 400_000;
  const { dispatches, ms } = await record(100, async (bus) => {
    for (let i = 0; i < N; i += 8192) {
      for (let j = 0; j < 8192; j++) bus.dispatch('busy', j);
      await new Promise((r) => setImmediate(r)); // the recorder drains between tasks
    }
  });
  const busy = dispatches.filter((d) => d.type === 'busy');
  assert.ok(busy.length >= N, 'every dispatch recorded');
  const sampled = busy.filter((d) => d.site !== null);
  assert.ok(busy[0].site !== null, 'the first dispatch of a type is sampled');
  assert.ok(
    sampled.every((d) => d.site !== null && d.site.file.endsWith('site-sampling.test.ts')),
    'sites are the dispatching code',
  );
  // Every 100th would be 4,000 captures; a busy type gets about PERIOD_CAPTURES per period (plus a
  // few while its stride grows, and the ones before it counts as busy), however fast it is dispatched.
  const periods = Math.ceil(ms / SITE_PERIOD_MS) + 1;
  const bound = 2 * PERIOD_CAPTURES * periods + 64;
  assert.ok(sampled.length <= bound, `${sampled.length} captures for ${busy.length} dispatches in ${ms.toFixed(0)} ms (bound ${bound})`);
  console.log(`# ${sampled.length} site captures for ${busy.length} dispatches in ${ms.toFixed(0)} ms`);
});

test('a calm type keeps exactly every Nth dispatch sampled', async () => {
  const { dispatches } = await record(3, async (bus) => {
    for (let i = 0; i < 300; i++) bus.dispatch('calm', i);
  });
  const calm = dispatches.filter((d) => d.type === 'calm');
  assert.equal(calm.length, 300);
  const sampled = calm.map((d, i) => (d.site === null ? -1 : i)).filter((i) => i >= 0);
  assert.deepEqual(
    sampled,
    calm.map((_, i) => i).filter((i) => i % 3 === 0),
    'the first, then every 3rd',
  );
});
