// The host and the webview in one process: the real InspectorConnection (extension side, no
// `vscode`) fed by a FixtureApp's real Model and Analyzer, talking to the real renderer in jsdom.
// Every message goes through JSON, as postMessage does. Time for the delta pump is a manual clock.

import { InspectorConnection, type HostEffects } from '../../../extension/src/inspector/connection';
import type { PumpClock } from '../../../extension/src/inspector/pump';
import type { InspectorSessionInfo, InspectorSource } from '../../../extension/src/inspector/source';
import type { HostToWebview, InspectorPort, WebviewToHost } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { FixtureApp } from '../../webview/fixtures/fixtureApp';

export class ManualClock implements PumpClock {
  time = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Moves time on, running every timer that falls due (in order). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.time = next.at;
      next.fn();
    }
    this.time = end;
  }
}

/** An InspectorSource over fixture apps, whose phases the test changes. */
export class FixtureSource implements InspectorSource {
  private readonly listeners = new Set<(e: unknown) => unknown>();
  readonly apps: FixtureApp[] = [];
  readonly phases = new Map<string, InspectorSessionInfo['phase']>();
  /** Sessions that are browser apps' pages. */
  readonly browsers = new Set<string>();

  constructor(...apps: FixtureApp[]) {
    this.apps.push(...apps);
  }

  sessions(): readonly InspectorSessionInfo[] {
    return this.apps.map((app) => ({
      id: app.opts.sessionId,
      label: app.opts.label,
      phase: this.phases.get(app.opts.sessionId) ?? 'attached',
      detail: this.phases.get(app.opts.sessionId) === 'detached' ? 'the app exited' : '',
      offline: false,
      ...(this.browsers.has(app.opts.sessionId) ? { browser: true } : {}),
      model: app.model,
      warnings: () => app.analyzer.warnings,
    }));
  }

  onDidChangeSessions = (listener: (e: unknown) => unknown): { dispose(): void } => {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  };

  setPhase(id: string, phase: InspectorSessionInfo['phase']): void {
    this.phases.set(id, phase);
    for (const l of this.listeners) l(undefined);
  }

  add(app: FixtureApp): void {
    this.apps.push(app);
    for (const l of this.listeners) l(undefined);
  }

  remove(id: string): void {
    const i = this.apps.findIndex((a) => a.opts.sessionId === id);
    if (i >= 0) this.apps.splice(i, 1);
    for (const l of this.listeners) l(undefined);
  }
}

export interface Loopback {
  readonly port: InspectorPort;
  readonly connection: InspectorConnection;
  readonly clock: ManualClock;
  /** What the webview posted, in order. */
  readonly fromWebview: WebviewToHost[];
  /** What the host posted, in order. */
  readonly fromHost: HostToWebview[];
  readonly opened: { file: string; line: number; column: number }[];
  readonly commands: string[];
  readonly exported: string[];
  of<T extends WebviewToHost['type']>(type: T): Extract<WebviewToHost, { type: T }>[];
  hostOf<T extends HostToWebview['type']>(type: T): Extract<HostToWebview, { type: T }>[];
  /** Delivers a message to the webview as if the host sent it (bypassing the connection). */
  inject(msg: HostToWebview): void;
}

export function loopback(source: InspectorSource): Loopback {
  const clock = new ManualClock();
  const listeners = new Set<(msg: HostToWebview) => void>();
  const fromWebview: WebviewToHost[] = [];
  const fromHost: HostToWebview[] = [];
  const opened: Loopback['opened'] = [];
  const commands: string[] = [];
  const exported: string[] = [];
  const effects: HostEffects = {
    post(msg) {
      const copy = JSON.parse(JSON.stringify(msg)) as HostToWebview;
      fromHost.push(copy);
      for (const l of listeners) l(copy);
    },
    openSource: (file, line, column) => void opened.push({ file, line, column }),
    runCommand: (id) => void commands.push(id),
    exportRangeStats: async (stats, name) => {
      exported.push(name);
      return `Saved ${stats.dispatches} dispatches to ${name}`;
    },
    showError: (message) => {
      throw new Error(message);
    },
  };
  const connection = new InspectorConnection(source, effects, { clock });
  const port: InspectorPort = {
    postMessage(msg) {
      const copy = JSON.parse(JSON.stringify(msg)) as WebviewToHost;
      fromWebview.push(copy);
      connection.receive(copy);
    },
    onMessage(listener) {
      listeners.add(listener);
      return { dispose: () => void listeners.delete(listener) };
    },
  };
  return {
    port,
    connection,
    clock,
    fromWebview,
    fromHost,
    opened,
    commands,
    exported,
    of: (type) => fromWebview.filter((m) => m.type === type) as never,
    hostOf: (type) => fromHost.filter((m) => m.type === type) as never,
    inject: (msg) => {
      const copy = JSON.parse(JSON.stringify(msg)) as HostToWebview;
      for (const l of listeners) l(copy);
    },
  };
}
