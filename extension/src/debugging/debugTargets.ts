// The Node debug sessions of the window and the process each one debugs. VS Code's JavaScript
// debugger (js-debug) runs one top-level session per launch/attach and one child session per
// debugged process, named `app.js [1234]`; the pid comes from that name, else from evaluating
// `process.pid` in that child session. Sessions that debug no process (the launcher at the top, which
// answers `evaluate` with "Unknown request") are never asked: they keep an unknown pid and match apps
// only by working folder (see matching.ts).
// Browser debug sessions (`pwa-chrome`, `pwa-msedge`…) are targets too: js-debug gives each page a child
// session, where Busscope reads the page's origin and the tab id `busscope-probe/browser` keeps in its
// sessionStorage (`origin`, `tabId`), to match the page's browser app (matching.ts `matchPage`).
import * as vscode from 'vscode';
import { isNodeDebugType } from './environment';
import { isBrowserDebugType, PAGE_IDENTITY_EXPRESSION, parsePageIdentity, pidFromTargetName, type DebugTargetFacts, type PageTargetFacts } from './matching';

export { isNodeDebugType, NODE_DEBUG_TYPES } from './environment';

export interface DebugTarget extends DebugTargetFacts, PageTargetFacts {
  /** A Node process, or a browser target (a page or one of its workers). */
  readonly kind: 'node' | 'browser';
  readonly session: vscode.DebugSession;
  /** The top of its parent chain: the session the user started ("Launch Program"). */
  readonly root: vscode.DebugSession;
  pid: number | undefined;
  /** Child sessions were started under it: it is a launcher, whose processes have their own sessions. */
  hadChildren: boolean;
  /** A browser target's `location.origin`, once read (undefined for Node targets). */
  origin: string | undefined;
  /** A browser target's Busscope tab id (sessionStorage), once read; '' for Node targets and pages without one. */
  tabId: string;
}

/** Attempts (and spacing) to read a page target's identity: the page may not have connected yet. */
const PAGE_ATTEMPTS = 8;
const PAGE_RETRY_MS = 500;

/** Attempts (and spacing) to ask a session for its pid when its name does not say. */
const PID_ATTEMPTS = 5;
const PID_RETRY_MS = 400;

function rootOf(session: vscode.DebugSession): vscode.DebugSession {
  let s = session;
  for (let i = 0; i < 16 && s.parentSession !== undefined; i++) s = s.parentSession;
  return s;
}

function cwdOf(session: vscode.DebugSession): string | undefined {
  for (let s: vscode.DebugSession | undefined = session; s !== undefined; s = s.parentSession) {
    const cwd = (s.configuration as { cwd?: unknown }).cwd;
    if (typeof cwd === 'string' && cwd !== '') return cwd;
  }
  return session.workspaceFolder?.uri.fsPath ?? rootOf(session).workspaceFolder?.uri.fsPath;
}

/**
 * Does this session debug a process (so `evaluate` can run there)? js-debug starts one top-level
 * session per launch or attach that only launches and relays: it answers `evaluate` with "Unknown
 * request". Each process it debugs gets a child session whose configuration carries
 * `__pendingTargetId` (js-debug's own test for a "concrete" session).
 */
export function runsTarget(session: { readonly configuration: object; readonly parentSession?: unknown }): boolean {
  return typeof (session.configuration as { __pendingTargetId?: unknown }).__pendingTargetId === 'string' || session.parentSession !== undefined;
}

export class DebugTargets implements vscode.Disposable {
  private readonly targets = new Map<string, DebugTarget>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** A target was added, ended, or its pid became known. */
  readonly onDidChange = this.changed.event;
  private readonly ended = new vscode.EventEmitter<DebugTarget>();
  readonly onDidEnd = this.ended.event;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;
  /** Browser targets whose identity is being read. */
  private readonly reading = new Set<string>();

  constructor(private readonly log: (message: string) => void = () => undefined) {
    this.disposables.push(
      this.changed,
      this.ended,
      vscode.debug.onDidStartDebugSession((s) => this.add(s)),
      vscode.debug.onDidTerminateDebugSession((s) => this.remove(s)),
    );
    // Busscope may activate while a session runs (the one being resolved activated it).
    const active = vscode.debug.activeDebugSession;
    if (active !== undefined) this.add(active);
  }

  get all(): readonly DebugTarget[] {
    return [...this.targets.values()];
  }

  get size(): number {
    return this.targets.size;
  }

  find(debugSessionId: string): DebugTarget | undefined {
    return this.targets.get(debugSessionId);
  }

  /**
   * The other sessions that debug the process `target` debugs: its worker threads (js-debug gives each
   * worker_thread a session of its own, `[worker 1]`, whose `process.pid` is the process's). Empty
   * while the pid is unknown.
   */
  threadsOf(target: DebugTarget): DebugTarget[] {
    if (target.pid === undefined) return [];
    return this.all.filter((t) => t !== target && t.pid === target.pid && t.root.id === target.root.id);
  }

  /** Browser targets whose origin is known (the pages and their workers), for matching.ts `matchPage`. */
  get pages(): DebugTarget[] {
    return this.all.filter((t) => t.kind === 'browser' && t.origin !== undefined);
  }

  /**
   * Reads again the identity of browser targets that showed no Busscope tab id (a page whose `connect`
   * ran after the last look). Called when a browser app finds no target; at most one read per target at a time.
   */
  refreshPages(): void {
    for (const t of this.targets.values())
      if (t.kind === 'browser' && t.tabId === '' && runsTarget(t.session) && !this.reading.has(t.id)) void this.resolvePage(t);
  }

  /** Records a pid learnt elsewhere (the paused state names its process). */
  notePid(debugSessionId: string, pid: number): void {
    const t = this.targets.get(debugSessionId);
    if (t === undefined || t.pid === pid) return;
    t.pid = pid;
    this.changed.fire();
  }

  private add(session: vscode.DebugSession): void {
    const browser = isBrowserDebugType(session.type);
    if (this.disposed || !(browser || isNodeDebugType(session.type)) || this.targets.has(session.id)) return;
    const target: DebugTarget = {
      id: session.id,
      kind: browser ? 'browser' : 'node',
      session,
      root: rootOf(session),
      // A browser target's name is the page's title: no pid in it, and none to ask for.
      pid: browser ? undefined : pidFromTargetName(session.name),
      startedAt: Date.now(),
      cwd: browser ? undefined : cwdOf(session),
      hadChildren: false,
      origin: undefined,
      tabId: '',
    };
    this.targets.set(session.id, target);
    for (let p = session.parentSession; p !== undefined; p = p.parentSession) {
      const parent = this.targets.get(p.id);
      if (parent !== undefined) parent.hadChildren = true;
    }
    this.log(`debug session "${session.name}" (${session.type}${target.pid !== undefined ? `, pid ${target.pid}` : ''}) started`);
    this.changed.fire();
    if (!runsTarget(session)) return;
    if (browser) void this.resolvePage(target);
    else if (target.pid === undefined) void this.resolvePid(target);
  }

  /** Asks a browser target for its page's origin and Busscope tab id, until the tab id is there (or it gives up). */
  private async resolvePage(target: DebugTarget): Promise<void> {
    this.reading.add(target.id);
    try {
      for (let attempt = 0; attempt < PAGE_ATTEMPTS; attempt++) {
        await new Promise((r) => setTimeout(r, PAGE_RETRY_MS * Math.min(attempt + 1, 4)));
        if (this.disposed || !this.targets.has(target.id)) return;
        try {
          const r = (await target.session.customRequest('evaluate', { expression: PAGE_IDENTITY_EXPRESSION, context: 'repl' })) as { result?: unknown };
          const page = typeof r?.result === 'string' ? parsePageIdentity(r.result) : undefined;
          if (page === undefined || page.origin === '') continue;
          if (page.origin !== target.origin || page.tabId !== target.tabId) {
            target.origin = page.origin;
            target.tabId = page.tabId;
            this.log(`debug session "${target.session.name}" shows ${page.origin}${page.tabId !== '' ? ` (Busscope tab ${page.tabId})` : ''}`);
            this.changed.fire();
          }
          if (page.tabId !== '') return;
        } catch {
          // not ready yet, or a target without a page (paused ones answer too)
        }
      }
    } finally {
      this.reading.delete(target.id);
    }
  }

  private remove(session: vscode.DebugSession): void {
    const t = this.targets.get(session.id);
    if (t === undefined) return;
    this.targets.delete(session.id);
    this.ended.fire(t);
    this.changed.fire();
  }

  /** Asks the session's runtime for `process.pid` (a launcher session has no runtime: it gives up). */
  private async resolvePid(target: DebugTarget): Promise<void> {
    for (let attempt = 0; attempt < PID_ATTEMPTS; attempt++) {
      await new Promise((r) => setTimeout(r, PID_RETRY_MS * (attempt + 1)));
      if (this.disposed || !this.targets.has(target.id) || target.pid !== undefined) return;
      try {
        const r = (await target.session.customRequest('evaluate', {
          expression: "typeof process === 'object' && process !== null ? String(process.pid) : ''",
          context: 'repl',
        })) as { result?: unknown };
        const text = typeof r?.result === 'string' ? r.result.replace(/^['"`]|['"`]$/g, '') : '';
        const pid = Number(text);
        if (Number.isSafeInteger(pid) && pid > 0) {
          target.pid = pid;
          this.changed.fire();
          return;
        }
      } catch {
        // not ready yet, or a session without a runtime
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    this.targets.clear();
    for (const d of this.disposables) d.dispose();
  }
}
