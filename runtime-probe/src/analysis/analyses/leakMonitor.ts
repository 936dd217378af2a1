// The listener-growth state machine, after VS Code's `LeakageMonitor`: the first time an event's
// listener count reaches the threshold it warns; then it re-arms, warning again only when the count
// has grown by another `rearmFraction × threshold` since the last warning (so a leak that keeps
// growing is reported as it grows, without a warning per subscribe). Falling back below the
// threshold clears the warning and re-arms at the threshold.

export interface LeakMonitorOptions {
  /** Listener count that first triggers a warning; ≤ 0 disables. */
  readonly threshold: number;
  /** Growth (as a fraction of the threshold) needed after a warning to warn again. VS Code uses 0.5. */
  readonly rearmFraction: number;
}

export type LeakMonitorEvent = 'none' | 'warned' | 'cleared';

export class LeakMonitor {
  /** True while the count is at or above the threshold after a warning. */
  warning = false;
  /** Times it has warned since it was last below the threshold. */
  warnings = 0;
  /** Count that will trigger the next warning. */
  nextWarnAt: number;
  /** Count at the last warning; 0 when none. */
  lastWarnedCount = 0;

  constructor(readonly options: LeakMonitorOptions) {
    if (!Number.isFinite(options.threshold)) throw new TypeError(`LeakMonitor: threshold must be a finite number, got ${options.threshold}`);
    if (!(options.rearmFraction > 0) || !Number.isFinite(options.rearmFraction)) {
      throw new TypeError(`LeakMonitor: rearmFraction must be a positive number, got ${options.rearmFraction}`);
    }
    this.nextWarnAt = options.threshold;
  }

  /** Feeds the current listener count; returns what changed. */
  check(count: number): LeakMonitorEvent {
    const { threshold, rearmFraction } = this.options;
    if (threshold <= 0) return 'none';
    if (count < threshold) {
      this.nextWarnAt = threshold;
      this.warnings = 0;
      this.lastWarnedCount = 0;
      if (!this.warning) return 'none';
      this.warning = false;
      return 'cleared';
    }
    if (count < this.nextWarnAt) return 'none';
    this.warning = true;
    this.warnings++;
    this.lastWarnedCount = count;
    this.nextWarnAt = count + Math.max(1, Math.ceil(threshold * rearmFraction));
    return 'warned';
  }
}
