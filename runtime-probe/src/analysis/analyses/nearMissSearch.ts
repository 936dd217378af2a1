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
// - names are near misses only when their id-like parts are equal (similarity.ts), so every bucket
//   but the exact-name one is per id parts: `user.17.updatd` looks only among the names with id
//   `17`, and thousands of `user.<id>.updated` are not each other's candidates;
// - each run has a work budget (comparisons plus names indexed); when it runs out the rest
//   carries over to the next run and the run says it was partial (`progress`).
import type { EventTypeState } from '../model/entities';
import type { Model } from '../model/model';
import { nameKey, nearMissOfKeys, type NameKey } from './similarity';
import { NO_DEADLINE, type RunDeadline } from './runDeadline';
import type { TypeChanges } from './typeScan';
import type { NearMissEvidence } from './warning';

export type NearMissPoolKind = 'listened' | 'dispatched';

/** Whether a pool member counts now (the pools keep every type that ever qualified). */
export const POOL_ACCEPTS: Readonly<Record<NearMissPoolKind, (t: EventTypeState) => boolean>> = {
  listened: (t) => t.registeredCount > 0,
  dispatched: (t) => t.dispatches > 0,
};

/**
 * Default work units per analyzer run: one unit is one name tokenised, one pair compared or one
 * bucket a name is filed in (about 0.3–1 µs each on an idle machine), so a run spends at most
 * ~5–10 ms on the search.
 */
export const DEFAULT_NEAR_MISS_BUDGET = 10_000;

/**
 * Work units a run spends even when its deadline has passed, so that every run moves on (a small
 * app's whole search fits in the run's floor: RUN_FLOOR in runDeadline.ts).
 */
export const MIN_NEAR_MISS_WORK = 256;

/**
 * Types a pool is offered per run even when the deadline has passed. Offering every type (100,000
 * in the first run of a late attach) is a pass over the model outside the work budget, so it stops
 * at the deadline too and resumes where it stopped; until a pool has seen every type no search in
 * it is complete (its members only grow, so the searches reopen, as for any new member).
 */
export const MIN_POOL_OFFERS = 512;

const NO_MATCHES: readonly NearMissMatch[] = [];

/**
 * Unchecked members with a name's id parts that are compared outright rather than looked up by
 * piece (up to (2K + 1)² · (2K + 1) look-ups for K edits: a few dozen comparisons are cheaper).
 */
const SMALL_ID_BUCKET = 64;

/**
 * Pool members one name is compared with per search step. Names that share their words with
 * thousands of others (`user.alice.updated`, `user.bob.updated`, … with no digits, so no id parts)
 * meet thousands of candidates in the piece buckets of those words; beyond this many they are
 * taken from the smallest buckets first (the pieces that are the name's own), and the rest are not
 * compared. A typo keeps most of its name's own pieces, so it is still found.
 */
export const MAX_CANDIDATES = 64;

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
  /** Names with id-like parts, by those parts (a small bucket is compared outright). */
  readonly byIds = new Map<string, number[]>();
  /** Lower-cased names too short to cut into `pieces` pieces, by id parts and length. */
  readonly shortByLength = new Map<string, number[]>();
  /** `ids|length:piece:text` → positions (see `pieceBounds`). */
  readonly byPiece = new Map<string, number[]>();
  /** By type index (an array: a hundred thousand Map look-ups per run cost more than the search's budget). */
  readonly subjects: (SubjectProgress | undefined)[] = [];
  syncedRun = -1;
  /** Marks of `rarestFirst` (a member taken once per search step), by position. */
  stamps = new Int32Array(0);
  private stamp = 0;
  /** The run in which this pool was last indexed, and the work level its indexing stops at in it. */
  indexRun = -1;
  indexLimit = 0;
  /** 2K + 1 for edit distance K: K edits break at most 2K pieces (a transposition may break two). */
  readonly pieces: number;

  constructor(
    readonly kind: NearMissPoolKind,
    /** The largest edit distance searched for (0: none). */
    readonly maxEdits: number,
  ) {
    this.pieces = 2 * maxEdits + 1;
  }

  /** Types with index ≥ this were never offered to the pool. */
  private offeredUpTo = 0;

  /**
   * Adds every type that qualifies now and has not joined yet. Only types that changed (or are
   * new) can have started to qualify, so this looks at those: O(changes), not O(types), per run.
   */
  sync(types: readonly EventTypeState[], changes: TypeChanges, deadline: RunDeadline): void {
    if (this.joinedFlags.length < types.length) {
      const grown = new Uint8Array(Math.max(types.length, this.joinedFlags.length * 2));
      grown.set(this.joinedFlags);
      this.joinedFlags = grown;
    }
    if (changes.all) this.offeredUpTo = 0;
    else for (const i of changes.indices) if (i < this.offeredUpTo) this.offer(types, i);
    let offered = 0;
    for (; this.offeredUpTo < types.length; this.offeredUpTo++) {
      if (deadline.stops(offered, MIN_POOL_OFFERS)) break;
      offered++;
      deadline.spend(1);
      this.offer(types, this.offeredUpTo);
    }
    this.synced = this.offeredUpTo >= types.length;
  }

  /** Whether every type has been offered (else members may still join in a later run). */
  synced = false;

  private offer(types: readonly EventTypeState[], i: number): void {
    if (this.joinedFlags[i] === 1) return;
    const t = types[i];
    if (t === undefined || t.isWildcard || !POOL_ACCEPTS[this.kind](t)) return;
    this.joinedFlags[i] = 1;
    this.members.push(i);
  }

  /** A fresh mark for `stamps`, sized to the members. */
  nextStamp(): number {
    if (this.stamps.length < this.members.length) {
      const grown = new Int32Array(Math.max(this.members.length, this.stamps.length * 2));
      grown.set(this.stamps);
      this.stamps = grown;
    }
    return ++this.stamp;
  }

  isMember(index: number): boolean {
    return this.joinedFlags[index] === 1;
  }
}

/**
 * Piece `i` of `pieces` of a name of `length` characters: [start, end). If two names are within K
 * edits (transpositions included), one of the 2K + 1 pieces of one of them occurs unchanged in the
 * other, shifted by at most K: that is what the piece index looks up.
 */
function pieceBounds(length: number, pieces: number, i: number): [number, number] {
  return [Math.floor((i * length) / pieces), Math.floor(((i + 1) * length) / pieces)];
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
  private pools: Record<NearMissPoolKind, Pool> = { listened: new Pool('listened', 2), dispatched: new Pool('dispatched', 2) };
  private maxDistance = Number.NaN;
  private minScore = Number.NaN;
  private run = 0;
  private budget = Infinity;
  private work = 0;
  private searched = 0;
  private complete = 0;

  private changes: TypeChanges = { indices: [], all: true };
  private deadline: RunDeadline = NO_DEADLINE;

  /**
   * Starts a run with `budget` work units (Infinity: complete every search now): the pools take in
   * the types that changed (`changes`) and start to qualify. `thresholds` are the ones this run's
   * searches will use: set first, so that the pools filled here are the ones searched (pools made
   * for other thresholds are dropped, and the first run's filling with them).
   */
  beginRun(
    model: Model,
    budget: number,
    changes: TypeChanges,
    deadline: RunDeadline = NO_DEADLINE,
    thresholds?: { readonly maxDistance: number; readonly minScore: number },
  ): void {
    if (thresholds !== undefined) this.useThresholds(thresholds.maxDistance, thresholds.minScore);
    this.run++;
    this.budget = budget;
    this.deadline = deadline;
    this.work = 0;
    this.searched = 0;
    this.complete = 0;
    this.changes = changes;
    const types = model.allTypes();
    for (const pool of [this.pools.listened, this.pools.dispatched]) {
      pool.sync(types, changes, deadline);
      pool.syncedRun = this.run;
    }
  }

  /** Members of a pool so far (it only grows while the thresholds stay). */
  poolSize(kind: NearMissPoolKind): number {
    return this.pools[kind].members.length;
  }

  isPoolMember(kind: NearMissPoolKind, index: number): boolean {
    return this.pools[kind].isMember(index);
  }

  /** This run's budget or time is spent: further searches only return what they found before. */
  get exhausted(): boolean {
    return this.work >= this.budget || this.deadline.stops(this.work, MIN_NEAR_MISS_WORK);
  }

  /** Whether `t`'s search in `kind` has compared every pool member (after `search` in this run). */
  isComplete(t: EventTypeState, kind: NearMissPoolKind): boolean {
    const pool = this.pools[kind];
    if (!pool.synced) return false;
    if (pool.members.length === 0) return true;
    const subject = pool.subjects[t.index];
    return subject !== undefined && subject.checkedUpTo === pool.members.length;
  }

  /** The matches found so far for `t`, with no work (for building a warning from a kept finding). */
  matchesOf(t: EventTypeState, kind: NearMissPoolKind): readonly NearMissMatch[] {
    return this.pools[kind].subjects[t.index]?.matches ?? NO_MATCHES;
  }

  get progress(): NearMissRunProgress {
    return { searched: this.searched, complete: this.complete, work: this.work };
  }

  /**
   * Pool members similar to `t` (same name on another bus, same words, reordered words, small edit
   * distance), with the matches found so far when this run's budget ran out first.
   */
  search(model: Model, t: EventTypeState, kind: NearMissPoolKind, maxDistance: number, minScore: number): readonly NearMissMatch[] {
    this.useThresholds(maxDistance, minScore);
    const types = model.allTypes();
    const pool = this.pools[kind];
    if (pool.syncedRun !== this.run) {
      // A new pool (the thresholds changed): it takes in every type.
      pool.sync(types, this.changes, this.deadline);
      pool.syncedRun = this.run;
    }
    this.searched++;
    if (pool.members.length === 0) {
      if (pool.synced) this.complete++;
      return NO_MATCHES;
    }
    this.indexMembers(pool, types);
    let subject = pool.subjects[t.index];
    if (subject === undefined) {
      // Out of budget: not even tokenised; a later run starts it.
      if (this.exhausted) return NO_MATCHES;
      subject = { checkedUpTo: 0, matches: [] };
      pool.subjects[t.index] = subject;
    }
    if (subject.checkedUpTo < pool.indexed && !this.exhausted) this.compare(pool, subject, t, types, maxDistance, minScore);
    if (subject.checkedUpTo === pool.members.length && pool.synced) this.complete++;
    return subject.matches;
  }

  /** Work done: this run's budget, and the run's floor (RunDeadline) it counts towards. */
  private spend(units: number): void {
    this.work += units;
    this.deadline.spend(units);
  }

  private useThresholds(maxDistance: number, minScore: number): void {
    if (maxDistance === this.maxDistance && minScore === this.minScore) return;
    // New thresholds: what was matched under the old ones no longer holds, and the piece index
    // depends on the distance. Name keys stay.
    this.maxDistance = maxDistance;
    this.minScore = minScore;
    const maxEdits = Math.max(0, Math.floor(maxDistance));
    this.pools = { listened: new Pool('listened', maxEdits), dispatched: new Pool('dispatched', maxEdits) };
  }

  private keyOf(t: EventTypeState): NameKey {
    let key = this.keys[t.index];
    if (key === undefined) {
      key = nameKey(t.name);
      this.keys[t.index] = key;
      this.spend(1);
    }
    return key;
  }

  private indexMembers(pool: Pool, types: readonly EventTypeState[]): void {
    // Indexing a large pool may take most of a run's budget, but not all of it: the searches get
    // the other half, comparing with the members indexed so far (a typo next to a pool of 100,000
    // names is found in the first run, not after the whole pool is indexed).
    // Per pool, so one large pool cannot starve the other's indexing either.
    if (pool.indexRun !== this.run) {
      pool.indexRun = this.run;
      pool.indexLimit = this.work + this.budget / 2;
    }
    const limit = Math.min(this.budget, pool.indexLimit);
    while (pool.indexed < pool.members.length && this.work < limit && !this.exhausted) {
      const position = pool.indexed++;
      const t = types[pool.members[position]];
      push(pool.byName, t.name, position);
      const key = this.keyOf(t);
      // Filing a name in its buckets costs about as much as tokenising it (string keys, map
      // growth): one unit, plus one per piece below.
      this.spend(1);
      if (!key.comparable) continue;
      const ids = key.ids;
      if (ids !== '') push(pool.byIds, ids, position);
      if (key.words !== '') push(pool.byWords, `${ids}|${key.words}`, position);
      if (key.sortedWords !== null) push(pool.bySortedWords, `${ids}|${key.sortedWords}`, position);
      if (pool.maxEdits === 0) continue;
      const length = key.lower.length;
      if (length < pool.pieces) {
        push(pool.shortByLength, `${ids}|${length}`, position);
        continue;
      }
      for (let i = 0; i < pool.pieces; i++) {
        const [start, end] = pieceBounds(length, pool.pieces, i);
        push(pool.byPiece, `${ids}|${length}:${i}:${key.lower.slice(start, end)}`, position);
      }
      this.spend(pool.pieces);
    }
  }

  /**
   * The buckets that can hold a match of `t`: same name, then among the names with the same id
   * parts: all of them when they are few, else same words, sorted words, and pieces within K edits.
   */
  private gather(pool: Pool, t: EventTypeState, key: NameKey, from: number, collect: (list: readonly number[] | undefined) => void): void {
    collect(pool.byName.get(t.name));
    if (!key.comparable) return;
    const ids = key.ids;
    if (ids !== '') {
      const same = pool.byIds.get(ids);
      if (same === undefined || same.length - lowerBound(same, from) <= SMALL_ID_BUCKET) {
        collect(same);
        return;
      }
    }
    if (key.words !== '') collect(pool.byWords.get(`${ids}|${key.words}`));
    if (key.sortedWords !== null) collect(pool.bySortedWords.get(`${ids}|${key.sortedWords}`));
    const k = pool.maxEdits;
    const a = key.lower;
    // Edit distance needs the longer name to have at least 4 characters (one edit per four).
    const shortest = Math.max(1, a.length >= 4 ? a.length - k : 4);
    for (let length = shortest; k > 0 && length <= a.length + k; length++) {
      if (length < pool.pieces) {
        collect(pool.shortByLength.get(`${ids}|${length}`));
        continue;
      }
      for (let i = 0; i < pool.pieces; i++) {
        const [start, end] = pieceBounds(length, pool.pieces, i);
        for (let shift = -k; shift <= k; shift++) {
          if (start + shift < 0 || end + shift > a.length) continue;
          collect(pool.byPiece.get(`${ids}|${length}:${i}:${a.slice(start + shift, end + shift)}`));
        }
      }
    }
  }

  /**
   * Compares `t` with the indexed pool members from `subject.checkedUpTo` on that the buckets name,
   * in position order, within the budget (always at least one, so every search moves on).
   */
  private compare(pool: Pool, subject: SubjectProgress, t: EventTypeState, types: readonly EventTypeState[], maxDistance: number, minScore: number): void {
    const key = this.keyOf(t);
    const from = subject.checkedUpTo;
    const to = pool.indexed;
    let candidates: number[] = [];
    let lookups = 0;
    // A few unchecked members (a small pool, or the ones new since the last run) are cheaper to
    // compare outright than to look up in (2K + 1)³ piece buckets.
    if (to - from <= (2 * pool.maxEdits + 1) ** 3) {
      for (let position = from; position < to; position++) candidates.push(position);
    } else {
      const buckets: Bucket[] = [];
      let total = 0;
      this.gather(pool, t, key, from, (list) => {
        lookups++;
        if (list === undefined || list[list.length - 1] < from) return;
        const start = lowerBound(list, from);
        const end = lowerBound(list, to);
        if (end <= start) return;
        buckets.push({ list, start, end });
        total += end - start;
      });
      candidates = total <= MAX_CANDIDATES ? allOf(buckets, total) : rarestFirst(pool, buckets);
    }
    // Looking up and gathering cost too (about an eighth of a comparison each).
    this.spend(Math.ceil((lookups + candidates.length) / 8));
    candidates.sort((x, y) => x - y);
    let previous = -1;
    for (let c = 0; c < candidates.length; c++) {
      const position = candidates[c];
      if (position === previous) continue;
      previous = position;
      if (c > 0 && this.exhausted) {
        subject.checkedUpTo = position;
        return;
      }
      this.spend(1);
      const index = pool.members[position];
      const other = types[index];
      if (other === t) continue;
      if (other.name === t.name) {
        keep(subject.matches, { index, reason: 'other-bus', score: 1 });
        continue;
      }
      const m = nearMissOfKeys(key, this.keyOf(other), maxDistance, minScore);
      if (m !== undefined) keep(subject.matches, { index, reason: m.reason, score: other.bus === t.bus ? m.score : m.score * 0.9 });
    }
    subject.checkedUpTo = to;
  }
}

/** Positions [start, end) of a bucket's list: the members in the search window. */
interface Bucket {
  readonly list: readonly number[];
  readonly start: number;
  readonly end: number;
}

function allOf(buckets: readonly Bucket[], total: number): number[] {
  const out = new Array<number>(total);
  let k = 0;
  for (const { list, start, end } of buckets) for (let i = start; i < end; i++) out[k++] = list[i];
  return out;
}

/**
 * At most MAX_CANDIDATES distinct members, from the smallest buckets first: a bucket of a piece of
 * the name's own (an id, a rare word) before one of a word every other name shares.
 */
function rarestFirst(pool: Pool, buckets: Bucket[]): number[] {
  buckets.sort((a, b) => a.end - a.start - (b.end - b.start));
  const stamp = pool.nextStamp();
  const out: number[] = [];
  for (const { list, start, end } of buckets) {
    for (let i = start; i < end; i++) {
      const position = list[i];
      if (pool.stamps[position] === stamp) continue;
      pool.stamps[position] = stamp;
      out.push(position);
      if (out.length === MAX_CANDIDATES) return out;
    }
  }
  return out;
}

/** Adds `m`, keeping at most MAX_MATCHES_KEPT, best scores first (the earlier-found wins a tie). */
function keep(matches: NearMissMatch[], m: NearMissMatch): void {
  if (matches.length >= MAX_MATCHES_KEPT && matches[matches.length - 1].score >= m.score) return;
  let i = matches.length;
  while (i > 0 && matches[i - 1].score < m.score) i--;
  matches.splice(i, 0, m);
  if (matches.length > MAX_MATCHES_KEPT) matches.pop();
}
