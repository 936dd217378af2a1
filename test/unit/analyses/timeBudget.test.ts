// The analyzer's time budget (issue 17 item 1): a run's budgeted parts — examining types, the
// near-miss search, working out families — also stop when the run's time is up, after a minimum
// of work each, so one run takes about the budget however slow the machine or the JIT's first
// pass is; the rest carries over and the run says it is partial. Checked with a clock that moves
// on by itself (1 ms per reading), so the assertions are about work carried over, not timings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, analyze, type AnalysisUpdate, type Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { DEFAULT_NEAR_MISS_BUDGET } from '../../../runtime-probe/src/analysis/analyses/nearMissSearch';
import { DEFAULT_TYPE_BUDGET, MIN_TYPES_PER_RUN } from '../../../runtime-probe/src/analysis/analyses/typeScan';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { manyTypesModel, type ManyTypesScenario } from './manyTypes';

const summary = (ws: readonly Warning[]): string[] => ws.map((w) => `${w.id} | ${w.severity} | ${w.title} | ${w.explanation}`);

/** A clock that advances 1 ms each time it is read: a run's 20 ms are up after 20 readings. */
function tickingClock(): () => number {
  let now = 0;
  return () => ++now;
}

for (const scenario of ['user-updates', 'never-dispatched-snapshot', 'random-names'] as ManyTypesScenario[]) {
  test(`${scenario}, 10,000 types: a run stops when its time is up, after a minimum of work, and later runs reach the uncapped answer`, { timeout: 600_000 }, () => {
    const n = 10_000;
    const model = manyTypesModel(scenario, n);
    const analyzer = new Analyzer(model, { timeBudgetMs: 20, clock: tickingClock() });
    const updates: AnalysisUpdate[] = [analyzer.run()];
    const first = updates[0];
    // The work budgets would let the first run examine 2 × 10,000 types and spend 10,000 units on
    // the search; out of time, it examined a few more than the minimum per scan and carried the rest.
    assert.equal(first.progress.partial, true);
    assert.ok(first.progress.typesExamined >= MIN_TYPES_PER_RUN, `examined ${first.progress.typesExamined}`);
    assert.ok(first.progress.typesExamined < DEFAULT_TYPE_BUDGET / 4, `examined ${first.progress.typesExamined}`);
    assert.ok(first.progress.work < DEFAULT_NEAR_MISS_BUDGET / 2, `near-miss work ${first.progress.work}`);
    assert.ok(first.progress.typesToCheck >= n, `types to check ${first.progress.typesToCheck}`);
    // Every run moves on (the minimum of work is done whatever the clock says), until complete.
    let last = first;
    while (last.progress.partial) {
      last = analyzer.run();
      updates.push(last);
      assert.ok(last.progress.typesExamined > 0 || last.progress.work > 0, `run ${updates.length} did nothing`);
      assert.ok(updates.length <= 400, `still partial after ${updates.length} runs`);
    }
    assert.ok(updates.length > 2, `complete after ${updates.length} runs`);
    assert.equal(last.progress.typesChecked, last.progress.typesToCheck);
    assert.deepEqual(summary(last.warnings), summary(analyze(model)));
    // Once complete, an unchanged model's run examines nothing.
    assert.equal(analyzer.run().progress.typesExamined, 0);
  });
}

test('a small app is analysed completely in one run, however slow that run is', () => {
  // Fewer types and less search work than the per-run minimums: the deadline (passed at once here)
  // leaves nothing for later.
  const model = manyTypesModel('random-names', 30);
  const update = new Analyzer(model, { timeBudgetMs: 1, clock: tickingClock() }).run();
  assert.equal(update.progress.partial, false);
  assert.deepEqual(summary(update.warnings), summary(analyze(model)));
});

test('timeBudgetMs must be a number above 0 (or Infinity), and clock a function', () => {
  assert.throws(() => new Analyzer(new Model(), { timeBudgetMs: 0 }), TypeError);
  assert.throws(() => new Analyzer(new Model(), { timeBudgetMs: Number.NaN }), TypeError);
  assert.throws(() => new Analyzer(new Model(), { clock: 5 as never }), TypeError);
  assert.doesNotThrow(() => new Analyzer(new Model(), { timeBudgetMs: Infinity }));
  const analyzer = new Analyzer(new Model());
  assert.throws(() => analyzer.configure({ timeBudgetMs: -1 }), TypeError);
});
