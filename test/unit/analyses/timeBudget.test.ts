// The analyzer's time budget (issue 17 item 1): a run's budgeted parts — examining types, the
// near-miss search, working out families — also stop when the run's time is up, after a minimum
// of work each, so one run takes about the budget however slow the machine or the JIT's first
// pass is; the rest carries over and the run says it is partial. Checked with a clock that moves
// on by itself (1 ms per reading), so the assertions are about work carried over, not timings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, analyze, type AnalysisUpdate, type Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { DEFAULT_NEAR_MISS_BUDGET, MIN_POOL_OFFERS } from '../../../runtime-probe/src/analysis/analyses/nearMissSearch';
import { DEFAULT_TYPE_BUDGET, MIN_TYPES_PER_RUN } from '../../../runtime-probe/src/analysis/analyses/typeScan';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { manyTypesModel, type ManyTypesScenario } from './manyTypes';

const summary = (ws: readonly Warning[]): string[] => ws.map((w) => `${w.id} | ${w.severity} | ${w.title} | ${w.explanation}`);

/** The analyzer's family table (analysis state is internal; its progress is what these tests read). */
function familiesOf(analyzer: Analyzer): { progress: { computed: number; pending: number } } {
  return (analyzer as unknown as { state: { families: { progress: { computed: number; pending: number } } } }).state.families;
}

/** A clock that advances 1 ms each time it is read: a run's 20 ms are up after 20 readings. */
function tickingClock(): () => number {
  let now = 0;
  return () => ++now;
}

for (const scenario of ['user-updates', 'never-dispatched-snapshot', 'random-names'] as ManyTypesScenario[]) {
  test(
    `${scenario}, 10,000 types: a run stops when its time is up, after a minimum of work, and later runs reach the uncapped answer`,
    { timeout: 600_000 },
    () => {
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
      // Every run moves on (the minimum of work is done whatever the clock says: types examined,
      // names compared, or, last, name families worked out), until complete.
      let last = first;
      while (last.progress.partial) {
        last = analyzer.run();
        updates.push(last);
        assert.ok(last.progress.typesExamined > 0 || last.progress.work > 0 || familiesOf(analyzer).progress.computed > 0, `run ${updates.length} did nothing`);
        assert.ok(updates.length <= 400, `still partial after ${updates.length} runs`);
      }
      assert.ok(updates.length > 2, `complete after ${updates.length} runs`);
      assert.equal(last.progress.typesChecked, last.progress.typesToCheck);
      assert.deepEqual(summary(last.warnings), summary(analyze(model)));
      // Once complete, an unchanged model's run examines nothing.
      assert.equal(analyzer.run().progress.typesExamined, 0);
    },
  );
}

test("a run judges whether a bus is a library's once, not once per type examined (never-dispatched too)", () => {
  // Judging a bus reads every live listener's origin. With 10,000 subscribed types on one bus whose
  // listeners say nothing of their origin (a late attach: no sites), judging it per type examined
  // was 500+ types × 10,000 listeners in the first run (1.8–4.4 s on the bench machine), outside any
  // budget. Counted on the model's own subscriptions: a run reads each origin a bounded number of times.
  for (const scenario of ['never-dispatched-snapshot', 'random-names'] as ManyTypesScenario[]) {
    const model = manyTypesModel(scenario, 10_000);
    const bus = model.buses.get(1);
    assert.ok(bus !== undefined);
    let listeners = 0;
    let reads = 0;
    for (const t of bus.types.values()) {
      for (const s of t.live) {
        listeners++;
        let origin = s.origin;
        Object.defineProperty(s, 'origin', {
          get: () => (reads++, origin),
          set: (v) => (origin = v),
        });
      }
    }
    const analyzer = new Analyzer(model, { timeBudgetMs: 20, clock: tickingClock() });
    // Each run reads at most about one origin per listener (one judgement of the bus, plus the
    // waiting subscriptions of the types it examined); per type examined it was millions.
    const updates: AnalysisUpdate[] = [];
    do {
      reads = 0;
      updates.push(analyzer.run());
      assert.ok(reads <= 2 * listeners, `${scenario}: ${reads} origin reads in run ${updates.length} for ${listeners} listeners`);
      assert.ok(updates.length <= 400, `${scenario}: still partial after ${updates.length} runs`);
    } while (updates[updates.length - 1].progress.partial);
    assert.ok(updates[0].progress.typesExamined >= MIN_TYPES_PER_RUN);
    assert.ok(updates.length > 2);
    assert.deepEqual(summary(updates[updates.length - 1].warnings), summary(analyze(model)));
  }
});

test(
  'the near-miss pools take in the types up to the deadline (after a minimum) and the rest in later runs, reaching the uncapped answer',
  { timeout: 600_000 },
  () => {
    // Offering every type to the pools was a pass over the whole model in the first run, outside any budget.
    const model = manyTypesModel('random-names', 20_000);
    const listened = model.allTypes().filter((t) => !t.isWildcard && t.registeredCount > 0).length;
    const analyzer = new Analyzer(model, { timeBudgetMs: 20, clock: tickingClock() });
    const search = (analyzer as unknown as { state: { nearMisses: { poolSize(kind: 'listened'): number } } }).state;
    const sizes: number[] = [];
    let update = analyzer.run();
    sizes.push(search.nearMisses.poolSize('listened'));
    assert.ok(sizes[0] >= MIN_POOL_OFFERS / 4 && sizes[0] < listened, `pool of ${sizes[0]} of ${listened} after the first run`);
    assert.equal(update.progress.partial, true);
    while (update.progress.partial) {
      update = analyzer.run();
      sizes.push(search.nearMisses.poolSize('listened'));
      assert.ok(sizes.length <= 400, `still partial after ${sizes.length} runs`);
    }
    assert.equal(sizes[sizes.length - 1], listened);
    assert.deepEqual(summary(update.warnings), summary(analyze(model)));
  },
);

test('a kept library verdict is judged again when the bus changes, whichever kinds run', () => {
  // Only never-dispatched runs: the analyzer drops the verdicts of changed buses, not unheard-dispatch.
  const lib = site('/srv/app/node_modules/pg/lib/client.js', 88, 'Client');
  const app = site('/srv/app/server.js', 12, 'onReady');
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(2, 'Client#1', 0).subscribe({ id: 3, bus: 2, type: 'notice', site: lib, time: 0 });
  s.into(model);
  model.advanceTime(model.now + 60_000);
  const analyzer = new Analyzer(model, { kinds: ['never-dispatched'] });
  assert.deepEqual(analyzer.run().warnings, []);
  assert.deepEqual(analyzer.run().warnings, []);
  const more = new StreamBuilder();
  more.clock = 60_000;
  more.subscribe({ id: 4, bus: 2, type: 'ready', site: app, time: more.clock });
  more.into(model);
  model.advanceTime(model.now + 60_000);
  assert.deepEqual(
    analyzer.run().warnings.map((w) => w.id),
    ['never-dispatched:2:ready'],
  );
});

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
