// registerInspector(context, source): the `busscope.openInspector` command, the panel serializer
// (the inspector comes back after a reload with its state), and a controller the rest of the
// extension uses to show a session or reveal something in it. Everything it creates is rooted in
// context.subscriptions. The source interface is documented in source.ts.

import * as vscode from 'vscode';
import type { SelectionRef } from '../../../runtime-probe/src/analysis/inspector-messages';
import { INSPECTOR_TITLE, INSPECTOR_VIEW_TYPE, InspectorPanel, inspectorWebviewOptions } from './panel';
import type { InspectorSource } from './source';

export type { InspectorSource, InspectorSessionInfo, InspectorEvent } from './source';
export { INSPECTOR_VIEW_TYPE } from './panel';
export const OPEN_INSPECTOR_COMMAND = 'busscope.openInspector';

export interface InspectorController extends vscode.Disposable {
  /** Opens (or brings forward) the inspector, optionally on a given session. */
  open(sessionId?: string): void;
  /** Opens the inspector and selects `target` in it ("Show in Inspector"). */
  reveal(target: SelectionRef, sessionId?: string): void;
  readonly isOpen: boolean;
}

/** `log`: where dropped or rejected inspector messages are reported (the Busscope output channel). */
export function registerInspector(context: vscode.ExtensionContext, source: InspectorSource, log?: (line: string) => void): InspectorController {
  let current: InspectorPanel | undefined;
  const adopt = (panel: vscode.WebviewPanel): InspectorPanel => {
    current?.dispose();
    const p = new InspectorPanel(
      panel,
      context.extensionUri,
      source,
      () => {
        if (current === p) current = undefined;
      },
      log,
    );
    current = p;
    return p;
  };
  const open = (sessionId?: string): InspectorPanel => {
    if (current) {
      current.panel.reveal(undefined, false);
      if (sessionId) current.connection.show(sessionId);
      return current;
    }
    const panel = vscode.window.createWebviewPanel(
      INSPECTOR_VIEW_TYPE,
      INSPECTOR_TITLE,
      { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
      inspectorWebviewOptions(context.extensionUri),
    );
    const p = adopt(panel);
    if (sessionId) p.connection.show(sessionId);
    return p;
  };
  const controller: InspectorController = {
    open: (sessionId) => void open(sessionId),
    reveal(target, sessionId) {
      const p = open(sessionId);
      // A panel just created reveals after its snapshot: the webview keeps the request until then.
      p.connection.reveal(target);
    },
    get isOpen() {
      return current !== undefined;
    },
    dispose() {
      current?.dispose();
      current = undefined;
    },
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(OPEN_INSPECTOR_COMMAND, (arg?: unknown) => {
      const sessionId =
        typeof arg === 'string'
          ? arg
          : typeof arg === 'object' && arg !== null && typeof (arg as { sessionId?: unknown }).sessionId === 'string'
            ? (arg as { sessionId: string }).sessionId
            : undefined;
      open(sessionId);
    }),
    vscode.window.registerWebviewPanelSerializer(INSPECTOR_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel, _state: unknown) {
        // The page reads its own state (vscode.getState) and sends it back in `ready`.
        adopt(panel);
      },
    }),
    controller,
  );
  return controller;
}
