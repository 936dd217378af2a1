// Owner ids on the wire: `subscribe` and `owner-collected` carry the owner's per-process id in bits
// of their flags field that version-1 readers never look at, so records with ids stay readable —
// field for field, the next record in sync — by a reader that predates them (no version bump).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteReader, FrameDecoder, RecordCode, RecordDecoder, RecordEncoder, RecordWriter, type BusRecord } from '../../../runtime-probe/src/protocol/index';

function body(frame: Uint8Array): Uint8Array {
  const frames = new FrameDecoder(1 << 20);
  frames.push(frame);
  const f = frames.next();
  assert.ok(f);
  return f.body;
}

function roundTrip(records: BusRecord[]): BusRecord[] {
  const enc = new RecordEncoder();
  for (const r of records) enc.write(r);
  const out: BusRecord[] = [];
  new RecordDecoder().decode(body(enc.writer.finish()), out);
  return out.filter((r) => r.kind !== 'string' && r.kind !== 'site');
}

const site = { file: '/app/enemy.ts', line: 3, column: 9, functionName: 'Enemy.spawn' };

test('owner ids round-trip, up to 2^50; records without one decode exactly as before', () => {
  const records: BusRecord[] = [
    { kind: 'subscribe', time: 1, subscriptionId: 1, bus: 1, type: 'hit', priority: 0, label: null, owner: 'Enemy', ownerId: 1, once: true, site },
    { kind: 'subscribe', time: 2, subscriptionId: 2, bus: 1, type: 'hit', priority: 0, label: null, owner: 'Enemy', ownerId: 2 ** 40 + 3, once: false, site },
    { kind: 'subscribe', time: 3, subscriptionId: 3, bus: 1, type: 'hit', priority: 0, label: null, owner: 'Enemy#7', once: false, site: null },
    { kind: 'subscribe', time: 4, subscriptionId: 4, bus: 1, type: 'hit', priority: 0, label: 'L', owner: null, once: true, site: null },
    { kind: 'owner-collected', time: 5, bus: 1, owner: 'Enemy', ownerId: 2 ** 50 - 1, removed: 2 },
    { kind: 'owner-collected', time: 6, bus: 1, owner: 'Enemy#7', removed: 1 },
    { kind: 'owner-collected', time: 7, bus: 1, owner: null, removed: 0 },
    { kind: 'unsubscribe', time: 8, subscriptionId: 1, reason: 'collected', calls: 0 },
  ];
  const back = roundTrip(records);
  assert.deepEqual(back, records);
  assert.ok(!('ownerId' in back[2]) && !('ownerId' in back[3]) && !('ownerId' in back[5]), 'absent, not null/0');
});

test('an id is only sent with an owner, and only when it is a positive integer below 2^50', () => {
  const w = new RecordWriter();
  w.stringDef(1, 'tick');
  w.subscribe(0, 1, 1, 1, 0, 0, null, false, 0, 5); // no owner: the id is dropped
  w.subscribe(0, 2, 1, 1, 0, 0, 'W', false, 0, 2 ** 51); // out of range: dropped
  w.subscribe(0, 3, 1, 1, 0, 0, 'W', false, 0, 1.5); // not an integer: dropped
  w.ownerCollected(0, 1, null, 0, 9);
  const out: BusRecord[] = [];
  new RecordDecoder().decode(body(w.finish()), out);
  assert.equal(out.length, 5);
  for (const r of out) assert.ok(!('ownerId' in r), JSON.stringify(r));
});

/**
 * A reader written to the version-1 layout in PROTOCOL.md, before owner ids existed: it reads the
 * flags as bits 0 (once) and 1 (has owner) and the owner-collected field as bit 0.
 */
function readV1(bytes: Uint8Array): unknown[] {
  const r = new ByteReader(bytes);
  const out: unknown[] = [];
  while (r.pos < r.end) {
    const code = r.u8();
    if (code === RecordCode.Subscribe) {
      r.svarint();
      const id = r.uvarint();
      r.uvarint();
      r.uvarint();
      r.f64();
      r.uvarint();
      const flags = r.uvarint();
      const owner = (flags & 2) === 2 ? r.string() : null;
      const siteId = r.uvarint();
      out.push(['subscribe', id, (flags & 1) === 1, owner, siteId]);
    } else if (code === RecordCode.OwnerCollected) {
      r.svarint();
      const bus = r.uvarint();
      const owner = (r.uvarint() & 1) === 1 ? r.string() : null;
      out.push(['owner-collected', bus, owner, r.uvarint()]);
    } else if (code === RecordCode.Unsubscribe) {
      r.svarint();
      out.push(['unsubscribe', r.uvarint(), r.uvarint(), r.uvarint()]);
    } else throw new Error(`unexpected code ${code}`);
  }
  return out;
}

test('a version-1 reader that predates owner ids reads records that carry them', () => {
  const w = new RecordWriter();
  w.subscribe(1, 10, 1, 0, 0, 0, 'Enemy', true, 0, 2 ** 45 + 1);
  w.unsubscribe(2, 10, 5, 3);
  w.subscribe(3, 11, 1, 0, 0, 0, 'Enemy', false, 4, 77);
  w.ownerCollected(4, 1, 'Enemy', 1, 2 ** 33);
  w.unsubscribe(5, 11, 5, 0);
  assert.deepEqual(readV1(body(w.finish())), [
    ['subscribe', 10, true, 'Enemy', 0],
    ['unsubscribe', 10, 5, 3],
    ['subscribe', 11, false, 'Enemy', 4],
    ['owner-collected', 1, 'Enemy', 1],
    ['unsubscribe', 11, 5, 0],
  ]);
});
