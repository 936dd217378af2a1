// Busscope's activation: the session manager (plain TS) and everything VS Code shows of it — the
// Apps, Subscriptions and Warnings trees, the status bar, Problems, and the commands. Activation is
// lazy (commands, views and the inspector panel activate it; nothing at startup). Every disposable is
// rooted in `context.subscriptions`; `deactivate` closes every socket and stops the demo app.
import * as vscode from 'vscode';
import { registerBrowserAppCommands } from './browserApps/commands';
import { registerDemoCommands } from './commands/demoCommands';
import { registerDebugging } from './debugging/index';
import type { Services } from './commands/services';
import { registerSessionCommands } from './commands/sessionCommands';
import { registerTraceCommands } from './commands/traceCommands';
import { DemoRunner } from './demo/demoRunner';
import { WarningDiagnostics } from './diagnostics/warningDiagnostics';
import { withVisibleText } from './views/visibleTreeItems';
import { registerInspector, type InspectorController } from './inspector/index';
import { inspectorSource } from './sessions/inspectorSource';
import { SessionManager } from './sessions/sessionManager';
import { readSettings, type BusscopeSettings } from '../../runtime-probe/src/analysis/settings';
import { AppsTree, APPS_VIEW } from './views/appsView';
import { sessionIdOf, type BusscopeNode } from './views/nodes';
import { BusscopeStatusBar } from './views/statusBar';
import { SubscriptionsTree, SUBSCRIPTIONS_VIEW } from './views/subscriptionsView';
import { WarningsTree, WARNINGS_VIEW } from './views/warningsView';

/** What `activate` returns: other extensions (and the VS Code test suite) reach Busscope through it. */
export interface BusscopeApi {
  readonly sessions: SessionManager;
  readonly demo: DemoRunner;
  readonly views: {
    readonly apps: AppsTree;
    readonly subscriptions: SubscriptionsTree;
    readonly warnings: WarningsTree;
    readonly statusBar: BusscopeStatusBar;
  };
  readonly diagnostics: WarningDiagnostics;
  readonly inspector: InspectorController;
}

let active: { sessions: SessionManager; demo: DemoRunner } | undefined;

function readBusscopeSettings(): BusscopeSettings {
  const config = vscode.workspace.getConfiguration('busscope');
  return readSettings((key) => config.get(key));
}

export function activate(context: vscode.ExtensionContext): BusscopeApi {
  const log = vscode.window.createOutputChannel('Busscope', { log: true });
  let settings = readBusscopeSettings();
  const sessions = new SessionManager({
    clientName: `busscope-vscode ${String((context.extension.packageJSON as { version?: string }).version ?? '')}`.trim(),
    discoveryDirectory: () => settings.discoveryDirectory,
    modelOptions: () => settings.model,
    analyzerOptions: () => settings.analyzer,
    autoReattach: () => settings.autoReattach,
    capturePayloads: () => settings.capturePayloads,
    onSessionError: (message, error) => log.error(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  });
  const demo = new DemoRunner();
  active = { sessions, demo };
  const services: Services = { context, sessions, demo, log, settings: () => settings };

  const apps = new AppsTree(sessions);
  const subscriptions = new SubscriptionsTree(sessions);
  const warnings = new WarningsTree(sessions);
  const statusBar = new BusscopeStatusBar(sessions);
  const diagnostics = new WarningDiagnostics(sessions, settings.diagnosticsEnabled);
  const views: [string, AppsTree | SubscriptionsTree | WarningsTree][] = [
    [APPS_VIEW, apps],
    [SUBSCRIPTIONS_VIEW, subscriptions],
    [WARNINGS_VIEW, warnings],
  ];
  const treeViews: vscode.TreeView<BusscopeNode>[] = [];
  for (const [id, provider] of views) {
    // Names from the app show bidi controls escaped, in every tree (as in the inspector).
    const view = vscode.window.createTreeView<BusscopeNode>(id, { treeDataProvider: withVisibleText(provider), showCollapseAll: id !== APPS_VIEW });
    provider.bindView(view);
    treeViews.push(view);
    context.subscriptions.push(view, provider);
  }
  // The inspector opens on the session selected in a tree, else on the most relevant one.
  const selectedSessionId = (): string | undefined => {
    for (const view of treeViews) {
      const id = sessionIdOf(view.selection[0]);
      if (id !== undefined && sessions.find(id) !== undefined) return id;
    }
    return undefined;
  };
  const debugging = registerDebugging(context, { sessions, subscriptions, log });
  // The inspector toggles event breakpoints in the same store as the command and the tree.
  const inspector = registerInspector(context, inspectorSource(sessions, selectedSessionId, debugging.breakpoints), (line) => log.warn(line));

  const setContext = (key: string, value: boolean): void => void vscode.commands.executeCommand('setContext', key, value);
  const updateContextKeys = (): void => {
    setContext('busscope.attached', sessions.liveSessions.length > 0);
    setContext('busscope.hasData', sessions.sessions.length > 0);
  };
  updateContextKeys();

  context.subscriptions.push(
    log,
    statusBar,
    diagnostics,
    ...registerSessionCommands(services),
    ...registerDemoCommands(services),
    ...registerTraceCommands(services),
    ...registerBrowserAppCommands(services),
    toDisposable(sessions.onDidChangeSessions(updateContextKeys)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('busscope')) return;
      settings = readBusscopeSettings();
      sessions.reconfigure();
      diagnostics.setEnabled(settings.diagnosticsEnabled);
    }),
    // Sockets close and the demo stops (also done, awaited, by `deactivate`).
    new vscode.Disposable(() => {
      void demo.dispose();
      sessions.dispose();
    }),
  );

  return { sessions, demo, views: { apps, subscriptions, warnings, statusBar }, diagnostics, inspector };
}

export async function deactivate(): Promise<void> {
  const a = active;
  active = undefined;
  if (a === undefined) return;
  a.sessions.dispose();
  await a.demo.dispose();
}

function toDisposable(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}
