// Time spent in nested dispatches, by the seq of the dispatch they ran inside (see Model.nestedTime).
// Every dispatch row asks to forget its own seq, and almost none is there: a Map's `delete` of an
// absent key (a hash and a probe) was an eighth of the model's per-row counting in a profile. A
// count of the keys per low bits of the seq answers "not there" with one array read; the Map holds
// the values as before.

const BUCKETS = 1024;

export class NestedTime {
  private readonly times = new Map<number, number>();
  /** Keys held per `seq & (BUCKETS - 1)` (≤ the Map's size, which `add`'s callers keep ≤ ~4,097). */
  private readonly keysIn = new Uint32Array(BUCKETS);

  get size(): number {
    return this.times.size;
  }

  get(seq: number): number | undefined {
    return this.keysIn[seq & (BUCKETS - 1)] === 0 ? undefined : this.times.get(seq);
  }

  /** Adds `ms` to `seq`'s nested time. */
  add(seq: number, ms: number): void {
    const before = this.times.get(seq);
    if (before === undefined) this.keysIn[seq & (BUCKETS - 1)]++;
    this.times.set(seq, (before ?? 0) + ms);
  }

  delete(seq: number): void {
    const b = seq & (BUCKETS - 1);
    if (this.keysIn[b] !== 0 && this.times.delete(seq)) this.keysIn[b]--;
  }

  clear(): void {
    if (this.times.size === 0) return;
    this.times.clear();
    this.keysIn.fill(0);
  }
}
