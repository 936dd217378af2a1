// Paces deltas to the webview: coalesces change notifications (the model may change thousands of
// times a second) into at most one send per `minIntervalMs` (~30 per second), and none while the
// panel is hidden — a hidden panel gets one catch-up send when it is shown again. No `vscode` here.

export interface PumpClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: PumpClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class DeltaPump {
  private timer: unknown = null;
  private lastSent = -Infinity;
  private pending = false;
  private active = false;
  private disposed = false;

  constructor(
    private readonly send: () => void,
    readonly minIntervalMs = 1000 / 30,
    private readonly clock: PumpClock = SYSTEM_CLOCK,
  ) {
    if (!(minIntervalMs > 0)) throw new TypeError(`DeltaPump: minIntervalMs must be positive, got ${minIntervalMs}`);
  }

  /** Something changed. */
  poke(): void {
    if (this.disposed) return;
    this.pending = true;
    this.schedule();
  }

  /** Sends only while active (panel visible and its webview ready). */
  setActive(active: boolean): void {
    this.active = active;
    if (active) this.schedule();
    else this.cancel();
  }

  get isActive(): boolean {
    return this.active;
  }

  dispose(): void {
    this.disposed = true;
    this.cancel();
  }

  private schedule(): void {
    if (!this.active || !this.pending || this.timer !== null || this.disposed) return;
    const wait = Math.max(0, this.lastSent + this.minIntervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    this.timer = null;
    if (!this.active || this.disposed || !this.pending) return;
    this.pending = false;
    this.lastSent = this.clock.now();
    try {
      this.send();
    } finally {
      // Changes that arrived during send are picked up by the next round.
      this.schedule();
    }
  }

  private cancel(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
