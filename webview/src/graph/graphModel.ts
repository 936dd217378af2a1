// From the store to the graph the user sees: dispatch sites → event types (under their bus) →
// subscriber nodes. Same-site subscriptions of one type become one node with a count; a type shows
// at most `maxGroupsPerType` subscriber nodes and folds the rest into a "+N more" node; a collapsed
// bus stands for all its types; an expanded bus shows at most `maxTypesPerBus` type nodes (the most
// active) and one "+N more types" node for the rest, including the types the host did not send —
// so 100,000 event types still make a graph of a few hundred nodes. Pure: no DOM, so jsdom and
// Node tests check it directly.

import type { BusKind } from '../../../runtime-probe/src/protocol/records';
import type { BusGroupView, SelectionRef, SiteInfo, SubscriptionHealth, SubscriptionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import { byExecutionOrder } from '../../../runtime-probe/src/bus/priority';
import { siteKey, type InspectorStore } from '../store/inspectorStore';
import { classLabel, groupBuses, groupFromHost, LIBRARIES_GROUP, MAX_INSTANCES_EXPANDED, MAX_INSTANCES_SHOWN, type BusEntry } from './busGroups';
import { MAIN_THREAD, threadGroups, threadOfBus, type ThreadGroup } from '../store/threads';

/** 'thread' heads a thread's buses in the outline (only when the app has worker threads); it is not drawn on the graph. */
export type GraphNodeKind = 'site' | 'bus' | 'type' | 'group' | 'more' | 'thread';
export type Tone = 'normal' | 'warning' | 'error' | 'dim';

export interface GraphNode {
  readonly key: string;
  readonly kind: GraphNodeKind;
  /** 0 dispatch sites, 1 buses and types, 2 subscribers. */
  readonly column: 0 | 1 | 2;
  label: string;
  /** Second line: owner, site, counts. */
  detail: string;
  readonly bus: number;
  readonly busName: string;
  /** Type index; -1 for sites, buses and collapsed-bus subscriber nodes. */
  readonly type: number;
  /** Site key `file:line:column` (dispatch site for 'site', subscribe site for groups); '' when none. */
  readonly site: string;
  /** Member subscriptions (groups, 'more'), in execution order. */
  readonly subscriptions: number[];
  /** How many things the node stands for (subscriptions, types of a collapsed bus, …). */
  count: number;
  rate: number;
  calls: number;
  dispatches: number;
  totalMs: number;
  maxMs: number;
  errors: number;
  health: Set<SubscriptionHealth>;
  tone: Tone;
  /** Collapsed bus node. */
  collapsed: boolean;
  /** The label of the thread a bus (or thread header) belongs to, when the outline groups by thread. */
  thread?: string;
  readonly ref: SelectionRef;
  source: SiteInfo | null;
  // Layout (world coordinates), filled by layout.ts.
  x: number;
  y: number;
  w: number;
  h: number;
  /** Layout row in its column. */
  row: number;
}

export interface GraphEdge {
  readonly from: GraphNode;
  readonly to: GraphNode;
  rate: number;
  count: number;
  tone: Tone;
}

export interface GraphOptions {
  readonly filterText: string;
  /** Only this bus (by name); '' for all. */
  readonly busFilter: string;
  readonly isCollapsed: (busId: number, busName: string, typeCount: number) => boolean;
  readonly maxGroupsPerType: number;
  /** Keys of 'more' nodes the user expanded (their type shows all subscriber nodes). */
  readonly expandedMore: ReadonlySet<string>;
  /** Type nodes an expanded bus shows before the rest fold into "+N more types" (default 200). */
  readonly maxTypesPerBus?: number;
}

export const DEFAULT_MAX_TYPES_PER_BUS = 200;

/** Key of a bus's "+N more types" node. */
export function moreTypesKey(bus: number): string {
  return `mt:b${bus}`;
}

export interface GraphModel {
  readonly nodes: GraphNode[];
  readonly byKey: Map<string, GraphNode>;
  readonly edges: GraphEdge[];
  /** Nodes in list order: per bus, the bus, then each type and its subscribers; then the sites. */
  readonly outline: GraphNode[];
  /** Subscriptions represented (after filter). */
  readonly subscriptionCount: number;
  /** Things the filter hid. */
  readonly filteredOut: number;
  /** Types folded into "+N more types" nodes (including those the host did not send). */
  readonly moreTypes: number;
  readonly typeCount: number;
  /** Types that pass the filter (also those inside collapsed buses): the timeline shows these lanes. */
  readonly types: ReadonlySet<number>;
  /** False when no filter applies (the timeline then also shows types the store has no record of). */
  readonly filtered: boolean;
  /** Buses inside a collapsed group (a class, the libraries): the timeline gives the group one lane per event type. */
  readonly busGroupOf: ReadonlyMap<number, { readonly key: string; readonly label: string }>;
}

const WARNING_HEALTH: readonly SubscriptionHealth[] = ['leak', 'dead-owner'];
const DIM_HEALTH: readonly SubscriptionHealth[] = ['starved', 'never-called'];

export function subscriptionTone(health: Iterable<SubscriptionHealth>): Tone {
  let warning = false;
  let dim = false;
  let any = false;
  for (const h of health) {
    any = true;
    if (h === 'throwing') return 'error';
    if (WARNING_HEALTH.includes(h)) warning = true;
    else if (DIM_HEALTH.includes(h)) dim = true;
  }
  if (warning) return 'warning';
  if (any && dim) return 'dim';
  return 'normal';
}

/** Tone of a node standing for several subscriptions: the worst member wins, dim only if all are dim. */
function groupTone(store: InspectorStore, members: readonly SubscriptionView[]): Tone {
  let allDim = members.length > 0;
  let warning = false;
  for (const m of members) {
    const t = subscriptionTone(store.healthOf(m.id));
    if (t === 'error') return 'error';
    if (t === 'warning') warning = true;
    if (t !== 'dim') allDim = false;
  }
  return warning ? 'warning' : allDim ? 'dim' : 'normal';
}

function basename(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}

export function siteText(site: SiteInfo): string {
  return `${basename(site.file)}:${site.line}`;
}

function newNode(init: Pick<GraphNode, 'key' | 'kind' | 'column' | 'label' | 'bus' | 'busName' | 'type' | 'site' | 'ref'> & Partial<GraphNode>): GraphNode {
  return {
    detail: '',
    subscriptions: [],
    count: 0,
    rate: 0,
    calls: 0,
    dispatches: 0,
    totalMs: 0,
    maxMs: 0,
    errors: 0,
    health: new Set(),
    tone: 'normal',
    collapsed: false,
    source: null,
    x: 0,
    y: 0,
    w: 0,
    h: 0,
    row: 0,
    ...init,
  };
}

interface DispatchEdge {
  readonly site: SiteInfo;
  readonly key: string;
  readonly rate: number;
  readonly dispatches: number;
}

export function buildGraph(store: InspectorStore, opts: GraphOptions): GraphModel {
  const text = opts.filterText.trim().toLowerCase();
  const matches = (s: string | null | undefined): boolean => !!s && s.toLowerCase().includes(text);
  const nodes: GraphNode[] = [];
  const byKey = new Map<string, GraphNode>();
  const edges: GraphEdge[] = [];
  const outline: GraphNode[] = [];
  const add = (n: GraphNode): GraphNode => {
    nodes.push(n);
    byKey.set(n.key, n);
    return n;
  };
  let filteredOut = 0;
  let subscriptionCount = 0;
  let typeCount = 0;
  let moreTypes = 0;
  const shownTypes = new Set<number>();

  // Live subscriptions per type index, in execution order.
  const subsByType = new Map<number, SubscriptionView[]>();
  for (const s of store.activeSubscriptions()) {
    const type = store.typeOfSubscription(s);
    if (type < 0) continue;
    let list = subsByType.get(type);
    if (!list) subsByType.set(type, (list = []));
    list.push(s);
  }
  for (const list of subsByType.values()) list.sort(byExecutionOrder);

  // Sampled dispatch sites per type; the model keeps no per-site counts, so a type's rate is
  // shared evenly among its sites.
  const dispatchEdges = (type: number): DispatchEdge[] => {
    const t = store.types.get(type);
    if (!t || t.dispatchSites.length === 0) return [];
    const n = t.dispatchSites.length;
    return t.dispatchSites.map((site) => ({ site, key: siteKey(site), rate: t.ratePerSecond / n, dispatches: t.dispatches / n }));
  };

  const warnedTypes = new Set<number>();
  for (const w of store.warnings.values()) {
    if (w.severity === 'info') continue;
    for (const ref of w.subjects.types) {
      const index = store.typeIndexOf(ref.bus, ref.type);
      if (index >= 0) warnedTypes.add(index);
    }
  }

  const siteMatches = (site: SiteInfo | null): boolean => !!site && (matches(site.file) || matches(site.functionName));
  const subMatches = (s: SubscriptionView): boolean => !text || matches(s.label) || matches(s.owner) || siteMatches(s.site);

  const siteNodes = new Map<string, GraphNode>();
  const siteNode = (site: SiteInfo, key: string, bus: number): GraphNode => {
    const existing = siteNodes.get(key);
    if (existing) return existing;
    const n = newNode({
      key: `s${key}`,
      kind: 'site',
      column: 0,
      label: site.functionName ? `${site.functionName}()` : siteText(site),
      bus,
      busName: store.busName(bus),
      type: -1,
      site: key,
      ref: { kind: 'site', key },
      source: site,
    });
    n.detail = siteText(site);
    siteNodes.set(key, n);
    return n;
  };

  const siteEdges = new Map<string, GraphEdge>();
  /** Column-0 nodes standing for many dispatch sites (added to the outline after the sites). */
  const foldedSites: GraphNode[] = [];
  const linkSite = (e: DispatchEdge, target: GraphNode): void => {
    const sn = siteNode(e.site, e.key, target.bus);
    const key = `${sn.key}>${target.key}`;
    let edge = siteEdges.get(key);
    if (!edge) siteEdges.set(key, (edge = { from: sn, to: target, rate: 0, count: 0, tone: 'normal' }));
    edge.rate += e.rate;
    edge.count += e.dispatches;
    sn.rate += e.rate;
    sn.dispatches += e.dispatches;
  };

  // Worker threads: the outline heads each thread's buses with the thread (null: one thread, no headers).
  const threads = threadGroups(store);
  const threadOf = new Map<number, ThreadGroup>((threads ?? []).map((t) => [t.id, t]));
  const buses: { id: number; name: string; group?: string; kind?: BusKind }[] = [];
  for (const b of store.buses.values()) {
    const ref: { id: number; name: string; group?: string; kind?: BusKind } = { id: b.id, name: b.name };
    if (b.group !== undefined) ref.group = b.group;
    if (b.kind !== undefined) ref.kind = b.kind;
    buses.push(ref);
  }
  const typesByBus = new Map<number, { index: number; name: string }[]>();
  for (const t of store.types.values()) {
    let list = typesByBus.get(t.bus);
    if (!list) typesByBus.set(t.bus, (list = []));
    list.push({ index: t.index, name: t.type });
  }
  // Types of buses the store never described still show, under a placeholder bus.
  for (const busId of typesByBus.keys()) if (!store.buses.has(busId)) buses.push({ id: busId, name: store.busName(busId) });

  function addBus(bus: { id: number; name: string }): void {
    const types = (typesByBus.get(bus.id) ?? []).slice().sort((a, b) => a.name.localeCompare(b.name) || a.index - b.index);
    if (opts.busFilter && bus.name !== opts.busFilter) {
      filteredOut += types.length;
      return;
    }
    const busMatches = !text || matches(bus.name);
    // Which types (and which of their subscriptions) pass the text filter.
    const shown: { index: number; subs: SubscriptionView[] }[] = [];
    for (const t of types) {
      const subs = subsByType.get(t.index) ?? [];
      if (busMatches || matches(t.name)) shown.push({ index: t.index, subs });
      else {
        const kept = subs.filter(subMatches);
        const siteHit = dispatchEdges(t.index).some((e) => siteMatches(e.site));
        if (kept.length > 0 || siteHit) shown.push({ index: t.index, subs: siteHit && kept.length === 0 ? subs : kept });
        else filteredOut++;
      }
    }
    if (shown.length === 0 && types.length > 0) return;
    for (const t of shown) shownTypes.add(t.index);
    // A filter that hits something inside a bus opens it.
    const collapsed = !text && opts.isCollapsed(bus.id, bus.name, types.length);
    const busNode = add(
      newNode({
        key: `b${bus.id}`,
        kind: 'bus',
        column: 1,
        label: bus.name,
        bus: bus.id,
        busName: bus.name,
        type: -1,
        site: '',
        ref: { kind: 'bus', id: bus.id },
        collapsed,
      }),
    );
    busNode.count = shown.length;
    busNode.detail = `${shown.length} type${shown.length === 1 ? '' : 's'}`;
    const thread = threadOf.get(threadOfBus(store, bus.id));
    if (thread !== undefined) busNode.thread = thread.label;
    outline.push(busNode);

    if (collapsed) {
      // One node for the bus; subscribers aggregated by site across its types.
      const all: SubscriptionView[] = [];
      for (const t of shown) {
        all.push(...t.subs);
        const ty = store.types.get(t.index);
        if (ty) {
          busNode.rate += ty.ratePerSecond;
          busNode.dispatches += ty.dispatches;
        }
        if (warnedTypes.has(t.index)) busNode.tone = 'warning';
      }
      linkFoldedSites(
        busNode,
        shown.flatMap((t) => dispatchEdges(t.index)),
      );
      all.sort(byExecutionOrder);
      typeCount += shown.length;
      const unsent = store.omittedTypesOf(bus.id);
      busNode.detail = `${shown.length} types${unsent > 0 ? ` (+${unsent} not shown)` : ''} · ${all.length} subscriptions`;
      addSubscriberNodes(busNode, `b${bus.id}`, all);
      return;
    }
    const maxTypes = opts.expandedMore.has(moreTypesKey(bus.id)) ? Infinity : (opts.maxTypesPerBus ?? DEFAULT_MAX_TYPES_PER_BUS);
    let folded: { index: number; subs: SubscriptionView[] }[] = [];
    let kept = shown;
    if (shown.length > maxTypes) {
      // The most active stay (warned first, then rate, listeners, dispatches); the rest fold.
      const score = (index: number): number[] => {
        const ty = store.types.get(index);
        return [warnedTypes.has(index) ? 1 : 0, ty?.ratePerSecond ?? 0, ty?.liveSubscriptions ?? 0, ty?.dispatches ?? 0];
      };
      const ranked = shown.map((t) => ({ t, s: score(t.index) }));
      ranked.sort((a, b) => b.s[0] - a.s[0] || b.s[1] - a.s[1] || b.s[2] - a.s[2] || b.s[3] - a.s[3] || a.t.index - b.t.index);
      const keep = new Set(ranked.slice(0, maxTypes).map((r) => r.t));
      kept = shown.filter((t) => keep.has(t));
      folded = shown.filter((t) => !keep.has(t));
    }
    for (const t of kept) {
      const ty = store.types.get(t.index);
      if (!ty) continue;
      typeCount++;
      const tn = add(
        newNode({
          key: `t${t.index}`,
          kind: 'type',
          column: 1,
          label: ty.type,
          bus: bus.id,
          busName: bus.name,
          type: t.index,
          site: '',
          ref: { kind: 'type', index: t.index },
        }),
      );
      tn.rate = ty.ratePerSecond;
      tn.dispatches = ty.dispatches;
      tn.count = ty.liveSubscriptions;
      tn.errors = ty.handlerErrors;
      tn.detail = `${ty.liveSubscriptions} listener${ty.liveSubscriptions === 1 ? '' : 's'} · ${ty.dispatches} dispatched`;
      tn.tone = warnedTypes.has(t.index) ? 'warning' : ty.dispatches === 0 ? 'dim' : 'normal';
      tn.source = ty.dispatchSites[0] ?? null;
      outline.push(tn);
      for (const e of dispatchEdges(t.index)) linkSite(e, tn);
      addSubscriberNodes(tn, `t${t.index}`, t.subs);
    }
    // Types the host did not send count only without a filter (it cannot tell whether they match).
    const unsent = text ? 0 : store.omittedTypesOf(bus.id);
    if (folded.length > 0 || unsent > 0) {
      const n = folded.length + unsent;
      moreTypes += n;
      const more = add(
        newNode({
          key: moreTypesKey(bus.id),
          kind: 'more',
          column: 1,
          label: `+${n} more types`,
          bus: bus.id,
          busName: bus.name,
          type: -1,
          site: '',
          ref: { kind: 'bus', id: bus.id },
        }),
      );
      more.count = n;
      for (const t of folded) {
        const ty = store.types.get(t.index);
        if (ty) {
          more.rate += ty.ratePerSecond;
          more.dispatches += ty.dispatches;
          more.errors += ty.handlerErrors;
        }
        subscriptionCount += t.subs.length;
        shownTypes.add(t.index);
      }
      more.detail =
        folded.length > 0
          ? `${n} more types on ${bus.name}, the least active${unsent > 0 ? ` (${unsent} not sent by the host)` : ''} · Enter to show the ${folded.length} here`
          : `${n} more types on ${bus.name} not shown (the host sends the most active)`;
      outline.push(more);
    }
  }

  // Buses named `Class#n` group by class and library emitters gather in one group, each one
  // collapsed node until expanded (a bus filter or a filter text shows the buses themselves).
  let groupIds = 0;
  const busGroupOf = new Map<number, { key: string; label: string }>();
  // The host's groups when it sends them (it sends only some instances); else grouped here.
  const grouping =
    opts.busFilter || text ? null : store.busGroups !== null ? groupFromHost(buses, store.busGroups) : groupBuses(buses, store.subscriptions.values());
  const addLibraries = (): void => {
    if (grouping === null || (grouping.libraries.length === 0 && grouping.librariesView === undefined)) return;
    addGroup(
      LIBRARIES_GROUP,
      'libraries',
      grouping.libraries.flatMap(entryBuses),
      () => {
        for (const e of grouping.libraries) addEntry(e);
      },
      grouping.librariesView,
    );
  };
  if (grouping === null) {
    buses.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    byThread(
      buses,
      (b) => b.id,
      addBus,
      () => undefined,
    );
  } else byThread(grouping.app, (e) => (e.kind === 'bus' ? e.bus.id : (e.buses[0]?.id ?? -1)), addEntry, addLibraries);

  /**
   * Adds `items` (in their order) under a header per thread when the app has worker threads, else
   * as they are; `main()` adds what belongs before the main thread's own entries (the libraries).
   */
  function byThread<T>(items: readonly T[], busOf: (item: T) => number, addItem: (item: T) => void, main: () => void): void {
    if (threads === null) {
      main();
      for (const item of items) addItem(item);
      return;
    }
    const perThread = new Map<number, T[]>();
    for (const item of items) {
      const id = threadOfBus(store, busOf(item));
      let list = perThread.get(id);
      if (list === undefined) perThread.set(id, (list = []));
      list.push(item);
    }
    const busCount = new Map<number, number>();
    for (const b of buses) {
      const id = threadOfBus(store, b.id);
      busCount.set(id, (busCount.get(id) ?? 0) + 1);
    }
    for (const t of threads) {
      const n = busCount.get(t.id) ?? 0;
      // In the outline only (the graph draws the buses, ordered by thread); a heading is never
      // selected (the node list skips it), so its ref is a placeholder.
      const header = newNode({
        key: `th${t.id}`,
        kind: 'thread',
        column: 1,
        label: t.label,
        bus: -1,
        busName: '',
        type: -1,
        site: '',
        ref: { kind: 'bus', id: -1 },
        thread: t.label,
      });
      header.count = n;
      header.detail = `${n} bus${n === 1 ? '' : 'es'}${t.exited ? ' · exited' : ''}`;
      outline.push(header);
      if (t.id === MAIN_THREAD) main();
      for (const item of perThread.get(t.id) ?? []) addItem(item);
    }
  }

  function entryBuses(e: BusEntry): readonly { id: number; name: string }[] {
    return e.kind === 'bus' ? [e.bus] : e.buses;
  }

  function addEntry(e: BusEntry): void {
    if (e.kind === 'bus') return addBus(e.bus);
    // The host counts every instance (`view`); the webview has a page of them while expanded.
    const total = e.view?.buses ?? e.buses.length;
    addGroup(e.key, classLabel(e.className, total), e.buses, () => {
      const moreKey = `mc:${e.key}`;
      const cap = opts.expandedMore.has(moreKey) ? MAX_INSTANCES_EXPANDED : MAX_INSTANCES_SHOWN;
      const shown = e.buses.slice(0, cap);
      for (const b of shown) addBus(b);
      const rest = total - shown.length;
      if (rest > 0) {
        const at = e.buses[cap] ?? e.buses[e.buses.length - 1];
        const ref: SelectionRef = at !== undefined ? { kind: 'bus', id: at.id } : { kind: 'group', key: `c${e.key}`, subscriptions: [] };
        const more = add(
          newNode({ key: moreKey, kind: 'more', column: 1, label: `+${rest} more ${e.className}`, bus: at?.id ?? -1, busName: e.key, type: -1, site: '', ref }),
        );
        more.count = rest;
        more.detail =
          cap < MAX_INSTANCES_EXPANDED
            ? `${rest} more instances (Enter to show up to ${MAX_INSTANCES_EXPANDED})`
            : `${rest} more instances not drawn; find one by name with the bus filter`;
        outline.push(more);
      }
    });
  }

  /**
   * A group of buses: collapsed, one node standing for all their types (figures summed, subscribers
   * aggregated by site as for a collapsed bus); expanded, a header and then `expand()`'s nodes.
   */
  function addGroup(key: string, label: string, members: readonly { id: number; name: string }[], expand: () => void, view?: BusGroupView): void {
    const id = -1_000_000 - ++groupIds;
    const refSubscriptions: number[] = [];
    const collapsed = opts.isCollapsed(id, key, members.length);
    const node = add(
      newNode({
        key: `c${key}`,
        kind: 'bus',
        column: 1,
        label,
        bus: id,
        busName: key,
        type: -1,
        site: '',
        ref: { kind: 'group', key: `c${key}`, subscriptions: refSubscriptions },
        collapsed,
      }),
    );
    outline.push(node);
    const instances = view?.buses ?? members.length;
    if (!collapsed) {
      node.detail = key === LIBRARIES_GROUP ? `${instances} library emitters` : `${instances} instances`;
      expand();
      return;
    }
    const all: SubscriptionView[] = [];
    const sitesOfGroup: DispatchEdge[] = [];
    let types = 0;
    for (const b of members) {
      busGroupOf.set(b.id, { key, label });
      for (const t of typesByBus.get(b.id) ?? []) {
        types++;
        shownTypes.add(t.index);
        all.push(...(subsByType.get(t.index) ?? []));
        const ty = store.types.get(t.index);
        if (ty) {
          node.rate += ty.ratePerSecond;
          node.dispatches += ty.dispatches;
          node.errors += ty.handlerErrors;
        }
        if (warnedTypes.has(t.index)) node.tone = 'warning';
        sitesOfGroup.push(...dispatchEdges(t.index));
      }
    }
    typeCount += types;
    if (view !== undefined) {
      // The host's sums cover every instance, not only those whose types it sent.
      types = view.types;
      node.rate = view.ratePerSecond;
      node.dispatches = view.dispatches;
    }
    // As for a collapsed bus, the badge counts types; the label carries the instances ("Socket ×500").
    node.count = types;
    all.sort(byExecutionOrder);
    for (const s of all.slice(0, 200)) refSubscriptions.push(s.id);
    linkFoldedSites(node, sitesOfGroup);
    const listeners = view?.listeners ?? all.length;
    node.detail = `${key === LIBRARIES_GROUP ? `${instances} emitters, lifecycle only until selected` : `${instances} instances`} · ${types} types · ${listeners} subscriptions`;
    addSubscriberNodes(node, `c${key}`, all);
  }

  /** A collapsed bus's dispatch sites: the busiest ones as nodes, the rest folded into one. */
  function linkFoldedSites(busNode: GraphNode, all: readonly DispatchEdge[]): void {
    const bySite = new Map<string, { site: SiteInfo; key: string; rate: number; dispatches: number }>();
    for (const e of all) {
      const m = bySite.get(e.key);
      if (m) {
        m.rate += e.rate;
        m.dispatches += e.dispatches;
      } else bySite.set(e.key, { ...e });
    }
    const sorted = [...bySite.values()].sort((a, b) => b.rate - a.rate || a.key.localeCompare(b.key));
    const limit = opts.expandedMore.has(`ms:b${busNode.bus}`) ? Infinity : opts.maxGroupsPerType;
    for (const e of sorted.slice(0, limit)) linkSite(e, busNode);
    const rest = sorted.slice(limit);
    if (rest.length === 0) return;
    const more = add(
      newNode({
        key: `ms:b${busNode.bus}`,
        kind: 'more',
        column: 0,
        label: `+${rest.length} dispatch sites`,
        bus: busNode.bus,
        busName: busNode.busName,
        type: -1,
        site: '',
        ref: { kind: 'bus', id: busNode.bus },
      }),
    );
    for (const e of rest) {
      more.rate += e.rate;
      more.dispatches += e.dispatches;
    }
    more.count = rest.length;
    more.detail = `${rest.length} more sites dispatching on ${busNode.busName}`;
    foldedSites.push(more);
    edges.push({ from: more, to: busNode, rate: more.rate, count: more.dispatches, tone: 'normal' });
  }

  function addSubscriberNodes(parent: GraphNode, scope: string, subs: readonly SubscriptionView[]): void {
    // Same-site subscriptions (or, without a site, same label) form one node.
    const groups = new Map<string, SubscriptionView[]>();
    for (const s of subs) {
      const key = s.site ? `@${siteKey(s.site)}` : s.label ? `#${s.label}` : `=${s.id}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(s);
    }
    const moreKey = `m:${scope}`;
    const limit = opts.expandedMore.has(moreKey) ? Infinity : opts.maxGroupsPerType;
    // When there are too many to show, the ones with something to say (warned, erroring) stay
    // visible first; the shown ones keep execution order.
    let keep: Set<string> | null = null;
    if (groups.size > limit) {
      const ranked = [...groups.entries()].map(([gk, members], order) => ({ gk, order, tone: groupTone(store, members) }));
      const rank = { error: 0, warning: 1, dim: 2, normal: 3 } as const;
      ranked.sort((a, b) => (rank[a.tone] < 2 || rank[b.tone] < 2 ? rank[a.tone] - rank[b.tone] : 0) || a.order - b.order);
      keep = new Set(ranked.slice(0, limit).map((r) => r.gk));
    }
    let rest: SubscriptionView[] | null = null;
    for (const [gk, members] of groups) {
      subscriptionCount += members.length;
      if (keep !== null && !keep.has(gk)) {
        (rest ??= []).push(...members);
        continue;
      }
      const first = members[0];
      const single = members.length === 1;
      const site = first.site;
      const key = single ? `u${first.id}` : `g:${scope}:${gk}`;
      const ref: SelectionRef = single ? { kind: 'subscription', id: first.id } : { kind: 'group', key, subscriptions: members.slice(0, 200).map((m) => m.id) };
      const n = add(
        newNode({
          key,
          kind: 'group',
          column: 2,
          label: first.label || first.owner || (site ? siteText(site) : `subscription #${first.id}`),
          bus: parent.bus,
          busName: parent.busName,
          type: parent.type,
          site: site ? siteKey(site) : '',
          ref,
          source: site,
        }),
      );
      fillSubscriberFigures(n, members);
      n.detail = [single ? (first.owner && first.label ? first.owner : '') : `×${members.length}`, site ? siteText(site) : '', `p${first.priority}`]
        .filter(Boolean)
        .join(' · ');
      outline.push(n);
      edges.push({ from: parent, to: n, rate: n.rate, count: n.calls, tone: n.tone });
    }
    if (rest) {
      const n = add(
        newNode({
          key: moreKey,
          kind: 'more',
          column: 2,
          label: `+${rest.length} more`,
          bus: parent.bus,
          busName: parent.busName,
          type: parent.type,
          site: '',
          ref: { kind: 'group', key: moreKey, subscriptions: rest.slice(0, 200).map((m) => m.id) },
        }),
      );
      fillSubscriberFigures(n, rest);
      n.detail = `${rest.length} more subscriptions (Enter to show all)`;
      outline.push(n);
      edges.push({ from: parent, to: n, rate: n.rate, count: n.calls, tone: n.tone });
    }
  }

  function fillSubscriberFigures(n: GraphNode, members: readonly SubscriptionView[]): void {
    n.count = members.length;
    for (const m of members) {
      n.subscriptions.push(m.id);
      n.rate += store.subscriptionRate(m.id);
      n.calls += m.calls;
      n.errors += m.errors;
      if (m.timing) {
        n.totalMs += m.timing.totalMs;
        if (m.timing.maxMs > n.maxMs) n.maxMs = m.timing.maxMs;
      }
      for (const h of store.healthOf(m.id)) n.health.add(h);
    }
    n.tone = groupTone(store, members);
  }

  for (const e of siteEdges.values()) edges.push(e);
  const sortedSites = [...siteNodes.values()].sort((a, b) => a.label.localeCompare(b.label) || a.site.localeCompare(b.site));
  for (const s of sortedSites) {
    add(s);
    outline.push(s);
  }
  outline.push(...foldedSites);
  return {
    nodes,
    byKey,
    edges,
    outline,
    subscriptionCount,
    filteredOut,
    typeCount,
    moreTypes,
    types: shownTypes,
    filtered: text !== '' || opts.busFilter !== '',
    busGroupOf,
  };
}
