import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const HUD = site('/app/hud.ts', 40, 'bindToPlayer');
const ENEMY = site('/app/enemies.ts', 27, 'Enemy');

test('threshold: warns at N listeners, names the most frequent site and the growth rate', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let id = 1; id <= 10; id++) s.subscribe({ id, type: 'player.moved', owner: `Enemy#${id}`, site: ENEMY, time: id * 100 });
  s.subscribe({ id: 11, type: 'player.moved', owner: 'Camera#1', site: site('/app/cam.ts', 3), time: 1100 });
  s.into(model);
  const [w] = warningsOf(model, 'listener-growth', { listenerGrowth: { threshold: 10 } });
  assert.ok(w);
  assert.equal(w.evidence.listeners, 11);
  assert.equal(w.evidence.thresholdReached, true);
  assert.equal(w.evidence.topSite?.count, 10);
  assert.equal(w.evidence.topSite?.site?.line, 27);
  assert.ok(w.evidence.growthPerSecond > 5, String(w.evidence.growthPerSecond));
  assert.equal(w.evidence.repeated, null, 'different owners, once each: not a repeated subscription');
  assert.deepEqual(
    w.sites.map((x) => x.line),
    [27],
  );
  assert.equal(w.subjects.subscriptions.length, 10);
  assert.match(w.explanation, /11 live listeners/);
  // Below the threshold: nothing.
  assert.deepEqual(warningsOf(model, 'listener-growth', { listenerGrowth: { threshold: 12 } }), []);
});

test('re-arming: warns again only after another half-threshold of growth; clears below the threshold', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  const analyzer = new Analyzer(model, { thresholds: { listenerGrowth: { threshold: 10, rearmFraction: 0.5 } }, kinds: ['listener-growth'] });
  const timesWarned: number[] = [];
  for (let id = 1; id <= 25; id++) {
    s.subscribe({ id, type: 'x', site: ENEMY, owner: `E#${id}` })
      .wait(10)
      .into(model);
    const w = analyzer.run().warnings[0];
    timesWarned.push(w?.kind === 'listener-growth' ? w.evidence.timesWarned : 0);
  }
  // Warned at 10, again at 15, 20, 25.
  assert.deepEqual(timesWarned, [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4]);
  for (let id = 1; id <= 16; id++) s.unsubscribe(id, 'dispose');
  s.into(model);
  const update = analyzer.run();
  assert.equal(update.warnings.length, 0);
  assert.equal(update.removed.length, 1);
  s.subscribe({ id: 26, type: 'x', owner: 'E#26' }).into(model); // 10 again: re-armed from scratch
  const again = analyzer.run().warnings[0];
  assert.equal(again?.kind === 'listener-growth' && again.evidence.timesWarned, 1);
});

test('repeated subscription: one owner, one site, over time, none disposed', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let i = 0; i < 3; i++)
    s.subscribe({ id: i + 1, type: 'player.health', owner: 'HealthBar#7', label: 'HealthBar.onHealthChanged', site: HUD, time: i * 500 });
  s.into(model);
  const [w] = warningsOf(model, 'listener-growth');
  assert.ok(w, 'default options catch it at 3 subscriptions');
  assert.equal(w.evidence.thresholdReached, false);
  assert.deepEqual(w.evidence.repeated && [w.evidence.repeated.owner, w.evidence.repeated.count, w.evidence.repeated.overMs], ['HealthBar#7', 3, 1000]);
  assert.deepEqual(w.subjects.subscriptions, [1, 2, 3]);
  assert.deepEqual(w.sites, [HUD]);
  assert.match(w.title, /HealthBar\.onHealthChanged/);
});

test('repeated subscription negatives: a burst at once, ambiguous owners, disposed predecessors', () => {
  const burst = new Model();
  const b = new StreamBuilder().welcome();
  for (let i = 0; i < 5; i++) b.subscribe({ id: i + 1, type: 'item.changed', owner: 'List#1', site: HUD, time: 100 });
  b.into(burst);
  assert.deepEqual(warningsOf(burst, 'listener-growth'), [], 'a loop subscribing per item is not growth');

  const anonymous = new Model();
  const a = new StreamBuilder().welcome();
  for (let i = 0; i < 5; i++) a.subscribe({ id: i + 1, type: 't', owner: 'Widget', site: HUD, time: i * 500 });
  a.into(anonymous);
  assert.deepEqual(warningsOf(anonymous, 'listener-growth'), [], '"Widget" may be five widgets');

  const rebinding = new Model();
  const r = new StreamBuilder().welcome();
  for (let i = 0; i < 5; i++) {
    r.subscribe({ id: i + 1, type: 't', owner: 'HealthBar#1', site: HUD, time: i * 500 });
    if (i > 0) r.unsubscribe(i, 'dispose');
  }
  r.into(rebinding);
  assert.deepEqual(warningsOf(rebinding, 'listener-growth'), [], 'disposing before re-subscribing is correct');
});
