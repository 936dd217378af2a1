// Auto-attach: Node programs launched by VS Code's debugger get the probe switched on (BUSSCOPE=1 and
// the discovery folder Busscope watches, injected by a debug configuration provider), and Busscope
// attaches as soon as the program's discovery file appears, matched to the debug session by its
// process (matching.ts). Apps that start the probe themselves are matched and attached the same way.
// When the debug session ends, what was attached automatically is detached. Apps the user attached
// by hand are linked to their debug session too (for the labels and snapshot on pause), never
// detached by it. A browser app (a page that connected itself: nothing to attach) is linked to the
// debug session of its page, found by the tab id the page keeps (matching.ts `matchPage`).
import * as vscode from 'vscode';
import type { DiscoveredApp } from '../sessions/discoveryWatcher';
import { appKey } from '../sessions/discoveryWatcher';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import type { DebugTarget, DebugTargets } from './debugTargets';
import { injectLaunchEnvironment, type EmitterInjection, type InjectableConfiguration } from './environment';
import type { DebugLink, DebugPause } from './link';
import { linuxParentPid, matchApp, matchPage, type AppFacts, type MatchReason, type PageMatchReason } from './matching';

/**
 * Injects the probe's environment into Node debug launches while `enabled()`, and the register script
 * while `emitters()` gives one (environment.ts decides; this only adapts it to VS Code).
 */
export class ProbeEnvironmentProvider implements vscode.DebugConfigurationProvider {
  constructor(
    private readonly enabled: () => boolean,
    private readonly discoveryDirectory: () => string,
    private readonly emitters: () => EmitterInjection | undefined = () => undefined,
    /** Called when a launch got the register script (for the one-time notice). */
    private readonly onInjectedRegister: () => void = () => undefined,
  ) {}

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    return this.inject(config);
  }

  // Also after variable substitution: another provider may have rewritten the configuration (js-debug
  // turns `node` into `pwa-node`); injecting twice changes nothing.
  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    return this.inject(config);
  }

  private inject(config: vscode.DebugConfiguration): vscode.DebugConfiguration {
    if (!this.enabled() || typeof config.type !== 'string' || typeof config.request !== 'string') return config;
    const result = injectLaunchEnvironment(config as InjectableConfiguration & vscode.DebugConfiguration, this.discoveryDirectory(), this.emitters());
    if (result.register === 'injected') this.onInjectedRegister();
    return result.config;
  }
}

interface Link {
  readonly target: DebugTarget;
  readonly auto: boolean;
  readonly reason: MatchReason | PageMatchReason;
}

function appFacts(session: Session): AppFacts | undefined {
  const app = session.app ?? (session.source.kind === 'app' ? session.source.app : undefined);
  return app === undefined || app === null ? undefined : { pid: app.pid, cwd: app.cwd, startTime: app.startTime };
}

export interface DebugLinkerOptions {
  readonly autoAttach: () => boolean;
  readonly log?: (message: string) => void;
  readonly parentOf?: (pid: number) => number | undefined;
}

export class DebugLinker implements vscode.Disposable {
  private readonly links = new Map<Session, Link>();
  private readonly attaching = new Set<string>();
  /** Runs of apps detached because their debug session ended: never auto-attached again. */
  private readonly released = new Set<string>();
  private discoveryWatch: { dispose(): void } | undefined;
  private readonly linked = new vscode.EventEmitter<Session>();
  /** A session was linked to a debug session (auto-attached or matched). */
  readonly onDidLink = this.linked.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly log: (message: string) => void;
  private disposed = false;

  constructor(
    private readonly sessions: SessionManager,
    private readonly targets: DebugTargets,
    private readonly options: DebugLinkerOptions,
  ) {
    this.log = options.log ?? (() => undefined);
    const toVscode = (d: { dispose(): void }): vscode.Disposable => new vscode.Disposable(() => d.dispose());
    this.disposables.push(
      this.linked,
      targets.onDidChange(() => this.reconcile()),
      targets.onDidEnd((t) => this.targetEnded(t)),
      toVscode(sessions.discovery.onDidChange(() => this.reconcile())),
      toVscode(sessions.onDidChangeSessions(() => this.reconcile())),
    );
    this.reconcile();
  }

  /**
   * Live sessions linked to this debug session: the process's own session, its launcher, or a session
   * of one of its worker threads (the same process under the same launch: debugTargets.ts `threadsOf`).
   */
  sessionsOf(debugSession: vscode.DebugSession): Session[] {
    const out: Session[] = [];
    const debugged = this.targets.find(debugSession.id);
    for (const [s, l] of this.links) {
      if (!s.isLive) continue;
      const t = l.target;
      const sameProcess = debugged !== undefined && debugged.pid !== undefined && debugged.pid === t.pid && debugged.root.id === t.root.id;
      // A page's Web Worker: js-debug starts its session under the page's (a page has no pid to share).
      const pageWorker = debugged?.kind === 'browser' && t.kind === 'browser' && isUnder(debugSession, t.session);
      if (t.session.id === debugSession.id || t.root.id === debugSession.id || sameProcess || pageWorker) out.push(s);
    }
    return out;
  }

  /** The debug target a session is linked to. */
  targetOf(session: Session): DebugTarget | undefined {
    return this.links.get(session)?.target;
  }

  get linkedSessions(): Session[] {
    return [...this.links.keys()];
  }

  /** Links a session to a debug target found another way (the paused state named its pid). */
  linkByPid(session: Session, target: DebugTarget): void {
    if (!this.links.has(session)) this.link(session, target, false, 'pid');
  }

  /** Sets or clears the pause shown for a linked session. */
  setPause(session: Session, pause: DebugPause | undefined): void {
    const link = session.debug;
    if (link === undefined || !this.links.has(session)) return;
    if (pause === undefined && link.paused === undefined) return;
    session.setDebug({ ...link, paused: pause });
  }

  /** Matches running apps and attached sessions to debug targets; attaches when auto-attach is on. */
  reconcile(): void {
    if (this.disposed) return;
    const targets = this.candidates();
    this.updateWatch(targets.length > 0);
    // Sessions whose app ended, or that were removed, are forgotten.
    for (const [s, l] of [...this.links]) {
      if (!s.isLive || !this.sessions.sessions.includes(s)) this.unlink(s);
      else if (this.targets.find(l.target.id) === undefined) this.unlink(s);
    }
    this.linkPages();
    if (targets.length === 0) return;
    const parentOf = this.options.parentOf ?? linuxParentPid;
    for (const s of this.sessions.liveSessions) {
      if (this.links.has(s) || s.source.kind === 'browser') continue;
      const facts = appFacts(s);
      if (facts === undefined) continue;
      const m = matchApp(facts, targets, parentOf);
      if (m !== undefined) this.link(s, m.target, false, m.reason);
    }
    if (!this.options.autoAttach()) return;
    for (const app of this.sessions.discovery.apps) {
      const key = appKey(app);
      if (this.attaching.has(key) || this.released.has(key) || this.sessions.isAttached(app)) continue;
      const m = matchApp(app, targets, parentOf);
      if (m !== undefined) void this.attach(app, m.target, m.reason);
    }
  }

  /** Node targets to match against: a launcher whose processes have (or had) their own sessions is not one. */
  private candidates(): DebugTarget[] {
    return this.targets.all.filter((t) => t.kind === 'node' && (t.pid !== undefined || !t.hadChildren));
  }

  /** Links live browser apps to the debug sessions of their pages; asks the pages again when one finds none. */
  private linkPages(): void {
    const pages = this.sessions.liveSessions.filter((s) => s.source.kind === 'browser');
    const unlinked = pages.filter((s) => !this.links.has(s));
    if (unlinked.length === 0 || !this.targets.all.some((t) => t.kind === 'browser')) return;
    const targets = this.targets.pages.filter((t) => ![...this.links.values()].some((l) => l.target === t));
    let missing = false;
    for (const s of unlinked) {
      if (s.source.kind !== 'browser') continue;
      const { origin, tabId } = s.source;
      const m = matchPage({ origin, tabId }, targets, pages.filter((p) => p.source.kind === 'browser' && p.source.origin === origin).length);
      if (m === undefined) missing = true;
      else this.link(s, m.target, false, m.reason);
    }
    if (missing) this.targets.refreshPages();
  }

  private async attach(app: DiscoveredApp, target: DebugTarget, reason: MatchReason): Promise<void> {
    const key = appKey(app);
    this.attaching.add(key);
    try {
      const session = await this.sessions.attachApp(app);
      if (this.targets.find(target.id) === undefined) {
        // The debug session ended while we connected.
        this.sessions.detach(session);
        return;
      }
      this.log(`auto-attached to ${session.description}, debugged by "${target.root.name}" (matched by ${reason})`);
      this.link(session, target, true, reason);
    } catch (error) {
      this.log(`auto-attach to ${app.name} (pid ${app.pid}) failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.attaching.delete(key);
    }
  }

  private link(session: Session, target: DebugTarget, auto: boolean, reason: MatchReason | PageMatchReason): void {
    this.links.set(session, { target, auto, reason });
    const link: DebugLink = {
      debugSessionId: target.session.id,
      debugSessionName: target.root.name,
      autoAttached: auto,
      matchedBy: reason,
      paused: undefined,
    };
    session.setDebug(link);
    this.linked.fire(session);
  }

  private unlink(session: Session): void {
    const link = this.links.get(session);
    this.links.delete(session);
    session.setDebug(undefined);
    // A run attached by itself is never attached by itself again: not after the user detached it,
    // nor while it exits (its discovery file outlives the socket by a moment).
    if (link?.auto === true && session.source.kind === 'app') this.release(appKey(session.source.app));
  }

  private targetEnded(target: DebugTarget): void {
    for (const [s, l] of [...this.links]) {
      if (l.target !== target) continue;
      this.unlink(s);
      if (l.auto && s.isLive) {
        this.log(`debug session "${target.root.name}" ended: detaching from ${s.description}`);
        this.sessions.detach(s);
      }
    }
  }

  private release(key: string): void {
    this.released.add(key);
    // Bounded: the oldest runs are long gone.
    if (this.released.size > 256) this.released.delete(this.released.values().next().value as string);
  }

  private updateWatch(want: boolean): void {
    if (want && this.discoveryWatch === undefined) this.discoveryWatch = this.sessions.discovery.watch();
    else if (!want && this.discoveryWatch !== undefined) {
      this.discoveryWatch.dispose();
      this.discoveryWatch = undefined;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.updateWatch(false);
    for (const s of [...this.links.keys()]) this.unlink(s);
    for (const d of this.disposables) d.dispose();
  }
}

/** Is `session` a child (or a child's child…) of `ancestor`? */
function isUnder(session: vscode.DebugSession, ancestor: vscode.DebugSession): boolean {
  let p = session.parentSession;
  for (let i = 0; i < 16 && p !== undefined; i++, p = p.parentSession) if (p.id === ancestor.id) return true;
  return false;
}
