// Busscope while debugging (the README's *While debugging*): auto-attach to Node programs started by VS Code's
// JavaScript debugger, event breakpoints (the probe runs a `debugger` statement when a chosen type is
// dispatched), and a snapshot of the paused app read through the debug session. `registerDebugging`
// wires it all; everything it creates is rooted in `context.subscriptions`.
//
// Settings: `busscope.debug.autoAttach` (default on), `busscope.debug.snapshotOnPause` (default on),
// and for the register script injected into launches `busscope.debug.instrumentEmitters` (default
// on), `busscope.debug.emitters` and `busscope.debug.emitterClasses` (environment.ts).
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionManager } from '../sessions/sessionManager';
import type { SubscriptionsTree } from '../views/subscriptionsView';
import { DebugLinker, ProbeEnvironmentProvider } from './autoAttach';
import { BreakOnSync } from './breakOnSync';
import { EventBreakpointStore, type EventBreakpoint } from './breakpoints';
import { registerEventBreakpointCommand } from './commands';
import { DebugTargets, NODE_DEBUG_TYPES } from './debugTargets';
import { EMITTER_SETTING, InjectionNotice, readEmitterSettings, type EmitterInjection } from './environment';
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

/** Where the VSIX carries the register script (scripts/build.mjs bundles it there). */
export const REGISTER_SCRIPT = ['dist', 'probe', 'register.cjs'] as const;

/** The register injection the settings ask for, or undefined (off, or no script in this build). */
function emitterInjection(registerScript: string, log: (message: string) => void): () => EmitterInjection | undefined {
  let missingLogged = false;
  return () => {
    const config = vscode.workspace.getConfiguration('busscope.debug');
    const settings = readEmitterSettings((key) => config.get(key));
    if (!settings.instrumentEmitters) return undefined;
    if (!existsSync(registerScript)) {
      if (!missingLogged) log(`not instrumenting emitters: ${registerScript} is missing from this installation`);
      missingLogged = true;
      return undefined;
    }
    // js-debug starts the program with the extension host's environment under the configuration's env.
    return { registerScript, scope: settings.scope, classes: settings.classes, inheritedNodeOptions: process.env.NODE_OPTIONS };
  };
}

export function registerDebugging(context: vscode.ExtensionContext, services: DebuggingServices): BusscopeDebugging {
  const { sessions } = services;
  const log = (message: string): void => services.log?.info(`[debug] ${message}`);
  const breakpoints = new EventBreakpointStore(context.workspaceState);
  const targets = new DebugTargets(log);
  const linker = new DebugLinker(sessions, targets, { autoAttach: () => debugSetting('autoAttach'), log });
  const registerScript = path.join(context.extensionPath, ...REGISTER_SCRIPT);
  const pauses = new PauseTracker(sessions, targets, linker, breakpoints, {
    snapshotOnPause: () => debugSetting('snapshotOnPause'),
    log,
    probeFiles: new Set([registerScript]),
  });
  const sync = new BreakOnSync(sessions, breakpoints, log);

  const tree = services.subscriptions;
  if (tree !== undefined) {
    tree.typeBadge = (type) => {
      const bp = breakpoints.get(type);
      return bp === undefined ? undefined : bp.condition === undefined ? '● breaks' : `● breaks if ${bp.condition}`;
    };
  }

  const notice = new InjectionNotice(
    context.globalState,
    (message, action) => vscode.window.showInformationMessage(message, action),
    () => vscode.workspace.getConfiguration('busscope.debug').update(EMITTER_SETTING.instrumentEmitters, false, vscode.ConfigurationTarget.Global),
  );
  const provider = new ProbeEnvironmentProvider(
    () => debugSetting('autoAttach'),
    () => sessions.discovery.directory,
    emitterInjection(registerScript, log),
    () => {
      log('injected the register script into a Node launch (NODE_OPTIONS)');
      void notice.injected().catch((e: unknown) => log(`the injection notice failed: ${e instanceof Error ? e.message : String(e)}`));
    },
  );
  const disposables: vscode.Disposable[] = [
    ...NODE_DEBUG_TYPES.map((type) => vscode.debug.registerDebugConfigurationProvider(type, provider)),
    vscode.debug.registerDebugAdapterTrackerFactory('*', pauses),
    registerEventBreakpointCommand(breakpoints, sessions, () => pauses.settled(), log),
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
