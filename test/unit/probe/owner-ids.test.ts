// Owner identity in the probe: every distinct owner object gets one per-process id — the same on
// every bus, different for owners that describe themselves alike — carried by subscribe records,
// snapshots and owner-collected records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import type { BusRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { buildSnapshot } from '../../../runtime-probe/src/recorder/snapshot';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

class Enemy {
  disposed = false;
}

async function gcUntil(check: () => boolean): Promise<boolean> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 50 && !check(); i++) {
    gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return check();
}

test('one id per owner object: shared across buses, distinct for look-alike owners, in records and snapshots', async () => {
  const rec = new Recorder({ maxBufferedRecords: 1024, config: DEFAULT_RECORDING_CONFIG, sanitize: undefined });
  setBusTracer(rec);
  const a = new EventBus<{ hit: number; gone: void }>({ name: 'owners-a' });
  const b = new EventBus<{ hit: number }>({ name: 'owners-b' });
  try {
    const sink = new DecodingSink();
    rec.attach(sink, [], () => undefined);
    const first = new Enemy();
    const second = new Enemy();
    const s1 = a.subscribe('hit', () => undefined, { owner: first });
    const s2 = b.subscribe('hit', () => undefined, { owner: first });
    const s3 = a.subscribe('hit', () => undefined, { owner: second });
    const s4 = a.subscribe('hit', () => undefined);
    rec.flushTo(sink);
    const subscribes = new Map(
      sink.records.filter((r): r is Extract<BusRecord, { kind: 'subscribe' }> => r.kind === 'subscribe').map((r) => [r.subscriptionId, r]),
    );
    const id = (sub: { id: number }) => subscribes.get(sub.id)?.ownerId;
    assert.equal(subscribes.get(s1.id)?.owner, 'Enemy');
    assert.equal(subscribes.get(s3.id)?.owner, 'Enemy', 'both owners describe themselves alike');
    assert.ok(typeof id(s1) === 'number' && (id(s1) as number) > 0);
    assert.equal(id(s2), id(s1), 'the same owner on another bus: the same id');
    assert.notEqual(id(s3), id(s1), 'another owner: another id');
    assert.equal(id(s4), undefined, 'no owner: no id');

    const snap = buildSnapshot(rec);
    const inSnapshot = new Map(snap.subscriptions.map((s) => [s.id, s.ownerId]));
    assert.deepEqual([inSnapshot.get(s1.id), inSnapshot.get(s2.id), inSnapshot.get(s3.id), inSnapshot.get(s4.id)], [id(s1), id(s1), id(s3), null]);

    // A collected owner: its owner-collected record names it by the same id.
    let doomed: Enemy | null = new Enemy();
    const s5 = a.subscribe('gone', () => undefined, { owner: doomed });
    rec.flushTo(sink);
    const made = sink.records.find((r) => r.kind === 'subscribe' && r.subscriptionId === s5.id);
    assert.ok(made?.kind === 'subscribe' && made.ownerId !== undefined);
    doomed = null;
    // Needs --expose-gc (the test command passes it); collection itself is up to the engine.
    if (await gcUntil(() => a.listenerCount('gone') === 0)) {
      rec.flushTo(sink);
      const collected = sink.records.find((r) => r.kind === 'owner-collected');
      assert.ok(collected?.kind === 'owner-collected');
      assert.equal(collected.ownerId, made.ownerId);
      assert.equal(collected.owner, 'Enemy');
    }
  } finally {
    a.dispose();
    b.dispose();
    setBusTracer(undefined);
    rec.shutdown();
  }
});
