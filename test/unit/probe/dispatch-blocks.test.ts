// Detail `dispatch` drains runs of dispatch records as dispatch blocks (protocol version 4,
// protocol/dispatch-block.ts): fixed-width entries plus the clock reads the reader interpolates
// from. The records a reader gets must be what the app did — every dispatch exactly once, nesting,
// delivered counts, consumers — with starts whose error bounds hold against the true times; both
// decode paths (record objects and a record sink) must agree; dispatches running across a drain keep
// the start resolved then; and a hostile block closes only what reads it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  ProtocolError,
  RecordCode,
  RecordDecoder,
  type BusRecord,
  type DispatchRecord,
  type RecordSink as DecodeSink,
  type SiteInfo,
} from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

/** Keeps every record batch body as the probe wrote it. */
class BodySink extends RecordSink {
  readonly bodies: Uint8Array[] = [];
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.bodies.push(f.body.slice());
  }
  decode(version = 4): BusRecord[] {
    const d = new RecordDecoder();
    d.version = version;
    const out: BusRecord[] = [];
    for (const b of this.bodies) d.decode(b, out);
    return out;
  }
}

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;
type Events = { [K in (typeof TYPES)[number]]: number };

function withRecorder(run: (rec: Recorder, sink: BodySink) => void): void {
  const rec = new Recorder({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new BodySink();
  try {
    rec.attach(sink, [], () => undefined);
    run(rec, sink);
  } finally {
    rec.detach(sink, false);
    setBusTracer(undefined);
    rec.shutdown();
  }
}

test('detail "dispatch": dispatches reach the reader as dispatch blocks — each exactly once, nested, timed within its bound', () => {
  withRecorder((rec, sink) => {
    const bus = new EventBus<Events>({ name: 'blocks' });
    /** True time (ms, the recorder's clock) at which each handler ran, by dispatch order of its type. */
    const ranAt = new Map<string, number[]>();
    let nested = 0;
    for (const type of TYPES) {
      ranAt.set(type, []);
      bus.subscribe(type, (n) => {
        (ranAt.get(type) as number[]).push(performance.now());
        if (type === 'collide' && n % 4 === 0) {
          nested++;
          bus.dispatch('damage', -1);
        }
      });
    }
    const taker = bus.subscribe('score', () => true);
    let seed = 7;
    const dispatched = 20_000;
    for (let i = 0; i < dispatched; i++) bus.dispatch(TYPES[((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % TYPES.length], i);
    rec.flushTo(sink);

    // The batches hold dispatch blocks: a reader of version 3 does not know them.
    assert.throws(
      () => sink.decode(3),
      (e: unknown) => e instanceof ProtocolError && e.code === 'unknown-kind',
    );
    const records = sink.decode(4);
    const ds = records.filter((r): r is DispatchRecord => r.kind === 'dispatch');
    assert.equal(ds.length, dispatched + nested, 'every dispatch exactly once (nested ones included)');
    assert.equal(new Set(ds.map((d) => d.seq)).size, ds.length, 'distinct sequence numbers');
    const bySeq = new Map(ds.map((d) => [d.seq, d]));
    let outOfBound = 0;
    const seen = new Map<string, number>();
    for (const d of [...ds].sort((a, b) => a.seq - b.seq)) {
      const k = seen.get(d.type) ?? 0;
      seen.set(d.type, k + 1);
      const t = (ranAt.get(d.type) as number[])[k];
      // An end's bound is stated (durationBound) only above 0.1 ms: below, it is at most that.
      const slack = (d.startBound ?? 0) + (d.durationBound ?? 0.1) + 0.001;
      if (t < d.start - slack || t > d.start + d.duration + slack) outOfBound++;
      if (d.parentSeq !== 0) {
        assert.equal(d.type, 'damage');
        assert.equal(d.depth, 1);
        const parent = bySeq.get(d.parentSeq) as DispatchRecord;
        assert.equal(parent.type, 'collide', 'a nested dispatch names its parent');
        assert.ok(parent.start <= d.start + (parent.startBound ?? 0) + (d.startBound ?? 0));
      } else {
        assert.equal(d.depth, 0);
        assert.equal(d.parentSeq, 0);
      }
      assert.equal(d.delivered, d.type === 'score' ? 2 : 1);
      assert.equal(d.consumedBy, d.type === 'score' ? taker.id : 0);
      assert.ok((d.startBound ?? 0) >= 0.001, 'every start carries its bound');
    }
    assert.equal(outOfBound, 0, 'every handler ran inside its dispatch, as the bounds say');
    assert.equal(ds.filter((d) => d.parentSeq !== 0).length, nested);
    assert.equal(rec.dispatchCount(bus.busId, 'collide'), ds.filter((d) => d.type === 'collide').length, 'per-type counts match the records');

    // The record sink (the extension's path) gets the same dispatches, field for field.
    const viaSink: unknown[][] = [];
    const decodeSink: DecodeSink = {
      dispatch: (seq, busId, type, _typeId, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site: SiteInfo | null, durationBound) =>
        viaSink.push([seq, busId, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound]),
      record: () => undefined,
    };
    const d = new RecordDecoder();
    for (const b of sink.bodies) d.decodeInto(b, decodeSink);
    assert.deepEqual(
      viaSink,
      ds.map((r) => [r.seq, r.bus, r.type, r.start, r.startBound, r.duration, r.delivered, r.consumedBy, r.depth, r.parentSeq, r.site, r.durationBound ?? 0]),
    );
  });
});

test('a dispatch running across a drain keeps the start resolved at that drain; the ones after it still go as blocks', () => {
  withRecorder((rec, sink) => {
    const bus = new EventBus<{ outer: number; inner: number }>({ name: 'across' });
    bus.subscribe('inner', () => undefined);
    bus.subscribe('outer', () => {
      for (let i = 0; i < 100; i++) bus.dispatch('inner', i);
      rec.flushTo(sink); // a drain while `outer` runs
      for (let i = 0; i < 100; i++) bus.dispatch('inner', i);
    });
    const before = performance.now();
    bus.dispatch('outer', 0);
    const after = performance.now();
    rec.flushTo(sink);
    const ds = sink.decode().filter((r): r is DispatchRecord => r.kind === 'dispatch');
    assert.equal(ds.length, 201);
    const outer = ds.find((d) => d.type === 'outer') as DispatchRecord;
    assert.ok(outer.start >= before - (outer.startBound ?? 0) - 0.001 && outer.start <= after + 0.001, 'the outer start is its true start');
    assert.ok(outer.start + outer.duration >= Math.max(...ds.map((d) => d.start)) - 0.05, 'and it lasts until its last inner dispatch');
    for (const d of ds) if (d.type === 'inner') assert.equal(d.parentSeq, outer.seq);
  });
});

/** A batch body holding one dispatch block, built by hand (hostile or truncated variants). */
function block(count: number, reads: [number, number][], entries: number[][]): Uint8Array {
  const out: number[] = [RecordCode.DispatchBlock];
  const u = (v: number): void => {
    while (v >= 0x80) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
  };
  const s = (v: number): void => u(v >= 0 ? v * 2 : -v * 2 - 1);
  u(count);
  u(100); // seqBase
  u(reads.length);
  let tick = 0;
  let time = 0;
  for (const [k, t] of reads) {
    u(k - tick);
    s(t - time);
    tick = k;
    time = t;
  }
  for (const e of entries) for (const v of e) out.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  return Uint8Array.from(out);
}

test('dispatch blocks: times interpolated between reads with honest bounds; hostile blocks are protocol errors', () => {
  const defs = Uint8Array.from([RecordCode.String, 1, 1, 0x61]); // string 1 = "a"
  const decode = (body: Uint8Array, version = 4): BusRecord[] => {
    const d = new RecordDecoder();
    d.version = version;
    const out: BusRecord[] = [];
    d.decode(defs, out);
    d.decode(body, out);
    return out.filter((r) => r.kind === 'dispatch');
  };
  // reads: tick 10 at 1 ms, tick 20 at 1.1 ms; entry: seq 100+2, start tick 15 (rel 5), end tick 20 (rel 10)
  const ok = block(
    1,
    [
      [10, 1_000_000],
      [20, 1_100_000],
    ],
    [[2, 5, 10, 3, 1, 1, 0, 0, 0, 0]],
  );
  const [d] = decode(ok) as DispatchRecord[];
  assert.equal(d.seq, 102);
  assert.equal(d.bus, 3);
  assert.equal(d.type, 'a');
  assert.ok(Math.abs(d.start - 1.05) < 1e-9, `interpolated start ${d.start}`);
  assert.ok(Math.abs((d.startBound as number) - 0.05) < 1e-9, 'the bound is the distance to the farther read');
  assert.ok(Math.abs(d.duration - 0.05) < 1e-9);
  assert.equal(d.durationBound, undefined, 'a duration bound of 0.051 ms is under the stated threshold');

  const malformed = (body: Uint8Array, version = 4): string => {
    try {
      decode(body, version);
      return 'ok';
    } catch (e) {
      return e instanceof ProtocolError ? e.code : String(e);
    }
  };
  assert.equal(malformed(ok, 3), 'unknown-kind', 'a version-3 stream has no dispatch blocks');
  assert.equal(malformed(block(0, [[1, 1]], [])), 'malformed', 'no entries');
  assert.equal(malformed(block(1, [], [[0, 0, 0, 1, 1, 0, 0, 0, 0, 0]])), 'malformed', 'no clock reads');
  assert.equal(malformed(ok.subarray(0, ok.length - 1)), 'truncated', 'an entry cut short');
  assert.equal(malformed(block(1_000_000, [[1, 1]], [[0, 0, 0, 1, 1, 0, 0, 0, 0, 0]])), 'truncated', 'a count past the batch');
  assert.equal(malformed(block(1, [[1, 1]], [[0, 0, 0, 1, 9, 0, 0, 0, 0, 0]])), 'undefined-reference', 'an undefined type id');
});
