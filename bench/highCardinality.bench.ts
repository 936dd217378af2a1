// 100,000 distinct event types (an app dispatching `user.${id}.updated` for every id), in Node: what
// the extension host spends building the inspector's snapshot and deltas and the Subscriptions
// tree's first level, and what the webview spends on the graph and the lanes — each side by side
// with the uncapped behaviour (every type sent / listed / drawn), which is what the code did before.
// Also the model's memory per event type. Asserts the caps hold, not timings.
//
// Then 120,000 emitters (every EventEmitter of a busy http server instrumented: a Socket, an
// IncomingMessage and a ServerResponse per connection, listeners from Node's internals): the
// model's ingest, and the inspector snapshot and steady-state delta with buses sent grouped (one
// view per class and one for the libraries) beside every bus sent and walked, as the feed did before.

import { InspectorFeed } from '../extension/src/inspector/feed';
import { Model } from '../runtime-probe/src/analysis/model/model';
import { rankTypes, typePage } from '../extension/src/views/typePages';
import { buildGraph } from '../webview/src/graph/graphModel';
import { fullLayout } from '../webview/src/graph/layout';
import type { InspectorSnapshot, SessionView } from '../runtime-probe/src/analysis/inspector-messages';
import { InspectorStore } from '../webview/src/store/inspectorStore';
import { layoutLanes } from '../webview/src/timeline/lanes';
import type { BusRecord, SiteInfo } from '../runtime-probe/src/protocol/records';
import { busView } from '../runtime-probe/src/analysis/model/views';
import { collectGarbage, formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchRounds } from './lib/settings';

const TYPES = 100_000;
const session: SessionView = { phase: 'attached', sessionId: 'b', label: 'bench', detail: '', droppedRecords: 0, offline: false, sessions: [] };

function records(types: number): BusRecord[] {
  const out: BusRecord[] = [{ kind: 'bus-created', time: 0, bus: 1, name: 'users' }];
  let seq = 0;
  let sub = 0;
  for (let i = 0; i < types; i++) {
    const type = `user.${i}.updated`;
    if (i % 10 === 0)
      out.push({ kind: 'subscribe', time: 0, subscriptionId: ++sub, bus: 1, type, priority: 0, label: null, owner: null, once: false, site: null });
    out.push({
      kind: 'dispatch',
      seq: ++seq,
      bus: 1,
      type,
      start: i * 0.0001,
      duration: 0.001,
      delivered: i % 10 === 0 ? 1 : 0,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  return out;
}

function timed<T>(f: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, value };
}

function medianMs(rounds: number, f: () => unknown): number {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) times.push(timed(f).ms);
  return median(times);
}

const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 1)} ms`;
const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

function storeOf(snapshot: InspectorSnapshot): InspectorStore {
  const s = new InspectorStore();
  s.applySnapshot(JSON.parse(JSON.stringify(snapshot)) as InspectorSnapshot);
  return s;
}

const CONNECTIONS = 40_000;
const NET: SiteInfo = { file: 'node:net', line: 447, column: 8, functionName: 'Socket' };
const HTTP: SiteInfo = { file: 'node:_http_server', line: 686, column: 10, functionName: 'connectionListenerInternal' };
const APP: SiteInfo = { file: '/srv/app/server.js', line: 12, column: 10, functionName: 'handle' };

/** An instrumented http server's records: 3 emitters per connection, their listeners, one dispatch each. */
function emitterRecords(connections: number): BusRecord[] {
  const out: BusRecord[] = [{ kind: 'bus-created', time: 0, bus: 1, name: 'Server#1' }];
  out.push({ kind: 'subscribe', time: 0, subscriptionId: 1, bus: 1, type: 'request', priority: 0, label: 'handle', owner: null, once: false, site: APP });
  let bus = 1;
  let sub = 1;
  let seq = 0;
  for (let c = 1; c <= connections; c++) {
    const time = c * 0.01;
    for (const [cls, type, site] of [
      ['Socket', 'data', NET],
      ['IncomingMessage', 'end', HTTP],
      ['ServerResponse', 'finish', HTTP],
    ] as const) {
      const id = ++bus;
      out.push({ kind: 'bus-created', time, bus: id, name: `${cls}#${c}` });
      out.push({ kind: 'subscribe', time, subscriptionId: ++sub, bus: id, type, priority: 0, label: null, owner: null, once: false, site });
      out.push({ kind: 'subscribe', time, subscriptionId: ++sub, bus: id, type: 'close', priority: 0, label: null, owner: null, once: false, site });
      out.push({ kind: 'handler', seq: ++seq, subscriptionId: sub - 1, start: time, duration: 0.002, consumed: false });
      out.push({ kind: 'dispatch', seq, bus: id, type, start: time, duration: 0.003, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
    }
    out.push({
      kind: 'dispatch',
      seq: ++seq,
      bus: 1,
      type: 'request',
      start: time,
      duration: 0.01,
      delivered: 1,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  return out;
}

/** What the feed did per delta before grouping, on top of the rest: every bus and every subscription walked. */
function walkEverything(model: Model, sent: Map<number, string>): number {
  let n = 0;
  for (const b of model.buses.values()) if (sent.get(b.id) !== b.name) n++;
  for (const s of model.subscriptions.values()) if (s.active) n++;
  return n;
}

async function emitters(rounds: number): Promise<string> {
  const input = emitterRecords(CONNECTIONS);
  await collectGarbage();
  const model = new Model();
  const cpu0 = process.cpuUsage();
  const ingest = timed(() => model.applyRecords(input));
  const cpu = process.cpuUsage(cpu0);
  const feed = new InspectorFeed(model, {}, () => 0);
  let snap = feed.snapshot(session, []);
  const tSnap = medianMs(rounds, () => (snap = feed.snapshot(session, [])));
  const bytes = JSON.stringify(snap).length;
  // Before: a view of every bus in the snapshot (and the per-bus omitted counts).
  let everyBus: InspectorSnapshot = snap;
  const tSnapAll = medianMs(rounds, () => {
    const s = feed.snapshot(session, []);
    everyBus = {
      ...s,
      buses: [...model.buses.values()].map((b) => busView(b, feed.options.maxTypes)),
      omitted: { ...s.omitted!, typesByBus: [...model.buses.values()].map((b) => ({ bus: b.id, count: b.types.size })) },
    };
  });
  const bytesAll = JSON.stringify(everyBus).length;
  if (snap.buses.length > feed.options.maxTypes + 10) throw new Error(`grouped snapshot sends ${snap.buses.length} buses`);
  // Steady state: one new connection and a few requests between deltas.
  let c = CONNECTIONS;
  let seq = 10_000_000;
  let bus = 1 + 3 * CONNECTIONS;
  let sub = 10_000_000;
  const more = (): void => {
    const time = model.now + 1;
    const rs: BusRecord[] = [
      { kind: 'bus-created', time, bus: ++bus, name: `Socket#${++c}` },
      { kind: 'subscribe', time, subscriptionId: ++sub, bus, type: 'data', priority: 0, label: null, owner: null, once: false, site: NET },
    ];
    for (let k = 0; k < 20; k++)
      rs.push({
        kind: 'dispatch',
        seq: ++seq,
        bus: 1,
        type: 'request',
        start: time + k * 0.01,
        duration: 0.01,
        delivered: 1,
        consumedBy: 0,
        depth: 0,
        parentSeq: 0,
        site: null,
      });
    model.applyRecords(rs);
  };
  const sentNames = new Map([...model.buses.values()].map((b) => [b.id, b.name]));
  const deltaMs = (extra: boolean): number => {
    feed.snapshot(session, []);
    for (let r = 0; r < 10; r++) {
      more();
      feed.delta([], true);
    }
    const times: number[] = [];
    for (let r = 0; r < Math.max(5, rounds); r++) {
      more();
      times.push(
        timed(() => {
          feed.delta([], true);
          if (extra) walkEverything(model, sentNames);
        }).ms,
      );
    }
    return median(times);
  };
  await collectGarbage();
  const tDelta = deltaMs(false);
  await collectGarbage();
  const tDeltaAll = deltaMs(true);
  return (
    `\n\n## 120,000 emitters: an instrumented http server (Node, median of ${rounds})\n\n` +
    markdownTable(
      ['measure', 'grouped (now)', 'every bus (before)', 'ratio'],
      [
        ['host: inspector snapshot from the Model', ms(tSnap), ms(tSnapAll), formatRatio(tSnapAll / tSnap)],
        ['  snapshot size (JSON)', mb(bytes), mb(bytesAll), formatRatio(bytesAll / bytes)],
        ['  bus views sent', String(snap.buses.length), String(everyBus.buses.length), ''],
        ['  group views sent', String(snap.busGroups?.length ?? 0), '0', ''],
        ['host: steady-state delta with figures due (1 new emitter, 20 dispatches)', ms(tDelta), ms(tDeltaAll), formatRatio(tDeltaAll / tDelta)],
      ],
    ) +
    `\n\n_Model: ingest of ${model.buses.size.toLocaleString('en-US')} emitters (${input.length.toLocaleString('en-US')} records) ${ms(ingest.ms)} wall, ${ms((cpu.user + cpu.system) / 1000)} CPU. "Before" is emulated on the new feed: every bus's view added to the snapshot, and every bus and subscription walked per delta, as the feed did._`
  );
}

export async function run(): Promise<void> {
  const rounds = benchRounds(3);
  const input = records(TYPES);

  // Model memory per type.
  await collectGarbage();
  const heap0 = process.memoryUsage().heapUsed;
  const model = new Model();
  const ingest = timed(() => model.applyRecords(input));
  await collectGarbage();
  const heap1 = process.memoryUsage().heapUsed;
  const perType = (heap1 - heap0) / TYPES;

  // Host: snapshot, capped vs every type.
  const capped = new InspectorFeed(model, {}, () => 0);
  const uncapped = new InspectorFeed(
    model,
    { maxTypes: Number.MAX_SAFE_INTEGER, maxSubscriptions: Number.MAX_SAFE_INTEGER, maxWarnings: Number.MAX_SAFE_INTEGER },
    () => 0,
  );
  let snapCapped = capped.snapshot(session, []);
  let snapAll = uncapped.snapshot(session, []);
  const tSnapCapped = medianMs(rounds, () => (snapCapped = capped.snapshot(session, [])));
  const tSnapAll = medianMs(rounds, () => (snapAll = uncapped.snapshot(session, [])));
  if (snapCapped.types.length > capped.options.maxTypes) throw new Error(`capped snapshot has ${snapCapped.types.length} types`);
  if (snapAll.types.length !== TYPES) throw new Error('uncapped snapshot lost types');
  const bytesCapped = JSON.stringify(snapCapped).length;
  const bytesAll = JSON.stringify(snapAll).length;

  // Host: a delta with figures due (every sent type compared), after 1,000 more dispatches.
  let seq = TYPES + 1;
  const more = (): void => {
    const rs: BusRecord[] = [];
    for (let k = 0; k < 1000; k++)
      rs.push({
        kind: 'dispatch',
        seq: ++seq,
        bus: 1,
        type: `user.${(k * 97) % TYPES}.updated`,
        start: model.now + 0.01,
        duration: 0.001,
        delivered: 0,
        consumedBy: 0,
        depth: 0,
        parentSeq: 0,
        site: null,
      });
    model.applyRecords(rs);
  };
  const deltaTimes = (feed: InspectorFeed): number => {
    // Ten unmeasured deltas first: the first ones after a snapshot run before the JIT has optimised the
    // feed (a live panel gets 30 deltas a second, so that is its first third of a second).
    for (let r = 0; r < 10; r++) {
      more();
      feed.delta([], true);
    }
    const times: number[] = [];
    for (let r = 0; r < Math.max(5, rounds); r++) {
      more();
      times.push(timed(() => feed.delta([], true)).ms);
    }
    return median(times);
  };
  await collectGarbage();
  const tDeltaCapped = deltaTimes(capped);
  await collectGarbage();
  const tDeltaAll = deltaTimes(uncapped);

  // Host: the Subscriptions tree's first level under the bus.
  const bus = model.buses.get(1)!;
  let firstLevel = 0;
  const tTree = medianMs(rounds, () => (firstLevel = typePage(bus, 0, (count) => rankTypes(bus, model.now, count)).types.length + 1));
  const tTreeAll = medianMs(rounds, () =>
    [...bus.types.values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((t) => ({ kind: 'type', sessionId: 's', bus: 1, type: t.name })),
  );
  if (firstLevel > 501) throw new Error(`tree first level has ${firstLevel} items`);

  // Webview: store, graph (bus expanded) and lanes.
  const storeCapped = storeOf(snapCapped);
  const storeAll = storeOf(snapAll);
  const graph = (store: InspectorStore, maxTypesPerBus: number) => () => {
    const g = buildGraph(store, { filterText: '', busFilter: '', isCollapsed: () => false, maxGroupsPerType: 12, expandedMore: new Set(), maxTypesPerBus });
    fullLayout(g);
    return g.nodes.length;
  };
  const gCapped = timed(graph(storeCapped, 200));
  const gAll = timed(graph(storeAll, Number.MAX_SAFE_INTEGER));
  const tGraphCapped = medianMs(rounds, graph(storeCapped, 200));
  const lanesCapped = layoutLanes(storeCapped, () => true);
  const tLanes = medianMs(rounds, () => layoutLanes(storeCapped, () => true));
  const tLanesAll = medianMs(rounds, () => layoutLanes(storeAll, () => true, Number.MAX_SAFE_INTEGER));
  const lanesAll = layoutLanes(storeAll, () => true, Number.MAX_SAFE_INTEGER);

  report(
    `## 100,000 event types (Node, median of ${rounds})\n\n` +
      markdownTable(
        ['measure', 'capped (now)', 'every type (before)', 'ratio'],
        [
          ['host: inspector snapshot from the Model', ms(tSnapCapped), ms(tSnapAll), formatRatio(tSnapAll / tSnapCapped)],
          ['  snapshot size (JSON)', mb(bytesCapped), mb(bytesAll), formatRatio(bytesAll / bytesCapped)],
          ['  types sent', String(snapCapped.types.length), String(snapAll.types.length), ''],
          ['host: steady-state delta with figures due (1,000 new dispatches)', ms(tDeltaCapped), ms(tDeltaAll), formatRatio(tDeltaAll / tDeltaCapped)],
          ['host: Subscriptions tree, children of the bus', ms(tTree), ms(tTreeAll), formatRatio(tTreeAll / tTree)],
          ['  tree items built', String(firstLevel), String(bus.types.size), ''],
          ['webview: graph build + layout, bus expanded', ms(tGraphCapped), ms(gAll.ms), formatRatio(gAll.ms / tGraphCapped)],
          ['  graph nodes', String(gCapped.value), String(gAll.value), ''],
          ['webview: timeline lane layout', ms(tLanes), ms(tLanesAll), formatRatio(tLanesAll / tLanes)],
          ['  lanes', String(lanesCapped.lanes.length), String(lanesAll.lanes.length), ''],
        ],
      ) +
      `\n\n_Model: ingest of ${TYPES.toLocaleString('en-US')} types (${input.length.toLocaleString('en-US')} records) ${ms(ingest.ms)}; heap ${mb(heap1 - heap0)} ≈ ${Math.round(perType)} bytes per event type (its counters, rate windows and sets, plus the timeline ring share)._` +
      (await emitters(rounds)),
  );
}
