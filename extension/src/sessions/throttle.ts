// A trailing throttle: `schedule()` runs the task at most once per interval, and always once more
// after the last call, so the final state is never missed. The views use it to turn a model that
// changes hundreds of times a second into a few refreshes a second. No `vscode` here.

export class Throttle {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastRun = -Infinity;
  private disposed = false;

  constructor(
    private readonly task: () => void,
    readonly intervalMs: number,
  ) {
    if (typeof task !== 'function') throw new TypeError('Throttle: task must be a function');
    if (!Number.isFinite(intervalMs) || intervalMs < 0) throw new TypeError(`Throttle: intervalMs must be a non-negative number, got ${intervalMs}`);
  }

  /** Requests a run: now if the interval has passed since the last one, else at its end. */
  schedule(): void {
    if (this.disposed || this.timer !== undefined) return;
    const wait = Math.max(0, this.lastRun + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.lastRun = Date.now();
      if (!this.disposed) this.task();
    }, wait);
  }

  /** Runs now if a run is pending (e.g. before reading the state it produces). */
  flush(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.lastRun = Date.now();
    if (!this.disposed) this.task();
  }

  get pending(): boolean {
    return this.timer !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
