// Notices a frame that started and stopped: the header (or part of a body) arrived, then nothing
// for `timeoutMs`. Without it a peer that announces a 32 MiB frame and never sends it would keep
// the connection — and whatever it buffered — forever. One timer per stall, not per chunk: each
// chunk only stamps the time, and the timer re-arms for the rest when bytes did come.

/** Node's setImmediate where it exists (this folder is also bundled for the browser). */
const nodeImmediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
const afterIo: (f: () => void) => unknown = nodeImmediate !== undefined ? (f) => nodeImmediate(f) : (f) => setTimeout(f, 0);

export class FrameStallWatch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastProgress = 0;
  private stopped = false;
  private paused = false;

  constructor(
    readonly timeoutMs: number,
    /** Called once, from a timer, when a frame made no progress for `timeoutMs`. */
    private readonly onStall: () => void,
  ) {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`FrameStallWatch: timeoutMs must be a positive number, got ${timeoutMs}`);
  }

  /** Call after every chunk has been pushed and its complete frames consumed. */
  progress(partialBytes: number): void {
    if (this.stopped || this.paused) return;
    // Stamped also when the frame completed: a stall judged after that is no stall.
    this.lastProgress = Date.now();
    if (partialBytes === 0) {
      this.clear();
      return;
    }
    if (this.timer === undefined) this.arm(this.timeoutMs);
  }

  /** The reader stopped reading on purpose (e.g. `ProbeClient.pause()`): time does not count until `resume`. */
  pause(): void {
    this.paused = true;
    this.clear();
  }

  resume(partialBytes: number): void {
    this.paused = false;
    this.progress(partialBytes);
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
    if (this.stopped || this.paused) return;
    const idle = Date.now() - this.lastProgress;
    if (idle < this.timeoutMs) {
      this.arm(this.timeoutMs - idle);
      return;
    }
    // Timers run before I/O in an event-loop turn: after a long block of this process, bytes may be
    // waiting unread. Decide after the I/O phase (setImmediate), when they would have been seen.
    const seen = this.lastProgress;
    // (Not unref'd: an unref'd immediate would not stop the I/O poll from blocking, and it runs at once anyway.)
    afterIo(() => {
      if (this.stopped || this.paused || this.timer !== undefined) return;
      if (this.lastProgress !== seen) {
        this.arm(this.timeoutMs);
        return;
      }
      this.stopped = true;
      this.onStall();
    });
  }

  private clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
