// Every session of the window: attach (from discovery, by address, or by pid), detach, open trace
// files, clear; several apps at once. When an attached app goes away its session ends and stays
// inspectable; when the same app (same name and working directory) shows up again in discovery,
// the manager either re-attaches by itself (`autoReattach`) or announces it (`onDidReturn`) so the
// UI can offer to. No `vscode` here: the commands and views are thin layers over this class.
import { ProbeClient, ProbeClientError } from '../../../runtime-probe/src/client/index';
import { readTraceFile } from '../../../runtime-probe/src/client/index';
import { Emitter } from '../../../runtime-probe/src/delegates/index';
import { isProcessAlive as probeIsProcessAlive } from '../../../runtime-probe/src/discovery/index';
import { ProtocolError, type StreamMessage } from '../../../runtime-probe/src/protocol/index';
import type { AnalyzerOptions } from '../../../runtime-probe/src/analysis/analyses/analyzer';
import type { ModelOptions } from '../../../runtime-probe/src/analysis/model/index';
import type { BrowserApp } from '../browserApps/browserAppServer';
import { AttachError, attachErrorFrom } from './attachError';
import { appKey, DiscoveryWatcher, type DiscoveredApp } from './discoveryWatcher';
import { Session, type SessionSource } from './session';

export interface SessionManagerOptions {
  /** Sent in `hello`; the app's log shows it. */
  readonly clientName?: string;
  /** Discovery directory override (a setting); undefined uses the probe's default. */
  readonly discoveryDirectory?: () => string | undefined;
  /** Read at each attach: ring sizes of new sessions. */
  readonly modelOptions?: () => Partial<ModelOptions>;
  /** Read at each attach and on `reconfigure()`. */
  readonly analyzerOptions?: () => AnalyzerOptions;
  /**
   * Read at each attach: ask the probe to record sanitized payloads (`configure`), so the inspector
   * can preview them. Off sends nothing (the setting is process-wide in the probe: an app that
   * captures payloads by itself keeps doing so).
   */
  readonly capturePayloads?: () => boolean;
  /** Read when an ended app comes back. */
  readonly autoReattach?: () => boolean;
  readonly connectTimeoutMs?: number;
  /** Throttle of analysis runs and update events per session. Default 250 ms. */
  readonly updateIntervalMs?: number;
  /** Discovery poll interval while watched. Default 1000 ms. */
  readonly discoveryIntervalMs?: number;
  readonly isProcessAlive?: (pid: number) => boolean;
  /** Where a session reports, once, that its analyses or views failed (the output channel). */
  readonly onSessionError?: (message: string, error: unknown) => void;
}

/** An app whose session ended is running again. */
export interface AppReturned {
  readonly session: Session;
  readonly app: DiscoveredApp;
}

export interface Reattached {
  /** The ended session, now removed. */
  readonly previous: Session;
  readonly session: Session;
}

export interface ReattachFailed {
  readonly session: Session;
  readonly app: DiscoveredApp;
  readonly error: AttachError;
}

/** Same program in the same folder: what "the app came back" means. */
export function isSameApp(a: { readonly name: string; readonly cwd: string }, b: { readonly name: string; readonly cwd: string }): boolean {
  return a.name === b.name && a.cwd === b.cwd;
}

export class SessionManager {
  readonly discovery: DiscoveryWatcher;
  private readonly list: Session[] = [];
  private nextId = 1;
  private readonly sessionsChanged = new Emitter<readonly Session[]>();
  /** A session was added, removed, or ended. */
  readonly onDidChangeSessions = this.sessionsChanged.event;
  private readonly sessionUpdated = new Emitter<Session>();
  /** A session's model changed and its analyses ran (throttled per session). */
  readonly onDidUpdateSession = this.sessionUpdated.event;
  private readonly sessionEnded = new Emitter<Session>();
  readonly onDidEndSession = this.sessionEnded.event;
  private readonly returned = new Emitter<AppReturned>();
  /** An ended app runs again and `autoReattach` is off: offer to re-attach (`reattach`). Once per run of the app. */
  readonly onDidReturn = this.returned.event;
  private readonly reattached = new Emitter<Reattached>();
  readonly onDidReattach = this.reattached.event;
  private readonly reattachFailed = new Emitter<ReattachFailed>();
  readonly onDidFailReattach = this.reattachFailed.event;

  /** Ended sessions waiting for their app to return → runs of the app already offered. */
  private readonly awaiting = new Map<Session, Set<string>>();
  private awaitingWatch: { dispose(): void } | undefined;
  private readonly discoveryListener: { dispose(): void };
  private readonly isProcessAlive: (pid: number) => boolean;
  private readonly pendingTimers = new Set<ReturnType<typeof setTimeout>>();
  /** A live browser app's page, told on detach not to dial again (BrowserApp.dismiss). */
  private readonly pages = new Map<Session, BrowserApp>();
  private disposed = false;

  constructor(private readonly options: SessionManagerOptions = {}) {
    this.discovery = new DiscoveryWatcher({ directory: options.discoveryDirectory, intervalMs: options.discoveryIntervalMs });
    this.isProcessAlive = options.isProcessAlive ?? probeIsProcessAlive;
    this.discoveryListener = this.discovery.onDidChange((apps) => this.checkReturns(apps));
  }

  /** Every session, in the order they were started (a re-attached one takes its predecessor's place). */
  get sessions(): readonly Session[] {
    return this.list;
  }

  get liveSessions(): readonly Session[] {
    return this.list.filter((s) => s.isLive);
  }

  find(id: string): Session | undefined {
    return this.list.find((s) => s.id === id);
  }

  /** The live session attached to this run of the app, if any. */
  sessionFor(app: DiscoveredApp): Session | undefined {
    return (
      this.list.find((s) => s.isLive && s.source.kind === 'app' && s.source.app.pid === app.pid && s.source.app.port === app.port) ??
      this.list.find((s) => s.isLive && s.source.kind === 'address' && s.source.port === app.port && s.app?.pid === app.pid)
    );
  }

  isAttached(app: DiscoveredApp): boolean {
    return this.sessionFor(app) !== undefined;
  }

  /** Running apps from discovery, read now (newest first). */
  listApps(): readonly DiscoveredApp[] {
    return this.discovery.refresh();
  }

  /** Attaches to an app from discovery; returns the existing session when already attached. */
  attachApp(app: DiscoveredApp): Promise<Session> {
    const existing = this.sessionFor(app);
    if (existing !== undefined) return Promise.resolve(existing);
    return this.connect({ kind: 'app', app }, { host: app.host, port: app.port, token: app.token }, `${app.name} (pid ${app.pid})`, app.protocolVersion);
  }

  /** Attaches to the app with this pid, waiting up to `waitMs` for its discovery file to appear. */
  async attachPid(pid: number, waitMs = 0): Promise<Session> {
    if (!Number.isInteger(pid) || pid <= 0) throw new TypeError(`attachPid: pid must be a positive integer, got ${String(pid)}`);
    const app = await this.discovery.waitFor((a) => a.pid === pid, waitMs);
    if (app === undefined) {
      throw new AttachError(
        'not-found',
        `No Busscope app with pid ${pid} in ${this.discovery.directory}. Is it running with the probe on (BUSSCOPE=1 or probe.start())?`,
      );
    }
    return this.attachApp(app);
  }

  /** Attaches by address and token (apps without a discovery file, other discovery folders). */
  attachAddress(host: string, port: number, token: string): Promise<Session> {
    if (typeof host !== 'string' || host === '') throw new TypeError('attachAddress: host must be a non-empty string');
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError(`attachAddress: port must be an integer in 1…65535, got ${String(port)}`);
    if (typeof token !== 'string') throw new TypeError('attachAddress: token must be a string');
    return this.connect({ kind: 'address', host, port, token }, { host, port, token }, `${host}:${port}`, undefined);
  }

  /**
   * A page that connected to *Accept Browser Apps* (browserApps/browserAppServer.ts) becomes a
   * session like any other. A reload (same name, origin and tab) takes the earlier session's place,
   * counted in `source.reloads`, and `onDidReattach` tells the views; so does a shared or service
   * worker that starts again (same name, origin, script URL and worker name) once its last run ended.
   */
  async attachBrowserApp(app: BrowserApp): Promise<Session> {
    if (this.disposed) {
      app.transport.destroy();
      throw new AttachError('internal', 'Busscope is shutting down.');
    }
    const previous = [...this.list].reverse().find(
      (s) =>
        s.source.kind === 'browser' &&
        s.source.tabId !== '' &&
        s.source.tabId === app.tabId &&
        s.source.origin === app.origin &&
        s.source.name === app.name &&
        // A shared or service worker that is still live is the same worker in another browser profile.
        !(app.workerIdentity && s.isLive),
    );
    const reloads = previous?.source.kind === 'browser' ? previous.source.reloads + 1 : 0;
    const source: SessionSource = { kind: 'browser', name: app.name, origin: app.origin, tabId: app.tabId, reloads };
    const session = this.createSession(source);
    let client: ProbeClient;
    try {
      client = await ProbeClient.over(app.transport, this.clientOptions(session, app.token), `${app.name} (${app.origin})`, (events) => app.wire(events));
    } catch (error) {
      session.dispose();
      throw attachErrorFrom(error, { what: `${app.name} (${app.origin})`, appProtocolVersion: undefined });
    }
    session.bindClient(client);
    if (session.isLive) {
      this.pages.set(session, app);
      session.onDidEnd(() => this.pages.delete(session));
    }
    if (previous === undefined || !this.list.includes(previous)) {
      this.add(session);
    } else {
      this.awaiting.delete(previous);
      this.updateAwaitingWatch();
      this.list.splice(this.list.indexOf(previous), 1, session);
      session.onDidUpdate((s) => this.sessionUpdated.fire(s));
      session.onDidEnd((s) => this.sessionDidEnd(s));
      // Still live when the new page's socket arrives before the old one's close: it is over now.
      previous.dispose();
      this.reattached.fire({ previous, session });
      this.sessionsChanged.fire(this.list);
    }
    if (this.options.capturePayloads?.() === true) client.configure({ capturePayloads: true }).catch(() => undefined);
    return session;
  }

  /** Re-attaches to a returned app; the ended session is replaced by the new one. */
  async reattach(previous: Session, app: DiscoveredApp): Promise<Session> {
    const session = await this.attachApp(app);
    this.awaiting.delete(previous);
    this.updateAwaitingWatch();
    const index = this.list.indexOf(previous);
    const at = this.list.indexOf(session);
    if (index !== -1 && at !== -1 && previous !== session) {
      this.list.splice(at, 1);
      this.list.splice(this.list.indexOf(previous), 1, session);
      previous.dispose();
    }
    this.reattached.fire({ previous, session });
    this.sessionsChanged.fire(this.list);
    return session;
  }

  /** Loads a trace file recorded by the probe into a new session (ended once read). */
  async openTrace(file: string): Promise<Session> {
    if (typeof file !== 'string' || file === '') throw new TypeError('openTrace: file must be a non-empty path');
    const session = this.createSession({ kind: 'trace', file });
    let cut: string | undefined;
    try {
      for await (const message of readTraceFile(file, session.model.recordSink)) session.ingest(message);
    } catch (error) {
      if (error instanceof ProtocolError && error.code === 'truncated' && session.model.sessionInfo.app !== null) {
        cut = 'the trace ends mid-record (the app probably stopped abruptly); everything before is shown';
      } else {
        session.dispose();
        const text = error instanceof Error ? error.message : String(error);
        if (error instanceof ProtocolError && error.code === 'not-a-trace') {
          throw new AttachError('bad-trace', `${file} is not a Busscope trace file (record one with BUSSCOPE_RECORD=<file> or \`busscope record\`).`, text);
        }
        if (error instanceof ProtocolError) throw new AttachError('bad-trace', `Cannot read the trace ${file}: ${text}`, text);
        throw new AttachError('bad-trace', `Cannot open ${file}: ${text}`, text);
      }
    }
    this.add(session);
    session.end('end-of-trace', cut ?? 'end of trace');
    return session;
  }

  /** Detaches a live session (its model stays). A page is told not to come back until it is reloaded. */
  detach(session: Session): void {
    this.awaiting.delete(session);
    this.updateAwaitingWatch();
    this.pages.get(session)?.dismiss();
    session.detach();
  }

  /**
   * Ends every browser app's session saying `reason` (*Stop Accepting Browser Apps*: the pages are
   * still open, and try again while Busscope is away).
   */
  endBrowserApps(reason: string): void {
    for (const s of this.liveSessions) if (s.source.kind === 'browser') s.detach(reason);
  }

  /** Detaches every live session. */
  detachAll(): void {
    for (const s of this.liveSessions) this.detach(s);
  }

  /** Detaches if needed and forgets the session. */
  remove(session: Session): void {
    const i = this.list.indexOf(session);
    this.awaiting.delete(session);
    this.updateAwaitingWatch();
    session.dispose();
    if (i !== -1) {
      this.list.splice(i, 1);
      this.sessionsChanged.fire(this.list);
    }
  }

  /**
   * *Clear*: ended sessions and traces are removed; live sessions forget what they recorded (their
   * live subscriptions stay). With a session, only that one.
   */
  clear(session?: Session): void {
    const targets = session === undefined ? [...this.list] : [session];
    for (const s of targets) {
      if (s.isLive) s.clear();
      else this.remove(s);
    }
  }

  /** Re-reads the analysis settings into every session. */
  reconfigure(): void {
    const analyzer = this.options.analyzerOptions?.() ?? {};
    for (const s of this.list) s.reconfigure(analyzer);
  }

  // -------------------------------------------------------------------------------------------

  private createSession(source: SessionSource): Session {
    return new Session({
      id: `session-${this.nextId++}`,
      source,
      model: this.options.modelOptions?.(),
      analyzer: this.options.analyzerOptions?.(),
      updateIntervalMs: this.options.updateIntervalMs,
      isProcessAlive: this.isProcessAlive,
      onError: this.options.onSessionError,
    });
  }

  private add(session: Session): void {
    this.list.push(session);
    session.onDidUpdate((s) => this.sessionUpdated.fire(s));
    session.onDidEnd((s) => this.sessionDidEnd(s));
    this.sessionsChanged.fire(this.list);
  }

  private clientOptions(
    session: Session,
    token: string,
  ): {
    token: string;
    clientName: string;
    timeoutMs: number | undefined;
    recordSink: Session['model']['recordSink'];
    onMessage: (m: StreamMessage) => void;
    onClose: (e: ProbeClientError | undefined) => void;
  } {
    return {
      token,
      clientName: this.options.clientName ?? 'busscope-vscode',
      timeoutMs: this.options.connectTimeoutMs,
      // Record batches decode straight into the model (no record object per dispatch).
      recordSink: session.model.recordSink,
      onMessage: (m) => session.ingest(m),
      onClose: (e) => this.clientClosed(session, e),
    };
  }

  private async connect(
    source: SessionSource,
    address: { host: string; port: number; token: string },
    what: string,
    appProtocolVersion: number | undefined,
  ): Promise<Session> {
    if (this.disposed) throw new AttachError('internal', 'Busscope is shutting down.');
    const session = this.createSession(source);
    let client: ProbeClient;
    try {
      client = await ProbeClient.connect({ ...this.clientOptions(session, address.token), host: address.host, port: address.port });
    } catch (error) {
      session.dispose();
      throw attachErrorFrom(error, { what, appProtocolVersion });
    }
    if (this.disposed) {
      client.close();
      session.dispose();
      throw new AttachError('internal', 'Busscope is shutting down.');
    }
    session.bindClient(client);
    this.add(session);
    if (this.options.capturePayloads?.() === true) {
      // Not awaited: a paused app answers later; a failure leaves the session without previews.
      client.configure({ capturePayloads: true }).catch(() => undefined);
    }
    return session;
  }

  private clientClosed(session: Session, error: ProbeClientError | undefined): void {
    // A probe that stops (often because its app is exiting) says so before closing: like a plain
    // close, that is "the app exited" or "the connection closed", decided by whether it still runs.
    const benign = error === undefined || error.code === 'probe-stopping';
    if (!benign || session.source.kind === 'browser') return session.clientClosed(error);
    const pid = session.app?.pid;
    if (pid === undefined || !this.isProcessAlive(pid) || this.disposed) return session.clientClosed(undefined);
    // The process may be on its way out: look again shortly before calling it a lost connection.
    const timer = setTimeout(() => {
      this.pendingTimers.delete(timer);
      session.clientClosed(undefined);
    }, 300);
    this.pendingTimers.add(timer);
  }

  private sessionDidEnd(session: Session): void {
    const cause = session.ended?.cause;
    const awaitReturn = (cause === 'app-exited' || cause === 'connection-lost') && session.app !== null && !this.disposed && session.source.kind !== 'browser';
    if (awaitReturn) {
      this.awaiting.set(session, new Set());
      this.updateAwaitingWatch();
    }
    this.sessionEnded.fire(session);
    this.sessionsChanged.fire(this.list);
    // The app may already be back in a list read earlier (no change event would announce it).
    if (awaitReturn) this.checkReturns(this.discovery.refresh());
  }

  private updateAwaitingWatch(): void {
    if (this.awaiting.size > 0 && this.awaitingWatch === undefined && !this.disposed) this.awaitingWatch = this.discovery.watch();
    else if (this.awaiting.size === 0 && this.awaitingWatch !== undefined) {
      this.awaitingWatch.dispose();
      this.awaitingWatch = undefined;
    }
  }

  private checkReturns(apps: readonly DiscoveredApp[]): void {
    for (const [session, offered] of [...this.awaiting]) {
      const info = session.app;
      if (info === null) continue;
      const previousKey = session.source.kind === 'app' ? appKey(session.source.app) : undefined;
      const app = apps.find((a) => {
        if (!isSameApp(a, info) || offered.has(appKey(a)) || this.isAttached(a)) return false;
        // Not the very run that ended (its file can linger for a moment after the socket closed).
        if (previousKey !== undefined) return appKey(a) !== previousKey;
        return !(a.pid === info.pid && a.startTime === info.startTime);
      });
      if (app === undefined) continue;
      offered.add(appKey(app));
      if (this.options.autoReattach?.() === true) {
        this.reattach(session, app).catch((e: unknown) =>
          this.reattachFailed.fire({
            session,
            app,
            error: attachErrorFrom(e, { what: `${app.name} (pid ${app.pid})`, appProtocolVersion: app.protocolVersion }),
          }),
        );
      } else this.returned.fire({ session, app });
    }
  }

  /** Detaches everything, stops polling, releases every session. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const t of this.pendingTimers) clearTimeout(t);
    this.pendingTimers.clear();
    this.awaiting.clear();
    this.pages.clear();
    this.awaitingWatch?.dispose();
    this.awaitingWatch = undefined;
    for (const s of this.list) s.dispose();
    this.list.length = 0;
    this.discoveryListener.dispose();
    this.discovery.dispose();
    this.sessionsChanged.dispose();
    this.sessionUpdated.dispose();
    this.sessionEnded.dispose();
    this.returned.dispose();
    this.reattached.dispose();
    this.reattachFailed.dispose();
  }
}
