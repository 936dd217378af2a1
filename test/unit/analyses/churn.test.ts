import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const HOT = site('/app/frame.ts', 14, 'onFrame');

function churn(model: Model, perSecond: number, lifetimeMs: number, seconds: number): StreamBuilder {
  const s = new StreamBuilder().welcome();
  let id = 0;
  const step = 1000 / perSecond;
  for (let t = 0; t < seconds * 1000; t += step) {
    s.subscribe({ id: ++id, type: 'frame.tick', site: HOT, label: 'Tween.step', time: t });
    s.unsubscribe(id, 'dispose', 0, t + lifetimeMs);
  }
  s.into(model);
  return s;
}

test('churn: many short-lived subscriptions per second from one site', () => {
  const model = new Model();
  churn(model, 60, 5, 5);
  const [w] = warningsOf(model, 'subscription-churn');
  assert.ok(w);
  assert.ok(w.evidence.cyclesPerSecond >= 55 && w.evidence.cyclesPerSecond <= 65, String(w.evidence.cyclesPerSecond));
  assert.ok(Math.abs(w.evidence.meanLifetimeMs - 5) < 0.01);
  assert.equal(w.evidence.totalCycles, 300);
  assert.deepEqual(w.sites, [HOT]);
  assert.match(w.title, /Tween\.step/);
});

test('churn negatives: a slow rate, long-lived subscriptions, a short burst', () => {
  const slow = new Model();
  churn(slow, 5, 5, 10);
  assert.deepEqual(warningsOf(slow, 'subscription-churn'), []);
  const long = new Model();
  churn(long, 60, 2000, 5);
  assert.deepEqual(warningsOf(long, 'subscription-churn'), []);
  const burst = new Model();
  churn(burst, 1000, 1, 0.03); // 30 cycles: below minCycles
  assert.deepEqual(warningsOf(burst, 'subscription-churn'), []);
});

test('churn clears once the window has passed without cycles', () => {
  const model = new Model();
  churn(model, 60, 5, 5);
  assert.equal(warningsOf(model, 'subscription-churn').length, 1);
  model.advanceTime(model.now + 11_000);
  assert.deepEqual(warningsOf(model, 'subscription-churn'), []);
});
