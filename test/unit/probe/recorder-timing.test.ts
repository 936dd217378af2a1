// What the recorder's hot path measures at each detail level: dispatch durations at `dispatch`
// (the end is read after the handlers, not reused from the start); at `lifecycle` no dispatch tracer
// at all unless breakpoints or a debugger need one (then untimed); and no half-timed records when
// the level changes while a dispatch runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { buildSnapshot } from '../../../runtime-probe/src/recorder/snapshot';
import { currentDispatchTracer, setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import type { DetailLevel, ProbeSnapshot } from '../../../runtime-probe/src/protocol/index';
import { DecodingSink } from '../../support/decoding-sink';

function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

function withRecorder(detail: DetailLevel, body: (rec: Recorder, sink: DecodingSink) => void): void {
  const rec = new Recorder({ maxBufferedRecords: 256, config: { ...DEFAULT_RECORDING_CONFIG, detail }, sanitize: undefined });
  setBusTracer(rec);
  const sink = new DecodingSink();
  try {
    rec.attach(sink, [], () => undefined);
    body(rec, sink);
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
}

test('detail "dispatch": a dispatch lasts as long as its handlers ran', () => {
  withRecorder('dispatch', (rec, sink) => {
    const bus = new EventBus<{ slow: void; empty: void }>({ name: 'timing-dispatch' });
    bus.subscribe('slow', () => spin(2));
    bus.dispatch('slow');
    bus.dispatch('empty');
    rec.flushTo(sink);
    const [slow, empty] = sink.of('dispatch');
    assert.equal(slow.type, 'slow');
    // At detail `dispatch` the end may be interpolated inside a clock window: the stated bound covers it.
    assert.ok(slow.duration + (slow.durationBound ?? 0) >= 2, `duration ${slow.duration} ± ${slow.durationBound} ms`);
    assert.ok(slow.startBound !== undefined, 'every version-2 dispatch states its start bound');
    assert.equal(empty.delivered, 0);
    assert.ok(empty.duration >= 0 && empty.duration - (empty.durationBound ?? 0) < 2, `duration ${empty.duration} ± ${empty.durationBound} ms`);
    assert.equal(sink.of('handler').length, 0);
    bus.dispose();
  });
});

test('detail "lifecycle": dispatches cost nothing — unless a debugger tracks them or a breakpoint is set', () => {
  withRecorder('lifecycle', (rec, sink) => {
    const bus = new EventBus<{ outer: void }>({ name: 'timing-lifecycle' });
    let seen: ProbeSnapshot | undefined;
    const sub = bus.subscribe('outer', () => {
      seen = buildSnapshot(rec);
    });
    assert.equal(currentDispatchTracer(), undefined, 'recording lifecycle only: no dispatch tracer');
    rec.setBreakOn(new Set(['elsewhere']));
    assert.equal(currentDispatchTracer(), rec, 'event breakpoints need it');
    rec.setBreakOn(new Set());
    assert.equal(currentDispatchTracer(), undefined);
    // Under a debugger (tracking), dispatches in progress show in a snapshot, untimed.
    rec.setTracking(true);
    bus.dispatch('outer');
    rec.setTracking(false);
    rec.flushTo(sink);
    assert.equal(sink.of('dispatch').length, 0);
    assert.ok(seen);
    assert.equal(seen.dispatching.length, 1);
    const [frame] = seen.dispatching;
    assert.deepEqual([frame.type, frame.depth, frame.subscriptionId, frame.bus], ['outer', 0, sub.id, bus.busId]);
    assert.equal(frame.start, seen.time, 'untimed: reported at the snapshot time');
    assert.equal(sink.of('subscribe').length, 1, 'lifecycle records still flow');
    bus.dispose();
  });
});

test('switching detail while a dispatch runs: the dispatch that began untimed is not recorded half-timed', () => {
  withRecorder('lifecycle', (rec, sink) => {
    const bus = new EventBus<{ outer: void; inner: void }>({ name: 'timing-switch' });
    bus.subscribe('outer', () => {
      rec.configure({ detail: 'handlers' });
      bus.dispatch('inner');
    });
    bus.subscribe('inner', () => undefined);
    bus.dispatch('outer');
    bus.dispatch('outer');
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    // First outer: began at lifecycle (not recorded); its inner and the second outer (with its inner) are.
    assert.deepEqual(
      dispatches.map((d) => [d.type, d.depth]),
      [
        ['inner', 1],
        ['inner', 1],
        ['outer', 0],
      ],
    );
    for (const d of dispatches) assert.ok(Number.isFinite(d.start) && d.duration >= 0);
    for (const h of sink.of('handler')) assert.ok(Number.isFinite(h.start) && h.duration >= 0);
    bus.dispose();
  });
});
