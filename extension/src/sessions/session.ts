// One attached app (or one opened trace file): its model, its analyzer, and the connection feeding
// them. The model takes every message as it arrives; the analyses run on a throttle and
// `onDidUpdate` tells the views, a few times a second at most. When the connection ends the session
// ends with a cause, and its model stays inspectable until the session is removed. No `vscode` here.
import { Emitter } from '../../../runtime-probe/src/delegates/index';
import type { ProbeClient, ProbeClientError } from '../../../runtime-probe/src/client/index';
import type { DiscoveredApp } from '../../../runtime-probe/src/discovery/index';
import type { AppInfo, StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { Analyzer, type AnalyzerOptions } from '../../../runtime-probe/src/analysis/analyses/analyzer';
import type { DebugLink } from '../debugging/link';
import type { Warning } from '../../../runtime-probe/src/analysis/analyses/warning';
import { Model, type ModelOptions } from '../../../runtime-probe/src/analysis/model/index';
import { BusFocus } from './busFocus';
import { Throttle } from './throttle';

/** How a session was started. */
export type SessionSource =
  | { readonly kind: 'app'; readonly app: DiscoveredApp }
  | { readonly kind: 'address'; readonly host: string; readonly port: number; readonly token: string }
  /**
   * A page or worker that connected to *Accept Browser Apps*. Identity: name + origin + tab id (a
   * reload is the same app); `reloads` counts the reloads this session follows.
   */
  | { readonly kind: 'browser'; readonly name: string; readonly origin: string; readonly tabId: string; readonly reloads: number }
  | { readonly kind: 'trace'; readonly file: string };

export type SessionKind = 'live' | 'trace';

/** Why a session is over. */
export type EndCause =
  /** The user detached (or cleared, or the extension shut down). */
  | 'detached'
  /** The connection closed and the app's process is gone. */
  | 'app-exited'
  /** The connection closed while the app still runs (its probe stopped, or the network failed). */
  | 'connection-lost'
  /** The probe sent an error and closed, or the stream was corrupt. */
  | 'error'
  /** A trace file was read to its end (or to where it was cut). */
  | 'end-of-trace';

export interface SessionEnd {
  readonly cause: EndCause;
  /** For people: "the app exited", "detached", the probe's message… */
  readonly reason: string;
  /** Epoch ms. */
  readonly at: number;
}

export interface SessionOptions {
  readonly id: string;
  readonly source: SessionSource;
  readonly model?: Partial<ModelOptions>;
  readonly analyzer?: AnalyzerOptions;
  /** Minimum time between analysis runs / update events. Default 250 ms. */
  readonly updateIntervalMs?: number;
  /** While live and quiet, advance model time this often so rates decay and grace periods pass. Default 1000 ms. */
  readonly tickMs?: number;
  /** Is the app's process alive? (to tell "exited" from "connection lost"). */
  readonly isProcessAlive?: (pid: number) => boolean;
  /**
   * Told once per session when an analysis run throws (the session keeps updating its views; later
   * failures are not repeated). Default: `console.error`.
   */
  readonly onError?: (message: string, error: unknown) => void;
}

/** Names past the string table cap (PROTOCOL.md, "String table caps"): the views say so. */
export interface NameOverflow {
  /** Name and site definitions from the app that this session folded into the overflow bucket. */
  readonly folded: number;
  /** The app's own table is full: some names arrive as "(too many distinct names)". */
  readonly appTableFull: boolean;
}

export class Session {
  readonly id: string;
  readonly source: SessionSource;
  readonly kind: SessionKind;
  readonly model: Model;
  readonly analyzer: Analyzer;
  /** Epoch ms when the session started. */
  readonly startedAt = Date.now();

  /** A view that throws while updating is reported (once) and the other views still update. */
  private readonly updated = new Emitter<Session>({
    onError: (error) => this.reportOnce('listener', `Busscope: a view failed to update from ${this.description}`, error),
  });
  /** Throttled: the model changed and the analyses have run. */
  readonly onDidUpdate = this.updated.event;
  private readonly endedEmitter = new Emitter<Session>();
  /** Once, when the session ends (connection closed, detached, trace read). */
  readonly onDidEnd = this.endedEmitter.event;

  private client: ProbeClient | undefined;
  /** Library buses the views ask the probe to record at full detail (`focus`). */
  readonly focus = new BusFocus(() => this.client);
  private endInfo: SessionEnd | undefined;
  private readonly throttle: Throttle;
  private readonly unsubscribeModel: () => void;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private lastTickVersion = -1;
  private readonly isProcessAlive: (pid: number) => boolean;
  /** Records the model received (for the status line and tests). */
  recordsReceived = 0;
  private folded = 0;
  private appTableFull = false;
  private readonly onError: (message: string, error: unknown) => void;
  /** What has been reported already: each kind of failure is told once per session. */
  private readonly reported = new Set<'analysis' | 'listener'>();
  /** Set while a detach is closing the client: why, as the session's end reason. */
  private detaching: string | undefined;
  /** The debug session the app runs under (extension/src/debugging keeps it). */
  private debugLink: DebugLink | undefined;

  constructor(options: SessionOptions) {
    if (typeof options.id !== 'string' || options.id === '') throw new TypeError('Session: id must be a non-empty string');
    this.id = options.id;
    this.source = options.source;
    this.kind = options.source.kind === 'trace' ? 'trace' : 'live';
    this.model = new Model(options.model ?? {});
    this.analyzer = new Analyzer(this.model, options.analyzer ?? {});
    this.isProcessAlive = options.isProcessAlive ?? (() => true);
    this.onError = options.onError ?? ((message, error) => console.error(message, error));
    this.throttle = new Throttle(() => this.runUpdate(), options.updateIntervalMs ?? 250);
    this.unsubscribeModel = this.model.onDidChange(() => this.throttle.schedule());
    if (this.kind === 'live') {
      const tickMs = options.tickMs ?? 1000;
      this.ticker = setInterval(() => this.tick(), tickMs);
      this.ticker.unref?.();
    }
  }

  /** The app, once its welcome arrived (a trace names the app that recorded it). */
  get app(): AppInfo | null {
    return this.model.sessionInfo.app;
  }

  /** A short name for lists: the app's name, else the address or file. */
  get title(): string {
    const app = this.app;
    if (app !== null) return app.name;
    switch (this.source.kind) {
      case 'app':
        return this.source.app.name;
      case 'address':
        return `${this.source.host}:${this.source.port}`;
      case 'browser':
        return this.source.name;
      case 'trace':
        return this.source.file.split(/[\\/]/).pop() ?? this.source.file;
      default: {
        const never: never = this.source;
        return never;
      }
    }
  }

  /** Where the app runs: `pid 123`, a page's origin, or undefined (a trace). */
  get where(): string | undefined {
    if (this.source.kind === 'browser') return this.source.origin;
    const pid = this.app?.pid ?? (this.source.kind === 'app' ? this.source.app.pid : undefined);
    return pid === undefined ? undefined : `pid ${pid}`;
  }

  /** `name (pid 123)` (a page: `name (http://localhost:5173)`), for messages. */
  get description(): string {
    const where = this.where;
    return where === undefined ? this.title : `${this.title} (${where})`;
  }

  /** True while connected to a running app. */
  get isLive(): boolean {
    return this.kind === 'live' && this.endInfo === undefined;
  }

  get ended(): SessionEnd | undefined {
    return this.endInfo;
  }

  /** The warnings that held at the last analysis run. */
  get warnings(): readonly Warning[] {
    return this.analyzer.warnings;
  }

  /** Dispatches per second over the model's rate window. */
  get dispatchesPerSecond(): number {
    const now = this.model.now;
    let rate = 0;
    for (const t of this.model.allTypes()) rate += t.rate.ratePerSecond(now);
    return rate;
  }

  /** Feeds one stream message (live client or trace reader). */
  ingest(message: StreamMessage): void {
    if (message.type === 'records') {
      this.recordsReceived += message.applied ?? message.records.length;
      const overflow = message.nameOverflow;
      if (overflow !== undefined) {
        this.folded += overflow.folded;
        if (overflow.appTableFull) this.appTableFull = true;
      }
    }
    this.model.apply(message);
  }

  /** Set once too many distinct names arrived (here or in the app); undefined while all fit. */
  get nameOverflow(): NameOverflow | undefined {
    return this.folded === 0 && !this.appTableFull ? undefined : { folded: this.folded, appTableFull: this.appTableFull };
  }

  /** @internal The manager hands over the connected client. */
  bindClient(client: ProbeClient): void {
    if (this.endInfo !== undefined) {
      client.close();
      return;
    }
    this.client = client;
  }

  /** @internal The client's onClose. */
  clientClosed(error: ProbeClientError | undefined): void {
    this.client = undefined;
    if (this.detaching !== undefined) return this.end('detached', this.detaching);
    if (error !== undefined) return this.end('error', error.message);
    // A page has no process to look at: it was closed, reloaded or navigated away.
    if (this.source.kind === 'browser') return this.end('connection-lost', 'the page closed or reloaded');
    const pid = this.app?.pid;
    if (pid !== undefined && !this.isProcessAlive(pid)) return this.end('app-exited', 'the app exited');
    this.end('connection-lost', 'the connection closed');
  }

  /**
   * Closes the connection; the session ends as detached and its model stays. Idempotent.
   * `reason`: what the views say ended it ("detached" when the user detached).
   */
  detach(reason = 'detached'): void {
    if (this.endInfo !== undefined) return;
    this.detaching = reason;
    const client = this.client;
    this.client = undefined;
    client?.close();
    this.end('detached', reason);
  }

  /** True while a socket is open (tests check detach leaves none). */
  get connected(): boolean {
    return this.client !== undefined && !this.client.isClosed;
  }

  /** The debug session the app runs under, and its pause (views show them). */
  get debug(): DebugLink | undefined {
    return this.debugLink;
  }

  /** @internal Set by extension/src/debugging; the views refresh through `onDidUpdate`. */
  setDebug(link: DebugLink | undefined): void {
    if (link === this.debugLink) return;
    this.debugLink = link;
    this.updated.fire(this);
  }

  /** The live client, for requests (snapshot, configure, breakOn). Undefined once ended. */
  get probeClient(): ProbeClient | undefined {
    return this.client;
  }

  /** @internal Ends the session (idempotent); the model keeps its state. */
  end(cause: EndCause, reason: string): void {
    if (this.endInfo !== undefined) return;
    this.endInfo = { cause, reason, at: Date.now() };
    this.focus.reset();
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
    this.model.endSession(reason);
    this.throttle.flush();
    this.runUpdate();
    this.endedEmitter.fire(this);
  }

  /** Forgets what was recorded (a live session keeps its live subscriptions) and its warnings. */
  clear(): void {
    this.analyzer.reset();
    this.model.clear();
    this.throttle.flush();
  }

  /** Runs the analyses now (instead of at the next throttle tick) and notifies. */
  update(): void {
    this.throttle.flush();
    this.runUpdate();
  }

  /** Applies new analysis thresholds from the next run (and runs now). */
  reconfigure(options: AnalyzerOptions): void {
    this.analyzer.configure(options);
    this.update();
  }

  /**
   * Runs from a timer: nothing may escape it. An analysis that throws (a bug, or data it did not
   * expect) is reported once, and the views still update from the model (listeners' errors are
   * caught by the emitter).
   */
  private runUpdate(): void {
    try {
      this.analyzer.run();
    } catch (error) {
      this.reportOnce('analysis', `Busscope: analysing ${this.description} failed; its warnings may be stale`, error);
    }
    this.updated.fire(this);
    // The near-miss search ran out of its budget: carry on at the next throttle tick, even if the
    // app is quiet or the session has ended (a trace), until the results are complete.
    if (this.analyzer.progress.partial) this.throttle.schedule();
  }

  private reportOnce(kind: 'analysis' | 'listener', message: string, error: unknown): void {
    if (this.reported.has(kind)) return;
    this.reported.add(kind);
    try {
      this.onError(message, error);
    } catch {
      // a failing reporter must not take the session down either
    }
  }

  private tick(): void {
    if (!this.isLive) return;
    const origin = this.model.sessionInfo.timeOrigin;
    // A quiet app sends nothing: move model time on so rates fall to 0 and grace periods pass.
    if (origin > 0 && this.model.version === this.lastTickVersion) this.model.advanceTime(Date.now() - origin);
    this.lastTickVersion = this.model.version; // after our own advance, so a quiet app keeps advancing
  }

  /** Detaches (if live) and releases everything. */
  dispose(): void {
    this.detach();
    this.throttle.dispose();
    this.unsubscribeModel();
    this.updated.dispose();
    this.endedEmitter.dispose();
  }
}
