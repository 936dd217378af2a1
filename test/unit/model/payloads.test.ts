// Payload previews: `payload` records (sent when the probe captures payloads) become the model's
// `payloadOf(seq)`, kept in a bounded store that forgets the oldest first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder } from './streamBuilder';

function app(model: Model, payloads: number): number[] {
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'gameplay', 0);
  s.subscribe({ id: 1, type: 'combat.hit', label: 'Hud', time: 1 });
  const seqs: number[] = [];
  for (let i = 0; i < payloads; i++) {
    const seq = s.dispatch({ type: 'combat.hit', handlers: [{ sub: 1 }] });
    // The probe sends a dispatch's payload record before its dispatch record; order does not matter to the store.
    s.record({ kind: 'payload', seq, json: JSON.stringify({ damage: i }), truncated: i === 1 });
    seqs.push(seq);
  }
  s.into(model);
  return seqs;
}

test('payload records: payloadOf(seq) gives the captured JSON; a cut one is marked; others are null', () => {
  const model = new Model();
  const seqs = app(model, 3);
  assert.equal(model.payloadOf(seqs[0]), '{"damage":0}');
  assert.equal(model.payloadOf(seqs[1]), '{"damage":1} …');
  assert.equal(model.payloadOf(seqs[2]), '{"damage":2}');
  assert.equal(model.payloadOf(9_999), null);
  model.clear();
  assert.equal(model.payloadOf(seqs[0]), null);
  assert.equal(model.payloadPreviewCount, 0);
});

test('the payload store is bounded by payloadPreviewCapacity and forgets the oldest first', () => {
  const model = new Model({ payloadPreviewCapacity: 4 });
  const seqs = app(model, 10);
  assert.equal(model.payloadPreviewCount, 4);
  for (const seq of seqs.slice(0, 6)) assert.equal(model.payloadOf(seq), null);
  assert.deepEqual(
    seqs.slice(6).map((q) => model.payloadOf(q)),
    ['{"damage":6}', '{"damage":7}', '{"damage":8}', '{"damage":9}'],
  );
  const none = new Model({ payloadPreviewCapacity: 0 });
  app(none, 3);
  assert.equal(none.payloadPreviewCount, 0);
  assert.equal(new Model().options.payloadPreviewCapacity, 10_000);
  assert.throws(() => new Model({ payloadPreviewCapacity: -1 }), TypeError);
  assert.throws(() => new Model({ payloadPreviewCapacity: 1.5 }), TypeError);
});
