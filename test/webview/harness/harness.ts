// The page side of the Chromium tests and the benchmark: stands in for VS Code around the BUILT
// webview bundle. It defines `acquireVsCodeApi` (postMessage to the host, get/setState), runs the
// real host connection over a fixture app's real Model in the page, and posts host messages with
// window.postMessage — the same 'message' events VS Code delivers. Loaded before dist/webview/main.js.
//
// URL parameters: scenario=small|big|empty, theme=dark|light|hc, state=<json>.

import { InspectorConnection, type HostEffects } from '../../../extension/src/inspector/connection';
import type { InspectorSessionInfo, InspectorSource } from '../../../extension/src/inspector/source';
import type { HostToWebview, PersistedViewState, WebviewToHost } from '../../../runtime-probe/src/analysis/inspector-messages';
import { FixtureApp, type FixtureOptions } from '../fixtures/fixtureApp';
import { emitterServerModel } from '../fixtures/emitterServer';
import { applyTheme, type ThemeName } from './themes';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/analyzer';
import type { StreamMessage } from '../../../runtime-probe/src/protocol/index';

interface HarnessApi {
  app: FixtureApp | null;
  connection: InspectorConnection;
  /** Everything the webview posted. */
  fromWebview: WebviewToHost[];
  fromHost: HostToWebview[];
  opened: { file: string; line: number; column: number }[];
  /** What the host put on the clipboard (HostEffects.copyText: vscode.env.clipboard in the extension). */
  copied: string[];
  savedState: PersistedViewState | null;
  /** Generates `count` more dispatches (the pump sends a delta within ~33 ms). */
  run(count: number): void;
  /** What the inspector asked the session to focus (`focusBuses` calls), in order. */
  focused: (readonly number[])[];
  /** Time to build the snapshot on the host side, ms (last one). */
  hostSnapshotMs: number;
  setupMs: number;
}

declare global {
  interface Window {
    harness: HarnessApi;
    acquireVsCodeApi: () => { postMessage(msg: WebviewToHost): void; getState(): unknown; setState(s: PersistedViewState): void };
  }
}

const params = new URLSearchParams(location.search);
const scenario = params.get('scenario') ?? 'small';
applyTheme(document, (params.get('theme') ?? 'dark') as ThemeName);

const t0 = performance.now();
const fixtures: Record<string, FixtureOptions> = {
  small: {},
  // Every subscription made before probe.start(): none has a site.
  nosites: { subscribeSites: false },
  // Interpolated starts (protocol v2): every dispatch start within ±38 µs.
  bounds: { startBound: 0.038 },
  // busscope-probe/otel active in the app: every dispatch record carries a trace id.
  otel: { traceIds: true },
  // Detail `handlers` sampling: handler timings on 1 dispatch in 8 of each type.
  sampled: { handlerSampleEvery: 8, dispatches: 2_000, intervalMs: 5 },
  big: { types: 500, subscriptions: 5000, extraBuses: 6, dispatches: 200_000, intervalMs: 0.5, feed: { snapshotDispatches: 200_000 } },
  graph: { types: 500, subscriptions: 5000, extraBuses: 6, dispatches: 2_000, intervalMs: 10 },
};
const app = scenario === 'empty' || scenario === 'emitters' ? null : new FixtureApp(fixtures[scenario] ?? {});
// An instrumented http server's emitters (classes of sockets and requests, the libraries group).
const emitters = scenario === 'emitters' ? emitterServerModel({ connections: Number(params.get('connections') ?? 300) }) : null;
// A recorded session (scripts/screenshots.ts): the probe's messages of a real app, put in
// `window.busscopeTraceMessages` before the page loads, applied to a real Model and judged by the real Analyzer.
const traced = scenario === 'trace' ? tracedSession() : null;
const focused: (readonly number[])[] = [];
const setupMs = performance.now() - t0;

function tracedSession(): { model: Model; analyzer: Analyzer; label: string } {
  const messages = (window as unknown as { busscopeTraceMessages?: StreamMessage[] }).busscopeTraceMessages ?? [];
  const model = new Model();
  let label = 'app';
  for (const m of messages) {
    model.apply(m);
    if (m.type === 'welcome') label = `${m.app.name} (pid ${m.app.pid})`;
  }
  const analyzer = new Analyzer(model);
  analyzer.run();
  return { model, analyzer, label };
}

const listeners = new Set<(e: unknown) => unknown>();
const source: InspectorSource = {
  sessions: (): InspectorSessionInfo[] =>
    traced
      ? [
          {
            id: 'trace-1',
            label: traced.label,
            phase: 'detached',
            detail: 'recorded',
            offline: true,
            model: traced.model,
            warnings: () => traced.analyzer.warnings,
          },
        ]
      : emitters
        ? [
            {
              id: 'emitters-1',
              label: 'chat-server (pid 5150)',
              phase: 'attached',
              detail: '',
              offline: false,
              model: emitters,
              warnings: () => [],
              focusBuses: (b) => void focused.push([...b]),
            },
          ]
        : app
          ? [
              {
                id: app.opts.sessionId,
                label: app.opts.label,
                phase: 'attached',
                detail: '',
                offline: false,
                model: app.model,
                warnings: () => app.analyzer.warnings,
              },
            ]
          : [],
  onDidChangeSessions: (l) => {
    listeners.add(l);
    return { dispose: () => listeners.delete(l) };
  },
};

const fromHost: HostToWebview[] = [];
const opened: HarnessApi['opened'] = [];
const copied: string[] = [];
const effects: HostEffects = {
  post(msg) {
    fromHost.push(msg);
    window.postMessage(msg, '*');
  },
  openSource: (file, line, column) => void opened.push({ file, line, column }),
  runCommand: () => undefined,
  copyText: (text) => void copied.push(text),
  exportRangeStats: async (stats) => `Saved ${stats.dispatches} dispatches`,
  showError: (m) => console.error(m),
};
const connection = new InspectorConnection(source, effects, { feed: app?.opts.feed });
const fromWebview: WebviewToHost[] = [];
let saved: PersistedViewState | null = params.get('state') ? (JSON.parse(params.get('state')!) as PersistedViewState) : null;

const harness: HarnessApi = {
  app,
  connection,
  fromWebview,
  fromHost,
  opened,
  copied,
  focused,
  get savedState() {
    return saved;
  },
  set savedState(s) {
    saved = s;
  },
  run(count) {
    app?.run(count);
  },
  hostSnapshotMs: 0,
  setupMs,
};
window.harness = harness;
window.acquireVsCodeApi = () => ({
  postMessage(msg) {
    fromWebview.push(msg);
    // VS Code delivers webview messages asynchronously; so do we.
    setTimeout(() => {
      const before = performance.now();
      connection.receive(JSON.parse(JSON.stringify(msg)));
      if (msg.type === 'ready' || msg.type === 'requestSnapshot') harness.hostSnapshotMs = performance.now() - before;
    }, 0);
  },
  getState: () => saved,
  setState: (s) => {
    saved = s;
  },
});
