// WindowedCounter's O(1) fast path (a time in the newest bucket, taken once per ingested dispatch)
// must count exactly as the general path: compared with the previous implementation on random
// sequences — mostly increasing times, backward steps inside and beyond the window, long gaps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WindowedCounter } from '../../../runtime-probe/src/analysis/model/index';
import { mulberry32 } from '../../support/random';

/** The implementation before the fast path, kept as the reference. */
class ReferenceCounter {
  private readonly counts: Float64Array;
  /** Absolute number (floor(t / bucketMs)) of the newest bucket; -Infinity before the first add. */
  private head = -Infinity;
  private first = Infinity;
  readonly windowMs: number;

  constructor(
    readonly bucketMs: number,
    readonly bucketCount: number,
  ) {
    if (!(bucketMs > 0) || !Number.isFinite(bucketMs)) throw new TypeError(`WindowedCounter: bucketMs must be a positive number, got ${bucketMs}`);
    if (!Number.isInteger(bucketCount) || bucketCount < 1) throw new TypeError(`WindowedCounter: bucketCount must be a positive integer, got ${bucketCount}`);
    this.counts = new Float64Array(bucketCount);
    this.windowMs = bucketMs * bucketCount;
  }

  add(time: number, amount = 1): void {
    const b = Math.floor(time / this.bucketMs);
    if (time < this.first) this.first = time;
    if (b > this.head) this.advance(b);
    else if (b <= this.head - this.bucketCount) return;
    this.counts[((b % this.bucketCount) + this.bucketCount) % this.bucketCount] += amount;
  }

  /** Sum of the window ending at `now` (the bucket containing `now` included). */
  sum(now: number): number {
    const b = Math.floor(now / this.bucketMs);
    if (b > this.head) this.advance(b);
    let s = 0;
    for (let i = 0; i < this.bucketCount; i++) s += this.counts[i];
    return s;
  }

  /**
   * Per second over the window ending at `now`. Before a full window has passed since the first
   * add, divides by the time observed (at least one bucket), so early rates are not diluted.
   */
  ratePerSecond(now: number): number {
    const s = this.sum(now);
    if (s === 0) return 0;
    const observed = Math.min(this.windowMs, Math.max(this.bucketMs, now - this.first));
    return (s * 1000) / observed;
  }

  clear(): void {
    this.counts.fill(0);
    this.head = -Infinity;
    this.first = Infinity;
  }

  private advance(b: number): void {
    const n = this.bucketCount;
    if (this.head === -Infinity || b - this.head >= n) this.counts.fill(0);
    else for (let k = this.head + 1; k <= b; k++) this.counts[((k % n) + n) % n] = 0;
    this.head = b;
  }
}

test('the fast path of WindowedCounter.add counts exactly as the general path', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const r = mulberry32(seed);
    const bucketMs = [0.1, 1, 250, 1000][seed % 4];
    const buckets = 1 + Math.floor(r() * 12);
    const fast = new WindowedCounter(bucketMs, buckets);
    const ref = new ReferenceCounter(bucketMs, buckets);
    let t = r() * 10 * bucketMs - 5 * bucketMs;
    for (let i = 0; i < 400; i++) {
      const p = r();
      if (p < 0.7) t += r() * bucketMs * 0.3;
      else if (p < 0.8) t -= r() * bucketMs * (buckets + 2);
      else if (p < 0.85) t += r() * bucketMs * buckets * 3;
      else if (p < 0.9) t = Math.floor(t / bucketMs) * bucketMs; // exactly on a bucket edge
      const amount = p < 0.95 ? 1 : -1;
      fast.add(t, amount);
      ref.add(t, amount);
      if (i % 7 === 0) {
        const now = t + r() * bucketMs * 2;
        assert.equal(fast.sum(now), ref.sum(now), `seed ${seed}, step ${i}: sum`);
        assert.equal(fast.ratePerSecond(now), ref.ratePerSecond(now), `seed ${seed}, step ${i}: rate`);
      }
    }
    if (seed % 10 === 0) {
      fast.clear();
      ref.clear();
      fast.add(t, 1);
      ref.add(t, 1);
      assert.equal(fast.ratePerSecond(t), ref.ratePerSecond(t));
    }
  }
});
