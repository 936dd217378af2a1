// The analyzer is incremental (issue 17 item 1): the model journals which event types changed, and
// the per-type analyses (nobody listens, never dispatched) keep their findings between runs and
// examine only the changed types plus a budgeted slice of the backlog. These tests count the work
// (types examined, regroupings), never time it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer, analyze, type Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder } from '../model/streamBuilder';
import { manyTypesModel } from './manyTypes';

const summary = (ws: readonly Warning[]): string[] => ws.map((w) => `${w.id} | ${w.severity} | ${w.title} | ${w.explanation}`);

interface ScanProgress {
  readonly examined: number;
  readonly regrouped: boolean;
}

/** The per-type scans' progress (analysis state is internal; its progress is what these tests read). */
function scansOf(analyzer: Analyzer): { unheard: ScanProgress; never: ScanProgress } {
  const state = (analyzer as unknown as { state: { unheardScan: { progress: ScanProgress }; neverDispatchedScan: { progress: ScanProgress } } }).state;
  return { unheard: state.unheardScan.progress, never: state.neverDispatchedScan.progress };
}

function runUntilComplete(analyzer: Analyzer, maxRuns: number, each: (u: ReturnType<Analyzer['run']>) => void = () => {}): ReturnType<Analyzer['run']> {
  let update = analyzer.run();
  each(update);
  let runs = 1;
  while (update.progress.partial) {
    assert.ok(runs++ < maxRuns, `still partial after ${maxRuns} runs`);
    update = analyzer.run();
    each(update);
  }
  return update;
}

test("an unchanged model's next run examines no type and regroups nothing; one changed type is the only one examined", { timeout: 300_000 }, () => {
  const model = manyTypesModel('user-updates', 10_000);
  const analyzer = new Analyzer(model, { timeBudgetMs: Infinity });
  runUntilComplete(analyzer, 60);
  const quiet = analyzer.run();
  assert.equal(quiet.progress.typesExamined, 0);
  assert.equal(quiet.progress.partial, false);
  assert.deepEqual([quiet.added.length, quiet.changed.length, quiet.removed.length], [0, 0, 0]);
  const scans = scansOf(analyzer);
  assert.equal(scans.unheard.regrouped, false);
  assert.equal(scans.never.regrouped, false);

  // One more unheard dispatch of one of the 10,000 types: each per-type analysis looks at it alone.
  model.applyRecord({
    kind: 'dispatch',
    seq: 999_999,
    bus: 1,
    type: 'enemy.kiled',
    start: model.now + 1,
    duration: 0.01,
    delivered: 0,
    consumedBy: 0,
    depth: 0,
    parentSeq: 0,
    site: null,
  });
  const next = analyzer.run();
  assert.ok(next.progress.typesExamined <= 2, `examined ${next.progress.typesExamined}`);
  assert.equal(next.progress.partial, false);
  // Its warning (a near miss of `enemy.killed`) counts the new dispatch.
  const typo = next.changed.find((w) => w.id === 'unheard-dispatch:1:enemy.kiled');
  assert.ok(typo?.kind === 'unheard-dispatch' && typo.evidence.unheard === 2, 'the warning counts the new dispatch');
  assert.deepEqual(summary(next.warnings), summary(analyze(model)));
});

test(
  'the first run over a snapshot of many never-dispatched types examines at most the type budget; later runs reach the uncapped answer',
  { timeout: 300_000 },
  () => {
    const n = 10_000;
    const typeBudget = 1_000;
    const model = manyTypesModel('never-dispatched-snapshot', n);
    const analyzer = new Analyzer(model, { typeBudget, timeBudgetMs: Infinity });
    let runs = 0;
    const final = runUntilComplete(analyzer, 40, (u) => {
      runs++;
      assert.ok(scansOf(analyzer).never.examined <= typeBudget, `run ${runs}: ${scansOf(analyzer).never.examined} examined`);
      assert.ok(scansOf(analyzer).unheard.examined <= typeBudget);
      // Partial until every type was examined once.
      if (runs * typeBudget < n) assert.equal(u.progress.partial, true);
    });
    assert.ok(runs >= n / typeBudget, `complete after ${runs} runs`);
    assert.deepEqual(summary(final.warnings), summary(analyze(model)));
    assert.equal(analyzer.run().progress.typesExamined, 0);
  },
);

test('a subscription whose grace period ends with no record about its type is judged without a pass over every type', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'level.loaded', label: 'Loader' });
  s.subscribe({ id: 2, type: 'player.spawned', label: 'Spawner' });
  s.dispatch({ type: 'player.spawned', handlers: [{ sub: 2 }] });
  s.into(model);
  const analyzer = new Analyzer(model, { timeBudgetMs: Infinity });
  let u = analyzer.run();
  assert.deepEqual(
    u.warnings.filter((w) => w.kind === 'never-dispatched'),
    [],
  );
  // Time passes, nothing is recorded: the grace period of `level.loaded`'s subscription ends.
  model.advanceTime(model.now + 60_000);
  u = analyzer.run();
  assert.deepEqual(
    u.added.map((w) => w.id),
    ['never-dispatched:1:level.loaded'],
  );
  assert.ok(u.progress.typesExamined <= 1, `examined ${u.progress.typesExamined}`);
});

test('a typo stops being reported when its near miss loses its listeners, and a new near miss is found for a kept finding', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'enemy.killed', label: 'KillFeed' });
  s.dispatch({ type: 'enemy.kiled' });
  s.into(model);
  const analyzer = new Analyzer(model, { timeBudgetMs: Infinity });
  assert.deepEqual(
    analyzer.run().warnings.map((w) => w.id),
    ['unheard-dispatch:1:enemy.kiled'],
  );
  s.unsubscribe(1, 'dispose');
  s.into(model);
  assert.deepEqual(
    analyzer.run().warnings.filter((w) => w.kind === 'unheard-dispatch'),
    [],
  );
  // Listened to again, under another name close to it: the unchanged unheard type finds it.
  s.subscribe({ id: 2, type: 'enemy.killd', label: 'KillFeed' });
  s.into(model);
  const u = analyzer.run();
  const unheard = u.warnings.find((w) => w.id === 'unheard-dispatch:1:enemy.kiled');
  assert.ok(unheard?.kind === 'unheard-dispatch' && unheard.evidence.nearMisses[0]?.type === 'enemy.killd');
  assert.deepEqual(summary(u.warnings), summary(analyze(model)));
});

test('the model journals each changed type once between reads, and says when a reader fell behind', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'a.b', label: 'A' });
  for (let i = 0; i < 5; i++) s.dispatch({ type: 'a.b', handlers: [{ sub: 1 }] });
  s.dispatch({ type: 'c.d' });
  s.into(model);
  const seen: number[] = [];
  const cursor = model.readTypeChanges(0, (i) => seen.push(i));
  assert.deepEqual(seen.sort(), [0, 1]);
  const again: number[] = [];
  assert.equal(
    model.readTypeChanges(cursor, (i) => again.push(i)),
    cursor,
  );
  assert.deepEqual(again, []);
  s.dispatch({ type: 'c.d' });
  s.into(model);
  const after: number[] = [];
  model.readTypeChanges(cursor, (i) => after.push(i));
  assert.deepEqual(after, [1]);
  // The journal stays bounded while another reader keeps reading: a reader left far behind (its
  // changes were dropped) is told to look at everything.
  let active = model.typeChangeCursor;
  for (let i = 0; i < 70_000; i++) {
    model.applyRecord({
      kind: 'dispatch',
      seq: 10 + i,
      bus: 1,
      type: 'c.d',
      start: model.now,
      duration: 0,
      delivered: 0,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
    active = model.readTypeChanges(active, () => {});
  }
  assert.ok(active - model.typeChangeCursor === 0);
  assert.equal(
    model.readTypeChanges(cursor, () => {}),
    -1,
  );
});
