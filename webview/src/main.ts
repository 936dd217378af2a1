// Inspector entry point inside the VS Code webview: adapts acquireVsCodeApi() and window message
// events to the renderer's port, and persists the view state with vscode.setState so the panel
// comes back as it was (when hidden and shown again, and after a reload via the serializer).

import './styles.css';
import { createInspector, type Inspector } from './inspector';
import type { HostToWebview, InspectorPort, PersistedViewState, WebviewToHost } from '../../runtime-probe/src/analysis/inspector-messages';

interface VsCodeApi {
  postMessage(msg: WebviewToHost): void;
  getState(): unknown;
  setState(state: PersistedViewState): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

function isPersisted(value: unknown): value is PersistedViewState {
  return typeof value === 'object' && value !== null && (value as { v?: unknown }).v === 1;
}

function start(): Inspector {
  const vscode = acquireVsCodeApi();
  const port: InspectorPort = {
    postMessage: (msg) => vscode.postMessage(msg),
    onMessage(listener: (msg: HostToWebview) => void) {
      // Only the host posts to this frame; the renderer checks every message (isHostToWebview)
      // and reports the ones it drops back to the host, which logs them.
      const handler = (e: MessageEvent): void => listener(e.data as HostToWebview);
      window.addEventListener('message', handler);
      return { dispose: () => window.removeEventListener('message', handler) };
    },
  };
  const saved = vscode.getState();
  const root = document.getElementById('inspector-root') ?? document.body;
  const inspector = createInspector(root, port, { state: isPersisted(saved) ? saved : null });
  inspector.onDidChangeState((state) => vscode.setState(state));
  // Tests and the benchmark drive the built bundle through this handle.
  (window as unknown as { busscopeInspector?: Inspector }).busscopeInspector = inspector;
  return inspector;
}

start();
