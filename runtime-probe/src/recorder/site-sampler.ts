// Which dispatches have their dispatch site captured: the first of each type, then every Nth
// (`dispatchSiteEvery`) — and fewer while a type is dispatched very fast. A capture reads the stack
// (10–50 µs in a busy app), so every 1,000th dispatch of a type dispatched millions of times a
// second cost about as much as the whole detached dispatch (issue 11). Within each period, a type
// busier than BUSY_DISPATCHES gets at most about PERIOD_CAPTURES captures: its stride doubles past
// that and halves again, period by period, once the type calms down. A type below that rate keeps
// exactly every Nth. Strides change only at a capture and at a drain, never per dispatch.
// No Node built-ins here (the recorder core runs in pages and workers too).

/** Length of a period (ms); the recorder ends one at a drain (at least every 10 ms while recording). */
export const SITE_PERIOD_MS = 100;
/** Captures per type per period before a busy type's stride doubles. */
export const PERIOD_CAPTURES = 4;
/** Dispatches of one type within a period (captures × stride) from which it counts as busy. */
const BUSY_DISPATCHES = 4_000;
const MAX_STRIDE = 1 << 24;

export class SiteSampler {
  /**
   * Three ints per type id: dispatches left until the next capture (0 or less: the next one), the
   * stride (0: `every`), captures in this period. @internal (`reserveSites` takes from it.)
   */
  s = new Int32Array(192);
  private periodStart = NaN;

  /** `dispatchSiteEvery`; 0 = off. A new value takes a new sampler (every type starts afresh). */
  constructor(readonly every: number) {}

  /** Hot path: true when this dispatch of `type` (its id) gets its site captured (and counts it). */
  due(type: number): boolean {
    if (this.every === 0) return false;
    let s = this.s;
    const i = type * 3;
    if (i >= s.length) {
      const grown = new Int32Array(i * 2 + 3);
      grown.set(s);
      this.s = s = grown;
    }
    if (s[i]-- > 0) return false;
    let stride = Math.max(s[i + 1], this.every);
    const n = ++s[i + 2];
    if (n >= PERIOD_CAPTURES && n * stride >= BUSY_DISPATCHES && stride < MAX_STRIDE) stride *= 2;
    s[i + 1] = stride;
    s[i] = stride - 1;
    return true;
  }

  /** At a drain (`now` in ms): ends the period once it is over; calm types' strides halve. */
  tick(now: number): void {
    if (now - this.periodStart < SITE_PERIOD_MS) return;
    this.periodStart = now;
    const s = this.s;
    for (let i = 0; i < s.length; i += 3) {
      if (s[i + 2] < PERIOD_CAPTURES / 2 && s[i + 1] > this.every) {
        s[i + 1] = Math.max(s[i + 1] >> 1, this.every);
        s[i] = Math.min(s[i], s[i + 1]);
      }
      s[i + 2] = 0;
    }
  }
}

/**
 * For the Node buses' fused path (which cannot capture a site; a function, so pages and workers, which
 * never fuse, leave it out): takes up to `max` of the dispatches of `type` before its next capture at
 * once and returns how many (0: the next one is due). Once they are taken the next `due` of the type
 * captures, as the dispatch after them would have.
 */
export function reserveSites(sampler: SiteSampler, type: number, max: number): number {
  if (sampler.every === 0) return max;
  const i = type * 3;
  const s = sampler.s;
  if (i >= s.length || s[i] <= 0) return 0;
  const left = s[i] < max ? s[i] : max;
  s[i] -= left;
  return left;
}
