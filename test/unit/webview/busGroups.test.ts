// The inspector with every EventEmitter of a server instrumented: 20,000 sockets (listeners from
// Node's internals and node_modules), a few app emitters of one class, and user-named buses. A real
// Model fed protocol records, the real InspectorFeed and store, the real graph and lane builders:
// the sockets are one collapsed "libraries" node, then "Socket ×20,000", then 50 instances and
// "+N more"; the app's class is one "Room ×3" node with summed figures; lanes stay a few.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { classGroupKey, isGroupKey, LIBRARIES_GROUP, MAX_INSTANCES_SHOWN } from '../../../webview/src/graph/busGroups';
import { buildGraph, type GraphOptions } from '../../../webview/src/graph/graphModel';
import { fullLayout } from '../../../webview/src/graph/layout';
import type { InspectorSnapshot, SessionView, SiteInfo } from '../../../runtime-probe/src/analysis/inspector-messages';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import { DEFAULT_MAX_LANES, layoutLanes } from '../../../webview/src/timeline/lanes';
import type { BusRecord } from '../../../runtime-probe/src/protocol/records';

const SOCKETS = 20_000;
const NODE_SITE: SiteInfo = { file: 'node:net', line: 1, column: 1, functionName: 'Socket' };
const LIB_SITE: SiteInfo = { file: '/srv/node_modules/ws/lib/websocket.js', line: 9, column: 2, functionName: 'setSocket' };
const APP_SITE: SiteInfo = { file: '/srv/src/rooms.ts', line: 4, column: 3, functionName: 'join' };
const session: SessionView = { phase: 'attached', sessionId: 's', label: 'server (pid 1)', detail: '', droppedRecords: 0, offline: false, sessions: [] };

function serverModel(): Model {
  const m = new Model();
  const records: BusRecord[] = [];
  let sub = 0;
  let seq = 0;
  let bus = 0;
  const emitter = (name: string, sites: readonly SiteInfo[], types: readonly string[], dispatches: number): void => {
    const id = ++bus;
    records.push({ kind: 'bus-created', time: 0, bus: id, name });
    for (const type of types) {
      for (const site of sites)
        records.push({ kind: 'subscribe', time: 1, subscriptionId: ++sub, bus: id, type, priority: 0, label: null, owner: null, once: false, site });
      for (let k = 0; k < dispatches; k++)
        records.push({
          kind: 'dispatch',
          seq: ++seq,
          bus: id,
          type,
          start: 2 + seq * 0.0001,
          duration: 0.001,
          delivered: sites.length,
          consumedBy: 0,
          depth: 0,
          parentSeq: 0,
          site: null,
        });
    }
  };
  emitter('chat', [APP_SITE], ['message'], 5);
  for (let i = 1; i <= 3; i++) emitter(`Room#${i}`, [APP_SITE], ['join', 'leave'], 5 + i);
  emitter('Server#1', [NODE_SITE, APP_SITE], ['connection'], 2);
  for (let i = 1; i <= SOCKETS; i++) emitter(`Socket#${i}`, [NODE_SITE, LIB_SITE], ['data', 'close'], 1);
  m.applyRecords(records);
  return m;
}

function graphOptions(expanded: ReadonlySet<string>, expandedMore: ReadonlySet<string> = new Set()): GraphOptions {
  return { filterText: '', busFilter: '', isCollapsed: (_id, name) => (isGroupKey(name) ? !expanded.has(name) : false), maxGroupsPerType: 8, expandedMore };
}

describe('emitters grouped by class and origin in the inspector', () => {
  const model = serverModel();
  const feed = new InspectorFeed(model, {}, () => 0);
  const store = new InspectorStore();
  store.applySnapshot(JSON.parse(JSON.stringify(feed.snapshot(session, []))) as InspectorSnapshot);

  test('collapsed: one libraries node, one node per app class, single buses as before; a graph of a few dozen nodes', () => {
    const g = buildGraph(store, graphOptions(new Set()));
    fullLayout(g);
    const buses = g.outline.filter((n) => n.kind === 'bus');
    assert.deepEqual(
      buses.map((n) => n.label),
      ['libraries', 'chat', 'Room ×3', 'Server#1'],
    );
    const libs = buses[0];
    assert.equal(libs.collapsed, true);
    assert.match(libs.detail, /^20000 emitters/);
    assert.match(libs.detail, /lifecycle only until selected/);
    const rooms = buses[2];
    assert.equal(rooms.collapsed, true);
    assert.match(rooms.detail, /^3 instances · 6 types/);
    assert.equal(rooms.dispatches, 2 * (6 + 7 + 8), "the class node sums its instances' dispatches");
    assert.ok(rooms.ref.kind === 'group' && rooms.ref.subscriptions.length === 6, 'selecting it selects its listeners');
    assert.ok(g.nodes.length < 60, `bounded graph, got ${g.nodes.length} nodes`);
    // The timeline gives each collapsed group one lane per event type name.
    const lanes = layoutLanes(store, () => true, DEFAULT_MAX_LANES, g.busGroupOf);
    const names = lanes.lanes.map((l) => `${l.busName} · ${l.name}`);
    assert.ok(names.includes('Room ×3 · join') && names.includes('libraries · data'), names.join(', '));
    assert.ok(lanes.lanes.length <= 10, `a few lanes, got ${lanes.lanes.length}`);
  });

  test('expanding the libraries shows "Socket ×20,000"; expanding the class shows 50 instances and "+N more"', () => {
    let g = buildGraph(store, graphOptions(new Set([LIBRARIES_GROUP])));
    let labels = g.outline.filter((n) => n.kind === 'bus').map((n) => n.label);
    assert.deepEqual(labels.slice(0, 2), ['libraries', 'Socket ×20,000']);
    const socketKey = classGroupKey('Socket', true);
    g = buildGraph(store, graphOptions(new Set([LIBRARIES_GROUP, socketKey])));
    fullLayout(g);
    labels = g.outline.filter((n) => n.kind === 'bus').map((n) => n.label);
    assert.deepEqual(labels.slice(2, 5), ['Socket#1', 'Socket#2', 'Socket#3'], 'instances in instance order');
    assert.equal(labels.filter((l) => l.startsWith('Socket#')).length, MAX_INSTANCES_SHOWN);
    const more = g.outline.find((n) => n.key === `mc:${socketKey}`);
    assert.ok(more, 'a "+N more" node');
    assert.equal(more.count, SOCKETS - MAX_INSTANCES_SHOWN);
    assert.ok(g.nodes.length < 1000, `still bounded, got ${g.nodes.length}`);
  });

  test('a user-named bus, or a lone instance, is never grouped; a bus filter shows the bus itself', () => {
    const g = buildGraph(store, { ...graphOptions(new Set()), busFilter: 'Socket#7' });
    assert.deepEqual(
      g.outline.filter((n) => n.kind === 'bus').map((n) => n.label),
      ['Socket#7'],
    );
  });
});
