// The first analyzer run over a large model (issue 17 item 1): the per-type setup it used to pay
// in full — working out every finding's name family (`user.#.updated`) — is budgeted like the
// near-miss search, so the first run does bounded work too; the families not reached wait in the
// "N more" group, the run says it is partial, and later runs reach the uncapped answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, analyze, type Warning } from '../../../extension/src/analyses/index';
import { DEFAULT_NEAR_MISS_BUDGET } from '../../../extension/src/analyses/nearMissSearch';
import { DEFAULT_FAMILY_BUDGET } from '../../../extension/src/analyses/typeGroups';
import { manyTypesModel } from './manyTypes';

const summary = (ws: readonly Warning[]): string[] => ws.map((w) => `${w.id} | ${w.severity} | ${w.title} | ${w.explanation}`);

/** The analyzer's family table (analysis state is internal; its progress is what these tests read). */
function familiesOf(analyzer: Analyzer): { progress: { computed: number; pending: number } } {
  return (analyzer as unknown as { state: { families: { progress: { computed: number; pending: number } } } }).state.families;
}

test('the first run over a 100,000-type snapshot works out at most the family budget, and says it is partial until all are placed', { timeout: 600_000 }, () => {
  const n = 100_000;
  const model = manyTypesModel('never-dispatched-snapshot', n);
  const analyzer = new Analyzer(model);
  const first = analyzer.run();
  const families = familiesOf(analyzer);
  assert.ok(families.progress.computed <= DEFAULT_FAMILY_BUDGET, `families worked out in the first run: ${families.progress.computed}`);
  assert.ok(families.progress.pending >= n - DEFAULT_FAMILY_BUDGET, `pending: ${families.progress.pending}`);
  assert.ok(first.progress.work <= DEFAULT_NEAR_MISS_BUDGET * 1.1, `near-miss work ${first.progress.work}`);
  assert.equal(first.progress.partial, true);
  assert.ok(first.progress.typesChecked <= first.progress.typesToCheck - families.progress.pending);
  // What is not placed yet is one "N more" warning, not 90,000 singles: the warnings stay bounded.
  const never = first.warnings.filter((w) => w.kind === 'never-dispatched');
  assert.deepEqual(never.map((w) => w.id).sort(), ['never-dispatched/family:1:user.#.updated', 'never-dispatched/more:1']);
  const more = never.find((w) => w.id === 'never-dispatched/more:1');
  assert.ok(more?.kind === 'never-dispatched' && more.evidence.group?.types === families.progress.pending);
  // Each later run works out at most the budget too, and the family grows until it holds them all.
  let runs = 1;
  let update = first;
  while (familiesOf(analyzer).progress.pending > 0 || runs === 1) {
    update = analyzer.run();
    runs++;
    assert.ok(familiesOf(analyzer).progress.computed <= DEFAULT_FAMILY_BUDGET);
    assert.ok(runs <= Math.ceil(n / DEFAULT_FAMILY_BUDGET) + 1, `families still pending after ${runs} runs`);
  }
  const family = update.warnings.filter((w) => w.kind === 'never-dispatched');
  assert.deepEqual(family.map((w) => w.id), ['never-dispatched/family:1:user.#.updated']);
  assert.ok(family[0].kind === 'never-dispatched' && family[0].evidence.group?.types === n);
  assert.ok(update.removed.some((w) => w.id === 'never-dispatched/more:1'));
});

test('100,000 user.<id>.updated types: budgeted runs find every near miss within 61 runs (600,034 work units at 10,000 a run) and equal the uncapped answer', { timeout: 900_000 }, () => {
  const model = manyTypesModel('user-updates', 100_000);
  const analyzer = new Analyzer(model);
  let update = analyzer.run();
  let runs = 1;
  while (update.progress.partial) {
    update = analyzer.run();
    runs++;
    assert.ok(update.progress.work <= DEFAULT_NEAR_MISS_BUDGET * 1.1, `run ${runs}: work ${update.progress.work}`);
    assert.ok(familiesOf(analyzer).progress.computed <= DEFAULT_FAMILY_BUDGET);
    assert.ok(runs <= 61, `still partial after ${runs} runs`);
  }
  assert.equal(update.progress.typesChecked, update.progress.typesToCheck);
  assert.deepEqual(summary(update.warnings), summary(analyze(model)));
  // The typo and user.0–9.updated → user.updated are all there.
  const unheard = update.warnings.filter((w) => w.kind === 'unheard-dispatch').map((w) => w.id);
  assert.equal(unheard.length, 11);
  assert.ok(unheard.includes('unheard-dispatch:1:enemy.kiled'));
});
