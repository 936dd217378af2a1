// Dispatch times without a clock read per dispatch (a read costs ~65 ns, more than a dispatch).
//
// Every dispatch start and end takes a *tick* (a counter). The clock is read only on some ticks:
// once per window of about WINDOW_MS (the number of ticks per window adapts to the rate), on the
// first tick of every task, and once at the end of every task (a microtask). At drain, a tick's time
// is interpolated between the two reads around it, and its error bound is the larger distance to
// them: the true time lies between the two reads, so the bound is honest, never an estimate.
// A handler that runs long inside a window widens that window, and its bound says so.
// No Node built-ins here (the recorder core runs in pages and workers too).

import type { RecorderClock } from './recorder-host';

/** Target window width (ms). Below 50 µs so that a window a little longer than planned still bounds its ticks by 50 µs. */
export const WINDOW_MS = 0.04;
/** Smallest error bound stated (ms): a read is itself not instantaneous. */
export const MIN_BOUND_MS = 0.001;
const MAX_TICKS_PER_WINDOW = 4096;
const INITIAL_TICKS_PER_WINDOW = 8;
const SAMPLE_CAPACITY = 8192;

/** The interpolated time of a tick and its error bound (ms). Reused: read it before the next `resolve`. */
export interface TickTime {
  time: number;
  bound: number;
}

export class WindowClock {
  /** Ticks taken so far (the last tick's number). */
  tick = 0;
  /** Ticks left in this window; at 0 the next tick reads the clock. */
  countdown = 0;
  /** Clock reads since the last drain: tick number and time, in tick order (the drain ships them in dispatch blocks). */
  readonly sampleTicks = new Float64Array(SAMPLE_CAPACITY);
  readonly sampleTimes = new Float64Array(SAMPLE_CAPACITY);
  private samples = 0;
  /**
   * Time of the newest read no longer kept (a lower bound for any tick after it); NaN: none. NaN
   * rather than 0 so the field holds a double from the start: a field that turns from a small
   * integer into a double changes the object's shape, which deoptimizes every function using it —
   * on the hot path, in the middle of the first recorded dispatches.
   */
  private floorTime = NaN;
  private ticksPerWindow = INITIAL_TICKS_PER_WINDOW;
  private taskEndPending = false;
  /** The next read starts a task: the gap since the last read was idle time, not a rate. */
  private taskStart = true;
  /** Clock reads made (for tests and the bench). */
  reads = 0;
  /** NaN, not 0: doubles from the start (see `floorTime`). */
  private readonly result: TickTime = { time: NaN, bound: NaN };
  private readonly endOfTask = (): void => {
    this.taskEndPending = false;
    if (this.samples === 0 || this.sampleTicks[this.samples - 1] !== this.tick) this.push(this.tick, this.clock.now());
    this.countdown = 0;
    this.taskStart = true;
  };

  constructor(
    private readonly clock: RecorderClock,
    /** Called when the sample buffer is full (the recorder drains, which resolves and trims). */
    private readonly onFull: () => void,
  ) {}

  /** Reads kept (`sampleTicks`/`sampleTimes` 0 … keptReads-1). */
  get keptReads(): number {
    return this.samples;
  }

  /** Hot path: takes a tick; reads the clock when the window is over. Inline-able. */
  next(): number {
    const k = ++this.tick;
    if (--this.countdown <= 0) this.read(k);
    return k;
  }

  private read(k: number): number {
    const now = this.clock.now();
    const n = this.samples;
    if (this.taskStart) {
      this.taskStart = false;
    } else if (n > 0) {
      // ticks per ms over the last window → ticks for the next one; grows at most ×2 a window
      const dt = now - this.sampleTimes[n - 1];
      const dk = k - this.sampleTicks[n - 1];
      let next = dt > 0 ? Math.floor((dk * WINDOW_MS) / dt) : this.ticksPerWindow * 2;
      if (next > this.ticksPerWindow * 2) next = this.ticksPerWindow * 2;
      this.ticksPerWindow = next < 1 ? 1 : next > MAX_TICKS_PER_WINDOW ? MAX_TICKS_PER_WINDOW : next;
    }
    this.countdown = this.ticksPerWindow;
    this.push(k, now);
    if (!this.taskEndPending) {
      this.taskEndPending = true;
      queueMicrotask(this.endOfTask);
    }
    return now;
  }

  private push(k: number, now: number): void {
    this.reads++;
    let n = this.samples;
    this.sampleTicks[n] = k;
    this.sampleTimes[n] = now;
    this.samples = ++n;
    if (n === SAMPLE_CAPACITY) {
      this.onFull();
      // still full (the drain could not run): keep the newest half, older ticks resolve coarsely
      if (this.samples === SAMPLE_CAPACITY) this.keepLast(SAMPLE_CAPACITY >> 1);
    }
  }

  /** Drain: reads the clock now so every tick so far has a read at or after it. */
  close(): void {
    if (this.tick === 0) return;
    const n = this.samples;
    if (n === 0 || this.sampleTicks[n - 1] !== this.tick) this.push(this.tick, this.clock.now());
  }

  /** The time of tick `k` (interpolated) and its error bound. Call `close()` first. */
  resolve(k: number): TickTime {
    const out = this.result;
    const ticks = this.sampleTicks;
    const times = this.sampleTimes;
    const n = this.samples;
    // first read at or after k (most ticks go in dispatch blocks, resolved by the reader: this is the rare path)
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ticks[mid] < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo === n) {
      // after every read (close() not called): the last read is a lower bound only
      const floor = this.floorTime;
      const last = n !== 0 ? times[n - 1] : floor === floor ? floor : 0;
      out.time = last;
      out.bound = MIN_BOUND_MS;
      return out;
    }
    const tHi = times[lo];
    if (ticks[lo] === k) {
      out.time = tHi;
      out.bound = MIN_BOUND_MS;
      return out;
    }
    if (lo === 0) {
      // before every kept read: somewhere after the last read dropped
      const floor = this.floorTime === this.floorTime ? this.floorTime : tHi;
      out.time = tHi;
      out.bound = Math.max(MIN_BOUND_MS, tHi - floor);
      return out;
    }
    const kLo = ticks[lo - 1];
    const tLo = times[lo - 1];
    const t = tLo + ((tHi - tLo) * (k - kLo)) / (ticks[lo] - kLo);
    out.time = t;
    const bound = t - tLo > tHi - t ? t - tLo : tHi - t;
    out.bound = bound > MIN_BOUND_MS ? bound : MIN_BOUND_MS;
    return out;
  }

  /**
   * After a drain: keeps only the newest read (every later tick comes after it), and has the next
   * tick read the clock — the drain itself took time that no tick should be interpolated across.
   */
  trim(): void {
    this.keepLast(1);
    this.countdown = 0;
    this.taskStart = true;
  }

  private keepLast(keep: number): void {
    const n = this.samples;
    if (n <= keep) return;
    this.floorTime = this.sampleTimes[n - keep - 1];
    this.sampleTicks.copyWithin(0, n - keep, n);
    this.sampleTimes.copyWithin(0, n - keep, n);
    this.samples = keep;
  }

  /** Recording stopped: forget every read (ticks keep counting). */
  reset(): void {
    this.samples = 0;
    this.floorTime = NaN;
    this.countdown = 0;
    this.taskStart = true;
  }
}
