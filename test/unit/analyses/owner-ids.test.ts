// Owner identity from the probe's owner ids: owners that describe themselves alike (`Enemy`, or the
// same `Enemy#1` for two objects) stay apart, owners without an id in their description are judged
// too, and streams without ids keep the description-based behaviour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Model, buildSnapshot } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, TIME_ORIGIN, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const SPAWN = site('/app/enemies.ts', 12, 'Enemy.spawn');
const AI = site('/app/enemies.ts', 27, 'Enemy.think');
const HIT = site('/app/enemies.ts', 20, 'Enemy.onHit');

test('model: one owner per owner id; look-alike descriptions stay apart; ids reach the views', () => {
  const model = new Model();
  new StreamBuilder()
    .welcome()
    .subscribe({ id: 1, type: 'hit', owner: 'Enemy', ownerId: 5, site: HIT })
    .subscribe({ id: 2, type: 'tick', owner: 'Enemy', ownerId: 5, site: AI })
    .subscribe({ id: 3, type: 'hit', owner: 'Enemy', ownerId: 6, site: HIT })
    .subscribe({ id: 4, type: 'hit', owner: 'Enemy#1', ownerId: 7, site: HIT })
    .subscribe({ id: 5, type: 'hit', owner: 'Enemy#1', ownerId: 8, site: HIT })
    .into(model);
  const owners = buildSnapshot(model).owners.map((o) => [o.description, o.ownerId, o.liveSubscriptions]);
  assert.deepEqual(owners, [
    ['Enemy', 5, [1, 2]],
    ['Enemy', 6, [3]],
    ['Enemy#1', 7, [4]],
    ['Enemy#1', 8, [5]],
  ]);
  assert.deepEqual(
    buildSnapshot(model).subscriptions.map((s) => s.ownerId),
    [5, 5, 6, 7, 8],
  );
  // A snapshot from the probe carries ids too.
  const late = new Model();
  new StreamBuilder()
    .welcome()
    .snapshot({
      buses: [{ id: 1, name: 'b', createdAt: TIME_ORIGIN, subscriptions: 2 }],
      types: [{ bus: 1, type: 'hit', listeners: 2, dispatches: 0 }],
      subscriptions: [
        { id: 9, bus: 1, type: 'hit', priority: 0, label: null, owner: 'Enemy', ownerId: 11, once: false, site: HIT, calls: 0, createdAt: TIME_ORIGIN },
        { id: 10, bus: 1, type: 'hit', priority: 0, label: null, owner: 'Enemy', ownerId: 12, once: false, site: HIT, calls: 0, createdAt: TIME_ORIGIN },
      ],
    })
    .into(late);
  assert.equal(late.owners.size, 2);
});

test('model: without ids (an older probe) owners are told apart by description, as before', () => {
  const model = new Model();
  new StreamBuilder()
    .welcome()
    .subscribe({ id: 1, type: 'hit', owner: 'Enemy', site: HIT })
    .subscribe({ id: 2, type: 'hit', owner: 'Enemy', site: HIT })
    .into(model);
  const owners = buildSnapshot(model).owners;
  assert.equal(owners.length, 1);
  assert.equal(owners[0].ownerId, null);
  assert.deepEqual(owners[0].liveSubscriptions, [1, 2]);
});

test('listener growth: the same owner id re-subscribing is a leak even when its description names no instance', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  // One Spawner object (description "Spawner") re-binds on every wave and never disposes.
  for (let wave = 0; wave < 3; wave++) s.subscribe({ id: wave + 1, type: 'wave.started', owner: 'Spawner', ownerId: 3, site: SPAWN, time: wave * 1000 });
  s.into(model);
  const [w] = warningsOf(model, 'listener-growth');
  assert.ok(w, 'repeated subscriptions by one owner');
  assert.deepEqual(w.evidence.repeated && [w.evidence.repeated.owner, w.evidence.repeated.count], ['Spawner (owner 3)', 3]);
  assert.deepEqual([...w.subjects.subscriptions], [1, 2, 3]);
});

test('listener growth: look-alike owners (even the same `Enemy#1` text) each subscribing once are not one owner', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let i = 0; i < 4; i++) s.subscribe({ id: i + 1, type: 'player.moved', owner: 'Enemy#1', ownerId: 20 + i, site: AI, time: i * 1000 });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'listener-growth'), [], 'four owners once each');
  // Without ids the same stream reads as one owner subscribing four times (the old, description-based view).
  const legacy = new Model();
  const l = new StreamBuilder().welcome();
  for (let i = 0; i < 4; i++) l.subscribe({ id: i + 1, type: 'player.moved', owner: 'Enemy#1', site: AI, time: i * 1000 });
  l.into(legacy);
  assert.equal(warningsOf(legacy, 'listener-growth').length, 1);
});

test('owner gone, still registered: judged by owner id, counted per owner', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  // Two enemies that describe themselves alike ("Enemy"): each disposes its hit handler, keeps its AI.
  for (const [e, ownerId] of [
    [1, 41],
    [2, 42],
  ]) {
    s.subscribe({ id: e * 10 + 1, type: 'combat.hit', owner: 'Enemy', ownerId, label: 'Enemy.onHit', site: HIT, time: e * 10 });
    s.subscribe({ id: e * 10 + 2, type: 'player.moved', owner: 'Enemy', ownerId, label: 'EnemyAI.trackPlayer', site: AI, time: e * 10 });
  }
  s.clock = 1000;
  s.unsubscribe(11, 'dispose', 1, 1000).unsubscribe(21, 'dispose', 1, 1000);
  s.wait(2000).dispatch({ type: 'player.moved', handlers: [{ sub: 12 }, { sub: 22 }] });
  s.into(model);
  const [w] = warningsOf(model, 'owner-gone-still-registered');
  assert.ok(w, 'owners without "#" in their description are judged when they have ids');
  assert.equal(w.evidence.owners, 2);
  assert.deepEqual(w.evidence.sampleOwners, ['Enemy (owner 41)', 'Enemy (owner 42)']);
  assert.deepEqual([...w.subjects.subscriptions].sort(), [12, 22]);
  // Without ids, "Enemy" may be any number of objects: not judged (as before).
  const legacy = new Model();
  const l = new StreamBuilder().welcome();
  l.subscribe({ id: 11, type: 'combat.hit', owner: 'Enemy', site: HIT, time: 10 }).subscribe({
    id: 12,
    type: 'player.moved',
    owner: 'Enemy',
    site: AI,
    time: 10,
  });
  l.clock = 1000;
  l.unsubscribe(11, 'dispose', 1, 1000)
    .wait(2000)
    .dispatch({ type: 'player.moved', handlers: [{ sub: 12 }] });
  l.into(legacy);
  assert.deepEqual(warningsOf(legacy, 'owner-gone-still-registered'), []);
});

test('dead-owner listeners: owners listed once per owner id; owner-collected finds its owner by id', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let i = 1; i <= 3; i++) s.subscribe({ id: i, type: 'cursor.moved', owner: 'Tooltip', ownerId: 100 + (i === 3 ? 1 : i), site: HIT, time: i });
  s.subscribe({ id: 9, type: 'cursor.left', owner: 'Tooltip', ownerId: 102, site: AI, time: 4 });
  s.clock = 10;
  s.ownerCollected('Tooltip', 0, 102);
  s.unsubscribe(1, 'dead-owner', 0, 11).unsubscribe(2, 'collected', 0, 12).unsubscribe(3, 'dead-owner', 0, 13);
  s.into(model);
  const [w] = warningsOf(model, 'dead-owner-listeners');
  assert.ok(w);
  assert.equal(w.evidence.removed, 3);
  assert.deepEqual(w.evidence.owners, ['Tooltip (owner 101)', 'Tooltip (owner 102)']);
  const collected = [...model.owners.values()].find((o) => o.ownerId === 102);
  assert.equal(collected?.collectedAt, 10, 'owner 102 (still holding subscription 9) is marked collected');
  assert.equal(
    [...model.owners.values()].find((o) => o.ownerId === 101),
    undefined,
    'owner 101 has nothing left: forgotten',
  );
});
