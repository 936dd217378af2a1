// Coalesces redraw requests into one animation frame. `flush()` runs pending work at once (tests,
// and the host's "render now" after a snapshot).

export type Part = 'graph' | 'timeline' | 'outline' | 'warnings' | 'details' | 'banner' | 'toolbar';

export class Scheduler {
  private readonly dirty = new Set<Part>();
  private handle: number | null = null;
  private viaTimeout = false;
  private disposed = false;

  constructor(
    private readonly win: Window,
    private readonly run: (parts: ReadonlySet<Part>) => void,
  ) {}

  invalidate(...parts: Part[]): void {
    if (this.disposed) return;
    for (const p of parts) this.dirty.add(p);
    if (this.handle !== null) return;
    const raf = this.win.requestAnimationFrame?.bind(this.win);
    this.viaTimeout = !raf;
    this.handle = raf ? raf(() => this.flush()) : (this.win.setTimeout(() => this.flush(), 16) as unknown as number);
  }

  flush(): void {
    if (this.handle !== null) {
      if (this.viaTimeout) this.win.clearTimeout(this.handle);
      else this.win.cancelAnimationFrame(this.handle);
      this.handle = null;
    }
    if (this.disposed || this.dirty.size === 0) return;
    const parts = new Set(this.dirty);
    this.dirty.clear();
    this.run(parts);
  }

  dispose(): void {
    if (this.handle !== null) {
      if (this.viaTimeout) this.win.clearTimeout(this.handle);
      else this.win.cancelAnimationFrame(this.handle);
      this.handle = null;
    }
    this.disposed = true;
    this.dirty.clear();
  }
}
