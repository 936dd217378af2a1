// The inspector feed's deltas send the warnings as what changed since the last delta: a warning once,
// again only when it changes, and its id in `clearedWarnings` when it no longer holds. Real Model,
// real feed; the warnings are data as the analyzer makes them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import type { NeverDispatchedWarning } from '../../../runtime-probe/src/analysis/analyses/warning';
import type { SessionView } from '../../../runtime-probe/src/analysis/inspector-messages';

const session: SessionView = { phase: 'attached', sessionId: 's', label: 'app (pid 1)', detail: '', droppedRecords: 0, offline: false, sessions: [] };

function neverDispatched(type: string, waitedMs: number): NeverDispatchedWarning {
  return {
    id: `never-dispatched:1:${type}`,
    kind: 'never-dispatched',
    severity: 'info',
    title: `"${type}" is never dispatched`,
    explanation: 'Subscribed, never dispatched.',
    evidence: { subscriptions: 1, oldestSubscribedAt: 0, waitedMs, nearMisses: [] },
    subjects: { buses: [1], types: [{ bus: 1, busName: 'app', type }], subscriptions: [] },
    sites: [],
    since: 0,
  };
}

test('a delta sends the warnings new or changed since the last one, and the ids of those gone', () => {
  const model = new Model();
  model.applyRecords([
    { kind: 'bus-created', time: 0, bus: 1, name: 'app' },
    { kind: 'subscribe', time: 0, subscriptionId: 1, bus: 1, type: 'a', priority: 0, label: null, owner: null, once: false, site: null },
    { kind: 'subscribe', time: 0, subscriptionId: 2, bus: 1, type: 'b', priority: 0, label: null, owner: null, once: false, site: null },
  ]);
  const feed = new InspectorFeed(model, {}, () => 0);
  const a = neverDispatched('a', 1000);
  const b = neverDispatched('b', 1000);
  assert.deepEqual(
    feed.snapshot(session, [a, b]).warnings.map((w) => w.id),
    [a.id, b.id],
  );

  const same = feed.delta([a, b], true);
  assert.equal(same?.warnings, undefined, 'unchanged warnings are not sent again');
  assert.equal(same?.clearedWarnings, undefined);

  const c = neverDispatched('c', 0);
  const later = neverDispatched('a', 2000);
  const d = feed.delta([later, c], true);
  assert.deepEqual(d?.warnings, [later, c], 'the changed one and the new one');
  assert.deepEqual(d?.clearedWarnings, [b.id], 'the one gone');

  const none = feed.delta([], true);
  assert.deepEqual(none?.clearedWarnings, [a.id, c.id]);
  assert.equal(none?.warnings, undefined);
});
