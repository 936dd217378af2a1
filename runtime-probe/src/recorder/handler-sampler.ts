// Which dispatches get per-handler timings at detail `handlers`. Timing every handler costs a clock
// read per handler (~65 ns) plus a record per call; at flat-out rates that is many times the dispatch
// itself. So each type's handlers are timed on every Nth dispatch of it: the first FIRST_SAMPLED
// dispatches always, then N adapts so that a type yields about SAMPLES_PER_SECOND timed dispatches a
// second. A type that is dispatched rarely (a slow handler cannot be dispatched often) keeps N = 1.
//
// Each timed dispatch stands for itself and the dispatches of its type skipped after it: its handler
// records carry that number (`sampleEvery`), and the model weights them by it, so counts and
// quantiles estimate every call. The gap to the next timed dispatch is drawn at random between 1 and
// 2N − 1 (mean N), not N every time: a workload with a period (every 4th frame is slow) cannot then
// line up with the samples and be timed always or never. Untimed dispatches still get their dispatch record (detail
// `dispatch`), and a handler that throws is always recorded (its `handler-error` record).
//
// Hot path: one typed-array decrement per dispatch; the rest runs only on a timed dispatch, whose
// clock read it reuses. No allocation per dispatch. No Node built-ins.

/** Dispatches of each type that are always timed before sampling begins. */
export const FIRST_SAMPLED = 32;
/** Timed dispatches per type per second that N aims at. */
export const SAMPLES_PER_SECOND = 1000;
/** Largest N (a timed dispatch never stands for more). */
export const MAX_SAMPLE_EVERY = 1 << 20;

const TARGET_INTERVAL_MS = 1000 / SAMPLES_PER_SECOND;

export class HandlerSampler {
  /** Per type id: dispatches left to skip before the next timed one (below 0: time this one). @internal (the fused path takes from it: `untimedLeft`, Recorder.resolveList.) */
  countdown = new Int32Array(64);
  /** Per type id: N of the last timed dispatch (0 before the first). */
  private every = new Int32Array(64);
  /** Per type id: the gap drawn at the last timed dispatch (the dispatches it stood for). */
  private lastGap = new Int32Array(64);
  /** Per type id: timed dispatches so far, counted up to FIRST_SAMPLED. */
  private taken = new Int32Array(64);
  /** Per type id: clock reading (ms) of the last timed dispatch. */
  private lastAt = new Float64Array(64);
  /** xorshift32 state for the gaps (any fixed seed: only its independence from the workload matters). */
  private random = 0x9e3779b9;

  /** Hot path: whether this dispatch of `typeId` is timed (then call `take` with its start time). */
  due(typeId: number): boolean {
    if (typeId >= this.countdown.length) this.grow(typeId);
    return --this.countdown[typeId] < 0;
  }

  /**
   * A timed dispatch of `typeId` starting at `now` (ms): returns its weight — it stands for itself
   * and as many fewer dispatches of its type, which are skipped.
   */
  take(typeId: number, now: number): number {
    const prev = this.every[typeId];
    let n = 1;
    if (this.taken[typeId] < FIRST_SAMPLED) {
      this.taken[typeId]++;
    } else {
      // The previous group (`lastGap` dispatches) took `dt`: about lastGap / dt dispatches per ms. N
      // moves only when it is off by 2× or more, so it does not flicker.
      const dt = now - this.lastAt[typeId];
      const last = this.lastGap[typeId];
      const ideal = dt > 0 ? (last * TARGET_INTERVAL_MS) / dt : prev * 2;
      n = prev < 1 ? 1 : prev;
      if (ideal >= n * 2) n = n * 2 > MAX_SAMPLE_EVERY ? MAX_SAMPLE_EVERY : n * 2;
      else if (ideal <= n / 2) n = ideal < 1 ? 1 : Math.floor(ideal);
    }
    this.every[typeId] = n;
    this.lastAt[typeId] = now;
    let gap = 1;
    if (n > 1) {
      let x = this.random;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.random = x;
      gap = 1 + ((x >>> 0) % (2 * n - 1));
    }
    this.countdown[typeId] = gap - 1;
    this.lastGap[typeId] = gap;
    return gap;
  }

  /** Starts over (a new recording): the first dispatches of every type are timed again. */
  reset(): void {
    this.countdown.fill(0);
    this.every.fill(0);
    this.lastGap.fill(0);
    this.taken.fill(0);
    this.lastAt.fill(0);
  }

  private grow(typeId: number): void {
    const size = Math.max(this.countdown.length * 2, typeId + 1);
    const countdown = new Int32Array(size);
    countdown.set(this.countdown);
    this.countdown = countdown;
    const every = new Int32Array(size);
    every.set(this.every);
    this.every = every;
    const lastGap = new Int32Array(size);
    lastGap.set(this.lastGap);
    this.lastGap = lastGap;
    const taken = new Int32Array(size);
    taken.set(this.taken);
    this.taken = taken;
    const lastAt = new Float64Array(size);
    lastAt.set(this.lastAt);
    this.lastAt = lastAt;
  }
}

/**
 * For the Node buses' fused path (which cannot time handlers; a function, so pages and workers, which
 * never fuse, leave it out): how many dispatches of `typeId` come before its next timed one (0: the
 * next one is timed). The caller takes them with `countdown[typeId] -= n`, as that many `due` calls would.
 */
export function untimedLeft(sampler: HandlerSampler, typeId: number): number {
  const c = sampler.countdown;
  return typeId < c.length && c[typeId] > 0 ? c[typeId] : 0;
}
