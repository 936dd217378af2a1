// What the VS Code layer derives from sessions without touching `vscode`: Problems entries (at the
// warning's sites; none for a session the user detached), and the inspector's session list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BusRecord, SiteInfo, StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { diagnosticEntries } from '../../../extension/src/diagnostics/entries';
import { inspectorSessionInfo, inspectorSessionOrder } from '../../../extension/src/sessions/inspectorSource';
import { Session } from '../../../extension/src/sessions/session';

const ORIGIN = 1_700_000_000_000;
const site: SiteInfo = { file: '/app/src/hud.ts', line: 42, column: 7, functionName: 'bind' };

function feed(session: Session, name: string): void {
  const messages: StreamMessage[] = [
    {
      type: 'welcome',
      protocolVersion: 1,
      probeVersion: '0.1.0',
      app: { pid: 100, name, cwd: '/app', startTime: ORIGIN, runtime: 'node' },
      timeOrigin: ORIGIN,
      config: { detail: 'handlers', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 0 },
    },
    {
      type: 'snapshot',
      requestId: null,
      snapshot: {
        time: 0,
        timeOrigin: ORIGIN,
        lastSeq: 0,
        recording: true,
        dispatching: [],
        breakOn: [],
        truncated: false,
        buses: [{ id: 1, name: 'ui', createdAt: ORIGIN, subscriptions: 1 }],
        types: [{ bus: 1, type: 'click', listeners: 1, dispatches: 0 }],
        subscriptions: [{ id: 7, bus: 1, type: 'click', priority: 0, label: 'Button.onClick', owner: null, once: false, site, calls: 0, createdAt: ORIGIN }],
      },
    },
  ];
  for (const m of messages) session.ingest(m);
  const records: BusRecord[] = [
    { kind: 'handler', seq: 1, subscriptionId: 7, start: 1, duration: 0.1, consumed: false },
    { kind: 'handler-error', seq: 1, subscriptionId: 7, time: 1.1, message: 'TypeError: x is undefined', stack: null },
    { kind: 'dispatch', seq: 1, bus: 1, type: 'click', start: 1, duration: 0.2, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: null },
  ];
  session.ingest({ type: 'records', records });
  session.update();
}

describe('views derived from sessions', () => {
  it('a throwing handler becomes a problem at its subscribe site; a detached session has none', () => {
    const a = new Session({ id: 'a', source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' } });
    const b = new Session({ id: 'b', source: { kind: 'trace', file: '/t/run.bustrace' } });
    try {
      feed(a, 'game');
      feed(b, 'game-trace');
      assert.ok(
        a.warnings.some((w) => w.kind === 'throwing-handler'),
        'the analyses found the throwing handler',
      );
      let entries = diagnosticEntries([a, b]);
      const fromA = entries.filter((e) => e.sessionId === 'a');
      assert.equal(fromA.length, 1);
      assert.deepEqual(fromA[0].site, site);
      assert.equal(fromA[0].kind, 'throwing-handler');
      assert.match(fromA[0].message, /\[game\]/, 'with several sessions, the message names the app');
      a.detach();
      entries = diagnosticEntries([a, b]);
      assert.deepEqual(
        entries.map((e) => e.sessionId),
        ['b'],
        'the detached session left Problems; the trace stays',
      );
      assert.doesNotMatch(entries[0].message, /\[game-trace\]/, 'one session: no name needed');
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  it('says where an app runs: a pid for a process, the origin for a page (whose welcome has pid 0), nothing for a trace', () => {
    const app = new Session({ id: 'app', source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' } });
    const page = new Session({ id: 'page', source: { kind: 'browser', name: 'Corner Shop', origin: 'http://localhost:5173', tabId: 'tab-1', reloads: 0 } });
    const trace = new Session({ id: 'trace', source: { kind: 'trace', file: '/t/run.bustrace' } });
    try {
      feed(app, 'game');
      feed(page, 'Corner Shop');
      page.ingest({
        type: 'welcome',
        protocolVersion: 1,
        probeVersion: '0.1.0',
        app: { pid: 0, name: 'Corner Shop', cwd: '', startTime: ORIGIN, runtime: 'chromium' },
        timeOrigin: ORIGIN,
        config: { detail: 'dispatch', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 0 },
      });
      assert.deepEqual([app.where, page.where, trace.where], ['pid 100', 'http://localhost:5173', undefined]);
      assert.equal(page.description, 'Corner Shop (http://localhost:5173)');
      assert.equal(app.description, 'game (pid 100)');
    } finally {
      app.dispose();
      page.dispose();
      trace.dispose();
    }
  });

  it('offers live sessions first to the inspector, with their phase and why', () => {
    const live = new Session({ id: 'live', source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' } });
    const trace = new Session({ id: 'trace', source: { kind: 'trace', file: '/t/run.bustrace' } });
    const ended = new Session({ id: 'ended', source: { kind: 'address', host: '127.0.0.1', port: 2, token: 't' } });
    try {
      feed(live, 'game');
      feed(ended, 'editor');
      ended.end('app-exited', 'the app exited');
      trace.end('end-of-trace', 'end of trace');
      assert.deepEqual(
        inspectorSessionOrder([trace, ended, live]).map((s) => s.id),
        ['live', 'ended', 'trace'],
      );
      const info = inspectorSessionInfo(live);
      assert.deepEqual(
        { id: info.id, label: info.label, phase: info.phase, offline: info.offline },
        { id: 'live', label: 'game (pid 100)', phase: 'attached', offline: false },
      );
      assert.equal(info.model, live.model);
      assert.equal(info.warnings(), live.warnings);
      assert.deepEqual(
        { phase: inspectorSessionInfo(ended).phase, detail: inspectorSessionInfo(ended).detail },
        { phase: 'detached', detail: 'the app exited' },
      );
      assert.deepEqual({ label: inspectorSessionInfo(trace).label, offline: inspectorSessionInfo(trace).offline }, { label: 'run.bustrace', offline: true });
    } finally {
      live.dispose();
      trace.dispose();
      ended.dispose();
    }
  });
});
