// The inspector feed with every EventEmitter of a server instrumented (20,000 sockets whose
// listeners come from Node's internals and node_modules, a few app emitters): the host sends one
// view per group of buses, not one per emitter; the instances of a group come only while the user
// has it expanded, a page at a time, with their types; a delta after a new emitter looks at that
// emitter only, never at every bus or every subscription. Real Model, real feed, real store and graph.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { classGroupKey, isGroupKey, LIBRARIES_GROUP, MAX_INSTANCES_EXPANDED, MAX_INSTANCES_SHOWN } from '../../../webview/src/graph/busGroups';
import { buildGraph } from '../../../webview/src/graph/graphModel';
import type { InspectorDelta, SessionView, SiteInfo } from '../../../runtime-probe/src/analysis/inspector-messages';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import type { BusRecord } from '../../../runtime-probe/src/protocol/records';

const SOCKETS = 20_000;
const NODE_SITE: SiteInfo = { file: 'node:net', line: 1, column: 1, functionName: 'Socket' };
const APP_SITE: SiteInfo = { file: '/srv/src/rooms.ts', line: 4, column: 3, functionName: 'join' };
const session: SessionView = { phase: 'attached', sessionId: 's', label: 'server (pid 1)', detail: '', droppedRecords: 0, offline: false, sessions: [] };
const socketKey = classGroupKey('Socket', true);

let sub = 0;
let seq = 0;
function emitter(records: BusRecord[], id: number, name: string, site: SiteInfo, types: readonly string[], time: number): void {
  records.push({ kind: 'bus-created', time, bus: id, name });
  for (const type of types) {
    records.push({ kind: 'subscribe', time, subscriptionId: ++sub, bus: id, type, priority: 0, label: null, owner: null, once: false, site });
    records.push({
      kind: 'dispatch',
      seq: ++seq,
      bus: id,
      type,
      start: time,
      duration: 0.001,
      delivered: 1,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
}

function serverModel(): Model {
  const m = new Model();
  const records: BusRecord[] = [];
  emitter(records, 1, 'chat', APP_SITE, ['message'], 1);
  for (let i = 1; i <= 3; i++) emitter(records, 1 + i, `Room#${i}`, APP_SITE, ['join'], 1);
  // Newest instance first: the busiest-types cut (ties go to the oldest types) leaves out the first instances.
  for (let i = SOCKETS; i >= 1; i--) emitter(records, 4 + i, `Socket#${i}`, NODE_SITE, ['data', 'close'], 2 + (SOCKETS - i) * 0.0001);
  m.applyRecords(records);
  return m;
}

/** Counts full passes over a Map (the delta must make none over the model's buses or subscriptions). */
function countPasses(map: Map<number, unknown>): { passes: number } {
  const counter = { passes: 0 };
  for (const method of ['values', 'keys', 'entries', Symbol.iterator, 'forEach'] as const) {
    const original = (Map.prototype as unknown as Record<PropertyKey, (...a: unknown[]) => unknown>)[method as PropertyKey];
    Object.defineProperty(map, method, {
      configurable: true,
      value(this: Map<number, unknown>, ...args: unknown[]) {
        counter.passes++;
        return original.apply(this, args);
      },
    });
  }
  return counter;
}

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('the inspector feed sends buses grouped', () => {
  const model = serverModel();
  let wall = 0;
  const feed = new InspectorFeed(model, {}, () => wall);
  const snapshot = feed.snapshot(session, []);
  const store = new InspectorStore();
  store.applySnapshot(json(snapshot));

  test('a snapshot of 20,000 sockets carries one view for their class and one for the libraries, not one per socket', () => {
    const groups = new Map((snapshot.busGroups ?? []).map((g) => [g.key, g]));
    assert.equal(groups.get(LIBRARIES_GROUP)?.buses, SOCKETS);
    assert.equal(groups.get(socketKey)?.label, 'Socket ×20,000');
    assert.equal(groups.get(socketKey)?.types, 2 * SOCKETS, 'the class view sums every instance');
    assert.equal(groups.get(classGroupKey('Room', false))?.buses, 3);
    // The buses of their own, and the buses of the (capped) types sent: never every socket.
    const sockets = snapshot.buses.filter((b) => b.name.startsWith('Socket#'));
    assert.ok(sockets.length <= feed.options.maxTypes / 2, `${sockets.length} socket views`);
    assert.ok(sockets.every((b) => b.group === socketKey));
    assert.ok(snapshot.buses.some((b) => b.name === 'chat' && b.group === undefined));
    assert.ok(!snapshot.buses.some((b) => b.name === 'Socket#1'), 'the first instance is not among the busiest types');
    const g = buildGraph(store, { filterText: '', busFilter: '', isCollapsed: (_id, name) => isGroupKey(name), maxGroupsPerType: 8, expandedMore: new Set() });
    const libs = g.outline.find((n) => n.key === `c${LIBRARIES_GROUP}`);
    assert.match(libs?.detail ?? '', /^20000 emitters/);
    assert.equal(libs?.count, 2 * SOCKETS, 'the collapsed group counts every type, sent or not');
  });

  test('expanding the class sends its first instances with their types; "+N more" a bigger page', () => {
    feed.setExpansion([LIBRARIES_GROUP, socketKey], []);
    let d = feed.delta([], true)!;
    assert.equal(store.applyDelta(json(d)), 'applied');
    const shown = [...store.buses.values()].filter((b) => b.group === socketKey);
    for (let i = 1; i <= MAX_INSTANCES_SHOWN; i++)
      assert.ok(
        shown.some((b) => b.name === `Socket#${i}`),
        `Socket#${i} sent`,
      );
    for (let i = 1; i <= MAX_INSTANCES_SHOWN; i++) {
      const id = 4 + i;
      assert.ok(store.typeIndexOf(id, 'data') >= 0 && store.typeIndexOf(id, 'close') >= 0, `the types of Socket#${i} sent`);
    }
    const expanded = new Set([LIBRARIES_GROUP, socketKey]);
    const graph = () =>
      buildGraph(store, {
        filterText: '',
        busFilter: '',
        isCollapsed: (_id, name) => (isGroupKey(name) ? !expanded.has(name) : false),
        maxGroupsPerType: 8,
        expandedMore: new Set([`mc:${socketKey}`]),
      });
    feed.setExpansion([LIBRARIES_GROUP, socketKey], [socketKey]);
    d = feed.delta([], true)!;
    assert.equal(store.applyDelta(json(d)), 'applied');
    const labels = graph()
      .outline.filter((n) => n.kind === 'bus')
      .map((n) => n.label);
    assert.equal(labels.filter((l) => l.startsWith('Socket#')).length, MAX_INSTANCES_EXPANDED);
    assert.equal(graph().outline.find((n) => n.key === `mc:${socketKey}`)?.count, SOCKETS - MAX_INSTANCES_EXPANDED);
  });

  test('a delta after a new socket looks at it alone: no pass over every bus or every subscription', () => {
    feed.setExpansion([], []);
    feed.delta([], true);
    const busPasses = countPasses(model.buses as Map<number, unknown>);
    const subPasses = countPasses(model.subscriptions as Map<number, unknown>);
    const records: BusRecord[] = [];
    emitter(records, 4 + SOCKETS + 1, `Socket#${SOCKETS + 1}`, NODE_SITE, ['data'], model.now + 1);
    model.applyRecords(records);
    wall += 100;
    const d: InspectorDelta = feed.delta([], true)!;
    assert.equal(busPasses.passes, 0, "the delta walked the model's buses");
    assert.equal(subPasses.passes, 0, "the delta walked the model's subscriptions");
    assert.equal(d.busGroups?.find((g) => g.key === socketKey)?.label, `Socket ×${(SOCKETS + 1).toLocaleString('en-US')}`);
    assert.ok((d.buses ?? []).length <= 1, `${d.buses?.length} bus views in the delta`);
    assert.equal(store.applyDelta(json(d)), 'applied');
    const g = buildGraph(store, {
      filterText: '',
      busFilter: '',
      isCollapsed: (_id, name) => (isGroupKey(name) ? name !== LIBRARIES_GROUP : false),
      maxGroupsPerType: 8,
      expandedMore: new Set(),
    });
    assert.ok(g.outline.some((n) => n.label === 'Socket ×20,001'));
  });
});
