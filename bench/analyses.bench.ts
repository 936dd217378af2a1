// One analyzer run with many event types (issue 17, items 1 and 2), before vs now:
//   1. `user.<id>.updated` dispatched per id (nobody listens), a late attach whose snapshot holds
//      that many subscribed, never-dispatched types, and random names (half of each): the time of
//      one `Analyzer.run()` at 1,000 / 10,000 / 100,000 types — the first run (types examined,
//      tokenising, indexing, name families: each budgeted per run, and all stopped by the run's
//      20 ms time budget after a minimum of work) and the following ones, wall and
//      CPU time — how many runs the budgeted analyses need to finish, the most work one run did
//      (types examined, near-miss units, warnings added/changed/removed), and what a run on the
//      unchanged model examines once complete (the analyzer is incremental: nothing).
//      Target: ≤ 50 ms per run at 10,000 types, ≤ 250 ms at 100,000.
//      "Before" is the old search (every subject against every type, tokens per pair, the old
//      regular expressions), measured at 1,000 types only: it is quadratic.
//   2. Tokenising a name of 65,536 capitals: the old regex on shorter runs (it is quadratic, so the
//      65,536 figure is extrapolated), and the linear tokeniser on the full name.
// Asserts correctness (the near miss `enemy.kiled` → `enemy.killed` is found), not timings.
import { cpus, loadavg } from 'node:os';
import { Analyzer, type AnalysisUpdate, type Warning } from '../runtime-probe/src/analysis/analyses/index';
import { nameTokens, editDistance } from '../runtime-probe/src/analysis/analyses/similarity';
import type { Model } from '../runtime-probe/src/analysis/model/index';
import { manyTypesModel, type ManyTypesScenario } from '../test/unit/analyses/manyTypes';
import { markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchRounds } from './lib/settings';

function oldTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase());
}

/** The old pairwise near-miss test (tokens recomputed per pair). */
function oldNearMiss(name: string, candidate: string): boolean {
  if (name === candidate) return false;
  const a = name.toLowerCase();
  const b = candidate.toLowerCase();
  const ta = oldTokens(name);
  const tb = oldTokens(candidate);
  if (ta.length > 0 && ta.join(' ') === tb.join(' ')) return true;
  if (ta.length > 1 && ta.length === tb.length && [...ta].sort().join(' ') === [...tb].sort().join(' ')) return true;
  const longer = Math.max(a.length, b.length);
  const allowed = Math.min(2, Math.floor(longer / 4));
  if (allowed < 1) return false;
  const d = editDistance(a, b, allowed);
  return d <= allowed && 1 - d / longer >= 0.75;
}

/** The old search's cost for one run: every unheard or never-dispatched type against every type. */
function oldSearchMs(model: Model): number {
  const types = model.allTypes();
  const t0 = performance.now();
  let found = 0;
  for (const t of types) {
    const subject = t.unheard > 0 || (t.registeredCount > 0 && t.dispatches === 0);
    if (t.isWildcard || !subject) continue;
    for (const o of types) if (o !== t && !o.isWildcard && (o.name === t.name || oldNearMiss(t.name, o.name))) found++;
  }
  if (found < 0) throw new Error('unreachable');
  return performance.now() - t0;
}

const fmt = (v: number): string => (Number.isNaN(v) ? '—' : v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(v < 10 ? 2 : 1)} ms`);

interface RunFigures {
  /** The first run (it tokenises and indexes): wall and CPU ms. */
  first: number;
  firstCpu: number;
  /** Median of the following runs until complete, plus three once complete (the steady state). */
  later: number;
  laterCpu: number;
  /** The most near-miss work units and warnings (added + changed + removed) any one run spent / reported. */
  maxWork: number;
  maxReported: number;
  /** The most types one run examined, and how many the last run (on the unchanged, complete model) examined. */
  maxExamined: number;
  steadyExamined: number;
  runsToComplete: number;
  warnings: readonly Warning[];
}

/** One run, timed by the wall clock and by this process's CPU time (the machine may be shared). */
function timedRun(analyzer: Analyzer): { update: AnalysisUpdate; wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const update = analyzer.run();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { update, wall, cpu: (c.user + c.system) / 1000 };
}

function timeRuns(model: Model, maxRuns: number): RunFigures {
  const analyzer = new Analyzer(model);
  const firstRun = timedRun(analyzer);
  let update = firstRun.update;
  let maxWork = update.progress.work;
  let maxReported = update.added.length + update.changed.length + update.removed.length;
  let maxExamined = update.progress.typesExamined;
  let n = 1;
  const later: number[] = [];
  const laterCpu: number[] = [];
  const more = (): void => {
    const r = timedRun(analyzer);
    update = r.update;
    later.push(r.wall);
    laterCpu.push(r.cpu);
    maxWork = Math.max(maxWork, update.progress.work);
    maxReported = Math.max(maxReported, update.added.length + update.changed.length + update.removed.length);
    maxExamined = Math.max(maxExamined, update.progress.typesExamined);
  };
  while (update.progress.partial && n < maxRuns) {
    more();
    n++;
  }
  const runsToComplete = update.progress.partial ? Infinity : n;
  const warnings = update.warnings;
  for (let i = 0; i < 3; i++) more();
  const steadyExamined = update.progress.typesExamined;
  return {
    first: firstRun.wall,
    firstCpu: firstRun.cpu,
    later: median(later),
    laterCpu: median(laterCpu),
    maxWork,
    maxReported,
    maxExamined,
    steadyExamined,
    runsToComplete,
    warnings,
  };
}

/**
 * One whole run on main before the grouping of per-type warnings (the previous report, wall time
 * under a load average of ~10 on 2 cores): first run / later runs / runs to complete.
 */
const MAIN_BEFORE: Partial<Record<string, string>> = {
  'user-updates 10000': '305 ms / 52 ms / 4',
  'never-dispatched-snapshot 10000': '879 ms / 498 ms / 4',
  'random-names 10000': '751 ms / 425 ms / > 20',
};

export async function run(): Promise<void> {
  const maxRuns = benchRounds(40);
  const sizes = (process.env.BENCH_ANALYSES_SIZES ?? '1000,10000,100000').split(',').map(Number);
  const scenarios: ManyTypesScenario[] = ['user-updates', 'never-dispatched-snapshot', 'random-names'];
  const rows: string[][] = [];
  for (const scenario of scenarios) {
    for (const n of sizes) {
      const b0 = performance.now();
      const model = manyTypesModel(scenario, n);
      const build = performance.now() - b0;
      const before = n <= 1000 ? oldSearchMs(model) : Number.NaN;
      // The garbage of building the model is not the analyzer's: collect it, and let the
      // background sweeping end (process CPU time counts the GC's threads too).
      (globalThis as { gc?: () => void }).gc?.();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const f = timeRuns(model, maxRuns);
      if (
        Number.isFinite(f.runsToComplete) &&
        !f.warnings.some((w) => w.kind === 'unheard-dispatch' && w.subjects.types.some((t) => t.type === 'enemy.killed'))
      ) {
        throw new Error(`${scenario} ${n}: the near miss enemy.kiled → enemy.killed was not found`);
      }
      const target = n >= 100_000 ? '≤ 250 ms' : n >= 10_000 ? '≤ 50 ms' : '—';
      rows.push([
        `${scenario}, ${n.toLocaleString('en-US')} types`,
        n <= 1000 ? fmt(before) : `not run (quadratic)`,
        MAIN_BEFORE[`${scenario} ${n}`] ?? '—',
        `${fmt(f.first)} (${fmt(f.firstCpu)} CPU)`,
        `${fmt(f.later)} (${fmt(f.laterCpu)} CPU)`,
        Number.isFinite(f.runsToComplete) ? String(f.runsToComplete) : `> ${maxRuns}`,
        `${f.maxExamined.toLocaleString('en-US')} / ${f.maxWork.toLocaleString('en-US')} / ${f.maxReported.toLocaleString('en-US')}`,
        Number.isFinite(f.runsToComplete) ? f.steadyExamined.toLocaleString('en-US') : '(not complete)',
        String(f.warnings.length),
        target,
        fmt(build),
      ]);
    }
  }
  report(
    `## Analyses with many event types (one whole \`Analyzer.run()\`)\n\n` +
      `Load average at the start: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} on ${cpus().length} cores (wall times inflate with it; CPU time is this process's).\n\n` +
      markdownTable(
        [
          'Scenario',
          'before: old near-miss search alone',
          'before: main, whole run (first / later / runs)',
          'now: first run',
          'now: later runs (median)',
          'runs until complete',
          'per run at most: types examined / near-miss work / warnings reported',
          'types examined by a run once complete',
          'warnings',
          'target per run',
          '(model build)',
        ],
        rows,
      ),
  );

  // Tokenising runs of capitals.
  const tokRows: string[][] = [];
  let oldAt = 0;
  let oldLength = 0;
  for (const length of [1024, 2048, 4096]) {
    const name = 'A'.repeat(length);
    const t = performance.now();
    oldTokens(name);
    oldAt = performance.now() - t;
    oldLength = length;
    tokRows.push([`${length.toLocaleString('en-US')} capitals`, fmt(oldAt), '']);
  }
  const big = 'A'.repeat(65_536);
  const reps = 1000;
  const t1 = performance.now();
  let tokens = 0;
  for (let i = 0; i < reps; i++) tokens += nameTokens(big).length;
  const now = (performance.now() - t1) / reps;
  if (tokens !== reps) throw new Error('the 65,536-capital name should give one token');
  tokRows.push(['65,536 capitals', `~${fmt(oldAt * (65_536 / oldLength) ** 2)} (extrapolated, quadratic)`, fmt(now)]);
  report(`## Tokenising a name of capitals\n\n${markdownTable(['Name', 'before (regex)', 'now (one pass, first 256 chars)'], tokRows)}`);
}
