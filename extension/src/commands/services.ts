// What the commands work with: the session manager, the demo runner, the log, and the settings as
// they are now. One object built in `activate`, handed to each command module.
import type * as vscode from 'vscode';
import type { DemoRunner } from '../demo/demoRunner';
import type { Session } from '../sessions/session';
import type { SessionManager } from '../sessions/sessionManager';
import type { BusscopeSettings } from '../../../runtime-probe/src/analysis/settings';

export interface Services {
  readonly context: vscode.ExtensionContext;
  readonly sessions: SessionManager;
  readonly demo: DemoRunner;
  readonly log: vscode.LogOutputChannel;
  settings(): BusscopeSettings;
}

/** What the session commands return to programmatic callers (tests, other extensions). */
export interface SessionResult {
  readonly sessionId: string;
  readonly name: string;
  readonly pid: number | null;
  readonly live: boolean;
}

export function sessionResult(s: Session): SessionResult {
  return { sessionId: s.id, name: s.title, pid: s.app?.pid ?? null, live: s.isLive };
}
