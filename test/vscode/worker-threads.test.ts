// Every thread's buses in one session (issue 16), in a real VS Code: an app whose main thread starts
// the probe (BUSSCOPE=1) and runs two named worker threads, each with a bus of its own, is run by
// *Busscope: Run Demo App* (busscope.demo.path pointing at the fixture) and attached by pid. The
// session shows three threads — main and the two workers, by name — each worker's bus under its
// thread, and the inspector's feed (the connection the panel uses, over the extension's sessions)
// sends those three threads and each bus's thread to the page. The Apps and Subscriptions trees,
// read through the tree data providers VS Code renders, group the buses under thread nodes.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as workerThreads from 'node:worker_threads';
import * as vscode from 'vscode';
import type { BusscopeApi } from '../../extension/src/extension';
import type { SessionResult } from '../../extension/src/commands/services';
import type { DemoResult } from '../../extension/src/commands/demoCommands';
import { InspectorConnection } from '../../extension/src/inspector/connection';
import { inspectorSource } from '../../extension/src/sessions/inspectorSource';
import { INSPECTOR_MESSAGES_VERSION, type HostToWebview, type InspectorSnapshot } from '../../runtime-probe/src/analysis/inspector-messages';
import type { BusscopeNode } from '../../extension/src/views/nodes';
import { activateBusscope, waitFor } from './util';

const APP = path.join(BUSSCOPE_REPO_ROOT, 'test', 'fixtures', 'workers', 'threads-app.cjs');
const WORKERS = ['hasher', 'resizer'];

function label(item: vscode.TreeItem): string {
  const l = item.label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}

describe('Busscope with worker threads (one app, all threads)', function () {
  this.timeout(60_000);
  let api: BusscopeApi;
  let tmp: string;
  let session: SessionResult | undefined;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('busscope');

  before(async () => {
    api = (await activateBusscope()).exports as BusscopeApi;
    assert.ok(fs.existsSync(APP), `the fixture app is at ${APP}`);
    assert.ok(fs.existsSync(path.join(BUSSCOPE_REPO_ROOT, 'runtime-probe', 'dist', 'index.cjs')), 'the package is built (npm run build)');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-vscode-threads-'));
    await config().update('discoveryDirectory', path.join(tmp, 'apps'), vscode.ConfigurationTarget.Global);
    await config().update('demo.path', APP, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    try {
      await vscode.commands.executeCommand('busscope.stopDemo');
      api?.sessions.clear();
    } finally {
      await config().update('demo.path', undefined, vscode.ConfigurationTarget.Global);
      await config().update('discoveryDirectory', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('attaches to an app with two workers and shows its three threads, each bus under its thread', async () => {
    const app = await vscode.commands.executeCommand<DemoResult>('busscope.runDemo');
    assert.ok(app && app.pid > 0 && app.started, 'the app started');
    assert.equal(app.script, APP);
    await waitFor("the app's discovery file", () => api.sessions.listApps().some((a) => a.pid === app.pid));
    session = await vscode.commands.executeCommand<SessionResult>('busscope.attach', { pid: app.pid });
    assert.equal(session.pid, app.pid);
    assert.equal(session.live, true);
    const s = api.sessions.find(session.sessionId)!;

    const threads = await waitFor('three threads in the session', () => {
      const t = s.model.threadViews();
      return t !== undefined && t.length === 3 ? t : undefined;
    });
    // Node names a worker after its `name` option where it can (threadName); older Node, by its script.
    const named = typeof (workerThreads as { threadName?: unknown }).threadName === 'string';
    const expected = named ? WORKERS : WORKERS.map(() => 'bus-worker.cjs');
    assert.equal(threads[0].id, 0);
    assert.equal(threads[0].name, 'main');
    assert.deepEqual(
      threads
        .slice(1)
        .map((t) => t.name)
        .sort(),
      expected,
    );
    for (const t of threads) assert.equal(t.exitedAt, null, `thread ${t.name} is running`);

    // Each bus under the thread that created it, with events arriving from every thread.
    const bus = (name: string) => [...s.model.buses.values()].find((b) => b.name === name);
    await waitFor('dispatches on all three buses', () => ['orders', ...WORKERS.map((w) => `work-${w}`)].every((n) => (bus(n)?.dispatches ?? 0) > 0));
    assert.equal(bus('orders')?.thread, 0);
    const workerThreadIds = threads.slice(1).map((t) => t.id);
    for (const [i, w] of WORKERS.entries()) {
      const b = bus(`work-${w}`)!;
      const thread = threads.find((t) => t.id === b.thread);
      assert.ok(thread !== undefined && workerThreadIds.includes(thread.id), `work-${w} is on a worker thread (thread ${b.thread})`);
      if (named) assert.equal(thread.name, w, `work-${w} is under the thread named ${w}`);
      else assert.notEqual(b.thread, bus(`work-${WORKERS[1 - i]}`)!.thread, 'the two workers’ buses are on different threads');
    }
    // The workers inherited BUSSCOPE=1, yet only the main thread opened a socket and a discovery file.
    assert.equal(api.sessions.listApps().filter((a) => a.pid === app.pid).length, 1, 'one discovery entry for the app');
  });

  it('groups the buses by thread in the Apps and Subscriptions trees', async () => {
    assert.ok(session !== undefined, 'attached by the first test');
    const sessionId = session.sessionId;
    const s = api.sessions.find(sessionId)!;
    const threads = s.model.threadViews()!;
    const named = typeof (workerThreads as { threadName?: unknown }).threadName === 'string';
    // "main", then "worker <threadId> · <name>" by thread id, each with the bus it created.
    const expected = threads.map((t, i) => {
      if (i === 0) return { label: 'main', buses: ['orders'] };
      const worker = named ? t.name : WORKERS[i - 1];
      return { label: `worker ${t.id} · ${t.name}`, buses: named ? [`work-${worker}`] : [] };
    });
    type Tree = { getChildren(node?: BusscopeNode): BusscopeNode[]; getTreeItem(node: BusscopeNode): vscode.TreeItem };
    const threadsUnder = (tree: Tree, parent: BusscopeNode | undefined) =>
      tree
        .getChildren(parent)
        .filter((n) => n.kind === 'thread')
        .map((n) => ({ label: label(tree.getTreeItem(n)), buses: tree.getChildren(n).map((b) => label(tree.getTreeItem(b))) }));
    const check = (where: string, got: { label: string; buses: string[] }[]) => {
      assert.deepEqual(
        got.map((t) => t.label),
        expected.map((t) => t.label),
        `${where}: the thread nodes`,
      );
      if (named)
        assert.deepEqual(
          got.map((t) => t.buses),
          expected.map((t) => t.buses),
          `${where}: each bus under its thread`,
        );
      else
        assert.deepEqual(
          got.map((t) => t.buses.length),
          [1, 1, 1],
          `${where}: one bus under each thread`,
        );
    };

    // Apps: the session's facts, then its threads; a thread opens to the buses it created.
    await vscode.commands.executeCommand('busscope.apps.focus');
    const apps = api.views.apps;
    const appNode = apps.getChildren().find((n) => n.kind === 'session' && n.sessionId === sessionId);
    assert.ok(appNode !== undefined, 'the session is in the Apps tree');
    const appsThreads = await waitFor('three thread nodes in the Apps tree', () => {
      const t = threadsUnder(apps, appNode);
      return t.length === 3 && t.every((x) => x.buses.length === 1) ? t : undefined;
    });
    check('Apps', appsThreads);
    assert.ok(apps.getChildren(appNode).findIndex((n) => n.kind === 'thread') > 0, 'the facts come first');
    assert.match(String(apps.getTreeItem(apps.getChildren(appNode).find((n) => n.kind === 'thread')!).description), /^1 bus$/);

    // Subscriptions: the threads are the level above the buses (under the session when several are listed).
    await vscode.commands.executeCommand('busscope.subscriptions.focus');
    const subs = api.views.subscriptions;
    const subsRoot = (): BusscopeNode | undefined => {
      const top = subs.getChildren();
      return top.some((n) => n.kind === 'session') ? top.find((n) => n.kind === 'session' && n.sessionId === sessionId) : undefined;
    };
    const subsThreads = await waitFor('three thread nodes in the Subscriptions tree', () => {
      const t = threadsUnder(subs, subsRoot());
      return t.length === 3 && t.every((x) => x.buses.length === 1) ? t : undefined;
    });
    check('Subscriptions', subsThreads);
    assert.ok(
      subs.getChildren(subsRoot()).every((n) => n.kind === 'thread' || n.kind === 'debug'),
      'no bus outside a thread',
    );
    // Under a thread, a bus opens to its event types as before.
    const main = subs.getChildren(subsRoot()).find((n) => n.kind === 'thread' && n.thread === 0)!;
    const orders = subs.getChildren(main).find((n) => label(subs.getTreeItem(n)) === 'orders')!;
    assert.deepEqual(
      subs.getChildren(orders).map((n) => label(subs.getTreeItem(n))),
      ['order.placed'],
    );
  });

  it("sends the inspector the three threads and each bus's thread", async () => {
    assert.ok(session !== undefined, 'attached by the previous test');
    const s = api.sessions.find(session.sessionId)!;
    // The connection the inspector panel runs, over the extension's own sessions; messages as JSON, as postMessage sends them.
    const posted: HostToWebview[] = [];
    const connection = new InspectorConnection(inspectorSource(api.sessions), {
      post: (msg) => posted.push(JSON.parse(JSON.stringify(msg)) as HostToWebview),
      openSource: () => undefined,
      runCommand: () => undefined,
      exportRangeStats: () => Promise.resolve(null),
      showError: (message) => assert.fail(message),
    });
    try {
      connection.show(session.sessionId);
      connection.receive({ type: 'ready', version: INSPECTOR_MESSAGES_VERSION, state: null });
      const snapshot = await waitFor('a snapshot for the page', () =>
        posted.filter((m): m is Extract<HostToWebview, { type: 'snapshot' }> => m.type === 'snapshot').at(-1),
      );
      const sent: InspectorSnapshot = snapshot.snapshot;
      assert.equal(sent.session.sessionId, session.sessionId);
      const threads = sent.session.threads ?? [];
      assert.equal(threads.length, 3, `threads sent: ${JSON.stringify(threads)}`);
      assert.deepEqual(
        threads.map((t) => [t.id, t.name]),
        s.model.threadViews()!.map((t) => [t.id, t.name]),
      );
      assert.equal(threads[0].name, 'main');
      const busThread = new Map(sent.buses.map((b) => [b.name, b.thread ?? 0]));
      assert.equal(busThread.get('orders'), 0);
      for (const w of WORKERS) {
        const id = busThread.get(`work-${w}`);
        assert.ok(id !== undefined && id !== 0 && threads.some((t) => t.id === id), `work-${w} is sent under one of the worker threads (thread ${String(id)})`);
      }
      assert.notEqual(busThread.get('work-hasher'), busThread.get('work-resizer'));
    } finally {
      connection.dispose();
    }
  });
});
