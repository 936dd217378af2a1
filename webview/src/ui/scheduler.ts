// The render scheduler: coalesces redraw requests into one frame of the injected clock; `flush()` runs pending work at once.
// Tests and the host's "render now" after a snapshot call `flush()`; `invalidateAfter` asks for a later frame (throttled redraws).

import type { InspectorClock, TimerHandle } from './clock';

export type Part = 'graph' | 'timeline' | 'outline' | 'warnings' | 'details' | 'banner' | 'toolbar';

export class Scheduler {
  private readonly dirty = new Set<Part>();
  private frame: TimerHandle | null = null;
  private later: TimerHandle | null = null;
  private disposed = false;

  constructor(
    private readonly clock: InspectorClock,
    private readonly run: (parts: ReadonlySet<Part>) => void,
  ) {}

  invalidate(...parts: Part[]): void {
    if (this.disposed) return;
    for (const p of parts) this.dirty.add(p);
    if (this.frame !== null) return;
    this.frame = this.clock.requestFrame(() => {
      this.frame = null;
      this.flush();
    });
  }

  /** Invalidates `parts` in `ms`; while one such request is pending, further ones are ignored (they come from one throttle). */
  invalidateAfter(ms: number, ...parts: Part[]): void {
    if (this.disposed || this.later !== null) return;
    this.later = this.clock.setTimeout(() => {
      this.later = null;
      this.invalidate(...parts);
    }, ms);
  }

  flush(): void {
    if (this.frame !== null) {
      this.clock.cancelFrame(this.frame);
      this.frame = null;
    }
    if (this.disposed || this.dirty.size === 0) return;
    const parts = new Set(this.dirty);
    this.dirty.clear();
    this.run(parts);
  }

  dispose(): void {
    if (this.frame !== null) this.clock.cancelFrame(this.frame);
    if (this.later !== null) this.clock.clearTimeout(this.later);
    this.frame = this.later = null;
    this.disposed = true;
    this.dirty.clear();
  }
}
