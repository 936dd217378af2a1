// Protocol version 6 writes runs of dispatch records as dispatch columns (record code 18,
// protocol/dispatch-block.ts): the fields of a run column by column, each at the width its range
// needs, so a dispatch of a mixed workload takes a few bytes instead of a 40-byte block entry. The
// records must be exactly those of the version-4 blocks (every dispatch once, nesting, bounds, both
// decode paths), only while every sink speaks 6, and a hostile record closes only what reads it.
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
} from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

/** Keeps every record batch body as the probe wrote it, for a stream of `protocolVersion`. */
class BodySink extends RecordSink {
  readonly bodies: Uint8Array[] = [];
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  constructor(version: number) {
    super();
    this.protocolVersion = version;
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.bodies.push(f.body.slice());
  }
  get bytes(): number {
    return this.bodies.reduce((n, b) => n + b.length, 0);
  }
  codes(): Set<number> {
    // The first record code of each batch of dispatches: enough to tell blocks from columns.
    const out = new Set<number>();
    const runs: number[] = [RecordCode.Dispatch, RecordCode.DispatchBlock, RecordCode.DispatchColumns];
    for (const b of this.bodies) if (runs.includes(b[0])) out.add(b[0]);
    return out;
  }
  decode(version = 6): BusRecord[] {
    const d = new RecordDecoder();
    d.version = version;
    const out: BusRecord[] = [];
    for (const b of this.bodies) d.decode(b, out);
    return out;
  }
}

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;
type Events = { [K in (typeof TYPES)[number]]: number };

/** The mixed workload of the recording bench (8 types interleaved, some nested), recorded into each sink at once. */
function record(sinks: BodySink[], dispatches: number): { nested: number; ranAt: Map<string, number[]>; consumer: number } {
  const rec = new Recorder({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  try {
    for (const s of sinks) rec.attach(s, [], () => undefined);
    const bus = new EventBus<Events>({ name: 'columns' });
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
    for (let i = 0; i < dispatches; i++) bus.dispatch(TYPES[((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % TYPES.length], i);
    for (const s of sinks) rec.flushTo(s);
    for (const s of sinks) rec.detach(s, false);
    return { nested, ranAt, consumer: taker.id };
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
}

test('version 6: a mixed workload goes as dispatch columns of a few bytes a dispatch, and reads as every dispatch exactly once, within its bound', () => {
  const sink = new BodySink(6);
  const dispatched = 20_000;
  const { nested, ranAt, consumer } = record([sink], dispatched);
  assert.deepEqual([...sink.codes()], [RecordCode.DispatchColumns]);
  assert.throws(
    () => sink.decode(5),
    (e: unknown) => e instanceof ProtocolError && e.code === 'unknown-kind',
    'a version-5 reader does not know dispatch columns',
  );
  const ds = sink.decode().filter((r): r is DispatchRecord => r.kind === 'dispatch');
  assert.equal(ds.length, dispatched + nested, 'every dispatch exactly once (nested ones included)');
  assert.equal(new Set(ds.map((d) => d.seq)).size, ds.length, 'distinct sequence numbers');
  const perDispatch = sink.bytes / ds.length;
  assert.ok(perDispatch < 10, `${perDispatch.toFixed(1)} bytes a dispatch (a block entry alone is 40)`);
  const bySeq = new Map(ds.map((d) => [d.seq, d]));
  const seen = new Map<string, number>();
  let outOfBound = 0;
  for (const d of [...ds].sort((a, b) => a.seq - b.seq)) {
    const k = seen.get(d.type) ?? 0;
    seen.set(d.type, k + 1);
    const t = (ranAt.get(d.type) as number[])[k];
    const slack = (d.startBound ?? 0) + (d.durationBound ?? 0.1) + 0.001;
    if (t < d.start - slack || t > d.start + d.duration + slack) outOfBound++;
    assert.ok((d.startBound ?? 0) >= 0.001, 'every start carries its bound');
    if (d.parentSeq !== 0) {
      assert.equal(d.type, 'damage');
      assert.equal(d.depth, 1);
      assert.equal((bySeq.get(d.parentSeq) as DispatchRecord).type, 'collide', 'a nested dispatch names its parent');
    } else assert.equal(d.depth, 0);
    assert.equal(d.delivered, d.type === 'score' ? 2 : 1);
    assert.equal(d.consumedBy, d.type === 'score' ? consumer : 0);
  }
  assert.equal(outOfBound, 0, 'every handler ran inside its dispatch, as the bounds say');
  assert.equal(ds.filter((d) => d.parentSeq !== 0).length, nested);

  // The record sink (the extension's path) gets the same dispatches, field for field.
  const viaSink: unknown[][] = [];
  const decodeSink: DecodeSink = {
    dispatch: (seq, busId, type, _typeId, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound) =>
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

test('dispatch columns only while every sink speaks 6: with a version-5 sink attached both get the version-4 blocks, the same records', () => {
  const v6 = new BodySink(6);
  const v5 = new BodySink(5);
  record([v6, v5], 5_000);
  assert.deepEqual([...v5.codes()], [RecordCode.DispatchBlock]);
  assert.deepEqual([...v6.codes()], [RecordCode.DispatchBlock]);
  const a = v5.decode(5).filter((r) => r.kind === 'dispatch');
  assert.ok(a.length >= 5_000);
  assert.deepEqual(
    v6.decode(6).filter((r) => r.kind === 'dispatch'),
    a,
  );
});

/** A batch body holding one dispatch-columns record, built by hand: [width, base, values][] per column. */
function columns(count: number, reads: [number, number][], cols: [number, number, number[]][]): Uint8Array {
  const out: number[] = [RecordCode.DispatchColumns];
  const u = (v: number): void => {
    while (v >= 0x80) {
      out.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
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
  for (const [width, base, values] of cols) {
    out.push(width);
    u(base);
    for (const v of values) for (let b = 0; b < width; b++) out.push(Math.floor(v / 256 ** b) & 0xff);
  }
  return Uint8Array.from(out);
}

test('dispatch columns: zigzag seqs and start ticks, spans and per-column bases decode; hostile records are protocol errors', () => {
  const defs = Uint8Array.from([RecordCode.String, 1, 1, 0x61]); // string 1 = "a"
  const decode = (body: Uint8Array, version = 6): DispatchRecord[] => {
    const d = new RecordDecoder();
    d.version = version;
    const out: BusRecord[] = [];
    d.decode(defs, out);
    d.decode(body, out);
    return out.filter((r): r is DispatchRecord => r.kind === 'dispatch');
  };
  const reads: [number, number][] = [
    [10, 1_000_000],
    [20, 1_100_000],
  ];
  // Two entries, ending in the order child (seq 101), parent (seq 100): seq − seqBase − index = 1, −1.
  // Start ticks (relative to the first read) 5 then 2: deltas +5, −3. Spans 1 and 8.
  const ok = columns(2, reads, [
    [1, 0, [2, 1]], // zigzag(1), zigzag(-1)
    [1, 0, [10, 5]], // zigzag(5), zigzag(-3)
    [1, 1, [0, 7]], // spans 1, 8
    [0, 3, []], // bus 3
    [0, 1, []], // type 1
    [2, 0, [1, 300]], // delivered 1, 300
    [0, 0, []],
    [1, 0, [1, 0]], // depth
    [1, 0, [1, 0]], // parentDelta: the child's parent is seq 100
    [0, 0, []],
  ]);
  const [child, parent] = decode(ok);
  assert.deepEqual([child.seq, child.bus, child.type, child.delivered, child.depth, child.parentSeq], [101, 3, 'a', 1, 1, 100]);
  assert.deepEqual([parent.seq, parent.delivered, parent.depth, parent.parentSeq], [100, 300, 0, 0]);
  assert.ok(Math.abs(child.start - 1.05) < 1e-9, `interpolated start ${child.start}`);
  assert.ok(Math.abs((child.startBound as number) - 0.05) < 1e-9);
  assert.ok(Math.abs(child.duration - 0.01) < 1e-9);
  assert.ok(Math.abs(parent.start - 1.02) < 1e-9);
  assert.ok(Math.abs(parent.duration - 0.08) < 1e-9);

  const error = (body: Uint8Array, version = 6): string => {
    try {
      decode(body, version);
      return 'ok';
    } catch (e) {
      return e instanceof ProtocolError ? e.code : String(e);
    }
  };
  const zeros = (): [number, number, number[]][] => Array.from({ length: 10 }, (_, k) => [0, k === 4 ? 1 : 0, []] as [number, number, number[]]);
  assert.equal(error(ok, 5), 'unknown-kind', 'a version-5 stream has no dispatch columns');
  assert.equal(error(ok.subarray(0, ok.length - 1)), 'truncated', 'a column cut short');
  assert.equal(error(columns(0, reads, zeros())), 'malformed', 'no entries');
  assert.equal(error(columns(1, [], zeros())), 'malformed', 'no clock reads');
  assert.equal(error(columns(1e9, reads, zeros())), 'malformed', 'a count no record may hold, even in width-0 columns');
  const badWidth = zeros();
  badWidth[5] = [3, 0, [1]];
  assert.equal(error(columns(1, reads, badWidth)), 'malformed', 'a width other than 0, 1, 2, 4');
  const undefinedType = zeros();
  undefinedType[4] = [0, 9, []];
  assert.equal(error(columns(1, reads, undefinedType)), 'undefined-reference', 'an undefined type id');
  assert.equal(error(columns(100_000, reads, [[4, 0, [0]]])), 'malformed', 'past the entry cap');
});

test("dispatch columns: a bus id beyond 2^32 (a page's Web Worker's) at width 0 decodes exactly; any other base beyond 2^32 − 1 is refused", () => {
  const defs = Uint8Array.from([RecordCode.String, 1, 1, 0x61]); // string 1 = "a"
  const decode = (body: Uint8Array): DispatchRecord[] | string => {
    const d = new RecordDecoder();
    d.version = 6;
    const out: BusRecord[] = [];
    d.decode(defs, out);
    try {
      d.decode(body, out);
    } catch (e) {
      return e instanceof ProtocolError ? e.code : String(e);
    }
    return out.filter((r): r is DispatchRecord => r.kind === 'dispatch');
  };
  const reads: [number, number][] = [
    [10, 1_000_000],
    [20, 1_100_000],
  ];
  const bus = 5 * 2 ** 32 + 3;
  const cols = (bus: [number, number, number[]], delivered: [number, number, number[]] = [0, 1, []]): [number, number, number[]][] => [
    [0, 0, []],
    [1, 0, [2, 2]],
    [0, 1, []],
    bus,
    [0, 1, []],
    delivered,
    [0, 0, []],
    [0, 0, []],
    [0, 0, []],
    [0, 0, []],
  ];
  const records = decode(columns(2, reads, cols([0, bus, []])));
  assert.ok(Array.isArray(records), `decoded: ${String(records)}`);
  assert.deepEqual(
    records.map((r) => [r.seq, r.bus, r.type, r.delivered]),
    [
      [100, bus, 'a', 1],
      [101, bus, 'a', 1],
    ],
  );
  // Cut to 32 bits these would be another bus, or another count: a malformed record, not a wrong one.
  assert.equal(decode(columns(2, reads, cols([1, 2 ** 32, [3, 3]]))), 'malformed', 'a bus column of width 1 and base 2^32');
  assert.equal(decode(columns(2, reads, cols([0, 3, []], [0, 2 ** 32 + 1, []]))), 'malformed', 'a width-0 delivered column beyond 2^32 − 1');
  assert.equal(decode(columns(2, reads, cols([0, 3, []], [2, 2 ** 33, [1, 2]]))), 'malformed', 'a width-2 column of base 2^33');
});
