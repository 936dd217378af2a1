import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const TOOLTIP = site('/app/tooltips.ts', 20, 'Tooltip');

test('dead-owner listeners: removals by the bus are reported per site with counts and owners', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let i = 1; i <= 3; i++) {
    s.subscribe({ id: i, type: 'cursor.moved', bus: 2, owner: `Tooltip#${i}`, label: 'Tooltip.followCursor', site: TOOLTIP, time: i * 1000 });
    s.unsubscribe(i, i === 3 ? 'collected' : 'dead-owner', 5, i * 1000 + 500);
  }
  s.into(model);
  const [w] = warningsOf(model, 'dead-owner-listeners');
  assert.ok(w);
  assert.deepEqual([w.evidence.removed, w.evidence.deadOwner, w.evidence.collected], [3, 2, 1]);
  assert.deepEqual(w.evidence.owners, ['Tooltip#1', 'Tooltip#2', 'Tooltip#3']);
  assert.deepEqual(w.subjects.types, [{ bus: 2, busName: 'bus 2', type: 'cursor.moved' }]);
  assert.deepEqual(w.sites, [TOOLTIP]);
  assert.equal(w.evidence.firstAt, 1500);
  assert.deepEqual(warningsOf(model, 'dead-owner-listeners', { deadOwners: { minRemovals: 4 } }), []);
});

test('dead-owner listeners: orderly unsubscribes are not reported', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  const reasons = ['dispose', 'once', 'signal', 'owner', 'clear'] as const;
  reasons.forEach((reason, i) => s.subscribe({ id: i + 1, type: 't', owner: `W#${i}`, site: TOOLTIP }).unsubscribe(i + 1, reason));
  s.into(model);
  assert.deepEqual(warningsOf(model, 'dead-owner-listeners'), []);
});

const HIT = site('/app/enemies.ts', 20, 'Enemy');
const AI = site('/app/enemies.ts', 27, 'Enemy');

function enemies(model: Model, opts: { killed: number[]; secondSiteLater?: boolean; reason?: 'dispose' | 'once' }): StreamBuilder {
  const s = new StreamBuilder().welcome();
  for (let e = 1; e <= 3; e++) {
    const t = e * 10;
    s.subscribe({ id: e * 10 + 1, type: 'combat.hit', owner: `Enemy#${e}`, label: 'Enemy.onHit', site: HIT, time: t });
    s.subscribe({
      id: e * 10 + 2,
      type: 'player.moved',
      owner: `Enemy#${e}`,
      label: 'EnemyAI.trackPlayer',
      site: AI,
      time: opts.secondSiteLater ? t + 500 : t,
    });
  }
  s.clock = 1000;
  for (const e of opts.killed) s.unsubscribe(e * 10 + 1, opts.reason ?? 'dispose', 1, 1000);
  for (let i = 0; i < 4; i++) s.wait(50).dispatch({ type: 'player.moved', handlers: [1, 2, 3].map((e) => ({ sub: e * 10 + 2 })) });
  s.into(model);
  return s;
}

test('owner gone, still registered: an owner disposed one subscription but kept its sibling', () => {
  const model = new Model();
  const s = enemies(model, { killed: [1, 2] });
  assert.deepEqual(warningsOf(model, 'owner-gone-still-registered'), [], 'not before the grace period');
  s.wait(1000).dispatch({ type: 'player.moved', handlers: [{ sub: 12 }, { sub: 22 }, { sub: 32 }] });
  s.into(model);
  const [w] = warningsOf(model, 'owner-gone-still-registered');
  assert.ok(w);
  assert.equal(w.evidence.owners, 2);
  assert.equal(w.evidence.stillRegistered, 2);
  assert.deepEqual([...w.subjects.subscriptions].sort(), [12, 22]);
  assert.equal(w.evidence.disposedLabel, 'Enemy.onHit');
  assert.equal(w.evidence.callsAfterDisposal, 10); // 5 dispatches × 2 zombies
  assert.deepEqual(w.sites, [AI]);
  assert.match(w.title, /EnemyAI\.trackPlayer/);
});

test('owner gone negatives: `once` endings, siblings made later, unidentifiable owners, full teardown', () => {
  const once = new Model();
  enemies(once, { killed: [1], reason: 'once' })
    .wait(2000)
    .into(once);
  once.advanceTime(5000);
  assert.deepEqual(warningsOf(once, 'owner-gone-still-registered'), []);

  const later = new Model();
  enemies(later, { killed: [1], secondSiteLater: true }).into(later);
  later.advanceTime(5000);
  assert.deepEqual(warningsOf(later, 'owner-gone-still-registered'), [], 'a subscription made later is not a sibling of the disposed one');

  const anonymous = new Model();
  const a = new StreamBuilder().welcome();
  a.subscribe({ id: 1, type: 'a', owner: 'Enemy', time: 0 }).subscribe({ id: 2, type: 'b', owner: 'Enemy', time: 0 }).unsubscribe(1, 'dispose', 0, 10);
  a.into(anonymous);
  anonymous.advanceTime(5000);
  assert.deepEqual(warningsOf(anonymous, 'owner-gone-still-registered'), []);

  const full = new Model();
  const f = enemies(full, { killed: [1] });
  f.unsubscribe(12, 'dispose', 0, 1001).into(full);
  full.advanceTime(5000);
  assert.deepEqual(warningsOf(full, 'owner-gone-still-registered'), []);
});
