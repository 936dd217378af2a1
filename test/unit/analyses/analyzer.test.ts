import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, DEFAULT_ANALYSIS_OPTIONS, WARNING_KINDS, resolveAnalysisOptions } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder } from '../model/streamBuilder';

test('analyzer: added, changed, removed; `since` kept while a warning holds; most severe first', () => {
  const model = new Model();
  const analyzer = new Analyzer(model);
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'enemy.killed', label: 'KillFeed' });
  s.subscribe({ id: 2, type: 'sfx', label: 'Mixer' });
  s.dispatch({ type: 'enemy.kiled' });
  s.into(model);
  let u = analyzer.run();
  assert.deepEqual(
    u.added.map((w) => w.kind),
    ['unheard-dispatch'],
  );
  const since = u.added[0].since;
  s.wait(100).dispatch({ type: 'enemy.kiled' });
  s.dispatch({ type: 'sfx', handlers: [{ sub: 2, throws: 'Error: x' }] });
  s.into(model);
  u = analyzer.run();
  assert.deepEqual(
    u.added.map((w) => w.kind),
    ['throwing-handler'],
  );
  assert.deepEqual(
    u.changed.map((w) => w.kind),
    ['unheard-dispatch'],
  );
  assert.equal(u.changed[0].since, since);
  assert.deepEqual(
    u.warnings.map((w) => w.severity),
    ['error', 'warning'],
  );
  // Nothing new: nothing added or changed.
  u = analyzer.run();
  assert.deepEqual([u.added.length, u.changed.length, u.removed.length], [0, 0, 0]);
  // The typo'd type gets a listener and is heard: the warning no longer holds.
  s.subscribe({ id: 3, type: 'enemy.kiled' }).dispatch({ type: 'enemy.kiled', handlers: [{ sub: 3 }] });
  s.into(model);
  u = analyzer.run();
  assert.deepEqual(
    u.removed.map((w) => w.kind),
    ['unheard-dispatch'],
  );
  assert.deepEqual(
    u.warnings.map((w) => w.kind),
    ['throwing-handler'],
  );
  // Every warning is JSON-safe.
  assert.deepEqual(JSON.parse(JSON.stringify(u.warnings)), u.warnings);
  analyzer.reset();
  assert.equal(analyzer.warnings.length, 0);
});

test('analyzer: kinds filter, configure, reset after model.clear()', () => {
  const model = new Model();
  const analyzer = new Analyzer(model, { kinds: ['slow-handler'] });
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'x' }).dispatch({ type: 'x', handlers: [{ sub: 1, duration: 200, throws: 'Error: y' }] });
  s.into(model);
  assert.deepEqual(
    analyzer.run().warnings.map((w) => w.kind),
    ['slow-handler'],
  );
  analyzer.configure({ kinds: WARNING_KINDS, thresholds: { slowHandler: { maxMs: 500 } } });
  assert.deepEqual(
    analyzer.run().warnings.map((w) => w.kind),
    ['throwing-handler'],
  );
  model.endSession('test');
  model.clear();
  const u = analyzer.run(); // notices the model started over
  assert.deepEqual(u.warnings, []);
  assert.deepEqual(
    u.removed.map((w) => w.kind),
    ['throwing-handler'],
  );
});

test('options: defaults, partial overrides, precise TypeErrors', () => {
  assert.deepEqual(resolveAnalysisOptions(), DEFAULT_ANALYSIS_OPTIONS);
  const o = resolveAnalysisOptions({ slowHandler: { p95Ms: 5, maxMs: undefined } });
  assert.equal(o.slowHandler.p95Ms, 5);
  assert.equal(o.slowHandler.maxMs, DEFAULT_ANALYSIS_OPTIONS.slowHandler.maxMs);
  assert.throws(() => resolveAnalysisOptions({ slowHandler: { p95Ms: -1 } }), /slowHandler\.p95Ms must be a non-negative finite number/);
  assert.throws(() => resolveAnalysisOptions({ slowHandler: { nope: 1 } as never }), /slowHandler\.nope is not an option/);
  assert.throws(() => resolveAnalysisOptions({ unheardDispatch: { reportWithoutNearMiss: 'yes' as never } }), TypeError);
  assert.throws(() => resolveAnalysisOptions({ bogus: {} } as never), TypeError);
  assert.throws(() => new Analyzer(new Model(), { kinds: ['bogus' as never] }), TypeError);
});
