// Keeps every attached app's probe told of the workspace's event breakpoints: the list goes out
// (`breakOn`) on every attach and on every change. Without a debugger the probe's `debugger`
// statement is a no-op, so sending it to apps nobody debugs is harmless. No `vscode` here.
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import type { EventBreakpointStore } from './breakpoints';

export class BreakOnSync {
  /** What each live session's probe last acknowledged (or was sent), as a key. */
  private readonly sent = new WeakMap<Session, string>();
  private readonly listeners: { dispose(): void }[] = [];
  /** Requests sent (tests and the log). */
  sends = 0;

  constructor(
    private readonly sessions: SessionManager,
    private readonly store: EventBreakpointStore,
    private readonly log: (message: string) => void = () => undefined,
  ) {
    this.listeners.push(
      sessions.onDidChangeSessions(() => this.syncAll(false)),
      store.onDidChange(() => this.syncAll(true)),
    );
    this.syncAll(false);
  }

  /** Sends the list to live sessions that have not got this exact list (all of them with `force`). */
  syncAll(force: boolean): void {
    for (const s of this.sessions.liveSessions) void this.sync(s, force);
  }

  /** Resolves with what the probe stored, or undefined when nothing was sent or it failed. */
  async sync(session: Session, force = true): Promise<readonly string[] | undefined> {
    const client = session.probeClient;
    if (client === undefined || client.isClosed) return undefined;
    const types = this.store.types;
    const key = JSON.stringify(types);
    if (!force && this.sent.get(session) === key) return undefined;
    this.sent.set(session, key);
    this.sends++;
    try {
      // While the app is paused this waits for it to run again (its socket is silent meanwhile).
      const stored = await client.breakOn(types);
      if (types.length > 0 || force) this.log(`event breakpoints of ${session.description}: ${stored.length === 0 ? 'none' : stored.join(', ')}`);
      return stored;
    } catch (error) {
      if (this.sent.get(session) === key) this.sent.delete(session);
      if (session.isLive) this.log(`could not send event breakpoints to ${session.description}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  dispose(): void {
    for (const l of this.listeners) l.dispose();
    this.listeners.length = 0;
  }
}
