// 100,000 distinct event types (an app dispatching `user.${id}.updated` for every id), in Node: what
// the extension host spends building the inspector's snapshot and deltas and the Subscriptions
// tree's first level, and what the webview spends on the graph and the lanes — each side by side
// with the uncapped behaviour (every type sent / listed / drawn), which is what the code did before.
// Also the model's memory per event type. Asserts the caps hold, not timings.

import { InspectorFeed } from '../extension/src/inspector/feed';
import { Model } from '../runtime-probe/src/analysis/model/model';
import { rankTypes, typePage } from '../extension/src/views/typePages';
import { buildGraph } from '../webview/src/graph/graphModel';
import { fullLayout } from '../webview/src/graph/layout';
import type { InspectorSnapshot, SessionView } from '../runtime-probe/src/analysis/inspector-messages';
import { InspectorStore } from '../webview/src/store/inspectorStore';
import { layoutLanes } from '../webview/src/timeline/lanes';
import type { BusRecord } from '../runtime-probe/src/protocol/records';
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
    if (i % 10 === 0) out.push({ kind: 'subscribe', time: 0, subscriptionId: ++sub, bus: 1, type, priority: 0, label: null, owner: null, once: false, site: null });
    out.push({ kind: 'dispatch', seq: ++seq, bus: 1, type, start: i * 0.0001, duration: 0.001, delivered: i % 10 === 0 ? 1 : 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
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
  const uncapped = new InspectorFeed(model, { maxTypes: Number.MAX_SAFE_INTEGER, maxSubscriptions: Number.MAX_SAFE_INTEGER, maxWarnings: Number.MAX_SAFE_INTEGER }, () => 0);
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
    for (let k = 0; k < 1000; k++) rs.push({ kind: 'dispatch', seq: ++seq, bus: 1, type: `user.${(k * 97) % TYPES}.updated`, start: model.now + 0.01, duration: 0.001, delivered: 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
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
  const tTreeAll = medianMs(rounds, () => [...bus.types.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => ({ kind: 'type', sessionId: 's', bus: 1, type: t.name })));
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
      `\n\n_Model: ingest of ${TYPES.toLocaleString('en-US')} types (${input.length.toLocaleString('en-US')} records) ${ms(ingest.ms)}; heap ${mb(heap1 - heap0)} ≈ ${Math.round(perType)} bytes per event type (its counters, rate windows and sets, plus the timeline ring share)._`,
  );
}
