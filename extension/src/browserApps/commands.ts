// *Busscope: Accept Browser Apps* / *Stop Accepting Browser Apps*: the WebSocket server
// (browserAppServer.ts) inside the extension, its status bar item, and the snippet to paste into a
// page (copied with one click). Each page that connects becomes a session (SessionManager).
import * as vscode from 'vscode';
import type { Services } from '../commands/services';
import { discoveryDirectory } from '../../../runtime-probe/src/discovery/directory';
import { removeBrowserAppsFile, writeBrowserAppsFile } from '../../../runtime-probe/src/discovery/browser-apps-file';
import { BrowserAppServer } from './browserAppServer';
import { checkOriginPattern } from './origin';
import { connectSnippet, readExtraOrigins } from './snippet';

/** What the accept command returns to programmatic callers (tests, other extensions). */
export interface BrowserAppsInfo {
  readonly url: string;
  readonly token: string;
  readonly port: number;
}

/** How a page's session ends when the user stops accepting browser apps (the page itself is still open). */
const STOPPED_ACCEPTING = 'stopped accepting browser apps';

export function registerBrowserAppCommands(services: Services): vscode.Disposable[] {
  const { sessions, log } = services;
  // Where busscope-probe/vite finds the URL and token (the discovery directory the setting names).
  let fileDir: string | undefined;
  const directory = (): string => services.settings().discoveryDirectory ?? discoveryDirectory();
  let server: BrowserAppServer | undefined;
  let starting: Promise<BrowserAppServer> | undefined;
  const item = vscode.window.createStatusBarItem('busscope.browserApps', vscode.StatusBarAlignment.Left, 99);
  item.name = 'Busscope Browser Apps';
  item.command = 'busscope.acceptBrowserApps';

  const setAccepting = (s: BrowserAppServer | undefined): void => {
    void vscode.commands.executeCommand('setContext', 'busscope.acceptingBrowserApps', s !== undefined);
    if (s === undefined) return item.hide();
    item.text = `$(broadcast) Browser apps :${s.port}`;
    item.tooltip = `Busscope accepts browser apps on ${s.url} (click for the snippet)`;
    item.show();
  };

  const showSnippet = async (s: BrowserAppServer): Promise<void> => {
    const snippet = connectSnippet(s.url, s.token);
    const choice = await vscode.window.showInformationMessage(
      `Busscope accepts browser apps on ${s.url} (token ${s.token}). Paste the snippet into your page; each tab appears in Apps.`,
      'Copy Snippet',
      'Stop',
    );
    if (choice === 'Copy Snippet') {
      await vscode.env.clipboard.writeText(snippet);
      void vscode.window.showInformationMessage('Busscope: the connect snippet is on the clipboard.');
    } else if (choice === 'Stop') await vscode.commands.executeCommand('busscope.stopBrowserApps');
  };

  const start = async (): Promise<BrowserAppServer> => {
    const config = vscode.workspace.getConfiguration('busscope.browserApps');
    const port = config.get<number>('port', 0);
    const { origins, ignored } = readExtraOrigins(config.get<unknown>('allowedOrigins', []), checkOriginPattern);
    for (const line of ignored) log.warn(`busscope.browserApps.allowedOrigins: ignored ${line}`);
    const s = await BrowserAppServer.listen({
      port: Number.isInteger(port) && port >= 0 && port <= 65535 ? port : 0,
      extraOrigins: origins,
      onApp: (app) => {
        log.info(`browser app connected: ${app.name} (${app.origin})`);
        sessions
          .attachBrowserApp(app)
          .catch((error: unknown) =>
            log.warn(`browser app ${app.name} (${app.origin}) could not attach: ${error instanceof Error ? error.message : String(error)}`),
          );
      },
      onRefused: (r) => log.warn(`browser app refused (${r.reason}): ${r.message}`),
    });
    log.info(`accepting browser apps on ${s.url}`);
    try {
      fileDir = directory();
      writeBrowserAppsFile({ url: s.url, token: s.token }, fileDir);
    } catch (error) {
      fileDir = undefined;
      log.warn(
        `could not tell dev servers where to connect (busscope-probe/vite reads it from the discovery folder): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return s;
  };

  const accept = async (): Promise<BrowserAppsInfo | undefined> => {
    try {
      if (server === undefined) {
        starting ??= start();
        server = await starting;
        starting = undefined;
        setAccepting(server);
      }
    } catch (error) {
      starting = undefined;
      const text = error instanceof Error ? error.message : String(error);
      void vscode.window.showErrorMessage(
        `Busscope could not accept browser apps: ${text}. Check the busscope.browserApps.port setting (0 picks a free port).`,
      );
      return undefined;
    }
    const s = server;
    void showSnippet(s);
    return { url: s.url, token: s.token, port: s.port };
  };

  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    setAccepting(undefined);
    if (fileDir !== undefined) removeBrowserAppsFile(fileDir);
    fileDir = undefined;
    if (s === undefined) return;
    // Said before the sockets close, or the pages' sessions would read "the page closed or reloaded".
    sessions.endBrowserApps(STOPPED_ACCEPTING);
    await s.close();
    log.info('stopped accepting browser apps');
  };

  setAccepting(undefined);
  return [
    item,
    vscode.commands.registerCommand('busscope.acceptBrowserApps', accept),
    vscode.commands.registerCommand('busscope.stopBrowserApps', stop),
    new vscode.Disposable(() => void stop()),
  ];
}
