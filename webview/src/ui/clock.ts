// The clock the inspector's timers and frames run on: the window's in a page, a manual one in tests (so they need no sleeps).

export type TimerHandle = number;

export interface InspectorClock {
  /** Milliseconds, monotonic. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  /** Runs `fn` before the next paint. */
  requestFrame(fn: () => void): TimerHandle;
  cancelFrame(handle: TimerHandle): void;
}

/** The window's clock; frames fall back to a 16 ms timeout where the window has no requestAnimationFrame. */
export function windowClock(win: Window): InspectorClock {
  const hasFrames = typeof win.requestAnimationFrame === 'function';
  return {
    now: () => win.performance.now(),
    setTimeout: (fn, ms) => win.setTimeout(fn, ms),
    clearTimeout: (handle) => win.clearTimeout(handle),
    requestFrame: hasFrames ? (fn) => win.requestAnimationFrame(() => fn()) : (fn) => win.setTimeout(fn, 16),
    cancelFrame: hasFrames ? (handle) => win.cancelAnimationFrame(handle) : (handle) => win.clearTimeout(handle),
  };
}

/**
 * Calls `fn` once, `ms` after the first `request` since it last ran: a burst of requests (a zoom
 * gesture changes state every frame) becomes one call.
 */
export class TrailingTimer {
  private handle: TimerHandle | null = null;

  constructor(
    private readonly clock: InspectorClock,
    private readonly ms: number,
    private readonly fn: () => void,
  ) {}

  get pending(): boolean {
    return this.handle !== null;
  }

  request(): void {
    if (this.handle !== null) return;
    this.handle = this.clock.setTimeout(() => {
      this.handle = null;
      this.fn();
    }, this.ms);
  }

  cancel(): void {
    if (this.handle !== null) this.clock.clearTimeout(this.handle);
    this.handle = null;
  }
}
