// A wall-clock deadline for the budgeted parts of one analyzer run. The work budgets (types
// examined, near-miss units, families) bound what a run does, but not how long it takes: the first
// runs in a process execute code the JIT has not optimised yet and pay for garbage collection that
// later runs do not, several times slower per unit of work. So the budgeted loops also stop when the
// run's time is up, and the run says it is partial like any other run that carries work over.
//
// What a run does whatever the clock says is small and counted from the run's start, not added per
// part after the deadline: the run as a whole does RUN_FLOOR units (so a small app is analysed in
// one run however slow that run is), and each part a few units of its own (so every part moves on
// in every run). Per-part minimums of hundreds of types each, granted past the deadline, were most
// of a slow first run: 20 ms of budget, then 30–80 ms of minimums in code the JIT had not warmed.

/** Wall-clock milliseconds the budgeted parts of a run may take by default. */
export const DEFAULT_TIME_BUDGET_MS = 20;

/**
 * Work units (about one type looked at, one name compared or filed) a run does in all its budgeted
 * parts together before its deadline can stop it: a small app's whole analysis (a few dozen types)
 * fits, so it is never partial; in a large app the first milliseconds do far more than this.
 */
export const RUN_FLOOR = 2_000;

/** The clock is read once per this many checks (a check is about one type examined or one name compared). */
const CHECK_EVERY = 16;

export class RunDeadline {
  private end = Infinity;
  private checks = 0;
  private passed = false;
  private spentUnits = 0;

  constructor(private readonly clock: () => number) {}

  /** Starts a run that may take `budgetMs` from now (Infinity: no deadline). */
  start(budgetMs: number): void {
    this.passed = false;
    this.checks = 0;
    this.spentUnits = 0;
    this.end = budgetMs === Infinity ? Infinity : this.clock() + budgetMs;
  }

  /** Counts `units` of work a budgeted part did in this run (towards RUN_FLOOR). */
  spend(units: number): void {
    this.spentUnits += units;
  }

  /** Work units the budgeted parts reported in this run. */
  get spent(): number {
    return this.spentUnits;
  }

  /** Whether the run's time is up (once up, it stays up until the next `start`). */
  get expired(): boolean {
    if (this.passed) return true;
    if (this.end === Infinity) return false;
    if (++this.checks % CHECK_EVERY !== 0) return false;
    this.passed = this.clock() >= this.end;
    return this.passed;
  }

  /**
   * Whether a budgeted part that has done `done` units in this run must stop: the run's time is up,
   * the run as a whole has done RUN_FLOOR units, and this part its own `minimum`.
   */
  stops(done: number, minimum: number): boolean {
    return done >= minimum && this.spentUnits >= RUN_FLOOR && this.expired;
  }
}

/** A deadline that never passes (a one-shot `analyze`, or state built outside an analyzer). */
export const NO_DEADLINE: RunDeadline = new RunDeadline(() => 0);

/**
 * `performance.now` where the host has it (Node, browsers, workers), else `Date.now`. Read through
 * `globalThis`: the analyses are typed against the ES library alone, which declares no `performance`.
 */
export function monotonicClock(): () => number {
  const perf = (globalThis as { performance?: { now?: () => number } }).performance;
  return perf !== undefined && typeof perf.now === 'function' ? () => perf.now!() : () => Date.now();
}
