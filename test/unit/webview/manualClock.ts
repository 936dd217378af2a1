// A clock for the inspector that moves only when the test says: timers fire on `advance`, frames on `runFrames` (no sleeps).

import type { InspectorClock, TimerHandle } from '../../../webview/src/ui/clock';

interface Pending {
  readonly at: number;
  readonly order: number;
  readonly fn: () => void;
}

export class ManualClock implements InspectorClock {
  private time = 0;
  private nextHandle = 1;
  private order = 0;
  private readonly timers = new Map<TimerHandle, Pending>();
  private readonly frames = new Map<TimerHandle, () => void>();

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.time + Math.max(0, ms), order: this.order++, fn });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle);
  }

  requestFrame(fn: () => void): TimerHandle {
    const handle = this.nextHandle++;
    this.frames.set(handle, fn);
    return handle;
  }

  cancelFrame(handle: TimerHandle): void {
    this.frames.delete(handle);
  }

  get pendingTimers(): number {
    return this.timers.size;
  }

  get pendingFrames(): number {
    return this.frames.size;
  }

  /** Moves time on by `ms`, firing each timer due on the way at its own time, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [TimerHandle, Pending] | undefined;
      for (const entry of this.timers) {
        const [, t] = entry;
        if (t.at <= end && (next === undefined || t.at < next[1].at || (t.at === next[1].at && t.order < next[1].order))) next = entry;
      }
      if (next === undefined) break;
      this.timers.delete(next[0]);
      this.time = next[1].at;
      next[1].fn();
    }
    this.time = end;
  }

  /** Runs the frames requested so far (frames requested while they run wait for the next call). */
  runFrames(): number {
    const due = [...this.frames.values()];
    this.frames.clear();
    for (const fn of due) fn();
    return due.length;
  }
}
