// The near-miss search behind "did you mean…?": for a type that nobody hears or that is never
// dispatched, the similar names among the types that *are* listened to / dispatched.
//
// Comparing every such type with every other type is quadratic (an app dispatching
// `user.${id}.updated` for 5,000 ids blocked the host for 92 s per run), so:
// - names are tokenised once per type (the key cache, by type index; the analyzer drops the whole
//   search when the model starts over);
// - the other side of a comparison is a pool — the types ever seen listened to, or ever seen
//   dispatched (membership only grows, so what was checked stays checked) — indexed by exact name,
//   by words, by sorted words and by name length, so a type is compared only with the pool
//   members those buckets name (same name, same words, or a length within the edit distance);
// - each run has a work budget (comparisons plus names indexed); when it runs out the rest
//   carries over to the next run and the run says it was partial (`progress`).
import type { EventTypeState } from '../model/entities';
import type { Model } from '../model/model';
import { nameKey, nearMissOfKeys, type NameKey } from './similarity';
import type { NearMissEvidence } from './warning';

export type NearMissPoolKind = 'listened' | 'dispatched';

/** Whether a pool member counts now (the pools keep every type that ever qualified). */
export const POOL_ACCEPTS: Readonly<Record<NearMissPoolKind, (t: EventTypeState) => boolean>> = {
  listened: (t) => t.registeredCount > 0,
  dispatched: (t) => t.dispatches > 0,
};

/** Default work units per analyzer run (one unit ≈ one name compared or indexed, ~0.1–1 µs). */
export const DEFAULT_NEAR_MISS_BUDGET = 40_000;

/**
 * Matches kept per searched type, best scores first: only the top few are shown, and a name with
 * thousands of near misses (`user.1.updated`… `user.9999.updated`) must not keep them all.
 */
const MAX_MATCHES_KEPT = 64;

export interface NearMissMatch {
  readonly index: number;
  readonly reason: NearMissEvidence['reason'];
  readonly score: number;
}

interface SubjectProgress {
  /** Pool positions below this are compared. */
  checkedUpTo: number;
  readonly matches: NearMissMatch[];
}

/** How far this run's searches got (the analyzer reports it as `AnalysisProgress`). */
export interface NearMissRunProgress {
  /** Types searched for in this run (per pool), and how many of those searches are complete. */
  readonly searched: number;
  readonly complete: number;
  /** Work units spent in this run. */
  readonly work: number;
}

class Pool {
  /** Type indices in the order they joined. */
  readonly members: number[] = [];
  /** 1 for type indices that joined. */
  private joinedFlags = new Uint8Array(0);
  /** members[0..indexed) are in the buckets. */
  indexed = 0;
  // Buckets hold pool positions in ascending order (members are indexed in order).
  readonly byName = new Map<string, number[]>();
  readonly byWords = new Map<string, number[]>();
  readonly bySortedWords = new Map<string, number[]>();
  readonly byLength = new Map<number, number[]>();
  readonly subjects = new Map<number, SubjectProgress>();
  syncedRun = -1;

  constructor(readonly kind: NearMissPoolKind) {}

  /** Adds every type that qualifies now and has not joined yet: O(types), no tokenising. */
  sync(types: readonly EventTypeState[]): void {
    if (this.joinedFlags.length < types.length) {
      const grown = new Uint8Array(Math.max(types.length, this.joinedFlags.length * 2));
      grown.set(this.joinedFlags);
      this.joinedFlags = grown;
    }
    const accepts = POOL_ACCEPTS[this.kind];
    for (let i = 0; i < types.length; i++) {
      if (this.joinedFlags[i] === 1) continue;
      const t = types[i];
      if (t.isWildcard || !accepts(t)) continue;
      this.joinedFlags[i] = 1;
      this.members.push(i);
    }
  }
}

function push(map: Map<string | number, number[]>, key: string | number, position: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [position]);
  else list.push(position);
}

/** First index in ascending `list` whose value is ≥ `value`. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class NearMissSearch {
  private readonly keys: (NameKey | undefined)[] = [];
  private readonly pools: Record<NearMissPoolKind, Pool> = { listened: new Pool('listened'), dispatched: new Pool('dispatched') };
  private optionsKey = '';
  private run = 0;
  private budget = Infinity;
  private work = 0;
  private searched = 0;
  private complete = 0;

  /** Starts a run with `budget` work units (Infinity: complete every search now). */
  beginRun(budget: number): void {
    this.run++;
    this.budget = budget;
    this.work = 0;
    this.searched = 0;
    this.complete = 0;
  }

  get progress(): NearMissRunProgress {
    return { searched: this.searched, complete: this.complete, work: this.work };
  }

  /**
   * Pool members similar to `t` (same name on another bus, same words, reordered words, small edit
   * distance), with the matches found so far when this run's budget ran out first.
   */
  search(model: Model, t: EventTypeState, kind: NearMissPoolKind, maxDistance: number, minScore: number): readonly NearMissMatch[] {
    const optionsKey = `${maxDistance}|${minScore}`;
    if (optionsKey !== this.optionsKey) {
      // New thresholds: what was matched under the old ones no longer holds. Keys and pools stay.
      this.optionsKey = optionsKey;
      this.pools.listened.subjects.clear();
      this.pools.dispatched.subjects.clear();
    }
    const types = model.allTypes();
    const pool = this.pools[kind];
    if (pool.syncedRun !== this.run) {
      pool.sync(types);
      pool.syncedRun = this.run;
    }
    this.indexMembers(pool, types);
    let subject = pool.subjects.get(t.index);
    if (subject === undefined) {
      subject = { checkedUpTo: 0, matches: [] };
      pool.subjects.set(t.index, subject);
    }
    this.searched++;
    if (subject.checkedUpTo < pool.indexed) this.compare(pool, subject, t, types, maxDistance, minScore);
    if (subject.checkedUpTo === pool.members.length) this.complete++;
    return subject.matches;
  }

  private keyOf(t: EventTypeState): NameKey {
    let key = this.keys[t.index];
    if (key === undefined) {
      key = nameKey(t.name);
      this.keys[t.index] = key;
      this.work++;
    }
    return key;
  }

  private indexMembers(pool: Pool, types: readonly EventTypeState[]): void {
    while (pool.indexed < pool.members.length && this.work < this.budget) {
      const position = pool.indexed++;
      const t = types[pool.members[position]];
      push(pool.byName, t.name, position);
      const key = this.keyOf(t);
      if (key.comparable) {
        if (key.words !== '') push(pool.byWords, key.words, position);
        if (key.sortedWords !== null) push(pool.bySortedWords, key.sortedWords, position);
        push(pool.byLength, key.lower.length, position);
      }
    }
  }

  /** Compares `t` with the indexed pool members from `subject.checkedUpTo` on, in position order, within the budget. */
  private compare(pool: Pool, subject: SubjectProgress, t: EventTypeState, types: readonly EventTypeState[], maxDistance: number, minScore: number): void {
    const key = this.keyOf(t);
    const from = subject.checkedUpTo;
    const to = pool.indexed;
    // The buckets that can hold a match; each is ascending, so merging them visits positions in order.
    const lists: (readonly number[])[] = [];
    const add = (list: readonly number[] | undefined): void => {
      if (list !== undefined && list.length > 0 && list[list.length - 1] >= from) lists.push(list);
    };
    add(pool.byName.get(t.name));
    if (key.comparable) {
      if (key.words !== '') add(pool.byWords.get(key.words));
      if (key.sortedWords !== null) add(pool.bySortedWords.get(key.sortedWords));
      const span = Math.floor(maxDistance);
      const length = key.lower.length;
      for (let l = Math.max(0, length - span); l <= length + span; l++) add(pool.byLength.get(l));
    }
    const heads = lists.map((list) => lowerBound(list, from));
    for (;;) {
      let next = to;
      for (let k = 0; k < lists.length; k++) {
        const h = heads[k];
        if (h < lists[k].length && lists[k][h] < next) next = lists[k][h];
      }
      if (next >= to) {
        subject.checkedUpTo = to;
        return;
      }
      if (this.work >= this.budget) {
        subject.checkedUpTo = next;
        return;
      }
      for (let k = 0; k < lists.length; k++) if (heads[k] < lists[k].length && lists[k][heads[k]] === next) heads[k]++;
      this.work++;
      const index = pool.members[next];
      const other = types[index];
      if (other === t) continue;
      if (other.name === t.name) {
        keep(subject.matches, { index, reason: 'other-bus', score: 1 });
        continue;
      }
      const m = nearMissOfKeys(key, this.keyOf(other), maxDistance, minScore);
      if (m !== undefined) keep(subject.matches, { index, reason: m.reason, score: other.bus === t.bus ? m.score : m.score * 0.9 });
    }
  }
}

/** Adds `m`, keeping at most MAX_MATCHES_KEPT, best scores first (the earlier-found wins a tie). */
function keep(matches: NearMissMatch[], m: NearMissMatch): void {
  if (matches.length >= MAX_MATCHES_KEPT && matches[matches.length - 1].score >= m.score) return;
  let i = matches.length;
  while (i > 0 && matches[i - 1].score < m.score) i--;
  matches.splice(i, 0, m);
  if (matches.length > MAX_MATCHES_KEPT) matches.pop();
}
