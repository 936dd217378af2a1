// Busscope while debugging (acceptance story 3): auto-attach to Node programs started by VS Code's
// JavaScript debugger, event breakpoints (the probe runs a `debugger` statement when a chosen type is
// dispatched), and a snapshot of the paused app read through the debug session. `registerDebugging`
// wires it all; everything it creates is rooted in `context.subscriptions`.
//
// Settings: `busscope.debug.autoAttach` (default on) and `busscope.debug.snapshotOnPause` (default on).
import * as vscode from 'vscode';
import type { SessionManager } from '../sessions/sessionManager';
import type { SubscriptionsTree } from '../views/subscriptionsView';
import { DebugLinker, ProbeEnvironmentProvider } from './autoAttach';
import { BreakOnSync } from './breakOnSync';
import { EventBreakpointStore, type EventBreakpoint } from './breakpoints';
import { registerEventBreakpointCommand } from './commands';
import { DebugTargets, NODE_DEBUG_TYPES } from './debugTargets';
import { PauseTracker } from './pauseTracker';

export type { EventBreakpoint };

export interface DebuggingServices {
  readonly sessions: SessionManager;
  /** Gets the event-breakpoint badge on its types. */
  readonly subscriptions?: SubscriptionsTree;
  readonly log?: vscode.LogOutputChannel;
}

export interface BusscopeDebugging extends vscode.Disposable {
  readonly breakpoints: EventBreakpointStore;
  readonly targets: DebugTargets;
  readonly linker: DebugLinker;
  readonly pauses: PauseTracker;
}

function toDisposable(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}

function debugSetting(key: 'autoAttach' | 'snapshotOnPause'): boolean {
  return vscode.workspace.getConfiguration('busscope.debug').get<boolean>(key, true) !== false;
}

export function registerDebugging(context: vscode.ExtensionContext, services: DebuggingServices): BusscopeDebugging {
  const { sessions } = services;
  const log = (message: string): void => services.log?.info(`[debug] ${message}`);
  const breakpoints = new EventBreakpointStore(context.workspaceState);
  const targets = new DebugTargets(log);
  const linker = new DebugLinker(sessions, targets, { autoAttach: () => debugSetting('autoAttach'), log });
  const pauses = new PauseTracker(sessions, targets, linker, breakpoints, { snapshotOnPause: () => debugSetting('snapshotOnPause'), log });
  const sync = new BreakOnSync(sessions, breakpoints, log);

  const tree = services.subscriptions;
  if (tree !== undefined) {
    tree.typeBadge = (type) => {
      const bp = breakpoints.get(type);
      return bp === undefined ? undefined : bp.condition === undefined ? '● breaks' : `● breaks if ${bp.condition}`;
    };
  }

  const provider = new ProbeEnvironmentProvider(() => debugSetting('autoAttach'), () => sessions.discovery.directory);
  const disposables: vscode.Disposable[] = [
    ...NODE_DEBUG_TYPES.map((type) => vscode.debug.registerDebugConfigurationProvider(type, provider)),
    vscode.debug.registerDebugAdapterTrackerFactory('*', pauses),
    registerEventBreakpointCommand(breakpoints, sessions, () => pauses.settled()),
    toDisposable(breakpoints.onDidChange(() => tree?.refresh())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('busscope.debug.autoAttach')) linker.reconcile();
    }),
    pauses,
    linker,
    targets,
    new vscode.Disposable(() => {
      sync.dispose();
      breakpoints.dispose();
      if (tree !== undefined) tree.typeBadge = undefined;
    }),
  ];
  const api: BusscopeDebugging = {
    breakpoints,
    targets,
    linker,
    pauses,
    dispose: () => {
      for (const d of disposables.splice(0).reverse()) d.dispose();
    },
  };
  context.subscriptions.push(api);
  return api;
}
