// The *Subscriptions* tree's bus levels (the part without `vscode`) over a real Model fed the records
// an instrumented process sends: buses named `Class#n` group by class ("Socket ×500"), emitters whose
// listeners all come from Node's internals or node_modules gather in one "libraries" group, and
// 200,000 buses still make pages of at most BUS_PAGE_SIZE tree items. The session's `focus` reaches a
// real probe server when the libraries group opens, and is withdrawn when it closes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { aggregateBuses, BUS_PAGE_SIZE, busClassOf, groupBuses, LibraryClassifier, pageOf } from '../../../runtime-probe/src/analysis/busGroups';
import { busesOfNode, busListNodes, busListOf, type BusList } from '../../../extension/src/views/busTree';
import type { BusscopeNode } from '../../../extension/src/views/nodes';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import { Session } from '../../../extension/src/sessions/session';
import { inspectorSessionInfo } from '../../../extension/src/sessions/inspectorSource';
import { InspectorConnection } from '../../../extension/src/inspector/connection';
import { INSPECTOR_MESSAGES_VERSION } from '../../../runtime-probe/src/analysis/inspector-messages';
import { classGroupKey, LIBRARIES_GROUP } from '../../../webview/src/graph/busGroups';
import type { BusRecord, SiteInfo, WelcomeMessage } from '../../../runtime-probe/src/protocol/index';
import { appInfo } from '../../../runtime-probe/src/probe/app-info';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { buildSnapshot } from '../../../runtime-probe/src/recorder/snapshot';
import { ProbeServer } from '../../../runtime-probe/src/server/probe-server';

const NODE_SITE: SiteInfo = { file: 'node:_http_server', line: 10, column: 3, functionName: 'connectionListener' };
const LIB_SITE: SiteInfo = { file: '/srv/app/node_modules/ws/lib/websocket.js', line: 80, column: 5, functionName: 'setSocket' };
const APP_SITE: SiteInfo = { file: '/srv/app/src/rooms.ts', line: 12, column: 9, functionName: 'join' };

/** Builds a model from (name, listener sites, dispatches) per bus, ids from 1. */
function model(buses: readonly { name: string; sites: readonly (SiteInfo | null)[]; dispatches?: number }[]): Model {
  const m = new Model();
  const records: BusRecord[] = [];
  let sub = 0;
  let seq = 0;
  buses.forEach((b, i) => {
    const bus = i + 1;
    records.push({ kind: 'bus-created', time: 0, bus, name: b.name });
    for (const site of b.sites)
      records.push({ kind: 'subscribe', time: 1, subscriptionId: ++sub, bus, type: 'data', priority: 0, label: null, owner: null, once: false, site });
    for (let k = 0; k < (b.dispatches ?? 0); k++)
      records.push({
        kind: 'dispatch',
        seq: ++seq,
        bus,
        type: 'data',
        start: 2 + k * 0.001,
        duration: 0.001,
        delivered: b.sites.length,
        consumedBy: 0,
        depth: 0,
        parentSeq: 0,
        site: null,
      });
  });
  m.applyRecords(records);
  return m;
}

function labels(m: Model, nodes: readonly BusscopeNode[]): string[] {
  return nodes.map((n) => {
    switch (n.kind) {
      case 'bus':
        return m.buses.get(n.bus)!.name;
      case 'bus-class':
        return `${n.className}${n.library ? ' (lib)' : ''} ×`;
      case 'libraries':
        return 'libraries';
      case 'more-buses':
        return `${n.rest} more`;
      default:
        return n.kind;
    }
  });
}

describe('Subscriptions tree: buses by class and origin', () => {
  test('ClassName#n names group by class; a lone instance and user-given names stay single buses', () => {
    assert.deepEqual(busClassOf('Socket#12'), { className: 'Socket', instance: 12 });
    assert.equal(busClassOf('room#lobby'), null);
    assert.equal(busClassOf('game events'), null);
    assert.equal(busClassOf('#3'), null);

    const buses = [
      { name: 'chat', sites: [APP_SITE] },
      { name: 'Room#1', sites: [APP_SITE], dispatches: 3 },
      { name: 'Room#2', sites: [APP_SITE, APP_SITE], dispatches: 4 },
      { name: 'Server#1', sites: [NODE_SITE, APP_SITE] },
      ...Array.from({ length: 500 }, (_, i) => ({ name: `Socket#${i + 1}`, sites: [NODE_SITE, LIB_SITE], dispatches: 1 })),
      { name: 'WebSocket#1', sites: [LIB_SITE] },
    ];
    const m = model(buses);
    const g = groupBuses(m.buses.values(), new LibraryClassifier());
    const root = busListNodes('s', g, { kind: 'root' });
    // The libraries group first; then the app's entries by name, the class among them.
    assert.deepEqual(labels(m, root), ['libraries', 'Room ×', 'Server#1', 'chat']);
    assert.deepEqual(labels(m, busListNodes('s', g, { kind: 'libraries' })), ['Socket (lib) ×', 'WebSocket#1']);
    assert.equal(g.libraryBuses, 501);

    // A class lists its instances in instance order; its figures are the sums.
    const rooms = busListNodes('s', g, { kind: 'class', className: 'Room', library: false });
    assert.deepEqual(labels(m, rooms), ['Room#1', 'Room#2']);
    const sum = aggregateBuses(g.classOf('Room', false)!.buses, m.now);
    assert.deepEqual({ buses: sum.buses, listeners: sum.listeners, dispatches: sum.dispatches }, { buses: 2, listeners: 3, dispatches: 7 });

    const sockets = busListNodes('s', g, { kind: 'class', className: 'Socket', library: true });
    assert.equal(sockets.length, 500);
    assert.equal(busesOfNode(g, { kind: 'libraries', sessionId: 's' }).length, 501);
    assert.equal(busesOfNode(g, { kind: 'bus-class', sessionId: 's', className: 'Socket', library: true }).length, 500);
  });

  test('an emitter with no listener now keeps its group; one with unknown sites is not called a library', () => {
    const m = model([
      { name: 'Socket#1', sites: [NODE_SITE] },
      { name: 'Socket#2', sites: [NODE_SITE] },
      { name: 'legacy', sites: [null] },
    ]);
    const classifier = new LibraryClassifier();
    assert.equal(groupBuses(m.buses.values(), classifier).libraryBuses, 2);
    m.applyRecords([{ kind: 'unsubscribe', time: 5, subscriptionId: 1, reason: 'signal', calls: 0 }]);
    const g = groupBuses(m.buses.values(), classifier);
    assert.equal(g.libraryBuses, 2, 'Socket#1, between listeners, stays in the libraries group');
    assert.equal(g.isLibrary(3), false);
    // The app adds its own listener to a library socket: it is the app's now.
    m.applyRecords([
      { kind: 'subscribe', time: 6, subscriptionId: 9, bus: 2, type: 'data', priority: 0, label: null, owner: null, once: false, site: APP_SITE },
    ]);
    assert.equal(groupBuses(m.buses.values(), classifier).isLibrary(2), false);
  });

  test('200,000 buses: every level is a page at most, and paging reaches every bus once', () => {
    const n = 200_000;
    const buses = [
      ...Array.from({ length: n / 2 }, (_, i) => ({ name: `Socket#${i + 1}`, sites: [NODE_SITE] })),
      ...Array.from({ length: n / 2 - 2000 }, (_, i) => ({ name: `Job#${i + 1}`, sites: [APP_SITE] })),
      // Many user-named buses too: the top level pages as well.
      ...Array.from({ length: 2000 }, (_, i) => ({ name: `queue-${String(i).padStart(4, '0')}`, sites: [APP_SITE] })),
    ];
    const m = model(buses);
    const g = groupBuses(m.buses.values(), new LibraryClassifier());
    const seen = new Set<number>();
    let largest = 0;
    const walk = (list: BusList, offset = 0): void => {
      const nodes = busListNodes('s', g, list, offset);
      largest = Math.max(largest, nodes.length);
      for (const node of nodes) {
        if (node.kind === 'bus') {
          assert.ok(!seen.has(node.bus), `bus ${node.bus} listed once`);
          seen.add(node.bus);
        } else if (node.kind === 'bus-class') walk({ kind: 'class', className: node.className, library: node.library });
        else if (node.kind === 'libraries') walk({ kind: 'libraries' });
        else if (node.kind === 'more-buses') walk(busListOf(node.parent)!, node.offset);
      }
    };
    walk({ kind: 'root' });
    assert.equal(seen.size, n);
    assert.ok(largest <= BUS_PAGE_SIZE + 2, `at most a page plus the libraries and "more" nodes, got ${largest}`);
    assert.deepEqual(labels(m, busListNodes('s', g, { kind: 'root' })).slice(0, 3), ['libraries', 'Job ×', 'queue-0000']);
  });

  test('bad paging arguments are TypeErrors', () => {
    assert.throws(() => pageOf([1], -1), TypeError);
    assert.throws(() => pageOf([1], 0, 0), TypeError);
  });
});

describe('focus: library emitters at full detail while the user looks', () => {
  test("the session sends the libraries group's buses to the probe, withdraws them, and the probe forgets them on detach", async () => {
    const recorder = new Recorder({ maxBufferedRecords: 1024, config: DEFAULT_RECORDING_CONFIG, sanitize: undefined });
    const server = await ProbeServer.listen({
      host: '127.0.0.1',
      port: 0,
      recorder,
      maxPendingBytes: 1 << 20,
      welcome: (protocolVersion): WelcomeMessage => ({
        type: 'welcome',
        protocolVersion,
        probeVersion: 'test',
        app: appInfo('focus', 0),
        timeOrigin: recorder.timeOrigin,
        config: recorder.config,
      }),
      snapshot: () => buildSnapshot(recorder),
    });
    const manager = new SessionManager({ discoveryDirectory: () => '/nonexistent-busscope-focus' });
    const keepAlive = setInterval(() => undefined, 50);
    try {
      const session = await manager.attachAddress('127.0.0.1', server.port, server.token);
      await session.focus.set('libraries-group', [7, 3, 7]);
      assert.deepEqual([...recorder.focus].sort(), [3, 7]);
      await session.focus.set('tree-selection', [12]);
      assert.deepEqual(
        [...recorder.focus].sort((a, b) => a - b),
        [3, 7, 12],
      );
      const sends = session.focus.sends;
      await session.focus.set('libraries-group', [3, 7]);
      assert.equal(session.focus.sends, sends, 'the same list is not sent again');
      await session.focus.set('libraries-group', []);
      assert.deepEqual([...recorder.focus], [12], 'collapsing withdraws the group, the selection stays');
      manager.detach(session);
      const deadline = Date.now() + 5000;
      while (recorder.focus.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(recorder.focus.size, 0, "the probe forgot the detached client's focus");
      assert.deepEqual(session.focus.buses, []);
    } finally {
      manager.dispose();
      await server.close();
      clearInterval(keepAlive);
    }
  });
});

describe('focus from the inspector', () => {
  test('a selected library bus, class node or libraries node asks the session for its buses; another selection withdraws them', () => {
    const session = new Session({ id: 'srv', source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' } });
    const connection = new InspectorConnection(
      { sessions: () => [inspectorSessionInfo(session)], onDidChangeSessions: () => ({ dispose: () => undefined }) },
      { post: () => undefined, openSource: () => undefined, runCommand: () => undefined, exportRangeStats: async () => null, showError: () => undefined },
    );
    try {
      const records: BusRecord[] = [];
      let sub = 0;
      const emitters: [string, SiteInfo][] = [
        ['chat', APP_SITE],
        ['Socket#1', NODE_SITE],
        ['Socket#2', NODE_SITE],
        ['Socket#3', NODE_SITE],
        ['Parser#1', LIB_SITE],
      ];
      emitters.forEach(([name, site], i) => {
        records.push({ kind: 'bus-created', time: 0, bus: i + 1, name });
        records.push({ kind: 'subscribe', time: 1, subscriptionId: ++sub, bus: i + 1, type: 'data', priority: 0, label: null, owner: null, once: false, site });
      });
      session.model.applyRecords(records);
      connection.receive({ type: 'ready', version: INSPECTOR_MESSAGES_VERSION, state: null });
      connection.receive({ type: 'select', target: { kind: 'bus', id: 3 } });
      assert.deepEqual(session.focus.buses, [3]);
      connection.receive({ type: 'select', target: { kind: 'group', key: `c${classGroupKey('Socket', true)}`, subscriptions: [2] } });
      assert.deepEqual(session.focus.buses, [2, 3, 4], 'the class node stands for every instance');
      connection.receive({ type: 'select', target: { kind: 'group', key: `c${LIBRARIES_GROUP}`, subscriptions: [] } });
      assert.deepEqual(session.focus.buses, [2, 3, 4, 5], "the libraries node stands for every library emitter, not the app's own");
      connection.receive({ type: 'select', target: null });
      assert.deepEqual(session.focus.buses, []);
    } finally {
      connection.dispose();
      session.dispose();
    }
  });
});
