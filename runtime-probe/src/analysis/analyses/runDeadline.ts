// A wall-clock deadline for the budgeted parts of one analyzer run. The work budgets (types
// examined, near-miss units, families) bound what a run does, but not how long it takes: the first
// runs in a process execute code the JIT has not optimised yet and pay for garbage collection that
// later runs do not, several times slower per unit of work. So the budgeted loops also stop when the
// run's time is up, after a minimum of work each (every run moves on, so carrying over ends), and
// the run says it is partial like any other run that carries work over.

/** Wall-clock milliseconds the budgeted parts of a run may take by default. */
export const DEFAULT_TIME_BUDGET_MS = 20;

/** The clock is read once per this many checks (a check is about one type examined or one name compared). */
const CHECK_EVERY = 16;

export class RunDeadline {
  private end = Infinity;
  private checks = 0;
  private passed = false;

  constructor(private readonly clock: () => number) {}

  /** Starts a run that may take `budgetMs` from now (Infinity: no deadline). */
  start(budgetMs: number): void {
    this.passed = false;
    this.checks = 0;
    this.end = budgetMs === Infinity ? Infinity : this.clock() + budgetMs;
  }

  /** Whether the run's time is up (once up, it stays up until the next `start`). */
  get expired(): boolean {
    if (this.passed) return true;
    if (this.end === Infinity) return false;
    if (++this.checks % CHECK_EVERY !== 0) return false;
    this.passed = this.clock() >= this.end;
    return this.passed;
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
