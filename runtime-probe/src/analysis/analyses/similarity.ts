// Near-miss event names: the likely typo behind "dispatched, nobody heard" and "subscribed, never
// dispatched". Three signals, strongest first: the same words spelled differently (case and
// separators: `enemyKilled` / `enemy.killed`), the same words in another order (`killed.enemy`),
// and a small edit distance (`enemy.kiled`, `enmey.killed`: transpositions count as one edit).
// Only names with the same id-like parts (those a name family replaces by `#`: typeGroups.ts) are
// compared: `user.17.updated` / `user.17.updatd` may be a typo, but `user.17.updated` /
// `user.18.updated` or `user.17.updated` / `user.updated` name different instances. That is also
// what keeps the search selective when thousands of names share their words and differ in ids.
// Everything here is linear in the name (or in name × allowed distance): an app's names are not
// trusted to be short, so only the first MAX_COMPARED_NAME_LENGTH characters are ever considered.
import { typeIdParts } from './typeGroups';

/**
 * Names longer than this are tokenised on their first this-many characters and are never near
 * misses of anything (a typo check on a 300-character name is not worth unbounded work).
 */
export const MAX_COMPARED_NAME_LENGTH = 256;

const enum Char {
  Other,
  Lower,
  Upper,
  Digit,
}

function charClass(c: number): Char {
  if (c >= 97 && c <= 122) return Char.Lower;
  if (c >= 65 && c <= 90) return Char.Upper;
  if (c >= 48 && c <= 57) return Char.Digit;
  return Char.Other;
}

/**
 * Words of an event name: split on separators (anything but ASCII letters and digits) and camelCase
 * humps (`enemyKilled`, `HTTPRequest` → `http request`), lower-cased. One pass over at most the first
 * MAX_COMPARED_NAME_LENGTH characters (a regex with a nested `[A-Z]+` was quadratic on runs of capitals).
 */
export function nameTokens(name: string): string[] {
  const end = Math.min(name.length, MAX_COMPARED_NAME_LENGTH);
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < end; i++) {
    const cls = charClass(name.charCodeAt(i));
    if (cls === Char.Other) {
      if (start >= 0) out.push(name.slice(start, i).toLowerCase());
      start = -1;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    if (cls !== Char.Upper) continue;
    const prev = charClass(name.charCodeAt(i - 1));
    // `enemyKilled`, `v2Beta`: a capital after a lower-case letter or digit starts a word…
    const afterWordChar = prev === Char.Lower || prev === Char.Digit;
    // …and so does the last capital of a run followed by a lower-case letter (`HTTPRequest`).
    const endsAcronym = prev === Char.Upper && i + 1 < end && charClass(name.charCodeAt(i + 1)) === Char.Lower;
    if (afterWordChar || endsAcronym) {
      out.push(name.slice(start, i).toLowerCase());
      start = i;
    }
  }
  if (start >= 0) out.push(name.slice(start, end).toLowerCase());
  return out;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transposition). With a `limit`, only
 * the diagonal band |i − j| ≤ limit is computed (cells outside it exceed the limit anyway), so the
 * cost is O(length × limit), and `limit + 1` is returned as soon as the distance is known to exceed it.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const n = b.length;
  const band = Number.isFinite(limit) ? limit : Math.max(a.length, n);
  const over = limit + 1;
  // Three rows from a scratch buffer: the near-miss search calls this tens of thousands of times a
  // run, and three fresh arrays per call were most of its garbage. (Float64: `over` may be Infinity.)
  const rows = scratchRows(n + 1);
  let prev2 = rows[0].fill(over, 0, n + 1);
  let prev = rows[1];
  let cur = rows[2].fill(over, 0, n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - band);
    const hi = Math.min(n, i + band);
    // The cells just outside the band read as "over the limit" by this row and the next.
    cur[lo - 1] = lo === 1 ? i : over;
    if (hi < n) cur[hi + 1] = over;
    let rowMin = lo === 1 ? i : over;
    const ai = a.charCodeAt(i - 1);
    for (let j = lo; j <= hi; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return over;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[n] > limit ? over : prev[n];
}

let scratch: [Float64Array, Float64Array, Float64Array] = [new Float64Array(0), new Float64Array(0), new Float64Array(0)];

function scratchRows(length: number): [Float64Array, Float64Array, Float64Array] {
  if (scratch[0].length < length) {
    const size = Math.max(length, 64);
    scratch = [new Float64Array(size), new Float64Array(size), new Float64Array(size)];
  }
  return scratch;
}

export type NearMissReason = 'same-words' | 'reordered-words' | 'edit-distance';

export interface NearMiss {
  readonly name: string;
  readonly reason: NearMissReason;
  /** 0..1, higher is closer. */
  readonly score: number;
  /** Edits between the lower-cased names (for `edit-distance`; also filled for the others). */
  readonly distance: number;
}

export interface NearMissOptions {
  /** Largest edit distance accepted; also scaled down for short names (see `nearMiss`). Default 2. */
  readonly maxDistance?: number;
  /** Minimum 1 − distance / longer length accepted. Default 0.75. */
  readonly minScore?: number;
}

/** What the comparison needs of a name, computed once per name (the analyses cache it per type). */
export interface NameKey {
  readonly name: string;
  readonly lower: string;
  /** Tokens joined by a space ('' when none). */
  readonly words: string;
  /** Tokens sorted, joined by a space (only when there are two or more). */
  readonly sortedWords: string | null;
  /** False for names longer than MAX_COMPARED_NAME_LENGTH: never near misses. */
  readonly comparable: boolean;
  /** The id-like parts (`typeIdParts`, '' when none): only names with equal ones are compared. */
  readonly ids: string;
}

export function nameKey(name: string): NameKey {
  const tokens = nameTokens(name);
  return {
    name,
    lower: name.toLowerCase(),
    words: tokens.join(' '),
    sortedWords: tokens.length > 1 ? [...tokens].sort().join(' ') : null,
    comparable: name.length <= MAX_COMPARED_NAME_LENGTH,
    ids: typeIdParts(name),
  };
}

/** `nearMiss` on precomputed keys, without the `distance` of word matches (callers that rank need only reason and score). */
export function nearMissOfKeys(
  a: NameKey,
  b: NameKey,
  maxDistance: number,
  minScore: number,
): { readonly reason: NearMissReason; readonly score: number; readonly distance: number } | undefined {
  if (a.name === b.name || !a.comparable || !b.comparable || a.ids !== b.ids) return undefined;
  if (a.words !== '' && a.words === b.words) return { reason: 'same-words', score: 1, distance: -1 };
  if (a.sortedWords !== null && a.sortedWords === b.sortedWords) return { reason: 'reordered-words', score: 0.95, distance: -1 };
  const longer = Math.max(a.lower.length, b.lower.length);
  const allowed = Math.min(maxDistance, Math.floor(longer / 4));
  if (allowed < 1) return undefined;
  const distance = editDistance(a.lower, b.lower, allowed);
  if (distance > allowed) return undefined;
  const score = 1 - distance / longer;
  if (score < minScore) return undefined;
  return { reason: 'edit-distance', score, distance };
}

/**
 * Whether `candidate` looks like a misspelling of `name` (or the other way round); undefined when
 * not, when the names are identical, when their id-like parts differ (`user.17.updated` /
 * `user.18.updated`), or when either is longer than MAX_COMPARED_NAME_LENGTH. Short
 * names need to be closer: one edit per four characters, so `tick` / `tock` (4 chars, 1 edit) is a
 * near miss but `a.b` / `c.d` is not.
 */
export function nearMiss(name: string, candidate: string, options: NearMissOptions = {}): NearMiss | undefined {
  const m = nearMissOfKeys(nameKey(name), nameKey(candidate), options.maxDistance ?? 2, options.minScore ?? 0.75);
  if (m === undefined) return undefined;
  // Both names are at most MAX_COMPARED_NAME_LENGTH long here, so the full distance is bounded work.
  const distance = m.distance >= 0 ? m.distance : editDistance(name.toLowerCase(), candidate.toLowerCase());
  return { name: candidate, reason: m.reason, score: m.score, distance };
}

/** Near misses of `name` among `candidates`, best first (ties by name, for stable output). */
export function nearMisses(name: string, candidates: Iterable<string>, options: NearMissOptions = {}): NearMiss[] {
  const out: NearMiss[] = [];
  for (const c of candidates) {
    const m = nearMiss(name, c, options);
    if (m !== undefined) out.push(m);
  }
  return out.sort((x, y) => y.score - x.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}
