// Record batches: every record kind survives encode → decode; definitions precede use; bad bytes
// fail with precise errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  OVERFLOW_NAME,
  ProtocolError,
  RECORD_KINDS,
  RecordDecoder,
  RecordEncoder,
  RecordWriter,
  StreamDecoder,
  type BusRecord,
  type BusRecordKind,
} from '../../../runtime-probe/src/protocol/index';

const siteA = { file: '/app/src/hud.ts', line: 42, column: 7, functionName: 'Hud.mount' };
const siteB = { file: 'C:\\app\\ünïcode\\main.js', line: 1, column: 1, functionName: null };

/** One record of every kind except the definitions (which the encoder emits itself). */
const sample: BusRecord[] = [
  { kind: 'bus-created', time: 0.5, bus: 1, name: 'gameplay' },
  {
    kind: 'subscribe',
    time: 1,
    subscriptionId: 7,
    bus: 1,
    type: 'health.changed',
    priority: 10.5,
    label: 'HealthBar',
    owner: 'Widget#3',
    once: false,
    site: siteA,
  },
  { kind: 'subscribe', time: 1.000001, subscriptionId: 8, bus: 1, type: 'tick', priority: -3, label: null, owner: null, once: true, site: null },
  { kind: 'payload', seq: 5, json: '{"current":80,"max":100}', truncated: false },
  { kind: 'handler', seq: 6, subscriptionId: 7, start: 2.25, duration: 0.000123, consumed: false },
  { kind: 'handler-error', seq: 6, subscriptionId: 8, time: 2.3, message: 'TypeError: boom ✗', stack: 'TypeError: boom\n    at x (/a.js:1:2)' },
  { kind: 'handler-error', seq: 6, subscriptionId: 8, time: 2.3, message: 'thrown 42', stack: null },
  {
    kind: 'dispatch',
    seq: 6,
    bus: 1,
    type: 'health.changed',
    start: 2.2,
    startBound: 0.000038,
    duration: 0.5,
    delivered: 2,
    consumedBy: 0,
    depth: 1,
    parentSeq: 5,
    site: null,
  },
  { kind: 'dispatch', seq: 5, bus: 1, type: 'tick', start: 2, startBound: 0, duration: 1.75, delivered: 1, consumedBy: 7, depth: 0, parentSeq: 0, site: siteB },
  // version 2's extension block: every optional field a dispatch can carry
  {
    kind: 'dispatch',
    seq: 7,
    bus: 1,
    type: 'tick',
    start: 3,
    startBound: 1.2,
    duration: 2,
    delivered: 1,
    consumedBy: 0,
    depth: 0,
    parentSeq: 0,
    site: null,
    durationBound: 1.5,
    threadId: 3,
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  },
  { kind: 'enqueue', time: 3, bus: 1, type: 'tick', queueLength: 4 },
  { kind: 'flush', time: 4, bus: 1, dispatched: 4 },
  { kind: 'depth-limit', time: 4.5, bus: 1, type: 'recurse', depth: 33, parentSeq: 1234567 },
  { kind: 'owner-collected', time: 5, bus: 1, owner: 'Widget#3', removed: 2 },
  { kind: 'owner-collected', time: 5, bus: 1, owner: null, removed: 0 },
  { kind: 'unsubscribe', time: 6, subscriptionId: 7, reason: 'dead-owner', calls: 12 },
  { kind: 'unsubscribe', time: 6, subscriptionId: 8, reason: 'collected', calls: 0 },
  { kind: 'drops', count: 1000, dispatches: 900, reason: 'slow-client' },
  { kind: 'drops', count: 3, dispatches: 0, reason: 'buffer-full' },
  { kind: 'bus-disposed', time: 3600000.000001, bus: 1 },
];

function roundTrip(records: BusRecord[]): BusRecord[] {
  const enc = new RecordEncoder();
  for (const r of records) enc.write(r);
  const frame = enc.writer.finish();
  const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  frames.push(frame);
  const f = frames.next();
  assert.ok(f);
  assert.equal(f.kind, FrameKind.Records);
  assert.equal(frames.next(), undefined);
  const out: BusRecord[] = [];
  new RecordDecoder().decode(f.body, out);
  return out;
}

function closeTo(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-6 + Math.abs(b) * 1e-12;
}

/** Equal, with times compared to 1 ns (the wire precision). */
function assertRecordsEqual(actual: BusRecord[], expected: BusRecord[]): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i] as unknown as Record<string, unknown>;
    const e = expected[i] as unknown as Record<string, unknown>;
    assert.deepEqual(Object.keys(a).sort(), Object.keys(e).sort(), `keys of record ${i}`);
    for (const k of Object.keys(e)) {
      if ((k === 'time' || k === 'start' || k === 'duration' || k === 'startBound' || k === 'durationBound') && typeof e[k] === 'number') {
        assert.ok(closeTo(a[k] as number, e[k] as number), `record ${i} ${k}: ${a[k]} vs ${e[k]}`);
      } else {
        assert.deepEqual(a[k], e[k], `record ${i} field ${k}`);
      }
    }
  }
}

test('every record kind round-trips through a batch', () => {
  const decoded = roundTrip(sample);
  const defs = decoded.filter((r) => r.kind === 'string' || r.kind === 'site');
  const data = decoded.filter((r) => r.kind !== 'string' && r.kind !== 'site');
  assertRecordsEqual(data, sample);
  const kinds = new Set<BusRecordKind>(decoded.map((r) => r.kind));
  assert.deepEqual([...kinds].sort(), [...RECORD_KINDS].sort(), 'the sample covers every kind');
  // Strings are defined once each, before their first use.
  const texts = defs.filter((r) => r.kind === 'string').map((r) => (r.kind === 'string' ? r.text : ''));
  assert.equal(new Set(texts).size, texts.length);
  assert.ok(texts.includes('gameplay') && texts.includes('health.changed') && texts.includes(siteB.file));
  const firstUse = decoded.findIndex((r) => r.kind === 'subscribe');
  const defOfType = decoded.findIndex((r) => r.kind === 'string' && r.text === 'health.changed');
  assert.ok(defOfType < firstUse);
});

test('times keep nanosecond precision across large offsets and backwards jumps', () => {
  const recs: BusRecord[] = [
    { kind: 'flush', time: 86_400_000.123456, bus: 2, dispatched: 1 },
    { kind: 'flush', time: 0.000001, bus: 2, dispatched: 2 },
    { kind: 'handler', seq: 9_007_199_254, subscriptionId: 1, start: 12.5, duration: 0, consumed: true },
    { kind: 'handler', seq: 1, subscriptionId: 2 ** 40, start: 12.5, duration: 1e6, consumed: false },
  ];
  assertRecordsEqual(roundTrip(recs), recs);
});

test('varints cover 0 … 2^53-1', () => {
  const big = Number.MAX_SAFE_INTEGER;
  const recs: BusRecord[] = [
    { kind: 'drops', count: big, dispatches: 0, reason: 'buffer-full' },
    { kind: 'drops', count: 127, dispatches: 128, reason: 'buffer-full' },
    { kind: 'drops', count: 2 ** 28, dispatches: 2 ** 28 - 1, reason: 'slow-client' },
    { kind: 'drops', count: 2 ** 31 + 5, dispatches: 2 ** 35, reason: 'slow-client' },
  ];
  assertRecordsEqual(roundTrip(recs), recs);
});

test('definitions persist across batches of one stream', () => {
  const enc = new RecordEncoder();
  enc.write({ kind: 'enqueue', time: 1, bus: 1, type: 'a', queueLength: 1 });
  const first = enc.writer.finish();
  enc.write({ kind: 'enqueue', time: 2, bus: 1, type: 'a', queueLength: 2 });
  const second = enc.writer.finish();
  assert.ok(second.length < first.length, 'the second batch reuses the id');
  const stream = new StreamDecoder();
  const msgs = stream.push(new Uint8Array([...first, ...second]));
  assert.equal(msgs.length, 2);
  const last = msgs[1];
  assert.equal(last.type, 'records');
  if (last.type === 'records') assert.deepEqual(last.records, [{ kind: 'enqueue', time: 2, bus: 1, type: 'a', queueLength: 2 }]);
  // A fresh decoder that missed the first batch cannot resolve the id.
  assert.throws(
    () => new StreamDecoder().push(second),
    (e: unknown) => e instanceof ProtocolError && e.code === 'undefined-reference',
  );
});

function batchBody(fill: (w: RecordWriter) => void): Uint8Array {
  const w = new RecordWriter();
  fill(w);
  return w.finish().subarray(5);
}

test('truncated records fail with "truncated" at every cut point', () => {
  const enc = new RecordEncoder();
  for (const r of sample) enc.write(r);
  const body = enc.writer.finish().subarray(5);
  // Cut points that fall exactly on a record boundary decode fine; every other cut must throw truncated.
  const boundaries = new Set<number>();
  {
    // Find record boundaries by decoding prefixes that succeed.
    for (let cut = 0; cut <= body.length; cut++) {
      try {
        new RecordDecoder().decode(body.subarray(0, cut), []);
        boundaries.add(cut);
      } catch (e) {
        assert.ok(e instanceof ProtocolError, `cut ${cut}: ${String(e)}`);
        assert.equal(e.code, 'truncated', `cut ${cut}: ${e.message}`);
      }
    }
  }
  assert.ok(boundaries.has(body.length));
  assert.ok(boundaries.size >= sample.length, 'every record boundary decodes');
});

test('unknown record codes, reasons and undefined ids are precise errors', () => {
  const expectCode = (body: Uint8Array, code: string, pattern: RegExp) =>
    assert.throws(
      () => new RecordDecoder().decode(body, []),
      (e: unknown) => e instanceof ProtocolError && e.code === code && pattern.test(e.message),
    );
  expectCode(new Uint8Array([99]), 'unknown-kind', /unknown record code 99/);
  expectCode(
    batchBody((w) => w.unsubscribe(1, 1, 42, 0)),
    'malformed',
    /unsubscribe reason code 42/,
  );
  expectCode(
    batchBody((w) => w.drops(1, 1, 9)),
    'malformed',
    /drop reason code 9/,
  );
  expectCode(
    batchBody((w) => w.enqueue(1, 1, 5, 1)),
    'undefined-reference',
    /string id 5/,
  );
  expectCode(
    batchBody((w) => {
      w.stringDef(1, 't');
      w.dispatch(1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 3);
    }),
    'undefined-reference',
    /site id 3/,
  );
  expectCode(
    batchBody((w) => w.stringDef(3, 'gap')),
    'malformed',
    /string id 3 defined before id 1/,
  );
  // A gap of exactly one (id 2 lost between 1 and 3) is the smallest loss a stream can have.
  expectCode(
    batchBody((w) => {
      w.stringDef(1, 'a');
      w.stringDef(3, 'c');
    }),
    'malformed',
    /string id 3 defined before id 2/,
  );
  expectCode(
    batchBody((w) => {
      w.stringDef(1, 'file.ts');
      w.siteDef(1, 1, 1, 1, 0);
      w.siteDef(3, 1, 2, 1, 0);
    }),
    'malformed',
    /site id 3 defined before id 2/,
  );
  expectCode(new Uint8Array([1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 'malformed', /varint longer/);
  expectCode(new Uint8Array([1, 1, 2, 0xc3, 0x28]), 'malformed', /invalid UTF-8/);
});

test('random bytes never hang and only ever throw ProtocolError', () => {
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < 2000; i++) {
    const body = new Uint8Array(1 + (rand() % 40));
    for (let j = 0; j < body.length; j++) body[j] = rand();
    try {
      new RecordDecoder().decode(body, []);
    } catch (e) {
      assert.ok(e instanceof ProtocolError, `unexpected ${String(e)}`);
    }
  }
});

test('a decoder keeps at most its caps of strings and sites; later definitions resolve to the overflow bucket', () => {
  const d = new RecordDecoder({ maxEntries: 4, maxStringBytes: 64 });
  const w = new RecordWriter();
  for (let id = 1; id <= 3; id++) w.stringDef(id, `s${id}`);
  w.stringDef(4, 'x'.repeat(40)); // over the 64-byte (32-character) budget
  w.stringDef(5, 'y');
  for (let id = 1; id <= 6; id++) w.siteDef(id, 1, id, 1, 0);
  w.busCreated(1, 1, 5);
  w.busCreated(2, 2, 2);
  const out: BusRecord[] = [];
  const frame = w.finish();
  d.decode(frame.subarray(5), out);
  assert.deepEqual(d.keptStrings, { count: 3, bytes: 12 });
  assert.equal(d.overflowedDefinitions, 2 + 2, 'two strings and two sites folded');
  assert.equal(d.stringCount, 5);
  assert.equal(d.stringById(4), OVERFLOW_NAME);
  assert.deepEqual(
    out.filter((r) => r.kind === 'bus-created').map((r) => r.kind === 'bus-created' && r.name),
    [OVERFLOW_NAME, 's2'],
  );
  assert.throws(() => d.decode(new Uint8Array([3, 0, 1, 9]), []), /string id 9 used before its definition/);
});
