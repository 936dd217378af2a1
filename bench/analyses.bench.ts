// One analyzer run with many event types (issue 17, items 1 and 2), before vs now:
//   1. `user.<id>.updated` dispatched per id (nobody listens), a late attach whose snapshot holds
//      that many subscribed, never-dispatched types, and random names (half of each): the time of
//      one `Analyzer.run()` at 1,000 / 10,000 / 100,000 types — the first run (tokenising, indexing)
//      and the following ones — and how many runs the budgeted near-miss search needs to finish.
//      Target: ≤ 50 ms per run at 10,000 types, ≤ 250 ms at 100,000.
//      "Before" is the old search (every subject against every type, tokens per pair, the old
//      regular expressions), measured at 1,000 types only: it is quadratic.
//   2. Tokenising a name of 65,536 capitals: the old regex on shorter runs (it is quadratic, so the
//      65,536 figure is extrapolated), and the linear tokeniser on the full name.
// Asserts correctness (the near miss `enemy.kiled` → `enemy.killed` is found), not timings.
import { Analyzer, type Warning } from '../extension/src/analyses/index';
import { nameTokens, editDistance } from '../extension/src/analyses/similarity';
import type { Model } from '../extension/src/model/index';
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
  /** The first run (it tokenises and indexes). */
  first: number;
  /** Median of the following runs until complete, plus three once complete (the steady state). */
  later: number;
  runsToComplete: number;
  warnings: readonly Warning[];
}

function timeRuns(model: Model, maxRuns: number): RunFigures {
  const analyzer = new Analyzer(model);
  const t0 = performance.now();
  let update = analyzer.run();
  const first = performance.now() - t0;
  let n = 1;
  const later: number[] = [];
  while (update.progress.partial && n < maxRuns) {
    const t = performance.now();
    update = analyzer.run();
    later.push(performance.now() - t);
    n++;
  }
  const runsToComplete = update.progress.partial ? Infinity : n;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    analyzer.run();
    later.push(performance.now() - t);
  }
  return { first, later: median(later), runsToComplete, warnings: update.warnings };
}

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
      const f = timeRuns(model, maxRuns);
      if (!f.warnings.some((w) => w.kind === 'unheard-dispatch' && w.subjects.types.some((t) => t.type === 'enemy.killed'))) {
        throw new Error(`${scenario} ${n}: the near miss enemy.kiled → enemy.killed was not found`);
      }
      const target = n >= 100_000 ? '≤ 250 ms' : n >= 10_000 ? '≤ 50 ms' : '—';
      rows.push([
        `${scenario}, ${n.toLocaleString('en-US')} types`,
        n <= 1000 ? fmt(before) : `not run (quadratic)`,
        fmt(f.first),
        fmt(f.later),
        Number.isFinite(f.runsToComplete) ? String(f.runsToComplete) : `> ${maxRuns}`,
        String(f.warnings.length),
        target,
        fmt(build),
      ]);
    }
  }
  report(
    `## Analyses with many event types (one \`Analyzer.run()\`)\n\n` +
      markdownTable(['Scenario', 'before: near-miss search alone', 'now: first run', 'now: later runs (median)', 'runs until complete', 'warnings', 'target per run', '(model build)'], rows),
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
