// The inspector's WebviewPanel: strict CSP with a per-load nonce, resources only from dist/webview,
// and the effects the connection needs (open a source file, run a command, save range
// statistics). One panel per window; the serializer brings it back after a reload.

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { RangeStatistics } from '../../../runtime-probe/src/analysis/model/queries';
import { InspectorConnection, type HostEffects } from './connection';
import { inspectorHtml, makeNonce } from './html';
import type { InspectorSource } from './source';
import { resolveSourcePath } from './sourcePath';

export const INSPECTOR_VIEW_TYPE = 'busscope.inspector';
export const INSPECTOR_TITLE = 'Busscope Inspector';

export function inspectorWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    // The page restores itself from vscode.getState() when shown again: no hidden DOM kept alive.
    retainContextWhenHidden: false,
    enableFindWidget: false,
    // Only the page's own bundle: nothing else of the extension (or the workspace) is loadable.
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview')],
  };
}

export class InspectorPanel implements vscode.Disposable {
  readonly connection: InspectorConnection;
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    source: InspectorSource,
    private readonly onDisposed: () => void,
    log?: (line: string) => void,
  ) {
    const webview = panel.webview;
    webview.options = inspectorWebviewOptions(extensionUri);
    const dist = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
    webview.html = inspectorHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'main.css')).toString(),
      nonce: makeNonce((n) => randomBytes(n)),
    });
    const effects: HostEffects = {
      post: (msg) => {
        // VS Code delivers only to a live page; `false` means this message is lost.
        void webview.postMessage(msg).then(
          (delivered) => {
            if (!delivered && !this.disposed) log?.(`Inspector: a ${msg.type} message was not delivered to the inspector page (hidden or closed).`);
          },
          (e: unknown) => log?.(`Inspector: posting a ${msg.type} message failed: ${e instanceof Error ? e.message : String(e)}`),
        );
      },
      log,
      openSource: async (file, line, column) => {
        try {
          await openSourceFile(file, line, column);
        } catch (e) {
          void vscode.window.showWarningMessage(`Busscope: cannot open the source. ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      runCommand: async (id) => {
        try {
          await vscode.commands.executeCommand(id);
        } catch (e) {
          void vscode.window.showErrorMessage(`Busscope: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      exportRangeStats: (stats, name) => saveRangeStats(stats, name),
      copyText: async (text) => {
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage(`Busscope: copied trace id ${text}`, 3000);
      },
      showError: (message) => void vscode.window.showErrorMessage(message),
    };
    this.connection = new InspectorConnection(source, effects);
    this.connection.setVisible(panel.visible);
    this.disposables.push(
      webview.onDidReceiveMessage((msg: unknown) => this.connection.receive(msg)),
      panel.onDidChangeViewState((e) => {
        const visible = e.webviewPanel.visible;
        // Hidden, the page is discarded (retainContextWhenHidden is off): it says `ready` again when shown.
        if (!visible) this.connection.pageDiscarded();
        this.connection.setVisible(visible);
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.connection.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
    this.onDisposed();
  }
}

async function openSourceFile(file: string, line: number, column: number): Promise<void> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  const resolved = resolveSourcePath(file, folders, existsSync);
  if ('error' in resolved) {
    void vscode.window.showWarningMessage(`Busscope: cannot open the source. ${resolved.error}`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(resolved.path));
  const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), viewColumn: vscode.ViewColumn.One, preserveFocus: false });
}

async function saveRangeStats(stats: RangeStatistics, suggestedName: string): Promise<string | null> {
  const base = vscode.workspace.workspaceFolders?.[0]?.uri;
  const target = await vscode.window.showSaveDialog({
    title: 'Export range statistics',
    defaultUri: base ? vscode.Uri.joinPath(base, suggestedName) : undefined,
    filters: { JSON: ['json'] },
  });
  if (!target) return null;
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(`${JSON.stringify(stats, null, 2)}\n`));
  return `Saved to ${target.fsPath}`;
}
