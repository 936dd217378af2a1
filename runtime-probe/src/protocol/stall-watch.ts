// Notices a frame that started and stopped: the header (or part of a body) arrived, then nothing
// for `timeoutMs`. Without it a peer that announces a 32 MiB frame and never sends it would keep
// the connection — and whatever it buffered — forever. One timer per stall, not per chunk: each
// chunk only stamps the time, and the timer re-arms for the rest when bytes did come.

export class FrameStallWatch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastProgress = 0;
  private stopped = false;

  constructor(
    readonly timeoutMs: number,
    /** Called once, from a timer, when a frame made no progress for `timeoutMs`. */
    private readonly onStall: () => void,
  ) {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`FrameStallWatch: timeoutMs must be a positive number, got ${timeoutMs}`);
  }

  /** Call after every chunk has been pushed and its complete frames consumed. */
  progress(partialBytes: number): void {
    if (this.stopped) return;
    if (partialBytes === 0) {
      this.clear();
      return;
    }
    this.lastProgress = Date.now();
    if (this.timer === undefined) this.arm(this.timeoutMs);
  }

  /** The connection is over: no more callbacks. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private arm(ms: number): void {
    const t = setTimeout(() => this.check(), ms);
    // Never keeps a process alive by itself: the socket does that while it is open.
    (t as { unref?: () => void }).unref?.();
    this.timer = t;
  }

  private check(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const idle = Date.now() - this.lastProgress;
    if (idle < this.timeoutMs) {
      this.arm(this.timeoutMs - idle);
      return;
    }
    this.stopped = true;
    this.onStall();
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
