// `sampleEvery` on the wire: a `handler` record of a sampled dispatch (detail `handlers`) carries the
// number of calls it stands for above bit 0 of its flags, so a reader that predates it still reads
// `consumed` and stays in sync with the next record, and records without it decode as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteReader, FrameDecoder, RecordCode, RecordDecoder, RecordEncoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';

function body(frame: Uint8Array): Uint8Array {
  const frames = new FrameDecoder(1 << 20);
  frames.push(frame);
  const f = frames.next();
  assert.ok(f);
  return f.body;
}

const records: BusRecord[] = [
  { kind: 'handler', seq: 1, subscriptionId: 3, start: 1, duration: 0.25, consumed: false, sampleEvery: 40 },
  { kind: 'handler', seq: 2, subscriptionId: 3, start: 2, duration: 0.25, consumed: true, sampleEvery: 2 ** 20 },
  { kind: 'handler', seq: 3, subscriptionId: 3, start: 3, duration: 0.25, consumed: true },
  { kind: 'handler', seq: 4, subscriptionId: 4, start: 4, duration: 0.125, consumed: false },
  { kind: 'unsubscribe', time: 5, subscriptionId: 3, reason: 'dispose', calls: 7 },
];

test('sampleEvery round-trips; a call timed on every dispatch carries none (absent, not 1)', () => {
  const enc = new RecordEncoder();
  for (const r of records) enc.write(r);
  const out: BusRecord[] = [];
  new RecordDecoder().decode(body(enc.writer.finish()), out);
  assert.deepEqual(out, records);
  assert.ok(!('sampleEvery' in out[2]) && !('sampleEvery' in out[3]));
  // A weight of 1 says nothing: not sent.
  const one = new RecordEncoder();
  one.write({ kind: 'handler', seq: 1, subscriptionId: 1, start: 0, duration: 1, consumed: false, sampleEvery: 1 });
  const back: BusRecord[] = [];
  new RecordDecoder().decode(body(one.writer.finish()), back);
  assert.ok(!('sampleEvery' in (back[0] as object)));
});

test('a reader that predates sampleEvery (flags & 1 = consumed) reads every field right and stays in sync', () => {
  const enc = new RecordEncoder();
  for (const r of records) enc.write(r);
  const r = new ByteReader(body(enc.writer.finish()));
  const consumed: boolean[] = [];
  // The version-1 handler layout: seq q, subscriptionId u, start t, duration d, consumed u (read as flags & 1).
  while (r.pos < r.end) {
    const code = r.u8();
    if (code === RecordCode.Handler) {
      r.svarint();
      r.uvarint();
      r.svarint();
      r.uvarint();
      consumed.push((r.uvarint() & 1) === 1);
    } else {
      assert.equal(code, RecordCode.Unsubscribe);
      r.svarint();
      assert.equal(r.uvarint(), 3);
      r.uvarint();
      assert.equal(r.uvarint(), 7);
    }
  }
  assert.deepEqual(consumed, [false, true, true, false]);
});
