// An app that makes up event names (`user.${id}.updated` for every user) with a client attached:
// the recorder's intern table stops at its cap, later names share the overflow id (counted), the
// wire stays decodable, and the probe's heap stops growing with the number of names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  MAX_STRING_TABLE_BYTES,
  MAX_STRING_TABLE_ENTRIES,
  OVERFLOW_NAME,
  RecordDecoder,
  type BusRecord,
} from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { StringTable } from '../../../runtime-probe/src/recorder/tables';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

/** Decodes everything like a client would, keeping only counts. */
class CountingSink extends RecordSink {
  dispatches = 0;
  overflowDispatches = 0;
  readonly decoder = new RecordDecoder();
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) {
      if (f.kind !== FrameKind.Records) continue;
      const out: BusRecord[] = [];
      this.decoder.decode(f.body, out);
      for (const r of out) {
        if (r.kind !== 'dispatch') continue;
        this.dispatches++;
        if (r.type === OVERFLOW_NAME) this.overflowDispatches++;
      }
    }
  }
}

function heapMb(): number {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

test('an app dispatching 200,000 distinct names keeps its intern table bounded and says which overflowed', () => {
  const rec = new Recorder({
    maxBufferedRecords: 4096,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', dispatchSiteEvery: 0 },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new CountingSink();
  try {
    rec.attach(sink, [], () => undefined);
    const bus = new EventBus<Record<string, number>>({ name: 'users' });
    bus.subscribe('user.1.updated', () => undefined);
    const names = 200_000;
    for (let i = 1; i <= names; i++) bus.dispatch(`user.${i}.updated`, i);
    rec.flushTo(sink);
    const strings = rec.strings;
    assert.ok(strings.last <= MAX_STRING_TABLE_ENTRIES, `${strings.last} strings interned`);
    assert.ok(strings.bytes <= MAX_STRING_TABLE_BYTES);
    assert.equal(strings.isFull, true);
    // Every dispatch reached the client; the ones past the cap under the overflow name, counted.
    assert.equal(sink.dispatches, names);
    assert.ok(sink.overflowDispatches >= names - MAX_STRING_TABLE_ENTRIES, `${sink.overflowDispatches} dispatches in the bucket`);
    assert.equal(strings.overflowed, sink.overflowDispatches);
    assert.equal(sink.decoder.appTableFull, true, 'the client learns that the app table is full');
    assert.equal(sink.decoder.overflowedDefinitions, 0, 'and its own table, at the same cap, is not');

    // Past the cap, more names cost the probe nothing more.
    const before = heapMb();
    for (let i = names + 1; i <= names + 100_000; i++) bus.dispatch(`user.${i}.updated`, i);
    rec.flushTo(sink);
    const grown = heapMb() - before;
    assert.equal(rec.strings.last, strings.last);
    assert.ok(grown < 5, `heap grew ${grown.toFixed(1)} MB for 100,000 more names`);
    assert.equal(sink.dispatches, names + 100_000);
    bus.dispose();
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
});

test('the table caps by bytes too, and the overflow id is stable and never exceeds either cap', () => {
  const t = new StringTable(10, 1000);
  const a = t.intern('a');
  assert.equal(t.intern('x'.repeat(300)), 2, 'fits the 1,000-byte budget (the bucket keeps room for its own name)');
  const bucket = t.intern('y'.repeat(400));
  assert.equal(t.texts[bucket], OVERFLOW_NAME);
  assert.equal(t.intern('short'), bucket, 'once full, full for good: ids stay dense and deterministic');
  assert.equal(t.intern('a'), a, 'names interned before still resolve');
  assert.equal(t.overflowed, 2);
  assert.ok(t.bytes <= 1000, `${t.bytes} bytes`);
  const n = new StringTable(5, 1 << 20);
  for (let i = 0; i < 100; i++) n.intern(`n${i}`);
  assert.equal(n.last, 5, 'four names and the bucket');
  assert.equal(n.texts[5], OVERFLOW_NAME);
});
