// Statistics helpers with fixed memory: a log-bucketed duration histogram (p95 without keeping
// samples) and a bucketed sliding-window counter (rates in record time, so a trace file read after
// the fact gives the same rates as the live session did).

/** Sub-buckets per power of two: bounds the quantile error to about ±12% of the value. */
const SUB_BUCKET_BITS = 2;
const SUB_BUCKETS = 1 << SUB_BUCKET_BITS;
/** Values below this many microseconds get one exact bucket each. */
const LINEAR_LIMIT = 16;
const LINEAR_BITS = 4; // log2(LINEAR_LIMIT)
/** Enough buckets for 2^31 µs (about 35 minutes); longer durations land in the last bucket. */
const BUCKETS = LINEAR_LIMIT + (31 - LINEAR_BITS) * SUB_BUCKETS;

function bucketOf(micros: number): number {
  if (micros < LINEAR_LIMIT) return micros;
  if (micros >= 0x7fffffff) return BUCKETS - 1;
  const exponent = 31 - Math.clz32(micros);
  const mantissa = (micros >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
  return LINEAR_LIMIT + (exponent - LINEAR_BITS) * SUB_BUCKETS + mantissa;
}

/** Inclusive lower bound, in microseconds, of a bucket. */
function bucketLow(index: number): number {
  if (index < LINEAR_LIMIT) return index;
  const k = index - LINEAR_LIMIT;
  const exponent = (k >> SUB_BUCKET_BITS) + LINEAR_BITS;
  const mantissa = k & (SUB_BUCKETS - 1);
  return (1 << exponent) + mantissa * (1 << (exponent - SUB_BUCKET_BITS));
}

function bucketHigh(index: number): number {
  return index + 1 < BUCKETS ? bucketLow(index + 1) : 0x7fffffff;
}

/**
 * Durations in milliseconds, stored as counts in log-spaced buckets of microseconds (at most
 * `BUCKETS`). `count`, `total` and `max` are exact; quantiles are the bucket's midpoint, clamped to
 * [min, max]. The buckets are a plain array grown up to the highest one used (microsecond handlers
 * use about 40): every subscription that ran holds one, and a typed array each (an ArrayBuffer the
 * GC tracks off-heap) made ingesting 120,000 emitters' listeners mostly garbage collection.
 */
export class DurationHistogram {
  private readonly buckets: number[] = [];
  /** Values this stands for: the sum of the weights (each sampled value counts for the calls it stands for). */
  count = 0;
  /** Values added (timed calls), whatever their weight: `count / samples` is the effective 1-in-N. */
  samples = 0;
  /** Milliseconds. */
  total = 0;
  /** Milliseconds. */
  max = 0;
  /** Milliseconds. */
  min = Infinity;

  /** Adds a value that stands for `weight` values (a call timed on 1 dispatch in `weight`). */
  add(durationMs: number, weight = 1): void {
    const ms = durationMs > 0 ? durationMs : 0;
    this.count += weight;
    this.samples++;
    this.total += ms * weight;
    if (ms > this.max) this.max = ms;
    if (ms < this.min) this.min = ms;
    const b = bucketOf(Math.round(ms * 1000));
    const buckets = this.buckets;
    while (buckets.length <= b) buckets.push(0);
    buckets[b] += weight;
  }

  /** Calls stood for per timed call (1: every call was timed). */
  get sampleEvery(): number {
    return this.samples === 0 ? 1 : this.count / this.samples;
  }

  get mean(): number {
    return this.count === 0 ? 0 : this.total / this.count;
  }

  /** The q-quantile (0..1) in milliseconds; 0 when empty. */
  quantile(q: number): number {
    if (!(q >= 0 && q <= 1)) throw new TypeError(`quantile: q must be in [0, 1], got ${q}`);
    if (this.count === 0) return 0;
    // Nearest-rank definition: the smallest value with at least ceil(q·n) values at or below it.
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i];
      if (seen >= rank) {
        const mid = i < LINEAR_LIMIT ? i : (bucketLow(i) + bucketHigh(i) - 1) / 2;
        return Math.min(this.max, Math.max(this.min, mid / 1000));
      }
    }
    return this.max;
  }

  /**
   * Values at or above `ms` (milliseconds): exact for buckets wholly above it, and the bucket
   * holding `ms` counts in full — an upper estimate, off by at most that one bucket.
   */
  countAtLeast(ms: number): number {
    if (this.count === 0 || ms > this.max) return 0;
    if (ms <= this.min) return this.count;
    let n = 0;
    for (let i = bucketOf(Math.round(ms * 1000)); i < this.buckets.length; i++) n += this.buckets[i];
    return n;
  }

  clear(): void {
    this.buckets.length = 0;
    this.count = 0;
    this.samples = 0;
    this.total = 0;
    this.max = 0;
    this.min = Infinity;
  }
}

/**
 * A sum over a sliding window of record time, in `bucketCount` buckets of `bucketMs`. Adding is
 * O(1) amortized; memory is fixed. Values may be negative (net listener growth uses +1/−1).
 * Timestamps older than the window are ignored; time never needs to be wall-clock.
 */
export class WindowedCounter {
  /**
   * A plain array, not a Float64Array: every event type holds one or two counters, and 240,000
   * typed arrays (each an ArrayBuffer with an off-heap backing store the GC tracks and sweeps)
   * made ingesting 120,000 emitters spend most of its time in the garbage collector.
   */
  private readonly counts: number[];
  /** Absolute number (floor(t / bucketMs)) of the newest bucket; -Infinity before the first add. */
  private head = -Infinity;
  /** The newest bucket's slot and time span [headFrom, headTo), once `first` is set (fast path of `add`). */
  private headSlot = 0;
  private headFrom = Infinity;
  private headTo = -Infinity;
  private first = Infinity;
  readonly windowMs: number;

  constructor(
    readonly bucketMs: number,
    readonly bucketCount: number,
  ) {
    if (!(bucketMs > 0) || !Number.isFinite(bucketMs)) throw new TypeError(`WindowedCounter: bucketMs must be a positive number, got ${bucketMs}`);
    if (!Number.isInteger(bucketCount) || bucketCount < 1) throw new TypeError(`WindowedCounter: bucketCount must be a positive integer, got ${bucketCount}`);
    this.counts = new Array<number>(bucketCount).fill(0);
    this.windowMs = bucketMs * bucketCount;
  }

  add(time: number, amount = 1): void {
    // Fast path (one per dispatch while the model ingests): `time` falls in the newest bucket.
    if (time >= this.headFrom && time < this.headTo) {
      this.counts[this.headSlot] += amount;
      return;
    }
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
    this.headFrom = Infinity;
    this.headTo = -Infinity;
    this.first = Infinity;
  }

  private advance(b: number): void {
    const n = this.bucketCount;
    if (this.head === -Infinity || b - this.head >= n) this.counts.fill(0);
    else for (let k = this.head + 1; k <= b; k++) this.counts[((k % n) + n) % n] = 0;
    this.head = b;
    this.headSlot = ((b % n) + n) % n;
    // Only after the first add, and never below `first` (the fast path must not miss an earlier time).
    if (this.first !== Infinity) {
      this.headFrom = Math.max(b * this.bucketMs, this.first);
      this.headTo = (b + 1) * this.bucketMs;
    }
  }
}
