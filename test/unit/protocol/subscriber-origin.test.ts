// The subscriber's origin on the wire: in a subscribe record without an owner it rides in the flags'
// upper bits (where readers that predate it do not look), and the snapshot carries it as `origin`;
// the snapshot also keeps each bus's kind and class (the parser used to drop them).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameDecoder, parseProbeMessage, RecordDecoder, RecordEncoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';

function roundTrip(records: BusRecord[]): BusRecord[] {
  const enc = new RecordEncoder();
  for (const r of records) enc.write(r);
  const frames = new FrameDecoder(1 << 20);
  frames.push(enc.writer.finish());
  const f = frames.next();
  assert.ok(f);
  const out: BusRecord[] = [];
  new RecordDecoder().decode(f.body, out);
  return out.filter((r) => r.kind !== 'string' && r.kind !== 'site');
}

test('subscribe records carry the origin without an owner; an owner id keeps its bits; none said stays absent', () => {
  const records: BusRecord[] = [
    {
      kind: 'subscribe',
      time: 1,
      subscriptionId: 1,
      bus: 1,
      type: 'data',
      priority: 0,
      label: 'socketOnData',
      owner: null,
      once: false,
      site: null,
      origin: 'node',
    },
    { kind: 'subscribe', time: 2, subscriptionId: 2, bus: 1, type: 'end', priority: 0, label: null, owner: null, once: true, site: null, origin: 'library' },
    { kind: 'subscribe', time: 3, subscriptionId: 3, bus: 2, type: 'job', priority: 0, label: 'runJob', owner: null, once: false, site: null, origin: 'app' },
    { kind: 'subscribe', time: 4, subscriptionId: 4, bus: 3, type: 'hit', priority: 0, label: null, owner: 'Enemy', ownerId: 9, once: false, site: null },
    { kind: 'subscribe', time: 5, subscriptionId: 5, bus: 3, type: 'hit', priority: 0, label: null, owner: null, once: false, site: null },
  ];
  assert.deepEqual(roundTrip(records), records);
});

test('a snapshot keeps the bus kind, class name and subscriber origin; unknown values from a newer probe are not said', () => {
  const m = parseProbeMessage(
    new TextEncoder().encode(
      JSON.stringify({
        type: 'snapshot',
        requestId: null,
        snapshot: {
          time: 1,
          timeOrigin: 0,
          lastSeq: 0,
          recording: true,
          breakOn: [],
          truncated: false,
          dispatching: [],
          buses: [
            { id: 1, name: 'Socket#1', createdAt: 0, subscriptions: 1, kind: 'node-emitter', className: 'Socket' },
            { id: 2, name: 'x', createdAt: 0, subscriptions: 0, kind: 'quantum-emitter' },
          ],
          types: [],
          subscriptions: [
            { id: 1, bus: 1, type: 'data', priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: 0, origin: 'node' },
            { id: 2, bus: 1, type: 'end', priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: 0, origin: 'martian' },
          ],
        },
      }),
    ),
  );
  assert.ok(m.type === 'snapshot');
  assert.deepEqual(
    m.snapshot.buses.map((b) => [b.kind, b.className]),
    [
      ['node-emitter', 'Socket'],
      [undefined, undefined],
    ],
  );
  assert.deepEqual(
    m.snapshot.subscriptions.map((s) => s.origin),
    ['node', undefined],
  );
});
