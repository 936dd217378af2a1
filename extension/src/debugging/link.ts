// What a Busscope session knows about the debug session its app runs under (set by
// extension/src/debugging, read by the Apps and Subscriptions views, the status bar and the
// inspector). Plain data; no `vscode` here.
import type { PausedState } from './pausedState';

export type { PausedState };

/** The app is stopped in the debugger. */
export interface DebugPause {
  /** Epoch ms when it stopped. */
  readonly at: number;
  /** The debugger's words: "Paused on debugger statement", "breakpoint", "step"… */
  readonly reason: string;
  /** What the paused app reported; undefined while it is being read or when it could not be. */
  readonly state: PausedState | undefined;
  /** Why the state could not be read. */
  readonly error: string | undefined;
}

export interface DebugLink {
  /** VS Code's id of the debug session of the app's process. */
  readonly debugSessionId: string;
  /** The debug session the user started ("Launch Program"). */
  readonly debugSessionName: string;
  /** Busscope attached by itself because the debug session started (and detaches when it ends). */
  readonly autoAttached: boolean;
  /** How the app was matched to the debug session (a page: by its tab id, else its origin). */
  readonly matchedBy: 'pid' | 'descendant' | 'cwd-and-time' | 'tab' | 'origin';
  /** Set while the app is stopped in the debugger. */
  readonly paused: DebugPause | undefined;
}

/** "paused in “Launch Program”" / "debugging in “Launch Program”", for descriptions. */
export function debugLinkText(link: DebugLink): string {
  return `${link.paused !== undefined ? 'paused' : 'debugging'} in “${link.debugSessionName}”`;
}
