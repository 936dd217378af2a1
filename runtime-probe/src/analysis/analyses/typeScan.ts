// The per-type analyses (nobody listens, never dispatched) kept incrementally. Looking at every
// type in every run was the first run's cost and most of every later one at 100,000 types, so
// instead each analysis keeps its findings by type index between runs and, per run, examines only:
// - the types the model journaled as changed since the last run (`Model.readTypeChanges`),
// - types whose verdict turns with time alone (a subscription's grace period ending: `recheckAt`),
// - types never examined yet (the first run's backlog, and new types),
// - types whose near-miss search is unfinished (while the search has budget left) — every
//   searched type again when its pool grew (a new name may be its near miss), and the typos when
//   a near miss may have stopped counting (`requeueTypos`);
// at most `budget` types per run; the rest waits and the run says it is partial. Grouping the
// findings into warnings is redone only when a finding changed (or a family was still pending),
// so an unchanged model's next run examines nothing and regroups nothing.
import type { EventTypeState } from '../model/entities';
import type { RunDeadline } from './runDeadline';
import { groupFindings, type GroupedFindings, type TypeFamilies, type TypeFinding } from './typeGroups';

/**
 * Types each per-type analysis may examine per run (a few microseconds each: its subscriptions,
 * its near-miss matches, one finding record). The rest carries over to the next run.
 */
export const DEFAULT_TYPE_BUDGET = 10_000;

/**
 * Types each scan examines per run even when the run's deadline has passed, so that every run
 * moves on (a small app's types fit in the run's floor: RUN_FLOOR in runDeadline.ts).
 */
export const MIN_TYPES_PER_RUN = 32;

/** Types the listener-growth candidates take in per run even when the run's deadline has passed. */
export const MIN_CANDIDATE_OFFERS = 512;

/** What the analyzer read from the model's type-change journal for this run. */
export interface TypeChanges {
  /** Indices of types that changed since the previous run (a type may come twice). */
  readonly indices: readonly number[];
  /** The journal could not say (first read after a reset, or the reader fell behind): assume every type changed. */
  readonly all: boolean;
}

/** Where one type's near-miss search stands, as the examining analysis saw it. */
export type SearchState = 'none' | 'incomplete' | 'complete';

export interface Examined<F extends TypeFinding> {
  readonly finding: F | null;
  readonly search: SearchState;
  /** Record time at which the verdict may change with no record about the type (Infinity: never). */
  readonly recheckAt: number;
}

/** How far one scan got (the analyzer sums scans into AnalysisProgress). */
export interface TypeScanProgress {
  /** Types examined in the last run. */
  readonly examined: number;
  /** Types waiting to be examined (changed, due, or never examined yet). */
  readonly waiting: number;
  /** Types needing a near-miss search, and how many of those searches are complete. */
  readonly subjects: number;
  readonly searched: number;
  /** Findings grouped in the last grouping whose family was still pending. */
  readonly familiesPending: number;
  /** Whether the last run regrouped the findings (false: nothing changed, the grouping was kept). */
  readonly regrouped: boolean;
}

const NONE = 0;
const INCOMPLETE = 1;
const COMPLETE = 2;

export class TypeScan<F extends TypeFinding> {
  private findings: (F | undefined)[] = [];
  private search = new Uint8Array(0);
  /** Types with index ≥ this were never examined. */
  private scannedUpTo = 0;
  private readonly queue: number[] = [];
  private head = 0;
  private queued = new Uint8Array(0);
  /** Types whose search is unfinished, examined again while the search has budget. */
  private retry: number[] = [];
  /** Types to examine again at a record time (their grace periods end then). */
  private dueIndex: number[] = [];
  private dueAt: number[] = [];
  private inRetry = new Uint8Array(0);
  /** Types whose finding names a near miss. */
  private readonly typos = new Set<number>();
  private poolSize = 0;
  private subjects = 0;
  private searched = 0;
  private findingsChanged = true;
  private grouped: GroupedFindings<F> = { singles: [], groups: [] };
  private familiesPending = 0;
  private examined = 0;
  private regrouped = false;
  private optionsKey: unknown = undefined;

  get progress(): TypeScanProgress {
    return {
      examined: this.examined,
      waiting: this.waiting(),
      subjects: this.subjects,
      searched: this.searched,
      familiesPending: this.familiesPending,
      regrouped: this.regrouped,
    };
  }

  /**
   * One run: takes in the changes, examines at most `budget` types with `examine` (fewer once the
   * run's `deadline` has passed, but at least MIN_TYPES_PER_RUN of those owed), and returns the
   * findings grouped (the previous grouping when no finding changed). `optionsKey` is the object
   * the verdicts depend on (thresholds): a new one means every type is examined again. `poolSize`
   * is the size of the near-miss pool the searches compare with: when it grew, every finished
   * search has new names to compare.
   */
  run(
    types: readonly EventTypeState[],
    changes: TypeChanges,
    now: number,
    budget: number,
    deadline: RunDeadline,
    optionsKey: unknown,
    poolSize: number,
    searchExhausted: () => boolean,
    families: TypeFamilies,
    examine: (t: EventTypeState) => Examined<F>,
  ): GroupedFindings<F> {
    this.grow(types.length);
    if (changes.all || optionsKey !== this.optionsKey) {
      this.optionsKey = optionsKey;
      this.scannedUpTo = 0;
      this.queue.length = 0;
      this.head = 0;
      this.queued.fill(0);
    } else {
      for (const i of changes.indices) this.enqueue(i);
    }
    if (poolSize > this.poolSize) this.reopenSearches();
    this.poolSize = poolSize;
    this.takeDue(now);
    this.examined = 0;
    // Within the budget, and within the run's time after the first few.
    const more = (): boolean => this.examined < budget && !deadline.stops(this.examined, MIN_TYPES_PER_RUN);
    const visit = (i: number): void => {
      this.examined++;
      deadline.spend(1);
      this.apply(i, examine(types[i]), now);
    };
    // Changed and due types first, then the never-examined ones, then unfinished searches.
    while (this.head < this.queue.length && more()) {
      const i = this.queue[this.head++];
      this.queued[i] = 0;
      if (i < types.length) visit(i);
    }
    while (this.scannedUpTo < types.length && more()) visit(this.scannedUpTo++);
    const retry = this.retry;
    this.retry = [];
    let r = 0;
    for (; r < retry.length && more() && !searchExhausted(); r++) {
      const i = retry[r];
      this.inRetry[i] = 0;
      if (this.search[i] === INCOMPLETE) visit(i);
    }
    for (; r < retry.length; r++) this.retry.push(retry[r]);
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.regrouped = this.findingsChanged || this.familiesPending > 0;
    if (this.regrouped) {
      const list: F[] = [];
      for (let i = 0; i < this.findings.length; i++) {
        const f = this.findings[i];
        if (f !== undefined) list.push(f);
      }
      const before = families.progress.pending;
      this.grouped = groupFindings(list, families);
      this.familiesPending = families.progress.pending - before;
      this.findingsChanged = false;
    } else families.notePending(this.familiesPending);
    return this.grouped;
  }

  /** A near miss of some typo may have stopped counting (its listeners went): look at the typos again. */
  requeueTypos(): void {
    for (const i of this.typos) this.enqueue(i);
  }

  /** Every finished search has new pool members to compare with. */
  private reopenSearches(): void {
    for (let i = 0; i < this.scannedUpTo; i++) {
      if (this.search[i] !== COMPLETE) continue;
      this.search[i] = INCOMPLETE;
      this.searched--;
      this.pushRetry(i);
    }
  }

  private pushRetry(i: number): void {
    if (this.inRetry[i] === 1) return;
    this.inRetry[i] = 1;
    this.retry.push(i);
  }

  /** Types whose examination is owed: queued (changed or due), or never examined. */
  private waiting(): number {
    return this.queue.length - this.head + Math.max(0, this.findings.length - this.scannedUpTo);
  }

  private apply(i: number, r: Examined<F>, now: number): void {
    const old = this.findings[i];
    if (r.finding !== null) {
      this.findings[i] = r.finding;
      this.findingsChanged = true;
      if (r.finding.typo) this.typos.add(i);
      else this.typos.delete(i);
    } else if (old !== undefined) {
      this.findings[i] = undefined;
      this.findingsChanged = true;
      this.typos.delete(i);
    }
    const was = this.search[i];
    const is = r.search === 'none' ? NONE : r.search === 'incomplete' ? INCOMPLETE : COMPLETE;
    if (was !== NONE) this.subjects--;
    if (was === COMPLETE) this.searched--;
    if (is !== NONE) this.subjects++;
    if (is === COMPLETE) this.searched++;
    this.search[i] = is;
    if (is === INCOMPLETE) this.pushRetry(i);
    if (r.recheckAt !== Infinity && r.recheckAt > now) {
      this.dueIndex.push(i);
      this.dueAt.push(r.recheckAt);
    }
  }

  private enqueue(i: number): void {
    // Never-examined types are examined anyway; queued ones once.
    if (i >= this.scannedUpTo || this.queued[i] === 1) return;
    this.queued[i] = 1;
    this.queue.push(i);
  }

  private takeDue(now: number): void {
    let kept = 0;
    for (let k = 0; k < this.dueIndex.length; k++) {
      if (this.dueAt[k] <= now) this.enqueue(this.dueIndex[k]);
      else {
        this.dueIndex[kept] = this.dueIndex[k];
        this.dueAt[kept] = this.dueAt[k];
        kept++;
      }
    }
    this.dueIndex.length = kept;
    this.dueAt.length = kept;
  }

  private grow(n: number): void {
    if (this.findings.length < n) this.findings.length = n;
    if (this.search.length >= n) return;
    const size = Math.max(n, this.search.length * 2, 64);
    const search = new Uint8Array(size);
    search.set(this.search);
    this.search = search;
    const queued = new Uint8Array(size);
    queued.set(this.queued);
    this.queued = queued;
    const inRetry = new Uint8Array(size);
    inRetry.set(this.inRetry);
    this.inRetry = inRetry;
  }
}

/** How far the candidates' intake got (for the analyzer's progress). */
export interface TypeCandidatesProgress {
  /** Types tested in the last run (changed ones, and never-tested ones up to the deadline). */
  readonly tested: number;
  /** Types never tested yet (the run's deadline stopped the intake): their verdicts are owed. */
  readonly waiting: number;
}

/**
 * The types an analysis must judge in a run, kept from the journal: a type is tested (`qualifies`)
 * when it is new or changed, and kept while it qualifies. For analyses where most types can never
 * give a finding (listener growth needs many listeners): no pass over every type per run. The
 * types never tested yet (all of them in the first run, 100,000 after a late attach) are taken in
 * from a cursor until the run's deadline (after MIN_CANDIDATE_OFFERS), the rest in later runs.
 */
export class TypeCandidates {
  private readonly members = new Set<number>();
  private offeredUpTo = 0;
  private key: unknown = undefined;
  private tested = 0;
  private total = 0;

  get progress(): TypeCandidatesProgress {
    return { tested: this.tested, waiting: this.total - this.offeredUpTo };
  }

  /** The candidates after this run's changes, in type order. `key`: a new one tests every type again. */
  update(types: readonly EventTypeState[], changes: TypeChanges, key: unknown, deadline: RunDeadline, qualifies: (t: EventTypeState) => boolean): number[] {
    this.tested = 0;
    this.total = types.length;
    const test = (i: number): void => {
      this.tested++;
      const t = types[i];
      if (t !== undefined && qualifies(t)) this.members.add(i);
      else this.members.delete(i);
    };
    if (changes.all || key !== this.key) {
      // Every type is tested again, from the cursor: the members known so far stay (and are judged
      // on what they are now) until it passes them, so what still holds is not dropped meanwhile.
      this.key = key;
      this.offeredUpTo = 0;
    } else for (const i of changes.indices) if (i < this.offeredUpTo) test(i);
    let offered = 0;
    for (; this.offeredUpTo < types.length; this.offeredUpTo++) {
      if (deadline.stops(offered, MIN_CANDIDATE_OFFERS)) break;
      offered++;
      deadline.spend(1);
      test(this.offeredUpTo);
    }
    return [...this.members].sort((a, b) => a - b);
  }
}
