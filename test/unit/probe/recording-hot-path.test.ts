// What the recorder does per dispatch at detail `dispatch` stays bounded on a mixed workload: type
// names are interned once per type, not looked up per dispatch; a trace id source hooked while
// recording is seen (the recorder keeps it with the tracer slots instead of reading the shared
// runtime per dispatch); and the ring is drained every few thousand records, not once it is 3/4 full,
// so a drain reads slots still in cache and a client sees records while the app never yields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordDecoder, type BusRecord, type DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { hookTraceIdSource, setBusTracer } from '../../../runtime-probe/src/bus/tracer';

class BodySink extends RecordSink {
  readonly bodies: Uint8Array[] = [];
  batches = 0;
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  constructor() {
    super();
    this.protocolVersion = 6;
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array, records?: number): void {
    if (records !== undefined) this.batches++;
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.bodies.push(f.body.slice());
  }
  dispatches(): DispatchRecord[] {
    const d = new RecordDecoder();
    const out: BusRecord[] = [];
    for (const b of this.bodies) d.decode(b, out);
    return out.filter((r): r is DispatchRecord => r.kind === 'dispatch');
  }
}

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;

function recording(run: (rec: Recorder, sink: BodySink, bus: EventBus<Record<string, number>>) => void): void {
  const rec = new Recorder({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new BodySink();
  try {
    rec.attach(sink, [], () => undefined);
    const bus = new EventBus<Record<string, number>>({ name: 'hot' });
    for (const t of TYPES) bus.subscribe(t, () => undefined);
    run(rec, sink, bus);
  } finally {
    rec.detach(sink, false);
    setBusTracer(undefined);
    rec.shutdown();
  }
}

test('a mixed workload interns each dispatched type once, not once per dispatch', () => {
  recording((rec, sink, bus) => {
    let interned = 0;
    const intern = rec.strings.intern.bind(rec.strings);
    rec.strings.intern = (text: string): number => {
      interned++;
      return intern(text);
    };
    for (let i = 0; i < 8_000; i++) bus.dispatch(TYPES[(i * 5 + (i >> 3)) % TYPES.length], i);
    rec.flushTo(sink);
    assert.equal(sink.dispatches().length, 8_000);
    assert.ok(interned <= 2 * TYPES.length, `${interned} table lookups for 8,000 dispatches of 8 interleaved types`);
  });
});

test('a trace id source hooked while recording is seen by the next dispatch, and gone once unhooked', () => {
  recording((rec, sink, bus) => {
    bus.dispatch('input', 0);
    const unhook = hookTraceIdSource(() => 'a'.repeat(32));
    try {
      bus.dispatch('move', 1);
    } finally {
      unhook();
    }
    bus.dispatch('net', 2);
    rec.flushTo(sink);
    assert.deepEqual(
      sink.dispatches().map((d) => [d.type, d.traceId]),
      [
        ['input', undefined],
        ['move', 'a'.repeat(32)],
        ['net', undefined],
      ],
    );
  });
});

test('the ring is drained every few thousand records: a sink gets batches while the app never yields', () => {
  recording((rec, sink, bus) => {
    for (let i = 0; i < 20_000; i++) bus.dispatch(TYPES[i % TYPES.length], i);
    // Nothing yielded: no timer ran. The ring (65,536 slots) is far from full.
    assert.ok(sink.batches >= 4, `${sink.batches} batches before the first yield`);
    rec.flushTo(sink);
    assert.equal(sink.dispatches().length, 20_000);
  });
});
