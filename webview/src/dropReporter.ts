// Tells the host (which logs it) about messages the page dropped: the first of a kind at once, repeats within a second as one line.

import { MAX_DROPPED_MESSAGE_LENGTH, MAX_DROPPED_REASON_LENGTH, type InspectorPort } from '../../runtime-probe/src/analysis/inspector-messages';
import { TrailingTimer, type InspectorClock } from './ui/clock';

const REPEATS_WINDOW_MS = 1000;

export class DropReporter {
  /** Drops not yet reported (by message and reason), with how many repeats came since the first. */
  private readonly drops = new Map<string, { message: string; reason: string; count: number }>();
  private readonly timer: TrailingTimer;

  constructor(
    private readonly port: InspectorPort,
    clock: InspectorClock,
  ) {
    this.timer = new TrailingTimer(clock, REPEATS_WINDOW_MS, () => this.flushRepeats());
  }

  report(message: string, reason: string): void {
    const key = `${message}\u0000${reason}`;
    const d = this.drops.get(key);
    if (d) {
      d.count++;
      return;
    }
    this.drops.set(key, { message, reason, count: 0 });
    this.post(message, reason);
    this.timer.request();
  }

  dispose(): void {
    this.timer.cancel();
  }

  private flushRepeats(): void {
    for (const d of this.drops.values()) if (d.count > 0) this.post(d.message, `${d.reason} (${d.count} more times)`);
    this.drops.clear();
  }

  private post(message: string, reason: string): void {
    this.port.postMessage({ type: 'dropped', message: message.slice(0, MAX_DROPPED_MESSAGE_LENGTH), reason: reason.slice(0, MAX_DROPPED_REASON_LENGTH) });
  }
}
