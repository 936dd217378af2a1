// Near-miss event names: the likely typo behind "dispatched, nobody heard" and "subscribed, never
// dispatched". Three signals, strongest first: the same words spelled differently (case and
// separators: `enemyKilled` / `enemy.killed`), the same words in another order (`killed.enemy`),
// and a small edit distance (`enemy.kiled`, `enmey.killed`: transpositions count as one edit).

/** Words of an event name: split on separators and camelCase humps, lower-cased. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase());
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transposition), with an early exit:
 * returns `limit + 1` as soon as the distance is known to exceed `limit`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > limit) return limit + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[n];
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

/**
 * Whether `candidate` looks like a misspelling of `name` (or the other way round); undefined when
 * not, or when the names are identical. Short names need to be closer: one edit per four
 * characters, so `tick` / `tock` (4 chars, 1 edit) is a near miss but `a.b` / `c.d` is not.
 */
export function nearMiss(name: string, candidate: string, options: NearMissOptions = {}): NearMiss | undefined {
  if (name === candidate) return undefined;
  const maxDistance = options.maxDistance ?? 2;
  const minScore = options.minScore ?? 0.75;
  const a = name.toLowerCase();
  const b = candidate.toLowerCase();
  const longer = Math.max(a.length, b.length);
  const ta = nameTokens(name);
  const tb = nameTokens(candidate);
  if (ta.length > 0 && ta.join(' ') === tb.join(' ')) {
    return { name: candidate, reason: 'same-words', score: 1, distance: editDistance(a, b) };
  }
  if (ta.length > 1 && ta.length === tb.length && [...ta].sort().join(' ') === [...tb].sort().join(' ')) {
    return { name: candidate, reason: 'reordered-words', score: 0.95, distance: editDistance(a, b) };
  }
  const allowed = Math.min(maxDistance, Math.floor(longer / 4));
  if (allowed < 1) return undefined;
  const distance = editDistance(a, b, allowed);
  if (distance > allowed) return undefined;
  const score = 1 - distance / longer;
  if (score < minScore) return undefined;
  return { name: candidate, reason: 'edit-distance', score, distance };
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
