// Export Trace… (Chrome Trace Event JSON for Perfetto / chrome://tracing), Open Trace… (a probe
// trace file into a session shown in the same views), and Open Source Location (tree clicks).
import path from 'node:path';
import * as vscode from 'vscode';
import { TRACE_FILE_EXTENSION } from '../../../runtime-probe/src/protocol/index';
import { writeChromeTraceFile, type WrittenTrace } from '../export/writeChromeTrace';
import { AttachError } from '../sessions/attachError';
import type { Session } from '../sessions/session';
import { sessionIdOf } from '../views/nodes';
import { asSite, openSite } from '../views/sites';
import { parseFileArg } from './args';
import { sessionResult, type Services, type SessionResult } from './services';

async function pickSession(services: Services, arg: unknown, purpose: string): Promise<Session | undefined> {
  const id = sessionIdOf(arg);
  if (id !== undefined) return services.sessions.find(id);
  const all = services.sessions.sessions;
  if (all.length === 0) {
    void vscode.window.showInformationMessage('Busscope: nothing to export yet. Attach to an app or open a trace first.');
    return undefined;
  }
  if (all.length === 1) return all[0];
  const picked = await vscode.window.showQuickPick(
    all.map((s) => ({ label: s.title, description: s.isLive ? `pid ${s.app?.pid ?? '?'} · live` : (s.ended?.reason ?? ''), session: s })),
    { title: `Busscope: ${purpose}`, placeHolder: 'Which session?' },
  );
  return picked?.session;
}

function timestamp(): string {
  const d = new Date();
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

async function exportTrace(services: Services, arg: unknown): Promise<WrittenTrace | undefined> {
  const session = await pickSession(services, arg, 'Export Trace');
  if (session === undefined) return undefined;
  let file = parseFileArg(arg);
  if (file === undefined) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const name = `${session.title.replace(/[^\w.-]+/g, '_')}-${timestamp()}.trace.json`;
    const uri = await vscode.window.showSaveDialog({
      title: 'Busscope: Export Trace (Chrome Trace Event JSON)',
      defaultUri: folder !== undefined ? vscode.Uri.joinPath(folder, name) : undefined,
      filters: { 'Chrome Trace Event JSON (Perfetto, chrome://tracing)': ['json'] },
      saveLabel: 'Export',
    });
    if (uri === undefined) return undefined;
    file = uri.fsPath;
  }
  const target = file;
  try {
    const written = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Busscope: exporting ${session.title}` }, () =>
      writeChromeTraceFile(session.model, target),
    );
    services.log.info(`exported ${session.description} to ${written.file} (${written.bytes} bytes)`);
    void vscode.window
      .showInformationMessage(
        `Busscope: exported ${path.basename(written.file)}. Open it in ui.perfetto.dev or chrome://tracing.`,
        'Open Perfetto',
        'Reveal File',
      )
      .then((choice) => {
        if (choice === 'Open Perfetto') void vscode.env.openExternal(vscode.Uri.parse('https://ui.perfetto.dev'));
        else if (choice === 'Reveal File') void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(written.file));
      });
    return written;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    services.log.error(`export failed: ${message}`);
    void vscode.window.showErrorMessage(`Busscope: could not write ${target}: ${message}`);
    if (parseFileArg(arg) !== undefined) throw error;
    return undefined;
  }
}

async function openTrace(services: Services, arg: unknown): Promise<SessionResult | undefined> {
  let file = parseFileArg(arg);
  const programmatic = file !== undefined;
  if (file === undefined) {
    const uris = await vscode.window.showOpenDialog({
      title: 'Busscope: Open Trace',
      canSelectMany: false,
      filters: { 'Busscope trace': [TRACE_FILE_EXTENSION.replace(/^\./, '')], 'All files': ['*'] },
      openLabel: 'Open Trace',
    });
    if (uris === undefined || uris.length === 0) return undefined;
    file = uris[0].fsPath;
  }
  const target = file;
  try {
    const session = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Busscope: reading ${path.basename(target)}` },
      () => services.sessions.openTrace(target),
    );
    services.log.info(
      `opened trace ${target}: ${session.model.totalDispatches} dispatches, ${session.warnings.length} warnings (${session.ended?.reason ?? ''})`,
    );
    if (session.ended !== undefined && session.ended.reason !== 'end of trace') void vscode.window.showWarningMessage(`Busscope: ${session.ended.reason}.`);
    void vscode.commands.executeCommand('busscope.subscriptions.focus');
    return sessionResult(session);
  } catch (error) {
    const message = error instanceof AttachError ? error.message : `Busscope: cannot open ${target}: ${error instanceof Error ? error.message : String(error)}`;
    services.log.error(message);
    void vscode.window.showErrorMessage(message);
    if (programmatic) throw error;
    return undefined;
  }
}

export function registerTraceCommands(services: Services): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('busscope.exportTrace', (arg?: unknown) => exportTrace(services, arg)),
    vscode.commands.registerCommand('busscope.openTrace', (arg?: unknown) => openTrace(services, arg)),
    vscode.commands.registerCommand('busscope.openSite', async (arg?: unknown) => {
      const site = asSite(arg);
      if (site === undefined) return false;
      return openSite(site);
    }),
  ];
}
