import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, TIME_ORIGIN, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

function game(model: Model): StreamBuilder {
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'gameplay', 0).busCreated(2, 'ui', 0);
  s.subscribe({ id: 1, type: 'enemy.killed', label: 'KillFeed', site: site('/app/hud.ts', 50) });
  s.subscribe({ id: 2, type: 'input.key', bus: 2, label: 'Keys' });
  s.into(model);
  return s;
}

test('unheard dispatch with a near-miss name that has listeners: likely typo', () => {
  const model = new Model();
  const s = game(model);
  const dispatchSite = site('/app/script.ts', 9, 'fire');
  s.dispatch({ type: 'enemy.kiled', site: dispatchSite });
  s.dispatch({ type: 'enemy.kiled' });
  s.dispatch({ type: 'enemy.killed', handlers: [{ sub: 1 }] });
  s.into(model);
  const [w] = warningsOf(model, 'unheard-dispatch');
  assert.ok(w);
  assert.equal(w.severity, 'warning');
  assert.equal(w.evidence.unheard, 2);
  assert.deepEqual(
    w.evidence.nearMisses.map((m) => [m.type, m.reason, m.listeners]),
    [['enemy.killed', 'edit-distance', 1]],
  );
  assert.match(w.title, /did you mean "enemy\.killed"/);
  assert.deepEqual(
    w.sites.map((x) => x.file),
    ['/app/script.ts', '/app/hud.ts'],
  );
  assert.deepEqual(
    w.subjects.types.map((t) => t.type),
    ['enemy.kiled', 'enemy.killed'],
  );
});

test('unheard dispatch without a near miss: silent by default, info on request', () => {
  const model = new Model();
  const s = game(model);
  s.dispatch({ type: 'level.loaded' }).valueOf();
  s.into(model);
  assert.deepEqual(warningsOf(model, 'unheard-dispatch'), []);
  const [w] = warningsOf(model, 'unheard-dispatch', { unheardDispatch: { reportWithoutNearMiss: true } });
  assert.equal(w?.severity, 'info');
});

test('unheard dispatch: the same name with listeners on another bus', () => {
  const model = new Model();
  const s = game(model);
  s.dispatch({ type: 'input.key', bus: 1 }).valueOf();
  s.into(model);
  const [w] = warningsOf(model, 'unheard-dispatch');
  assert.deepEqual(
    w?.evidence.nearMisses.map((m) => [m.busName, m.reason]),
    [['ui', 'other-bus']],
  );
});

test('unheard dispatch clears once the type is heard again', () => {
  const model = new Model();
  const s = game(model);
  s.dispatch({ type: 'enemy.kiled' }).valueOf();
  s.into(model);
  assert.equal(warningsOf(model, 'unheard-dispatch').length, 1);
  s.subscribe({ id: 3, type: 'enemy.kiled' });
  s.dispatch({ type: 'enemy.kiled', handlers: [{ sub: 3 }] });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'unheard-dispatch'), []);
});

test('never dispatched: after the grace period, with the waiting subscriptions and their sites', () => {
  const model = new Model();
  const s = game(model);
  const bossSite = site('/app/achievements.ts', 30);
  s.subscribe({ id: 5, type: 'boss.defeated', label: 'Achievements.bossSlayer', site: bossSite, time: 100 });
  s.into(model);
  s.wait(4000).dispatch({ type: 'enemy.killed', handlers: [{ sub: 1 }] });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'never-dispatched', { neverDispatched: { graceMs: 5000 } }), [], 'still in its grace period');
  model.advanceTime(5200);
  const all = warningsOf(model, 'never-dispatched', { neverDispatched: { graceMs: 5000 } });
  // Keys (input.key, subscribed at 0, never dispatched either) and the boss subscription.
  assert.deepEqual(all.map((w) => w.subjects.types[0].type).sort(), ['boss.defeated', 'input.key']);
  const boss = all.find((w) => w.subjects.types[0].type === 'boss.defeated');
  assert.ok(boss);
  assert.equal(boss.severity, 'info');
  assert.deepEqual(boss.subjects.subscriptions, [5]);
  assert.deepEqual(boss.sites, [bossSite]);
  assert.equal(boss.evidence.waitedMs, 5100);
  assert.match(boss.title, /Achievements\.bossSlayer/);
});

test('never dispatched: a near-miss name was dispatched instead (warning); dispatched types and wildcards are fine', () => {
  const model = new Model();
  const s = game(model);
  s.subscribe({ id: 6, type: 'enemy.kiled', label: 'Typo' });
  s.subscribe({ id: 7, type: '*', label: 'Telemetry' });
  s.dispatch({ type: 'enemy.killed', handlers: [{ sub: 7 }, { sub: 1 }] });
  s.dispatch({ type: 'input.key', bus: 2, handlers: [{ sub: 2 }] });
  s.into(model);
  model.advanceTime(10_000);
  const all = warningsOf(model, 'never-dispatched');
  assert.deepEqual(
    all.map((w) => w.subjects.types[0].type),
    ['enemy.kiled'],
  );
  assert.equal(all[0].severity, 'warning');
  assert.deepEqual(
    all[0].evidence.nearMisses.map((m) => m.type),
    ['enemy.killed'],
  );
});

test('never dispatched, late attach: a snapshot subscription whose type the probe saw dispatched is not reported', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.clock = 60_000;
  s.snapshot({
    buses: [{ id: 1, name: 'gameplay', createdAt: TIME_ORIGIN, subscriptions: 2 }],
    types: [
      { bus: 1, type: 'rare', listeners: 1, dispatches: 3 },
      { bus: 1, type: 'never', listeners: 1, dispatches: 0 },
    ],
    subscriptions: [
      { id: 1, bus: 1, type: 'rare', priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: TIME_ORIGIN + 10 },
      { id: 2, bus: 1, type: 'never', priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: TIME_ORIGIN + 10 },
    ],
  });
  s.into(model);
  model.advanceTime(61_000);
  assert.deepEqual(warningsOf(model, 'never-dispatched'), [], 'the grace period counts from attach');
  model.advanceTime(66_000);
  assert.deepEqual(
    warningsOf(model, 'never-dispatched').map((w) => w.subjects.types[0].type),
    ['never'],
  );
});

test('never dispatched is still reported after the app disposed its buses (judged as at the end)', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'boss.defeated', label: 'Boss', time: 0 });
  s.wait(6000).unsubscribe(1, 'clear');
  s.record({ kind: 'bus-disposed', time: s.clock, bus: 1 });
  s.into(model);
  model.endSession('app exited');
  const [w] = warningsOf(model, 'never-dispatched');
  assert.ok(w);
  assert.equal(w.evidence.waitedMs, 6000);
  assert.match(w.explanation, /until the bus was disposed/);
});
