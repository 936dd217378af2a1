// The inspector renderer: `createInspector(root, port)` builds the whole UI inside `root` and talks
// to its host only through `port`. It needs no VS Code: main.ts adapts acquireVsCodeApi() to the
// port; tests pass a fake host in jsdom or Chromium.

import type {
  DetailsView as DetailsMessage,
  DispatchDetailsView,
  HostToWebview,
  InspectorCommand,
  InspectorPort,
  PersistedViewState,
  SelectionRef,
  SiteInfo,
  WhyReport,
} from '../../runtime-probe/src/analysis/inspector-messages';
import { analysisPartialText, assertNever, describeMessage, INSPECTOR_MESSAGES_VERSION, isHostToWebview, MAX_DROPPED_MESSAGE_LENGTH, MAX_DROPPED_REASON_LENGTH, sameSelection } from '../../runtime-probe/src/analysis/inspector-messages';
import { DetailsView } from './details/detailsView';
import { buildGraph, type GraphModel, type GraphNode } from './graph/graphModel';
import { GraphView } from './graph/graphView';
import { fullLayout, incrementalLayout, type PositionMemory } from './graph/layout';
import { NodeList } from './graph/nodeList';
import { BoundedMap } from './store/boundedQueue';
import { InspectorStore, type StoreLimits } from './store/inspectorStore';
import { layoutLanes } from './timeline/lanes';
import { isGroupKey } from './graph/busGroups';
import { RangeStatsView, type RangeStatsState } from './timeline/rangeStatsView';
import { TimelineView } from './timeline/timelineView';
import { h } from './ui/dom';
import { fmtInt } from './ui/format';
import { Scheduler, type Part } from './ui/scheduler';
import { SessionBanner } from './ui/sessionBanner';
import { readTheme, watchTheme } from './ui/theme';
import { Toolbar } from './ui/toolbar';
import { WarningsView } from './warnings/warningsView';

export type { InspectorPort } from '../../runtime-probe/src/analysis/inspector-messages';

export interface InspectorOptions {
  /** State restored by the host page (vscode.getState()). */
  readonly state?: PersistedViewState | null;
  readonly limits?: Partial<StoreLimits>;
  /** Buses with more types than this start collapsed (until the user expands them). */
  readonly autoCollapseTypes?: number;
  /** Subscriber nodes shown per type before the rest fold into "+N more". */
  readonly maxGroupsPerType?: number;
}

export interface InspectorMetrics {
  /** Time to apply the last snapshot to the store, ms. */
  snapshotApplyMs: number;
  /** Build + layout of the graph model, last time, ms. */
  graphBuildMs: number;
  /** From receiving the last snapshot to the end of the first full render after it, ms. */
  snapshotToInteractiveMs: number;
  /** Renders completed. */
  renders: number;
  /** Graph (and node list) model rebuilds: structure changes at once, figures and warnings at most 2/s. */
  graphBuilds: number;
}

export interface Inspector {
  readonly store: InspectorStore;
  readonly graphView: GraphView;
  readonly timeline: TimelineView;
  readonly metrics: InspectorMetrics;
  graphModel(): GraphModel | null;
  /** Runs pending rendering now (otherwise it happens on the next animation frame). */
  flush(): void;
  state(): PersistedViewState;
  onDidChangeState(listener: (state: PersistedViewState) => void): { dispose(): void };
  /** Selects as if the user did (posts `select`). */
  select(target: SelectionRef | null): void;
  setFilter(text: string, bus?: string): void;
  relayout(): void;
  dispose(): void;
}

const DEFAULT_AUTO_COLLAPSE = 120;
const DEFAULT_MAX_GROUPS = 12;
/**
 * Least time between graph rebuilds for changed figures (rates, counts) or warnings alone: a live
 * app changes them with every delta, and the graph and its list need not follow faster than this.
 */
const FIGURES_REBUILD_MS = 500;

export function createInspector(root: HTMLElement, port: InspectorPort, options: InspectorOptions = {}): Inspector {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  if (!win) throw new TypeError('createInspector: root must be attached to a document with a window');
  const store = new InspectorStore(options.limits);
  const autoCollapse = options.autoCollapseTypes ?? DEFAULT_AUTO_COLLAPSE;
  const maxGroups = options.maxGroupsPerType ?? DEFAULT_MAX_GROUPS;
  const restored = options.state && options.state.v === 1 ? options.state : null;

  // --- view state ------------------------------------------------------------------------
  let selection: SelectionRef | null = restored?.selection ?? null;
  let filterText = restored?.filterText ?? '';
  let busFilter = restored?.busFilter ?? '';
  const collapsedBuses = new Set<string>(restored?.collapsedBuses ?? []);
  const expandedBuses = new Set<string>(restored?.expandedBuses ?? []);
  const expandedMore = new Set<string>();
  let focusedWarning: string | null = restored?.focusedWarning || null;
  let sessionId = restored?.sessionId ?? '';
  let awaitingSnapshot = false;
  let model: GraphModel | null = null;
  let memory: PositionMemory = new Map();
  let needFullLayout = true;
  let builtStructure = -1;
  let builtFigures = '';
  let builtAt = -Infinity;
  let figuresTimer: number | null = null;
  /** Set by the API's flush(): render everything pending now, throttled or not. */
  let flushAll = false;
  let lanesVersion = -1;
  /** Another session's graph: show it whole rather than where the last one was scrolled. */
  let refitGraph = false;
  let focusedBusIds = new Set<number>();
  let warningsShown = '';
  let rangeStats: RangeStatsState = null;
  /** Event types that break when dispatched, from the host; null until it says (or when it has none). */
  let breakpointTypes: ReadonlySet<string> | null = null;
  let rangeRequestId = 0;
  let snapshotAt = -1;
  const explanations = new BoundedMap<number, WhyReport>(256);
  const dispatchDetails = new BoundedMap<number, DispatchDetailsView | null>(256);
  const pendingDetails = new Set<string>();
  const stateListeners = new Set<(s: PersistedViewState) => void>();
  const metrics: InspectorMetrics = { snapshotApplyMs: 0, graphBuildMs: 0, snapshotToInteractiveMs: 0, renders: 0, graphBuilds: 0 };
  let subToNode = new Map<number, string>();
  let disposed = false;
  let stateTimer: number | null = null;
  /** Drops not yet reported to the host (by message and reason), and the timer that reports them. */
  const drops = new Map<string, { message: string; reason: string; count: number }>();
  let dropsTimer: number | null = null;

  // Created first: the parts below ask for renders from their constructors (restored state).
  const scheduler = new Scheduler(win, (parts) => render(parts));

  // --- parts -------------------------------------------------------------------------------
  const toolbar = new Toolbar(doc, {
    filterText: (t) => setFilter(t, busFilter),
    busFilter: (b) => setFilter(filterText, b),
    relayout: () => relayout(),
    collapseAll: () => {
      expandedBuses.clear();
      for (const b of store.buses.values()) collapsedBuses.add(b.name);
      optionsChanged();
    },
    expandAll: () => {
      collapsedBuses.clear();
      for (const b of store.buses.values()) expandedBuses.add(b.name);
      optionsChanged();
    },
    clearFocus: () => setFocusWarning(null),
  });
  const banner = new SessionBanner(doc, {
    run: (command: InspectorCommand) => port.postMessage({ type: 'runCommand', command }),
    selectSession: (id) => port.postMessage({ type: 'selectSession', sessionId: id }),
  });
  const graphView = new GraphView(doc, {
    select: (n) => userSelect(n ? n.ref : null),
    open: (n) => {
      userSelect(n.ref);
      if (n.source) openSource(n.source);
    },
    toggle: (n) => toggleNode(n),
    transformChanged: () => stateChanged(),
    requestRender: () => scheduler.invalidate('graph'),
  });
  const nodeList = new NodeList(doc, {
    select: (n) => userSelect(n.ref),
    open: (n) => n.source && openSource(n.source),
    toggle: (n, expand) => toggleNode(n, expand),
  });
  const details = new DetailsView(doc, {
    select: (ref) => userSelect(ref),
    open: (site) => openSource(site),
    toggleBreakpoint: (type) => port.postMessage({ type: 'toggleBreakpoint', eventType: type }),
    copyTraceId: (traceId) => port.postMessage({ type: 'copyTraceId', traceId }),
  });
  const warnings = new WarningsView(doc, {
    focus: (w) => setFocusWarning(w ? w.id : null),
    open: (site) => openSource(site),
  });
  const timeline = new TimelineView(doc, store, {
    select: (seq) => userSelect(seq === null ? null : { kind: 'dispatch', seq }),
    open: (seq) => {
      const i = store.timeline.indexOfSeq(seq);
      const site = i >= 0 ? store.sites.get(store.timeline.dispatches.siteIndex[i]) : undefined;
      if (site) openSource(site);
    },
    brushed: (range) => requestRangeStats(range),
    followChanged: (follow) => port.postMessage({ type: 'setFollow', follow }),
    viewChanged: () => stateChanged(),
    requestRender: () => scheduler.invalidate('timeline'),
  });
  const rangeView = new RangeStatsView(doc, {
    select: (ref) => userSelect(ref),
    export: (range) => port.postMessage({ type: 'exportRangeStats', from: range.from, to: range.to }),
    clear: () => timeline.setBrush(null),
  });
  if (restored) {
    timeline.setSpan(restored.timelineSpanMs);
    if (!restored.follow) {
      if (restored.timelineView) timeline.setView(restored.timelineView.from, restored.timelineView.to);
      else timeline.setFollow(false);
    }
    if (restored.graphTransform) graphView.setTransform(restored.graphTransform);
  }
  toolbar.setFilterText(filterText);

  const graphPane = h(doc, 'div', { class: 'graph-pane' }, h(doc, 'div', { class: 'node-list-wrap' }, nodeList.element), h(doc, 'div', { class: 'graph-wrap' }, graphView.element));
  const side = h(doc, 'aside', { class: 'side' }, details.element, warnings.element);
  const shell = h(
    doc,
    'div',
    { class: 'inspector', 'data-testid': 'inspector' },
    toolbar.element,
    banner.element,
    h(doc, 'main', { class: 'main' }, graphPane, side),
    h(doc, 'div', { class: 'timeline-wrap' }, timeline.element, rangeView.element),
  );
  root.append(shell);

  let theme = readTheme(doc);
  graphView.setTheme(theme);
  timeline.setTheme(theme);
  const themeWatch = watchTheme(doc, () => {
    theme = readTheme(doc);
    graphView.setTheme(theme);
    timeline.setTheme(theme);
    scheduler.invalidate('graph', 'timeline');
  });
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Escape' && focusedWarning && !(e.target instanceof win.HTMLInputElement)) setFocusWarning(null);
  };
  shell.addEventListener('keydown', onKey);
  const ResizeObserverCtor = (win as unknown as { ResizeObserver?: typeof ResizeObserver }).ResizeObserver;
  const resize = ResizeObserverCtor ? new ResizeObserverCtor(() => scheduler.invalidate('graph', 'timeline', 'outline')) : null;
  resize?.observe(graphPane);
  resize?.observe(timeline.element);

  // --- rendering ---------------------------------------------------------------------------
  function laneFilter(): (type: number) => boolean {
    const m = model;
    if (!m || !m.filtered) return () => true;
    return (type) => m.types.has(type);
  }

  /** Buses holding the focused warning's subjects: shown open while it is focused. */
  function focusBuses(): Set<number> {
    const out = new Set<number>();
    const w = focusedWarning ? store.warnings.get(focusedWarning) : undefined;
    if (!w) return out;
    for (const b of w.subjects.buses) out.add(b);
    for (const t of w.subjects.types) out.add(t.bus);
    for (const id of w.subjects.subscriptions) {
      const s = store.subscriptions.get(id);
      if (s) out.add(s.bus);
    }
    return out;
  }

  function isCollapsed(id: number, name: string, _typeCount: number): boolean {
    if (focusedBusIds.has(id)) return false;
    // A class of emitters or the libraries group stays one node until the user expands it.
    if (isGroupKey(name)) return !expandedBuses.has(name);
    if (expandedBuses.has(name)) return false;
    if (collapsedBuses.has(name)) return true;
    return store.types.size > autoCollapse;
  }

  function rebuildGraph(): void {
    const t0 = performance.now();
    focusedBusIds = focusBuses();
    model = buildGraph(store, { filterText, busFilter, isCollapsed, maxGroupsPerType: maxGroups, expandedMore });
    memory = needFullLayout ? fullLayout(model) : incrementalLayout(model, memory);
    needFullLayout = false;
    subToNode = new Map();
    for (const n of model.nodes) for (const id of n.subscriptions) subToNode.set(id, n.key);
    graphView.setModel(model);
    nodeList.setModel(model);
    metrics.graphBuildMs = performance.now() - t0;
    metrics.graphBuilds++;
  }

  function selectionKey(sel: SelectionRef | null): string | null {
    if (!sel || !model) return null;
    switch (sel.kind) {
      case 'bus':
        return `b${sel.id}`;
      case 'type': {
        if (model.byKey.has(`t${sel.index}`)) return `t${sel.index}`;
        const t = store.types.get(sel.index);
        return t ? `b${t.bus}` : null;
      }
      case 'subscription':
        return subToNode.get(sel.id) ?? null;
      case 'site':
        return `s${sel.key}`;
      case 'group':
        return sel.key;
      case 'dispatch': {
        const i = store.timeline.indexOfSeq(sel.seq);
        if (i < 0) return null;
        const type = store.timeline.dispatches.typeIndex[i];
        return model.byKey.has(`t${type}`) ? `t${type}` : `b${store.timeline.dispatches.bus[i]}`;
      }
      default:
        return assertNever(sel);
    }
  }

  function focusSets(): { keys: Set<string>; types: Set<number>; subs: Set<number>; label: string } | null {
    if (!focusedWarning) return null;
    const w = store.warnings.get(focusedWarning);
    if (!w || !model) return null;
    const keys = new Set<string>();
    const types = new Set<number>();
    for (const ref of w.subjects.types) {
      const index = store.typeIndexOf(ref.bus, ref.type);
      if (index >= 0) types.add(index);
    }
    const subs = new Set<number>(w.subjects.subscriptions);
    for (const id of subs) {
      const k = subToNode.get(id);
      if (k) keys.add(k);
      const s = store.subscriptions.get(id);
      const type = s ? store.typeOfSubscription(s) : -1;
      if (type >= 0) types.add(type);
    }
    for (const t of types) {
      const ty = store.types.get(t);
      keys.add(model.byKey.has(`t${t}`) ? `t${t}` : `b${ty?.bus ?? -1}`);
    }
    for (const b of w.subjects.buses) keys.add(`b${b}`);
    // The warning's sites: dispatch-site nodes, and subscriber nodes made there (a leak's site).
    const siteSet = new Set(w.sites.map((site) => `${site.file}:${site.line}:${site.column}`));
    for (const n of model.nodes) if (n.site && siteSet.has(n.site)) keys.add(n.key);
    return { keys, types, subs, label: w.title };
  }

  function render(parts: ReadonlySet<Part>): void {
    if (disposed) return;
    // The graph follows entities, figures and warnings (a few times a second); the timeline
    // follows every delta, and only its lanes need the new data's types.
    // Structure (entities added, removed, renamed) and view options rebuild it at once; figures and
    // warnings alone at most every FIGURES_REBUILD_MS.
    const figures = `${store.statsVersion}:${store.warningsVersion}`;
    const now = performance.now();
    let rebuild = needFullLayout || model === null || store.structureVersion !== builtStructure;
    if (!rebuild && figures !== builtFigures) {
      if (flushAll || now - builtAt >= FIGURES_REBUILD_MS) rebuild = true;
      else if (figuresTimer === null) {
        figuresTimer = win!.setTimeout(() => {
          figuresTimer = null;
          scheduler.invalidate('graph');
        }, FIGURES_REBUILD_MS - (now - builtAt));
      }
    }
    let graphChanged = false;
    if (rebuild) {
      builtStructure = store.structureVersion;
      builtFigures = figures;
      builtAt = now;
      rebuildGraph();
      graphChanged = true;
      if (refitGraph) {
        refitGraph = false;
        graphView.fit();
      }
    }
    let lanesChanged = false;
    if (graphChanged || store.timeline.laneVersion !== lanesVersion) {
      lanesVersion = store.timeline.laneVersion;
      timeline.setLanes(layoutLanes(store, laneFilter(), undefined, model?.busGroupOf));
      lanesChanged = true;
    }
    const focus = focusSets();
    const selKey = selectionKey(selection);
    graphView.setSelection(selKey);
    graphView.setFocus(focus ? focus.keys : null);
    timeline.setSelection(selection?.kind === 'dispatch' ? selection.seq : null);
    timeline.setFocus(focus ? focus.types : null, focus ? focus.subs : null);
    toolbar.setFocus(focus ? focus.label : null);
    toolbar.setBuses([...store.buses.values()].map((b) => b.name), busFilter);
    if (model) {
      const hidden = store.hiddenSubscriptions ? ` · ${fmtInt(store.hiddenSubscriptions)} not shown (cap)` : '';
      // The host sends at most its cap of types (the most active): say how many it left out.
      const unsent = store.omitted?.types ?? 0;
      const allTypes = store.types.size + unsent;
      const notSent = unsent > 0 ? ` · ${fmtInt(unsent)} more types not shown` : '';
      toolbar.setCounts(`${fmtInt(store.buses.size)} buses · ${fmtInt(model.typeCount)} of ${fmtInt(allTypes)} types · ${fmtInt(model.subscriptionCount)} subscriptions${hidden}${notSent}`);
    }
    if (graphChanged || parts.has('graph')) graphView.render();
    if (graphChanged || parts.has('outline')) {
      nodeList.setSelection(selKey);
      nodeList.render();
    }
    if (lanesChanged || parts.has('timeline')) {
      timeline.render();
      rangeView.render(store, rangeStats, origin());
    }
    // Only when the warnings (or the focused one) changed: the list updates its elements in place.
    const warningsKey = `${store.warningsVersion}:${store.hasSnapshot}:${focusedWarning}:${analysisPartialText(store.session.analysis)}`;
    if (parts.has('warnings') || warningsKey !== warningsShown) {
      warningsShown = warningsKey;
      warnings.setFocused(focusedWarning);
      warnings.render(store);
    }
    if (parts.has('details') || graphChanged) details.render(store, detailsInput());
    if (parts.has('banner')) banner.render(store.session, awaitingSnapshot);
    shell.setAttribute('data-phase', store.session.phase);
    metrics.renders++;
    if (snapshotAt >= 0) {
      metrics.snapshotToInteractiveMs = performance.now() - snapshotAt;
      snapshotAt = -1;
    }
  }

  /** Times are shown as record time (ms since the probe started), like the timeline's axis. */
  function origin(): number {
    return 0;
  }

  function detailsInput() {
    let report: WhyReport | 'pending' | null = null;
    let dispatch: DispatchDetailsView | 'pending' | null = null;
    if (selection?.kind === 'subscription') {
      report = explanations.get(selection.id) ?? (pendingDetails.has(`u${selection.id}`) ? 'pending' : null);
    } else if (selection?.kind === 'dispatch') {
      dispatch = dispatchDetails.has(selection.seq) ? dispatchDetails.get(selection.seq)! : pendingDetails.has(`d${selection.seq}`) ? 'pending' : null;
    }
    return { selection, report, dispatch, origin: origin(), breakpoints: breakpointTypes };
  }

  function requestRangeStats(range: { from: number; to: number } | null): void {
    rangeView.setNote('');
    if (range === null) rangeStats = null;
    else if (store.session.phase === 'empty') rangeStats = { ...range, stats: null };
    else {
      rangeStats = { ...range, stats: 'pending' };
      port.postMessage({ type: 'rangeStats', requestId: ++rangeRequestId, from: range.from, to: range.to });
    }
    scheduler.invalidate('timeline');
    stateChanged();
  }

  // --- actions -----------------------------------------------------------------------------
  function invalidateAll(): void {
    scheduler.invalidate('graph', 'outline', 'timeline', 'warnings', 'details', 'banner');
  }

  function userSelect(target: SelectionRef | null): void {
    if (sameSelection(target, selection)) {
      // Re-selecting still reveals it (the list and the canvas may have scrolled away).
      scheduler.invalidate('graph', 'outline', 'details');
      return;
    }
    selection = target;
    port.postMessage({ type: 'select', target });
    requestDetails(target);
    const key = selectionKey(target);
    if (key) graphView.reveal(key);
    scheduler.invalidate('graph', 'outline', 'timeline', 'details');
    stateChanged();
  }

  function requestDetails(target: SelectionRef | null): void {
    // Answers normally come at once; a host that never answers must not make this grow.
    if (pendingDetails.size > 64) pendingDetails.clear();
    if (target?.kind === 'subscription' && !explanations.has(target.id)) pendingDetails.add(`u${target.id}`);
    if (target?.kind === 'dispatch' && !dispatchDetails.has(target.seq)) pendingDetails.add(`d${target.seq}`);
  }

  function openSource(site: SiteInfo): void {
    port.postMessage({ type: 'openSource', file: site.file, line: Math.max(1, Math.floor(site.line)), column: Math.max(1, Math.floor(site.column)) });
  }

  function toggleNode(n: GraphNode, expand?: boolean): void {
    if (n.kind === 'bus') {
      const open = expand ?? n.collapsed;
      if (open) {
        collapsedBuses.delete(n.busName);
        expandedBuses.add(n.busName);
      } else {
        expandedBuses.delete(n.busName);
        collapsedBuses.add(n.busName);
      }
      optionsChanged();
    } else if (n.kind === 'more') {
      expandedMore.add(n.key);
      optionsChanged();
    } else userSelect(n.ref);
  }

  /**
   * Tells the host which groups of buses are expanded (it sends their instances, and records
   * expanded library emitters at full detail); only when that changed.
   */
  let sentExpansion = '';
  function sendExpansion(): void {
    const groups = [...expandedBuses].filter(isGroupKey).sort();
    const more = [...expandedMore].filter((k) => k.startsWith('mc:')).map((k) => k.slice(3)).sort();
    const key = JSON.stringify([groups, more]);
    if (key === sentExpansion) return;
    sentExpansion = key;
    port.postMessage({ type: 'expandGroups', groups, more });
  }

  function optionsChanged(): void {
    sendExpansion();
    needFullLayout = true;
    invalidateAll();
    stateChanged();
  }

  function setFilter(text: string, bus = busFilter): void {
    if (text === filterText && bus === busFilter) return;
    filterText = text;
    busFilter = bus;
    toolbar.setFilterText(text);
    optionsChanged();
  }

  function relayout(): void {
    needFullLayout = true;
    graphView.fit();
    invalidateAll();
  }

  function setFocusWarning(id: string | null): void {
    if (id === focusedWarning) return;
    focusedWarning = id;
    port.postMessage({ type: 'focusWarning', warningId: id });
    // Its subjects may sit in collapsed buses: rebuild (they open), then bring the first into view.
    const buses = focusBuses();
    if ([...buses].some((b) => !focusedBusIds.has(b)) || [...focusedBusIds].some((b) => !buses.has(b))) needFullLayout = true;
    scheduler.invalidate('graph', 'timeline', 'warnings', 'details', 'outline');
    scheduler.flush();
    const f = focusSets();
    if (f) {
      const first = model?.nodes.find((n) => f.keys.has(n.key) && n.column === 2) ?? model?.nodes.find((n) => f.keys.has(n.key));
      if (first) graphView.reveal(first.key);
    }
    stateChanged();
  }

  function currentState(): PersistedViewState {
    return {
      v: 1,
      sessionId,
      selection,
      filterText,
      busFilter,
      collapsedBuses: [...collapsedBuses],
      expandedBuses: [...expandedBuses],
      follow: timeline.follow,
      timelineSpanMs: timeline.span,
      timelineView: timeline.follow ? null : timeline.view,
      brush: timeline.currentBrush,
      graphTransform: graphView.currentTransform,
      focusedWarning: focusedWarning ?? '',
    };
  }

  function stateChanged(): void {
    if (stateListeners.size === 0 || stateTimer !== null) return;
    // Zoom gestures change state every frame; listeners hear it at most every 250 ms.
    stateTimer = win!.setTimeout(() => {
      stateTimer = null;
      const s = currentState();
      for (const l of stateListeners) l(s);
    }, 250);
  }

  // --- messages ----------------------------------------------------------------------------
  /**
   * Tells the host (which logs it) that a message was dropped. The first of a kind goes at once;
   * repeats within the next second are counted and go as one line.
   */
  function reportDropped(message: string, reason: string): void {
    const key = `${message}\u0000${reason}`;
    const d = drops.get(key);
    if (d) {
      d.count++;
      return;
    }
    drops.set(key, { message, reason, count: 0 });
    postDropped(message, reason);
    if (dropsTimer === null) dropsTimer = win!.setTimeout(flushDrops, 1000);
  }

  function flushDrops(): void {
    dropsTimer = null;
    for (const d of drops.values()) if (d.count > 0) postDropped(d.message, `${d.reason} (${d.count} more times)`);
    drops.clear();
  }

  function postDropped(message: string, reason: string): void {
    port.postMessage({ type: 'dropped', message: message.slice(0, MAX_DROPPED_MESSAGE_LENGTH), reason: reason.slice(0, MAX_DROPPED_REASON_LENGTH) });
  }

  function onMessage(msg: HostToWebview): void {
    if (disposed) return;
    if (!isHostToWebview(msg)) {
      reportDropped(describeMessage(msg), 'not a message this inspector page knows (or of another version)');
      return;
    }
    switch (msg.type) {
      case 'snapshot': {
        const t0 = performance.now();
        const changedSession = msg.snapshot.session.sessionId !== sessionId;
        store.applySnapshot(msg.snapshot);
        metrics.snapshotApplyMs = performance.now() - t0;
        snapshotAt = t0;
        awaitingSnapshot = false;
        if (changedSession) {
          sessionId = msg.snapshot.session.sessionId;
          // Another app: what was selected there means nothing here.
          selection = null;
          focusedWarning = null;
          timeline.reset();
          rangeStats = null;
          explanations.clear();
          dispatchDetails.clear();
          pendingDetails.clear();
          needFullLayout = true;
          refitGraph = metrics.renders > 0;
        } else if (memory.size === 0) needFullLayout = true;
        if (restored?.brush && !changedSession && rangeStats === null) timeline.setBrush(restored.brush);
        else if (rangeStats && !changedSession) requestRangeStats(rangeStats);
        if (selection && (selection.kind === 'subscription' || selection.kind === 'dispatch')) {
          requestDetails(selection);
          port.postMessage({ type: 'select', target: selection });
        }
        invalidateAll();
        stateChanged();
        break;
      }
      case 'delta': {
        if (awaitingSnapshot) {
          reportDropped('delta', 'waiting for the snapshot asked for after a gap in the delta sequence');
          return;
        }
        const result = store.applyDelta(msg.delta);
        if (result === 'gap') {
          awaitingSnapshot = true;
          reportDropped('delta', `delta ${msg.delta.seq} does not follow delta ${store.lastDeltaSeq}: asked for a snapshot`);
          port.postMessage({ type: 'requestSnapshot', reason: 'gap' });
          scheduler.invalidate('banner');
          return;
        }
        if (result === 'stale') {
          reportDropped('delta', `delta ${msg.delta.seq} is older than the snapshot it follows`);
          return;
        }
        // Flow control: the host sends more once the page has read this one.
        port.postMessage({ type: 'applied', seq: msg.delta.seq });
        const parts: Part[] = ['timeline'];
        if (msg.delta.warnings || msg.delta.clearedWarnings) parts.push('warnings');
        // The details' figures follow the graph's rebuilds (≤ 2/s for figures alone), not every delta:
        // the pane is rebuilt when it renders, and a press on its links must not straddle a rebuild.
        scheduler.invalidate(...parts);
        break;
      }
      case 'session':
        store.setSession(msg.session);
        scheduler.invalidate('banner', 'timeline');
        break;
      case 'details':
        acceptDetails(msg.details);
        break;
      case 'reveal':
        userSelect(msg.target);
        break;
      case 'rangeStats':
        if (msg.requestId === rangeRequestId && rangeStats) {
          rangeStats = { from: rangeStats.from, to: rangeStats.to, stats: msg.stats };
          scheduler.invalidate('timeline');
        } else reportDropped('rangeStats', `answer to request ${msg.requestId}, superseded by request ${rangeRequestId} or a cleared brush`);
        break;
      case 'exported':
        rangeView.setNote(msg.message);
        scheduler.invalidate('timeline');
        break;
      case 'breakpoints':
        breakpointTypes = new Set(msg.types);
        scheduler.invalidate('details');
        break;
      default:
        assertNever(msg);
    }
  }

  function acceptDetails(d: DetailsMessage): void {
    switch (d.kind) {
      case 'subscription':
        explanations.set(d.id, d.report);
        pendingDetails.delete(`u${d.id}`);
        break;
      case 'dispatch':
        dispatchDetails.set(d.seq, d.dispatch);
        pendingDetails.delete(`d${d.seq}`);
        break;
      default:
        assertNever(d);
    }
    scheduler.invalidate('details');
  }

  const subscription = port.onMessage(onMessage);
  invalidateAll();
  // The restored expansion first, so the snapshot that answers `ready` already has those instances.
  sendExpansion();
  port.postMessage({ type: 'ready', version: INSPECTOR_MESSAGES_VERSION, state: restored });

  return {
    store,
    graphView,
    timeline,
    metrics,
    graphModel: () => model,
    flush: () => {
      flushAll = true;
      scheduler.invalidate('graph');
      try {
        scheduler.flush();
      } finally {
        flushAll = false;
      }
    },
    state: currentState,
    onDidChangeState(listener) {
      stateListeners.add(listener);
      return { dispose: () => void stateListeners.delete(listener) };
    },
    select: userSelect,
    setFilter,
    relayout,
    dispose() {
      if (disposed) return;
      disposed = true;
      subscription.dispose();
      themeWatch.dispose();
      resize?.disconnect();
      scheduler.dispose();
      if (stateTimer !== null) win.clearTimeout(stateTimer);
      if (dropsTimer !== null) win.clearTimeout(dropsTimer);
      if (figuresTimer !== null) win.clearTimeout(figuresTimer);
      stateListeners.clear();
      shell.remove();
    },
  };
}
