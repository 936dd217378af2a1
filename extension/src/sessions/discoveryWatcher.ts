// The running apps, from the probe's discovery files, kept fresh while someone needs them (the
// Attach picker while open, the Apps view while visible, an ended session waiting for its app to
// come back). Demand is reference-counted: with nobody watching, nothing polls. No `vscode` here.
import { Emitter } from '../../../runtime-probe/src/delegates/index';
import { discoveryDirectory, listDiscoveredApps, type DiscoveredApp } from '../../../runtime-probe/src/discovery/index';

export type { DiscoveredApp };

export interface DiscoveryWatcherOptions {
  /** The directory override (setting); undefined uses the probe's default ($BUSSCOPE_DISCOVERY_DIR, …). */
  readonly directory?: () => string | undefined;
  /** Poll interval while watched. Default 1000 ms. */
  readonly intervalMs?: number;
}

/** Identity of one run of one app: a restarted app has a new discovery file and start time. */
export function appKey(app: DiscoveredApp): string {
  return `${app.pid}:${app.port}:${app.startTime}`;
}

export class DiscoveryWatcher {
  private readonly changed = new Emitter<readonly DiscoveredApp[]>();
  /** Fires with the new list whenever an app appears or goes away (only while watched or on `refresh`). */
  readonly onDidChange = this.changed.event;
  private current: readonly DiscoveredApp[] = [];
  private currentKeys = '';
  private watchers = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly intervalMs: number;
  private disposed = false;

  constructor(private readonly options: DiscoveryWatcherOptions = {}) {
    this.intervalMs = options.intervalMs ?? 1000;
    if (!Number.isFinite(this.intervalMs) || this.intervalMs <= 0) throw new TypeError(`DiscoveryWatcher: intervalMs must be positive, got ${this.intervalMs}`);
  }

  /** The directory read now. */
  get directory(): string {
    const override = this.options.directory?.();
    return override !== undefined && override !== '' ? override : discoveryDirectory();
  }

  /** The apps seen by the last read. */
  get apps(): readonly DiscoveredApp[] {
    return this.current;
  }

  get watching(): boolean {
    return this.watchers > 0;
  }

  /** Reads the directory now; fires `onDidChange` when the set of apps changed. */
  refresh(): readonly DiscoveredApp[] {
    if (this.disposed) return this.current;
    let apps: DiscoveredApp[];
    try {
      apps = listDiscoveredApps({ dir: this.directory });
    } catch {
      apps = []; // an unreadable directory lists nothing; the picker says so
    }
    const keys = apps.map(appKey).join('|');
    if (keys !== this.currentKeys) {
      this.current = apps;
      this.currentKeys = keys;
      this.changed.fire(apps);
    } else this.current = apps;
    return this.current;
  }

  /** Keeps the list fresh until the returned handle is disposed. */
  watch(): { dispose(): void } {
    if (this.disposed) return { dispose: () => undefined };
    this.watchers++;
    if (this.timer === undefined) {
      this.refresh();
      this.timer = setInterval(() => this.refresh(), this.intervalMs);
      this.timer.unref?.();
    }
    let released = false;
    return {
      dispose: () => {
        if (released) return;
        released = true;
        this.watchers--;
        if (this.watchers === 0 && this.timer !== undefined) {
          clearInterval(this.timer);
          this.timer = undefined;
        }
      },
    };
  }

  /** Resolves with the first app matching `predicate` (checking now, then as the list changes), or undefined after `timeoutMs`. */
  waitFor(predicate: (app: DiscoveredApp) => boolean, timeoutMs: number): Promise<DiscoveredApp | undefined> {
    const found = this.refresh().find(predicate);
    if (found !== undefined || timeoutMs <= 0) return Promise.resolve(found);
    return new Promise((resolve) => {
      const handle = this.watch();
      const done = (app: DiscoveredApp | undefined): void => {
        clearTimeout(timer);
        listener.dispose();
        handle.dispose();
        resolve(app);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      const listener = this.onDidChange((apps) => {
        const app = apps.find(predicate);
        if (app !== undefined) done(app);
      });
    });
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.changed.dispose();
  }
}
