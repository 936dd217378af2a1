// Runs the analyses over the model and keeps the current warning set: each run says what was
// added, what changed (new evidence, re-armed growth) and what no longer holds (removed). Cheap
// enough to run on every throttled model change: the per-type analyses (nobody listens, never
// dispatched) keep their findings between runs and examine only the types the model journaled as
// changed, plus a budgeted slice of the backlog (typeScan.ts); the near-miss name search (the one
// part that compares types with each other) has a work budget per run too, and all of these stop
// when the run's time budget is spent (runDeadline.ts); the rest carries over and `progress` says
// so until it has caught up. The other analyses are linear in what they judge
// and cheap per type, never in dispatches. However many types there are, a run says a bounded number of
// warnings: the per-type analyses group families of look-alike names and cap the rest (typeGroups.ts),
// so building, fingerprinting and sorting warnings stays small too.
import type { Model } from '../model/model';
import { emptyAnalysisState, type Analysis, type AnalysisContext, type AnalysisState } from './context';
import { analyzeChurn } from './churn';
import { analyzeDeadOwners } from './deadOwners';
import { analyzeDepthLimit } from './depthLimit';
import { analyzeListenerGrowth } from './listenerGrowth';
import { forgetChangedBuses } from './libraryBuses';
import { DEFAULT_NEAR_MISS_BUDGET } from './nearMissSearch';
import { analyzeNeverDispatched } from './neverDispatched';
import { resolveAnalysisOptions, type AnalysisOptions, type AnalysisOptionsInput } from './options';
import { analyzeOwnerGone } from './ownerGone';
import { analyzeSlowHandlers } from './slowHandlers';
import { analyzeQueueGrowth } from './queueGrowth';
import { analyzeStarved } from './starved';
import { analyzeThrowingHandlers } from './throwingHandlers';
import { DEFAULT_FAMILY_BUDGET } from './typeGroups';
import { DEFAULT_TIME_BUDGET_MS, monotonicClock, RunDeadline } from './runDeadline';
import { DEFAULT_TYPE_BUDGET, type TypeChanges } from './typeScan';
import { analyzeUnheardDispatch } from './unheardDispatch';
import { WARNING_KINDS, type Severity, type Warning, type WarningDraft, type WarningKind } from './warning';

export const ANALYSES: Readonly<Record<WarningKind, Analysis>> = {
  'listener-growth': analyzeListenerGrowth,
  'dead-owner-listeners': analyzeDeadOwners,
  'owner-gone-still-registered': analyzeOwnerGone,
  'unheard-dispatch': analyzeUnheardDispatch,
  'never-dispatched': analyzeNeverDispatched,
  'subscription-churn': analyzeChurn,
  'slow-handler': analyzeSlowHandlers,
  'throwing-handler': analyzeThrowingHandlers,
  'depth-limit-storm': analyzeDepthLimit,
  'starved-subscriber': analyzeStarved,
  'queue-growth': analyzeQueueGrowth,
};

export interface AnalysisUpdate {
  /** Every warning that holds now, most severe first. */
  readonly warnings: readonly Warning[];
  readonly added: readonly Warning[];
  /** Warnings whose evidence, title or severity changed. */
  readonly changed: readonly Warning[];
  /** Warnings that no longer hold. */
  readonly removed: readonly Warning[];
  readonly progress: AnalysisProgress;
}

/**
 * How complete the last run was. The near-miss search ("did you mean…?") has a work budget per
 * run; when it runs out, the types not yet compared with every candidate are checked in the next
 * runs, and until then their warnings may be missing or name a weaker near miss.
 */
export interface AnalysisProgress {
  /**
   * True while some type is not examined yet (by the per-type analyses, or taken in by listener
   * growth) or its near-miss search is unfinished (the session runs again soon).
   */
  readonly partial: boolean;
  /**
   * Types the per-type analyses still owe a look (changed, or never examined), plus the types whose
   * near-miss search they needed; typesChecked: those searches that are complete (a type whose name
   * family is not worked out yet — see TypeFamilies — is not complete either).
   */
  readonly typesToCheck: number;
  readonly typesChecked: number;
  /**
   * Near-miss work units spent in this run (names tokenised, pairs compared, index look-ups at 1/8):
   * the budget, plus at most the look-ups of the one search that crossed it.
   */
  readonly work: number;
  /** Types the per-type analyses examined in this run (each analysis at most the type budget). */
  readonly typesExamined: number;
}

export const COMPLETE_PROGRESS: AnalysisProgress = { partial: false, typesToCheck: 0, typesChecked: 0, work: 0, typesExamined: 0 };

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

function compareWarnings(a: Warning, b: Warning): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    WARNING_KINDS.indexOf(a.kind) - WARNING_KINDS.indexOf(b.kind) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function fingerprint(w: WarningDraft): string {
  return JSON.stringify([w.severity, w.title, w.evidence, w.subjects]);
}

export interface AnalyzerOptions {
  readonly thresholds?: AnalysisOptionsInput;
  /** Kinds to run; default all. */
  readonly kinds?: readonly WarningKind[];
  /**
   * Work units the near-miss search may spend per run (about one name compared or indexed each);
   * the rest carries over to the next run. Default DEFAULT_NEAR_MISS_BUDGET; Infinity for no cap.
   */
  readonly nearMissBudget?: number;
  /**
   * Names whose family (`user.#.updated`) may be worked out per run; findings beyond it wait in the
   * "N more" group until a later run. Default DEFAULT_FAMILY_BUDGET; Infinity for no cap.
   */
  readonly familyBudget?: number;
  /**
   * Types each per-type analysis may examine per run (changed, due or not examined yet); the rest
   * waits for the next run. Default DEFAULT_TYPE_BUDGET; Infinity for no cap.
   */
  readonly typeBudget?: number;
  /**
   * Wall-clock milliseconds the budgeted parts of a run (examining types, the near-miss search,
   * working out families, taking in types for listener growth) may take; past it they stop (after
   * the run's small floor of work: RunDeadline), and the rest carries over like work beyond the
   * budgets above. Default DEFAULT_TIME_BUDGET_MS; Infinity for
   * no deadline (then only the work budgets bound a run).
   */
  readonly timeBudgetMs?: number;
  /** The clock the time budget is read from, in ms (default `performance.now`). */
  readonly clock?: () => number;
}

export class Analyzer {
  private options: AnalysisOptions;
  private kinds: readonly WarningKind[];
  private current = new Map<string, { warning: Warning; fingerprint: string }>();
  private state: AnalysisState = emptyAnalysisState();
  private sorted: readonly Warning[] = [];
  private generation: number;
  private nearMissBudget: number;
  private familyBudget: number;
  private typeBudget: number;
  private timeBudgetMs: number;
  private readonly deadline: RunDeadline;
  /** Where this analyzer is in the model's type-change journal. */
  private journalCursor: number;
  private readonly changedTypes: number[] = [];
  private lastProgress: AnalysisProgress = COMPLETE_PROGRESS;

  constructor(
    readonly model: Model,
    options: AnalyzerOptions = {},
  ) {
    this.options = resolveAnalysisOptions(options.thresholds);
    this.kinds = checkKinds(options.kinds ?? WARNING_KINDS);
    this.nearMissBudget = checkBudget('nearMissBudget', options.nearMissBudget ?? DEFAULT_NEAR_MISS_BUDGET);
    this.familyBudget = checkBudget('familyBudget', options.familyBudget ?? DEFAULT_FAMILY_BUDGET);
    this.typeBudget = checkBudget('typeBudget', options.typeBudget ?? DEFAULT_TYPE_BUDGET);
    this.timeBudgetMs = checkTimeBudget(options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS);
    const clock = options.clock ?? monotonicClock();
    if (typeof clock !== 'function') throw new TypeError(`Analyzer: clock must be a function, got ${typeof clock}`);
    this.deadline = new RunDeadline(clock);
    this.generation = model.generation;
    // A fresh state examines every type anyway: only changes from now on matter.
    this.journalCursor = model.typeChangeCursor;
  }

  /** How complete the last run was (complete before the first). */
  get progress(): AnalysisProgress {
    return this.lastProgress;
  }

  get warnings(): readonly Warning[] {
    return this.sorted;
  }

  get analysisOptions(): AnalysisOptions {
    return this.options;
  }

  /** New thresholds or kinds apply from the next run. */
  configure(options: AnalyzerOptions): void {
    if (options.thresholds !== undefined) this.options = resolveAnalysisOptions(options.thresholds);
    if (options.kinds !== undefined) this.kinds = checkKinds(options.kinds);
    if (options.nearMissBudget !== undefined) this.nearMissBudget = checkBudget('nearMissBudget', options.nearMissBudget);
    if (options.familyBudget !== undefined) this.familyBudget = checkBudget('familyBudget', options.familyBudget);
    if (options.typeBudget !== undefined) this.typeBudget = checkBudget('typeBudget', options.typeBudget);
    if (options.timeBudgetMs !== undefined) this.timeBudgetMs = checkTimeBudget(options.timeBudgetMs);
  }

  /** Forgets every warning and all re-arming state (`run` also resets the state by itself after `model.clear()`). */
  reset(): void {
    this.current.clear();
    this.state = emptyAnalysisState();
    this.journalCursor = this.model.typeChangeCursor;
    this.sorted = [];
    this.lastProgress = COMPLETE_PROGRESS;
  }

  run(): AnalysisUpdate {
    // The model started over (cleared, or another process): its ids and indices mean new things,
    // so re-arming state goes; the warnings that no longer hold are reported removed below.
    if (this.model.generation !== this.generation) {
      this.generation = this.model.generation;
      this.state = emptyAnalysisState();
    }
    // Everything from here counts against the time budget, including the unbudgeted setup.
    this.deadline.start(this.timeBudgetMs);
    const now = this.model.now;
    const changes = this.readChanges();
    // Before any analysis reads a kept library-bus verdict, whichever kinds run.
    forgetChangedBuses(this.state, this.model, changes);
    const { nearMissMaxDistance, nearMissMinScore } = this.options.unheardDispatch;
    this.state.nearMisses.beginRun(this.model, this.nearMissBudget, changes, this.deadline, { maxDistance: nearMissMaxDistance, minScore: nearMissMinScore });
    this.state.families.beginRun(this.familyBudget, this.deadline);
    const ctx: AnalysisContext = {
      model: this.model,
      options: this.options,
      now,
      state: this.state,
      changes,
      typeBudget: this.typeBudget,
      deadline: this.deadline,
    };
    const next = new Map<string, { warning: Warning; fingerprint: string }>();
    const added: Warning[] = [];
    const changed: Warning[] = [];
    for (const kind of this.kinds) {
      for (const draft of ANALYSES[kind](ctx)) {
        const fp = fingerprint(draft);
        const prev = this.current.get(draft.id);
        const warning = { ...draft, since: prev?.warning.since ?? now } as Warning;
        next.set(draft.id, { warning, fingerprint: fp });
        if (prev === undefined) added.push(warning);
        else if (prev.fingerprint !== fp) changed.push(warning);
      }
    }
    const removed: Warning[] = [];
    for (const [id, prev] of this.current) if (!next.has(id)) removed.push(prev.warning);
    this.current = next;
    this.sorted = [...next.values()].map((e) => e.warning).sort(compareWarnings);
    this.lastProgress = this.runProgress();
    return { warnings: this.sorted, added, changed, removed, progress: this.lastProgress };
  }

  /** The types changed since the last run, from the model's journal (all of them when it cannot say). */
  private readChanges(): TypeChanges {
    const indices = this.changedTypes;
    indices.length = 0;
    const next = this.model.readTypeChanges(this.journalCursor, (i) => indices.push(i));
    if (next < 0) {
      this.journalCursor = this.model.typeChangeCursor;
      return { indices, all: true };
    }
    this.journalCursor = next;
    return { indices, all: false };
  }

  /** Sums the per-type scans: what they still owe and how many of their searches are done. */
  private runProgress(): AnalysisProgress {
    let subjects = 0;
    let searched = 0;
    let waiting = 0;
    let examined = 0;
    let pending = 0;
    const scans = [
      ['unheard-dispatch', this.state.unheardScan],
      ['never-dispatched', this.state.neverDispatchedScan],
    ] as const;
    for (const [kind, scan] of scans) {
      // Only the kinds that ran owe anything.
      if (!this.kinds.includes(kind)) continue;
      const p = scan.progress;
      subjects += p.subjects;
      searched += p.searched;
      // Both scans look at the same types: the larger backlog is the one still owed.
      waiting = Math.max(waiting, p.waiting);
      examined += p.examined;
      pending += p.familiesPending;
    }
    // Listener growth judges only the types it has taken in; the rest are owed a look too.
    if (this.kinds.includes('listener-growth')) waiting = Math.max(waiting, this.state.growthCandidates.progress.waiting);
    return {
      partial: waiting > 0 || searched < subjects || pending > 0,
      typesToCheck: subjects + waiting,
      // Every grouped finding was searched for first, so the ones waiting for their family are among
      // `searched` (counted twice at worst when also unfinished there: the figure errs low, never high).
      typesChecked: Math.max(0, searched - pending),
      work: this.state.nearMisses.progress.work,
      typesExamined: examined,
    };
  }
}

function checkKinds(kinds: readonly WarningKind[]): readonly WarningKind[] {
  for (const k of kinds) if (!(k in ANALYSES)) throw new TypeError(`Analyzer: unknown warning kind "${String(k)}"`);
  return [...kinds];
}

function checkTimeBudget(ms: number): number {
  if (typeof ms !== 'number' || !(ms > 0)) throw new TypeError(`Analyzer: timeBudgetMs must be a number > 0 (or Infinity), got ${String(ms)}`);
  return ms;
}

function checkBudget(name: string, budget: number): number {
  if (typeof budget !== 'number' || !(budget >= 1)) throw new TypeError(`Analyzer: ${name} must be a number ≥ 1 (or Infinity), got ${String(budget)}`);
  return budget;
}

/** One-shot: the warnings that hold for `model` now (complete: no work budget unless one is given). */
export function analyze(model: Model, options: AnalyzerOptions = {}): readonly Warning[] {
  return new Analyzer(model, { nearMissBudget: Infinity, familyBudget: Infinity, typeBudget: Infinity, timeBudgetMs: Infinity, ...options }).run().warnings;
}
