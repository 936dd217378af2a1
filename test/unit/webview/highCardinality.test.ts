// 100,000 distinct event types (an app dispatching `user.${id}.updated` for every id): what the
// host sends stays bounded (the most active types, counts of the rest), and the webview's graph,
// lanes and toolbar say "N more" instead of holding or drawing every type. A real Model fed with
// protocol records, the real InspectorFeed, and the real renderer in jsdom.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { buildGraph, moreTypesKey } from '../../../webview/src/graph/graphModel';
import { fullLayout } from '../../../webview/src/graph/layout';
import { createInspector } from '../../../webview/src/inspector';
import type { HostToWebview, InspectorPort, InspectorSnapshot, SessionView, WebviewToHost } from '../../../runtime-probe/src/analysis/inspector-messages';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import { DEFAULT_MAX_LANES, layoutLanes, OTHER_LANE } from '../../../webview/src/timeline/lanes';
import type { BusRecord } from '../../../runtime-probe/src/protocol/records';
import { click, createDom, key } from './dom';

const USERS = 1;
const GAME = 2;
const TYPES = 100_000;

const session: SessionView = {
  phase: 'attached',
  sessionId: 's1',
  label: 'users (pid 1)',
  detail: '',
  droppedRecords: 0,
  offline: false,
  sessions: [{ id: 's1', label: 'users (pid 1)', phase: 'attached' }],
};

let seq = 0;
let subId = 0;

function dispatch(bus: number, type: string, start: number, delivered = 0): BusRecord {
  return { kind: 'dispatch', seq: ++seq, bus, type, start, duration: 0.001, delivered, consumedBy: 0, depth: 0, parentSeq: 0, site: null };
}

function subscribe(bus: number, type: string, time: number): BusRecord {
  return { kind: 'subscribe', time, subscriptionId: ++subId, bus, type, priority: 0, label: `${type} handler`, owner: null, once: false, site: null };
}

/** `count` user types from `from` on, each dispatched once (nobody listens); every 10th subscribed. */
function userTypes(from: number, count: number, t0: number): BusRecord[] {
  const records: BusRecord[] = [];
  for (let i = from; i < from + count; i++) {
    const type = `user.${i}.updated`;
    if (i % 10 === 0) records.push(subscribe(USERS, type, t0));
    records.push(dispatch(USERS, type, t0 + (i - from) * 0.0001));
  }
  return records;
}

/** Two busy game types with listeners, dispatched many times at the end. */
function busyGame(t0: number): BusRecord[] {
  const records: BusRecord[] = [];
  for (let i = 0; i < 300; i++) {
    records.push(dispatch(GAME, 'tick', t0 + i, 1));
    if (i % 3 === 0) records.push(dispatch(GAME, 'score', t0 + i + 0.5, 1));
  }
  return records;
}

function bigModel(): Model {
  seq = 0;
  subId = 0;
  const model = new Model();
  model.applyRecords([
    { kind: 'bus-created', time: 0, bus: USERS, name: 'users' },
    { kind: 'bus-created', time: 0, bus: GAME, name: 'game' },
    subscribe(GAME, 'tick', 0),
    subscribe(GAME, 'score', 0),
  ]);
  model.applyRecords(userTypes(0, TYPES, 1));
  model.applyRecords(busyGame(100));
  return model;
}

const sum = (xs: readonly { count: number }[]): number => xs.reduce((a, b) => a + b.count, 0);

describe('100,000 event types: the inspector feed', () => {
  let model: Model;
  let feed: InspectorFeed;
  let snap: InspectorSnapshot;
  before(() => {
    model = bigModel();
    feed = new InspectorFeed(model, {}, () => 0);
    snap = JSON.parse(JSON.stringify(feed.snapshot(session, []))) as InspectorSnapshot;
  });

  test('the snapshot carries at most maxTypes types, the busiest among them, and counts the rest', () => {
    assert.equal(model.typeCount, TYPES + 2);
    const max = feed.options.maxTypes;
    assert.equal(snap.types.length, max);
    const names = new Set(snap.types.map((t) => t.type));
    assert.ok(names.has('tick') && names.has('score'), 'the busy types are sent');
    assert.ok(snap.omitted, 'the snapshot says something was left out');
    assert.equal(snap.omitted.types, model.typeCount - max);
    assert.equal(sum(snap.omitted.typesByBus), snap.omitted.types);
    assert.deepEqual(
      snap.omitted.typesByBus.map((b) => b.bus),
      [USERS],
      'every game type was sent',
    );
    // Bus views name at most the cap of types, and say how many there are.
    const users = snap.buses.find((b) => b.id === USERS)!;
    assert.ok(users.types.length <= max);
    assert.equal(users.typeCount, TYPES);
  });

  test('subscriptions: only those of types sent, the rest counted', () => {
    const sent = new Set(snap.types.map((t) => `${t.bus}\u0000${t.type}`));
    for (const s of snap.subscriptions) assert.ok(sent.has(`${s.bus}\u0000${s.type}`), `${s.type} was sent`);
    assert.ok(snap.subscriptions.length < model.subscriptions.size);
    assert.equal(snap.omitted!.subscriptions, model.subscriptions.size - snap.subscriptions.length);
  });

  test('a delta after 50,000 more new types carries none of them, only the new counts', () => {
    const before = snap.omitted!.types;
    model.applyRecords(userTypes(TYPES, 50_000, 400));
    model.applyRecords(busyGame(500));
    const d = feed.delta([], true);
    assert.ok(d);
    assert.equal(d.types, undefined, 'no type entries: the cap is full');
    assert.ok(d.omitted);
    assert.equal(d.omitted.types, before + 50_000);
    assert.equal(sum(d.omitted.typesByBus), d.omitted.types);
    assert.ok((d.typeStats?.count ?? 0) <= feed.options.maxTypes);
    assert.ok(d.typeStats!.index.includes(snap.types.find((t) => t.type === 'tick')!.index), 'the sent types still get their figures');
    assert.ok((d.subscriptions?.length ?? 0) === 0, 'subscriptions of types not sent stay out');
    assert.equal(d.omitted.subscriptions, model.subscriptions.size - snap.subscriptions.length);
    // Nothing changed: no delta at all (the counts are not resent).
    assert.equal(feed.delta([], true), null);
  });

  test('over the cap, a type that becomes busy replaces a quiet one (and the webview follows)', () => {
    seq = 0;
    subId = 0;
    const m = new Model();
    m.applyRecords([{ kind: 'bus-created', time: 0, bus: USERS, name: 'users' }, ...userTypes(0, 5_000, 0)]);
    let wall = 0;
    const f = new InspectorFeed(m, { maxTypes: 1_000 }, () => wall);
    const s = f.snapshot(session, []);
    const store = new InspectorStore();
    store.applySnapshot(JSON.parse(JSON.stringify(s)) as InspectorSnapshot);
    const hot = 'user.4999.updated';
    assert.ok(!s.types.some((t) => t.type === hot), 'a quiet type at first');
    const rs: BusRecord[] = [subscribe(USERS, hot, 5)];
    for (let k = 0; k < 500; k++) rs.push(dispatch(USERS, hot, 5 + k * 0.01, 1));
    m.applyRecords(rs);
    // Within the re-ranking interval nothing moves; after it, the busy type comes in.
    wall = 1_000;
    const early = f.delta([], true)!;
    assert.equal(early.forgetTypes, undefined);
    assert.ok(!early.types?.some((t) => t.type === hot));
    assert.equal(store.applyDelta(JSON.parse(JSON.stringify(early))), 'applied');
    wall = 2_500;
    const d = f.delta([], true)!;
    assert.ok(
      d.types?.some((t) => t.type === hot),
      'the busy type is sent',
    );
    assert.equal(d.forgetTypes?.length, 1, 'one quiet type makes room');
    assert.ok(
      d.subscriptions?.some((x) => x.type === hot),
      "and the busy type's subscription",
    );
    assert.equal(d.omitted?.types ?? s.omitted!.types, 5_000 - 1_000, 'the counts stay right');
    assert.equal(store.applyDelta(JSON.parse(JSON.stringify(d))), 'applied');
    assert.equal(store.types.size, 1_000);
    assert.ok(store.typeIndexOf(USERS, hot) >= 0);
    assert.ok(!store.types.has(d.forgetTypes![0]));
    // Stable: the next re-ranking changes nothing.
    wall = 5_000;
    assert.equal(f.delta([], true)?.forgetTypes, undefined);
  });

  test('a feed that started small takes new types only up to the cap', () => {
    seq = 0;
    subId = 0;
    const m = new Model();
    m.applyRecords([{ kind: 'bus-created', time: 0, bus: USERS, name: 'users' }, ...userTypes(0, 10, 0)]);
    const f = new InspectorFeed(m, { maxTypes: 1_000 }, () => 0);
    const s = f.snapshot(session, []);
    assert.equal(s.types.length, 10);
    assert.equal(s.omitted, undefined, 'nothing left out yet');
    m.applyRecords(userTypes(10, TYPES - 10, 1));
    const d = f.delta([], true)!;
    assert.equal(d.types?.length, 1_000 - 10);
    assert.equal(d.omitted?.types, TYPES - 1_000);
  });
});

describe('100,000 event types: the webview', () => {
  let snap: InspectorSnapshot;
  let store: InspectorStore;
  before(() => {
    const model = bigModel();
    snap = JSON.parse(JSON.stringify(new InspectorFeed(model, {}, () => 0).snapshot(session, []))) as InspectorSnapshot;
    store = new InspectorStore();
    store.applySnapshot(snap);
  });

  test('the store holds only what was sent, and what was not as counts', () => {
    assert.equal(store.types.size, snap.types.length);
    assert.equal(store.omitted?.types, TYPES + 2 - snap.types.length);
    assert.equal(store.omittedTypesOf(USERS), store.omitted?.types);
    assert.equal(store.omittedTypesOf(GAME), 0);
  });

  test('graph: an expanded bus shows at most 200 type nodes and one "+N more types" node', () => {
    const model = buildGraph(store, { filterText: '', busFilter: '', isCollapsed: () => false, maxGroupsPerType: 12, expandedMore: new Set() });
    fullLayout(model);
    const usersTypes = model.nodes.filter((n) => n.kind === 'type' && n.bus === USERS);
    assert.equal(usersTypes.length, 200);
    const more = model.byKey.get(moreTypesKey(USERS));
    assert.ok(more, 'a "more types" node for the users bus');
    assert.equal(more.count, TYPES - 200);
    assert.equal(more.label, `+${TYPES - 200} more types`);
    assert.equal(model.moreTypes, TYPES - 200);
    assert.ok(model.nodes.length < 1_000, `${model.nodes.length} nodes`);
    // Laid out like a type: its own row in the middle column, under the bus.
    const rows = new Set(model.nodes.filter((n) => n.column === 1).map((n) => n.row));
    assert.equal(rows.size, model.nodes.filter((n) => n.column === 1).length, 'no two middle-column nodes share a row');
    assert.ok(more.row > model.byKey.get(`b${USERS}`)!.row);
    // The game bus has two types: nothing folded there.
    assert.equal(model.byKey.get(moreTypesKey(GAME)), undefined);
  });

  test('lanes: types the host did not send share one "other types (N)" lane; every dispatch has a lane', () => {
    const layout = layoutLanes(store, () => true);
    const laneTypes = store.timeline.laneDepth.size;
    assert.ok(laneTypes > 40_000, `${laneTypes} types in the timeline`);
    assert.ok(layout.lanes.length <= DEFAULT_MAX_LANES);
    const other = layout.lanes[layout.lanes.length - 1];
    assert.equal(other.type, OTHER_LANE);
    assert.equal(other.types, laneTypes - (layout.lanes.length - 1));
    assert.equal(other.name, `other types (${other.types})`);
    const tl = store.timeline;
    for (let k = 0; k < tl.size; k++) assert.ok(layout.byType[tl.laneOf(tl.dispatches.physicalIndex(k))], 'every dispatch has a lane');
    // The busy types keep their own lane.
    const tick = store.typeIndexOf(GAME, 'tick');
    assert.equal(layout.byType[tick]?.type, tick);
  });

  test('lanes: more described types than the cap keep 199 lanes (the busiest), the rest go to "other types"', () => {
    seq = 0;
    subId = 0;
    const model = new Model();
    model.applyRecords([{ kind: 'bus-created', time: 0, bus: USERS, name: 'users' }, ...userTypes(0, 5_000, 0)]);
    model.applyRecords(busyGame(100));
    const s = new InspectorStore();
    s.applySnapshot(JSON.parse(JSON.stringify(new InspectorFeed(model, {}, () => 0).snapshot(session, []))) as InspectorSnapshot);
    assert.equal(s.types.size, 2_000);
    const layout = layoutLanes(s, () => true);
    assert.equal(layout.lanes.length, DEFAULT_MAX_LANES);
    const other = layout.lanes[DEFAULT_MAX_LANES - 1];
    assert.equal(other.type, OTHER_LANE);
    assert.equal(other.types, 5_002 - (DEFAULT_MAX_LANES - 1));
    assert.equal(layout.byType[s.typeIndexOf(GAME, 'tick')]?.type, s.typeIndexOf(GAME, 'tick'));
    assert.ok(layout.lanes.slice(0, -1).every((l) => l.types === 1 && s.types.has(l.type)));
  });
});

describe('100,000 event types: the renderer in jsdom', () => {
  const dom = createDom();
  let listener: ((m: HostToWebview) => void) | null = null;
  const posted: WebviewToHost[] = [];
  const port: InspectorPort = {
    postMessage: (m) => void posted.push(m),
    onMessage: (l) => {
      listener = l;
      return { dispose: () => (listener = null) };
    },
  };
  const ins = createInspector(dom.root, port);
  after(() => {
    ins.dispose();
    dom.close();
  });

  test('says "N more types not shown", folds the graph and the lanes', () => {
    const snapshot = new InspectorFeed(bigModel(), {}, () => 0).snapshot(session, []);
    listener!(JSON.parse(JSON.stringify({ type: 'snapshot', snapshot })) as HostToWebview);
    ins.flush();
    const doc = dom.document;
    const unsent = TYPES + 2 - snapshot.types.length;
    const counts = doc.querySelector('[data-testid=graph-counts]')!.textContent!;
    assert.match(counts, new RegExp(`of ${(TYPES + 2).toLocaleString('en-US')} types`));
    assert.match(counts, new RegExp(`${unsent.toLocaleString('en-US')} more types not shown`));
    // Expanded, the users bus lists 200 types and one "+N more types" row.
    const expand = [...doc.querySelectorAll<HTMLButtonElement>('header.toolbar button')].find((b) => b.textContent === 'Expand all')!;
    click(expand);
    ins.flush();
    const more = ins.graphModel()!.byKey.get(moreTypesKey(USERS))!;
    assert.equal(more.label, `+${TYPES - 200} more types`);
    assert.equal(ins.graphModel()!.nodes.filter((n) => n.kind === 'type').length, 202);
    // The node list: the last row is "+N more types"; Enter shows the types the webview holds.
    const list = doc.querySelector<HTMLElement>('[data-testid=node-list]')!;
    key(list, 'End');
    ins.flush();
    const row = doc.querySelector(`[data-testid=node-list] [data-key="${moreTypesKey(USERS)}"]`);
    assert.ok(row, 'the node list has a row for "+N more types"');
    assert.match(row.textContent ?? '', new RegExp(`\\+${TYPES - 200} more types`));
    key(list, 'Enter');
    ins.flush();
    const usersHeld = [...ins.store.types.values()].filter((t) => t.bus === USERS).length;
    assert.equal(ins.graphModel()!.byKey.get(moreTypesKey(USERS))!.label, `+${TYPES - usersHeld} more types`, 'only those not sent stay folded');
    // The timeline: at most 200 lane labels, the last one "other types (N)".
    const labels = [...doc.querySelectorAll<HTMLElement>('[data-testid=timeline-lanes] .lane-label')];
    assert.ok(labels.length <= DEFAULT_MAX_LANES);
    const last = labels[labels.length - 1];
    assert.equal(last.getAttribute('data-lane'), String(OTHER_LANE));
    assert.match(last.textContent ?? '', /^other types \(\d+\)$/);
  });
});
