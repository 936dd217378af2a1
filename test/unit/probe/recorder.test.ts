// The recorder in-process, with the real bus and a real trace-file sink or a sink that stalls on
// demand: exact drop accounting, definitions for late sinks, detail levels, event breakpoints, and a
// snapshot taken from inside a handler that shows the dispatch in progress.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord } from '../../../runtime-probe/src/protocol/index';
import { Recorder, DEFAULT_RECORDING_CONFIG } from '../../../runtime-probe/src/recorder/recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-rec-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function withRecorder(config: Partial<typeof DEFAULT_RECORDING_CONFIG>, body: (r: Recorder) => void): void {
  const r = new Recorder({ maxBufferedRecords: 256, config: { ...DEFAULT_RECORDING_CONFIG, ...config }, sanitize: undefined });
  setBusTracer(r);
  try {
    body(r);
  } finally {
    setBusTracer(undefined);
    r.shutdown();
  }
}

test('drops are exact per sink: a stalled sink is told what it missed, a reading one misses nothing', () => {
  withRecorder({ detail: 'handlers' }, (rec) => {
    const bus = new EventBus<{ e: number }>({ name: 'drops' });
    bus.subscribe('e', () => undefined);
    const reading = new DecodingSink();
    const stalled = new DecodingSink();
    rec.attach(reading, [], () => undefined);
    rec.attach(stalled, [], () => undefined);
    for (let i = 0; i < 1000; i++) bus.dispatch('e', i);
    stalled.accepting = false;
    for (let i = 0; i < 5000; i++) bus.dispatch('e', i); // far beyond the 256-record ring: drained inline
    rec.drain();
    stalled.accepting = true;
    for (let i = 0; i < 1000; i++) bus.dispatch('e', i);
    rec.flushTo(reading);
    rec.flushTo(stalled);
    assert.equal(reading.count('dispatch'), 7000);
    assert.equal(reading.count('drops'), 0);
    const drops = stalled.records.filter((r): r is Extract<BusRecord, { kind: 'drops' }> => r.kind === 'drops');
    assert.ok(drops.length >= 1);
    const dropped = drops.reduce((n, d) => n + d.dispatches, 0);
    assert.equal(stalled.count('dispatch') + dropped, 7000);
    // Every record the reading sink got, the stalled one got or was told it missed (handler records
    // are a sample of the dispatches at detail `handlers`: fewer than 7000, but the same for both).
    const recorded = reading.count('handler') + reading.count('dispatch');
    assert.ok(reading.count('handler') >= 32 && reading.count('handler') <= 7000);
    assert.equal(stalled.count('handler') + stalled.count('dispatch') + drops.reduce((n, d) => n + d.count, 0), recorded);
    assert.ok(dropped >= 4000, `${dropped} dispatches dropped while stalled`);
    bus.dispose();
  });
});

test('a late sink gets every definition first; strings are interned once', () => {
  withRecorder({}, (rec) => {
    const bus = new EventBus<{ a: void; b: void }>({ name: 'late' });
    const early = new DecodingSink();
    rec.attach(early, [], () => undefined);
    bus.subscribe('a', () => undefined, { label: 'L' });
    bus.dispatch('a');
    rec.drain();
    const late = new DecodingSink();
    rec.attach(late, [], () => undefined);
    bus.dispatch('a');
    bus.subscribe('b', () => undefined);
    bus.dispatch('b');
    rec.flushTo(early);
    rec.flushTo(late);
    const strings = (s: DecodingSink) => s.records.filter((r) => r.kind === 'string').map((r) => (r.kind === 'string' ? r.text : ''));
    assert.deepEqual(strings(late), strings(early), 'the same ids and texts, whenever the sink attached');
    assert.equal(new Set(strings(early)).size, strings(early).length);
    assert.deepEqual(
      late.records.filter((r) => r.kind === 'dispatch').map((r) => (r.kind === 'dispatch' ? r.type : '')),
      ['a', 'b'],
    );
    bus.dispose();
  });
});

test('detail levels: lifecycle records no dispatches, dispatch no handler timings', () => {
  for (const detail of ['lifecycle', 'dispatch', 'handlers'] as const) {
    withRecorder({ detail }, (rec) => {
      const bus = new EventBus<{ x: void }>({ name: `detail-${detail}`, onError: () => undefined });
      const sink = new DecodingSink();
      rec.attach(sink, [], () => undefined);
      bus.subscribe('x', () => undefined);
      bus.subscribe('x', () => {
        throw new Error('h');
      });
      bus.dispatch('x');
      rec.flushTo(sink);
      const expected = { lifecycle: [0, 0, 0], dispatch: [1, 0, 1], handlers: [1, 2, 1] }[detail];
      assert.deepEqual([sink.count('dispatch'), sink.count('handler'), sink.count('handler-error')], expected, detail);
      assert.equal(sink.count('subscribe'), 2);
      bus.dispose();
    });
  }
});

test('handler timings tile the dispatch: each handler starts where the previous ended', () => {
  withRecorder({ detail: 'handlers' }, (rec) => {
    const bus = new EventBus<{ x: void }>({ name: 'timing' });
    const sink = new DecodingSink();
    rec.attach(sink, [], () => undefined);
    for (let i = 0; i < 3; i++) bus.subscribe('x', () => undefined);
    bus.dispatch('x');
    rec.flushTo(sink);
    const handlers = sink.records.filter((r): r is Extract<BusRecord, { kind: 'handler' }> => r.kind === 'handler');
    const dispatch = sink.records.find((r): r is Extract<BusRecord, { kind: 'dispatch' }> => r.kind === 'dispatch');
    assert.ok(dispatch);
    assert.equal(handlers[0].start, dispatch.start);
    for (let i = 1; i < 3; i++) assert.ok(Math.abs(handlers[i].start - (handlers[i - 1].start + handlers[i - 1].duration)) < 1e-6);
    const last = handlers[2];
    assert.ok(Math.abs(last.start + last.duration - (dispatch.start + dispatch.duration)) < 1e-6);
    bus.dispose();
  });
});

test('payload capture: sanitize hook, size cap, cycles', () => {
  const r = new Recorder({
    maxBufferedRecords: 256,
    config: { ...DEFAULT_RECORDING_CONFIG, capturePayloads: true, payloadSizeCap: 20 },
    sanitize: (p) => (typeof p === 'object' && p !== null && 'password' in p ? { ...p, password: '***' } : p),
  });
  setBusTracer(r);
  try {
    const bus = new EventBus<{ login: { user: string; password: string }; big: string; cyclic: object }>({ name: 'payloads' });
    const sink = new DecodingSink();
    r.attach(sink, [], () => undefined);
    bus.subscribe('login', () => undefined);
    bus.dispatch('login', { user: 'a', password: 'secret' });
    bus.dispatch('big', 'x'.repeat(100));
    const cyclic: { s?: unknown } = {};
    cyclic.s = cyclic;
    bus.dispatch('cyclic', cyclic);
    r.flushTo(sink);
    const payloads = sink.records.filter((p): p is Extract<BusRecord, { kind: 'payload' }> => p.kind === 'payload');
    // Cut within the cap, whole entries only (payload.test.ts covers the serialiser itself).
    assert.deepEqual(payloads[0].json, '{"user":"a"}');
    assert.equal(payloads[0].truncated, true);
    assert.equal(payloads[1].json, '"xxxxx… (100 chars)"');
    assert.equal(payloads[1].truncated, true);
    assert.equal(payloads[2].json, '{"s":"[Circular]"}');
    assert.ok(!payloads.some((p) => p.json.includes('secret')));
    bus.dispose();
  } finally {
    setBusTracer(undefined);
    r.shutdown();
  }
});

test('probe.record + probe.snapshot() from inside a handler shows the dispatch in progress; breakOn', async () => {
  const file = path.join(tmp, 'inproc.bustrace');
  const bus = new EventBus<{ outer: void; inner: void }>({ name: 'inproc' });
  let seen: ReturnType<typeof probe.snapshot> | undefined;
  const recording = probe.record(file);
  const outerSub = bus.subscribe('outer', () => {
    bus.dispatch('inner');
  });
  const innerSub = bus.subscribe('inner', () => {
    seen = probe.snapshot();
  });
  bus.dispatch('outer');
  await recording.stop();
  assert.ok(seen);
  assert.equal(seen.recording, true);
  assert.deepEqual(
    seen.dispatching.map((d) => [d.type, d.depth, d.subscriptionId, d.bus]),
    [
      ['outer', 0, outerSub.id, bus.busId],
      ['inner', 1, innerSub.id, bus.busId],
    ],
  );
  const inSnapshot = seen.subscriptions.filter((s) => s.bus === bus.busId).map((s) => s.id);
  assert.deepEqual(inSnapshot, [outerSub.id, innerSub.id]);
  assert.ok(seen.subscriptions.every((s) => s.bus !== bus.busId || (s.site !== null && s.site.file.endsWith('recorder.test.ts'))));
  assert.equal(probe.snapshot().recording, false, 'stopped');
  const messages = await readTraceFileMessages(file);
  const dispatches = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r) => r.kind === 'dispatch');
  assert.deepEqual(
    dispatches.map((d) => (d.kind === 'dispatch' ? [d.type, d.depth] : [])),
    [
      ['inner', 1],
      ['outer', 0],
    ],
  );
  bus.dispose();
});

test('shouldBreak follows the breakOn set', () => {
  const r = new Recorder({ maxBufferedRecords: 64, config: DEFAULT_RECORDING_CONFIG, sanitize: undefined });
  const bus = new EventBus<{ a: void }>({ name: 'brk' });
  assert.equal(r.shouldBreak(bus, 'a'), false);
  r.setBreakOn(new Set(['a']));
  assert.equal(r.shouldBreak(bus, 'a'), true);
  assert.equal(r.shouldBreak(bus, 'b'), false);
  bus.dispose();
});

test('PROBE_VERSION matches the package version', async () => {
  const { PROBE_VERSION } = await import('../../../runtime-probe/src/probe/version');
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../runtime-probe/package.json'), 'utf8'));
  assert.equal(PROBE_VERSION, pkg.version);
});
