// Snapshot on pause. When a debugged app stops (breakpoint, event breakpoint, exception, step), its
// event loop is frozen and the probe's socket is silent; the debug adapter still answers. So on the
// adapter's `stopped` event Busscope evaluates the probe's snapshot function in the paused context
// (DAP `evaluate` with the top frame) and shows it, marked "paused", until the app runs again
// (`continued`, or a continue/step request, or the adapter going away).
// A stop at an event break's `debugger` statement also moves the focus to the frame that dispatched
// (focusDispatch.ts), whether or not the app is attached or its state read.
// The same tracker installs event-breakpoint conditions in linked apps (evaluate while running).
// Pages debugged in VS Code (`pwa-chrome`, `pwa-msedge`) are tracked the same way: their stops are those
// of the page target's session the browser app is linked to (autoAttach.ts).
import * as vscode from 'vscode';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import type { DebugLinker } from './autoAttach';
import type { EventBreakpointStore } from './breakpoints';
import { installConditionsExpression, parseInstallResult } from './conditions';
import { isNodeDebugType, type DebugTarget, type DebugTargets } from './debugTargets';
import { focusDispatchingFrame } from './focusDispatch';
import { isBrowserDebugType } from './matching';
import { readPausedState, type PausedState } from './pausedState';

/** Requests after which the debuggee runs again. */
const RESUMING_REQUESTS = new Set(['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto', 'restartFrame', 'disconnect', 'terminate']);

/** How long reading the paused state may take before it is reported as failed. */
const READ_TIMEOUT_MS = 10_000;

interface DapMessage {
  readonly type?: string;
  readonly event?: string;
  readonly command?: string;
  readonly body?: { readonly reason?: string; readonly description?: string; readonly threadId?: number; readonly text?: string };
}

export interface PauseEvent {
  readonly debugSession: vscode.DebugSession;
  readonly sessions: readonly Session[];
  /** undefined when the state could not be read. */
  readonly state: PausedState | undefined;
}

function withTimeout<T>(p: Thenable<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    Promise.resolve(p),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export interface PauseTrackerOptions {
  readonly snapshotOnPause: () => boolean;
  readonly log?: (message: string) => void;
  /** Files of the probe that its package paths do not name (the register script under the extension). */
  readonly probeFiles?: ReadonlySet<string>;
}

export class PauseTracker implements vscode.DebugAdapterTrackerFactory, vscode.Disposable {
  /** Per debug session: bumped on every stop and resume, so a late answer for an old stop is dropped. */
  private readonly generation = new Map<string, number>();
  private readonly paused = new vscode.EventEmitter<PauseEvent>();
  /** A paused app's state was read (or failed to be). */
  readonly onDidPause = this.paused.event;
  private readonly resumedEmitter = new vscode.EventEmitter<vscode.DebugSession>();
  readonly onDidResume = this.resumedEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly log: (message: string) => void;
  /** Every type that was an event breakpoint in this window: those removed are muted in the apps. */
  private readonly everSet = new Set<string>();
  /** The installation started by the last change of the breakpoints. */
  private installing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessions: SessionManager,
    private readonly targets: DebugTargets,
    private readonly linker: DebugLinker,
    private readonly store: EventBreakpointStore,
    private readonly options: PauseTrackerOptions,
  ) {
    this.log = options.log ?? (() => undefined);
    const toVscode = (d: { dispose(): void }): vscode.Disposable => new vscode.Disposable(() => d.dispose());
    this.disposables.push(
      this.paused,
      this.resumedEmitter,
      linker.onDidLink((s) => void this.installConditions(s)),
      toVscode(
        store.onDidChange(() => {
          this.installing = Promise.all(linker.linkedSessions.map((s) => this.installConditions(s))).then(() => undefined);
        }),
      ),
    );
  }

  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker | undefined {
    if (!isNodeDebugType(session.type) && !isBrowserDebugType(session.type)) return undefined;
    return {
      onDidSendMessage: (m: DapMessage) => {
        if (m.type !== 'event') return;
        if (m.event === 'stopped') {
          const body = m.body ?? {};
          const reading = this.stopped(session, body); // bumps the generation before it awaits anything
          const generation = this.generation.get(session.id) ?? 0;
          // Move the focus only once the paused state is read (or given up): the read evaluates in the
          // top frame, and call-stack navigation during it made that evaluate time out in a CI run.
          void reading.finally(() => this.focusDispatch(session, body, generation));
        } else if (m.event === 'continued' || m.event === 'terminated' || m.event === 'exited') this.resumed(session);
      },
      onWillReceiveMessage: (m: DapMessage) => {
        if (m.type === 'request' && m.command !== undefined && RESUMING_REQUESTS.has(m.command)) this.resumed(session);
      },
      onExit: () => this.resumed(session),
    };
  }

  private bump(session: vscode.DebugSession): number {
    const g = (this.generation.get(session.id) ?? 0) + 1;
    this.generation.set(session.id, g);
    return g;
  }

  private async stopped(debugSession: vscode.DebugSession, body: NonNullable<DapMessage['body']>): Promise<void> {
    const generation = this.bump(debugSession);
    const reason = body.description ?? body.reason ?? 'paused';
    const at = Date.now();
    let linked = this.linker.sessionsOf(debugSession);
    // Nothing Busscope shows can belong to this process.
    if (linked.length === 0 && this.sessions.liveSessions.length === 0) return;
    for (const s of linked) this.linker.setPause(s, { at, reason, state: undefined, error: undefined });
    if (!this.options.snapshotOnPause()) return;
    let state: PausedState | undefined;
    let error: string | undefined;
    try {
      state = await withTimeout(this.readState(debugSession, body.threadId), READ_TIMEOUT_MS, 'reading the paused app');
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    if (this.generation.get(debugSession.id) !== generation) return; // it ran again meanwhile
    if (state !== undefined && state.pid !== null) {
      this.targets.notePid(debugSession.id, state.pid);
      // An app attached by hand, in a process whose pid we only learn now.
      const target = this.targets.find(debugSession.id);
      if (target !== undefined) {
        for (const s of this.sessions.liveSessions) if (s.app?.pid === state.pid && this.linker.targetOf(s) === undefined) this.linker.linkByPid(s, target);
      }
      const pid = state.pid;
      linked = this.linker.sessionsOf(debugSession).filter((s) => s.app === null || s.app.pid === pid);
    }
    if (linked.length === 0) return;
    if (error !== undefined) this.log(`could not read the paused state of "${debugSession.name}": ${error}`);
    for (const s of linked) this.linker.setPause(s, { at, reason, state, error });
    this.paused.fire({ debugSession, sessions: linked, state });
  }

  /**
   * A stop at a `debugger` statement in the probe is an event break: show the user the code that
   * dispatched instead. (Other stops, e.g. a breakpoint the user set in the package, stay where they are.)
   */
  private async focusDispatch(debugSession: vscode.DebugSession, body: NonNullable<DapMessage['body']>, generation: number): Promise<void> {
    if (!/debugger/i.test(`${body.reason ?? ''} ${body.description ?? ''}`)) return;
    const isCurrent = (): boolean => this.generation.get(debugSession.id) === generation;
    try {
      let threadId = body.threadId;
      if (threadId === undefined) {
        const threads = (await withTimeout(debugSession.customRequest('threads'), READ_TIMEOUT_MS, 'listing threads')) as { threads?: { id: number }[] };
        threadId = threads.threads?.[0]?.id;
      }
      if (threadId === undefined) return;
      const outcome = await focusDispatchingFrame(debugSession, threadId, isCurrent, this.options.probeFiles ?? new Set());
      const where = (f: { name: string; line: number; source?: { path?: string; name?: string } }): string =>
        `${f.name} (${f.source?.path ?? f.source?.name}:${f.line})`;
      switch (outcome.kind) {
        case 'focused':
          this.log(
            `event break: focused the dispatching frame ${where(outcome.frame)} after ${outcome.steps} step(s) (${outcome.by === 'id' ? 'recognised by its id' : 'steps counted'})`,
          );
          break;
        case 'opened':
          this.log(`event break: could not focus the dispatching frame, opened ${where(outcome.frame)}`);
          break;
        case 'no-app-frame':
          this.log(`event break: no frame of the app below the probe's in "${debugSession.name}"`);
          break;
        case 'not-event-break':
        case 'stale':
          break;
        default: {
          const unreachable: never = outcome;
          void unreachable;
        }
      }
    } catch (e) {
      this.log(`event break: could not focus the dispatching frame in "${debugSession.name}": ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private async readState(debugSession: vscode.DebugSession, threadId: number | undefined): Promise<PausedState> {
    let thread = threadId;
    if (thread === undefined) {
      const threads = (await debugSession.customRequest('threads')) as { threads?: { id: number }[] };
      thread = threads.threads?.[0]?.id;
    }
    let frameId: number | undefined;
    if (thread !== undefined) {
      const trace = (await debugSession.customRequest('stackTrace', { threadId: thread, startFrame: 0, levels: 1 })) as { stackFrames?: { id: number }[] };
      frameId = trace.stackFrames?.[0]?.id;
    }
    return readPausedState(async (expression) => {
      const r = (await debugSession.customRequest('evaluate', { expression, frameId, context: 'repl' })) as { result?: unknown };
      if (typeof r?.result !== 'string') throw new Error('the debugger returned no result');
      return r.result;
    });
  }

  private resumed(debugSession: vscode.DebugSession): void {
    this.bump(debugSession);
    // An auto-attach that timed out because the app was stopped can succeed now.
    this.linker.reconcile();
    let any = false;
    for (const s of this.linker.sessionsOf(debugSession)) {
      if (s.debug?.paused !== undefined) any = true;
      this.linker.setPause(s, undefined);
    }
    if (any) this.resumedEmitter.fire(debugSession);
  }

  /** Resolves once the last breakpoint change reached the debugged apps (it never rejects). */
  settled(): Promise<void> {
    return this.installing;
  }

  /** Installs the workspace's break conditions in a linked app (through its debug session). */
  async installConditions(session: Session): Promise<void> {
    const target = this.linker.targetOf(session);
    if (target === undefined || !session.isLive) return;
    const conditions = this.store.conditions;
    for (const t of this.store.types) this.everSet.add(t);
    const muted = [...this.everSet].filter((t) => !this.store.has(t));
    const expression = installConditionsExpression(conditions, muted);
    // Worker threads get them from the probe's main thread (threads channel), once they run; a paused
    // worker hears of a removal only from its own debug session, at once, as the main thread does.
    for (const worker of this.targets.threadsOf(target)) void this.installInThread(worker, expression, session);
    try {
      const r = (await withTimeout(
        target.session.customRequest('evaluate', { expression, context: 'repl' }),
        READ_TIMEOUT_MS,
        'installing break conditions',
      )) as { result?: unknown };
      const outcome = parseInstallResult(typeof r?.result === 'string' ? r.result : '');
      if (outcome?.kind === 'no-hook') this.log(`${session.description} has no event-break hook (an older busscope-probe?): conditions are ignored there`);
      else if (outcome === undefined) this.log(`installing break conditions in ${session.description} answered ${String(r?.result)}`);
      else if (conditions.length > 0)
        this.log(`break conditions installed in ${session.description}: ${conditions.map((c) => `${c.type} if ${c.condition}`).join('; ')}`);
    } catch (error) {
      this.log(`could not install break conditions in ${session.description}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The same installation in a worker thread's debug session (a worker without the package yet answers no-hook: it gets them when it loads it). */
  private async installInThread(worker: DebugTarget, expression: string, session: Session): Promise<void> {
    try {
      const r = (await withTimeout(
        worker.session.customRequest('evaluate', { expression, context: 'repl' }),
        READ_TIMEOUT_MS,
        'installing break conditions',
      )) as {
        result?: unknown;
      };
      if (parseInstallResult(typeof r?.result === 'string' ? r.result : '') === undefined)
        this.log(`installing break conditions in "${worker.session.name}" of ${session.description} answered ${String(r?.result)}`);
    } catch (error) {
      this.log(
        `could not install break conditions in "${worker.session.name}" of ${session.description}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
