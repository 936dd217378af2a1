import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainSubscription } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, TIME_ORIGIN } from '../model/streamBuilder';

function kinds(model: Model, id: number): string[] {
  return explainSubscription(model, id).reasons.map((r) => r.kind);
}

test('why: it ran N times, last at …', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'tick', label: 'Ticker' });
  s.wait(1000).dispatch({ type: 'tick', handlers: [{ sub: 1 }] });
  s.wait(1000).dispatch({ type: 'tick', handlers: [{ sub: 1 }] });
  s.into(model);
  const r = explainSubscription(model, 1);
  assert.deepEqual(
    r.reasons.map((x) => x.kind),
    ['ran'],
  );
  assert.match(r.summary, /It ran 2 times, last 2\.0\d\d s after the probe started/);
});

test('why: never dispatched since it subscribed, and a near-miss name dispatched instead', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'enemy.killed', label: 'KillFeed' });
  s.wait(3000).dispatch({ type: 'enemy.kiled' });
  s.into(model);
  const r = explainSubscription(model, 1);
  assert.deepEqual(
    r.reasons.map((x) => x.kind),
    ['never-dispatched', 'near-miss-dispatched'],
  );
  assert.match(r.summary, /never dispatched .* 3\.0 s since KillFeed subscribed/);
  const nm = r.reasons[1];
  assert.ok(nm.kind === 'near-miss-dispatched' && nm.nearMisses[0].type === 'enemy.kiled');
});

test('why: dispatched only before it subscribed', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.dispatch({ type: 'app.ready' });
  s.wait(10).subscribe({ id: 1, type: 'app.ready', label: 'Splash' });
  s.into(model);
  const r = explainSubscription(model, 1);
  assert.deepEqual(
    r.reasons.map((x) => x.kind),
    ['dispatched-before-subscribing'],
  );
  assert.match(r.summary, /only before Splash subscribed/);
});

test('why: consumed earlier by which subscription and how often', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'input.key', priority: 100, label: 'DebugConsole' });
  s.subscribe({ id: 2, type: 'input.key', label: 'Hotkeys' });
  for (let i = 0; i < 7; i++) s.dispatch({ type: 'input.key', handlers: [{ sub: 1, consumed: true }] });
  s.into(model);
  const r = explainSubscription(model, 2);
  assert.deepEqual(
    r.reasons.map((x) => x.kind),
    ['consumed-earlier'],
  );
  assert.match(r.summary, /Every one of the 7 dispatches .* consumed before its turn, mostly by DebugConsole \(priority 100 vs 0; 7 times\)/);
  // The consumer itself ran: its answer is that it ran.
  assert.deepEqual(kinds(model, 1), ['ran']);
});

test('why: owner dead, unsubscribed when and why, handler threw', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'cursor.moved', owner: 'Tooltip#3', label: 'Tooltip.follow' });
  s.wait(1500).unsubscribe(1, 'dead-owner', 0);
  s.subscribe({ id: 2, type: 'cursor.moved', label: 'Once', once: true });
  s.dispatch({ type: 'cursor.moved', handlers: [{ sub: 2 }] });
  s.unsubscribe(2, 'once', 1);
  s.subscribe({ id: 3, type: 'sfx.play', label: 'Mixer' });
  s.dispatch({ type: 'sfx.play', handlers: [{ sub: 3, throws: 'Error: no bank' }] });
  s.into(model);
  const dead = explainSubscription(model, 1);
  assert.equal(dead.reasons[0].kind, 'owner-dead');
  assert.match(dead.summary, /removed 1\.500 s after the probe started because its owner was dead \(disposed\) at a dispatch \(Tooltip#3\)/);
  assert.deepEqual(kinds(model, 2), ['unsubscribed', 'ran']);
  assert.match(explainSubscription(model, 2).summary, /`once` subscription/);
  assert.deepEqual(kinds(model, 3), ['handler-threw', 'ran']);
  assert.match(explainSubscription(model, 3).summary, /threw 1 time; .*Error: no bank/);
});

test('why: unknown ids and missing handler data are said plainly; bad ids throw', () => {
  const model = new Model();
  const s = new StreamBuilder({ detail: 'dispatch' }).welcome('dispatch');
  s.subscribe({ id: 1, type: 't', label: 'T' });
  s.dispatch({ type: 't', delivered: 1 });
  s.into(model);
  assert.deepEqual(
    explainSubscription(model, 99).reasons.map((r) => r.kind),
    ['unknown-subscription'],
  );
  assert.equal(explainSubscription(model, 99).found, false);
  assert.deepEqual(kinds(model, 1), ['no-handler-data']);
  assert.throws(() => explainSubscription(model, 0), TypeError);
});

test('why: registered until its bus was disposed comes after the real reason; late attach says what it cannot know', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.clock = 10_000;
  s.snapshot({
    buses: [{ id: 1, name: 'gameplay', createdAt: TIME_ORIGIN, subscriptions: 2 }],
    types: [
      { bus: 1, type: 'rare', listeners: 1, dispatches: 4 },
      { bus: 1, type: 'boss', listeners: 1, dispatches: 0 },
    ],
    subscriptions: [
      { id: 1, bus: 1, type: 'rare', priority: 0, label: 'Rare', owner: null, once: false, site: null, calls: 0, createdAt: TIME_ORIGIN + 5 },
      { id: 2, bus: 1, type: 'boss', priority: 0, label: 'Boss', owner: null, once: false, site: null, calls: 0, createdAt: TIME_ORIGIN + 5 },
    ],
  });
  s.wait(2000).unsubscribe(1, 'clear').unsubscribe(2, 'clear');
  s.record({ kind: 'bus-disposed', time: s.clock, bus: 1 });
  s.into(model);
  assert.deepEqual(kinds(model, 2), ['never-dispatched', 'bus-disposed']);
  assert.deepEqual(kinds(model, 1), ['not-dispatched-since-attach', 'bus-disposed']);
  assert.match(explainSubscription(model, 1).summary, /dispatched 4 times before Busscope attached .* not once in the 2\.0 s since/);
});
