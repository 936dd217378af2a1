// Simulated time. The world never reads the wall clock for its logic: it advances one fixed frame
// per `step()`, and every timer below counts simulated milliseconds. That makes a run
// deterministic (same seed, same frames, same events) and lets tests step frames by hand; the
// real entry point (`loop.ts`) only decides *when* to step.

export const FRAME_MS = 1000 / 60;

export class FrameClock {
  /** Frames stepped so far. */
  frame = 0;
  /** Simulated milliseconds since the world started. */
  get now(): number {
    return this.frame * FRAME_MS;
  }
}

interface Timer {
  due: number;
  readonly period: number; // 0 for a one-shot
  readonly run: () => void;
  cancelled: boolean;
}

/** Sim-time timers, checked once per frame. Few and long-lived, so a plain array is enough. */
export class Timers {
  private timers: Timer[] = [];

  constructor(private readonly clock: FrameClock) {}

  /** Runs `run` every `periodMs`, first at `firstMs` from now (default: one period). */
  every(periodMs: number, run: () => void, firstMs = periodMs): () => void {
    if (!(periodMs > 0)) throw new TypeError(`Timers.every: period must be > 0 ms, got ${periodMs}`);
    const t: Timer = { due: this.clock.now + firstMs, period: periodMs, run, cancelled: false };
    this.timers.push(t);
    return () => {
      t.cancelled = true;
    };
  }

  /** Runs `run` once, `delayMs` from now. */
  after(delayMs: number, run: () => void): () => void {
    const t: Timer = { due: this.clock.now + Math.max(0, delayMs), period: 0, run, cancelled: false };
    this.timers.push(t);
    return () => {
      t.cancelled = true;
    };
  }

  /** Runs everything due at the clock's current time, in due order; timers added meanwhile wait. */
  runDue(): void {
    const now = this.clock.now;
    if (!this.timers.some((t) => t.due <= now)) return; // the common frame: nothing due, no allocation
    const due = this.timers.filter((t) => !t.cancelled && t.due <= now).sort((a, b) => a.due - b.due);
    for (const t of due) {
      if (t.cancelled) continue;
      if (t.period > 0)
        t.due += t.period * (Math.floor((now - t.due) / t.period) + 1); // skip missed beats
      else t.cancelled = true;
      t.run();
    }
    if (due.length > 0) this.timers = this.timers.filter((t) => !t.cancelled);
  }

  get size(): number {
    return this.timers.length;
  }
}

/** Small seeded PRNG (mulberry32): same seed, same run. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
}

/** Burns real CPU for `ms` (a stand-in for expensive work; sleeping would not show as slow). */
export function busyWait(ms: number): void {
  if (ms <= 0) return;
  const end = performance.now() + ms;
  while (performance.now() < end) {
    /* spin */
  }
}
