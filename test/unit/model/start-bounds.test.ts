// Protocol version 2 dispatch starts carry an error bound: the real recorder (detail `dispatch`,
// windowed clock) → real frames → StreamDecoder → the extension's model, whose dispatch views keep
// the bound for the inspector ("Started 12.345 ms ±38 µs"). Version-1 records have none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/index';
import { encodeControlFrame, PROTOCOL_VERSION, StreamDecoder } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { Model, dispatchesInRange } from '../../../runtime-probe/src/analysis/model/index';
import { fmtBound } from '../../../webview/src/ui/format';

class ModelSink extends RecordSink {
  readonly stream = new StreamDecoder();
  constructor(readonly model: Model) {
    super();
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    for (const m of this.stream.push(frame)) this.model.apply(m);
  }
}

test('dispatch start bounds reach the model from a real version-2 stream', () => {
  const rec = new Recorder({
    maxBufferedRecords: 4096,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const model = new Model();
  const sink = new ModelSink(model);
  const bus = new EventBus<{ a: number; b: number }>({ name: 'bounds' });
  bus.subscribe('a', (n) => void (n % 2 === 0 && bus.dispatch('b', n)));
  bus.subscribe('b', () => undefined);
  try {
    const welcome = encodeControlFrame({
      type: 'welcome',
      protocolVersion: PROTOCOL_VERSION,
      probeVersion: '0.1.0',
      app: { pid: 1, name: 'bounds', cwd: '/', startTime: rec.timeOrigin, runtime: 'node' },
      timeOrigin: rec.timeOrigin,
      config: rec.config,
    });
    rec.attach(sink, [welcome], () => undefined);
    for (let i = 0; i < 500; i++) bus.dispatch('a', i);
    rec.flushTo(sink);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    bus.dispose();
  }
  const rows = dispatchesInRange(model, 0, Number.MAX_SAFE_INTEGER);
  assert.equal(rows.length, 750);
  // Most starts are interpolated (bound > the 1 µs floor); every one states a bound.
  assert.ok(rows.every((r) => r.startBound !== undefined && r.startBound >= 0.001));
  assert.ok(rows.some((r) => (r.startBound ?? 0) > 0.001));
  // Usually µs; a window stretched by the OS descheduling this process (a loaded CI machine) says ms.
  assert.match(fmtBound(rows[0]?.startBound), /^±\d+(\.\d+)? (µs|ms)$/);
  assert.equal(fmtBound(0.038), '±38 µs');
});
