// The inspector renderer: `createInspector(root, port)` builds the UI inside `root`, wires its parts together and talks to its host only through `port`.
// It needs no VS Code: main.ts adapts acquireVsCodeApi() to the port; tests pass a fake host in jsdom or Chromium.
// The view state lives in inspectorState.ts, the graph's upkeep in graphSync.ts, message dispatch in
// hostMessageRouter.ts, and frames and timers in ui/scheduler.ts on an injectable clock (ui/clock.ts).

import type {
  HostToWebview,
  InspectorCommand,
  InspectorPort,
  PersistedViewState,
  SelectionRef,
  SiteInfo,
} from '../../runtime-probe/src/analysis/inspector-messages';
import { analysisPartialText, INSPECTOR_MESSAGES_VERSION, sameSelection } from '../../runtime-probe/src/analysis/inspector-messages';
import { DetailsView } from './details/detailsView';
import { DropReporter } from './dropReporter';
import type { GraphModel, GraphNode } from './graph/graphModel';
import { GraphView } from './graph/graphView';
import { NodeList } from './graph/nodeList';
import { GraphSync } from './graphSync';
import { routeHostMessage, type HostMessageHandlers } from './hostMessageRouter';
import { InspectorState } from './inspectorState';
import { InspectorStore, type StoreLimits } from './store/inspectorStore';
import { layoutLanes } from './timeline/lanes';
import { RangeStatsView } from './timeline/rangeStatsView';
import { TimelineView } from './timeline/timelineView';
import { TrailingTimer, windowClock, type InspectorClock } from './ui/clock';
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
  /** Timers and frames (default: the window's); tests pass a manual clock instead of sleeping. */
  readonly clock?: InspectorClock;
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
/** Zoom gestures change state every frame; listeners hear it at most this often (ms). */
const STATE_REPORT_MS = 250;

export function createInspector(root: HTMLElement, port: InspectorPort, options: InspectorOptions = {}): Inspector {
  const doc = root.ownerDocument;
  const win = doc.defaultView;
  if (!win) throw new TypeError('createInspector: root must be attached to a document with a window');
  const clock = options.clock ?? windowClock(win);
  const store = new InspectorStore(options.limits);
  const restored = options.state && options.state.v === 1 ? options.state : null;
  const state = new InspectorState(restored);
  const graph = new GraphSync(store, state, {
    autoCollapseTypes: options.autoCollapseTypes ?? DEFAULT_AUTO_COLLAPSE,
    maxGroupsPerType: options.maxGroupsPerType ?? DEFAULT_MAX_GROUPS,
  });
  const metrics: InspectorMetrics = { snapshotApplyMs: 0, graphBuildMs: 0, snapshotToInteractiveMs: 0, renders: 0, graphBuilds: 0 };
  const stateListeners = new Set<(s: PersistedViewState) => void>();
  const drops = new DropReporter(port, clock);
  /** Set by the API's flush(): render everything pending now, throttled or not. */
  let flushAll = false;
  let lanesVersion = -1;
  let warningsShown = '';
  /** When the last snapshot arrived (performance.now()), until the render after it; -1 otherwise. */
  let snapshotAt = -1;
  let disposed = false;

  // Created first: the parts below ask for renders from their constructors (restored state).
  const scheduler = new Scheduler(clock, (parts) => render(parts));
  const stateReport = new TrailingTimer(clock, STATE_REPORT_MS, () => {
    const s = currentState();
    for (const l of stateListeners) l(s);
  });

  // --- parts -------------------------------------------------------------------------------
  const toolbar = new Toolbar(doc, {
    filterText: (t) => setFilter(t, state.busFilter),
    busFilter: (b) => setFilter(state.filterText, b),
    relayout: () => relayout(),
    collapseAll: () => {
      state.expandedBuses.clear();
      for (const b of store.buses.values()) state.collapsedBuses.add(b.name);
      optionsChanged();
    },
    expandAll: () => {
      state.collapsedBuses.clear();
      for (const b of store.buses.values()) state.expandedBuses.add(b.name);
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
  toolbar.setFilterText(state.filterText);

  const graphPane = h(
    doc,
    'div',
    { class: 'graph-pane' },
    h(doc, 'div', { class: 'node-list-wrap' }, nodeList.element),
    h(doc, 'div', { class: 'graph-wrap' }, graphView.element),
  );
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
    if (e.key === 'Escape' && state.focusedWarning && !(e.target instanceof win.HTMLInputElement)) setFocusWarning(null);
  };
  shell.addEventListener('keydown', onKey);
  const ResizeObserverCtor = (win as unknown as { ResizeObserver?: typeof ResizeObserver }).ResizeObserver;
  const resize = ResizeObserverCtor ? new ResizeObserverCtor(() => scheduler.invalidate('graph', 'timeline', 'outline')) : null;
  resize?.observe(graphPane);
  resize?.observe(timeline.element);

  // --- rendering ---------------------------------------------------------------------------
  function rebuildGraph(now: number): void {
    const t0 = performance.now();
    const model = graph.rebuild(now);
    graphView.setModel(model);
    nodeList.setModel(model);
    metrics.graphBuildMs = performance.now() - t0;
    metrics.graphBuilds++;
  }

  function render(parts: ReadonlySet<Part>): void {
    if (disposed) return;
    // The graph follows entities, figures and warnings (a few times a second); the timeline
    // follows every delta, and only its lanes need the new data's types.
    // Structure (entities added, removed, renamed) and view options rebuild it at once; figures and
    // warnings alone at most every FIGURES_REBUILD_MS (graphSync.ts).
    const now = clock.now();
    const due = graph.due(now, flushAll);
    if (due !== true && due > 0) scheduler.invalidateAfter(due, 'graph');
    const graphChanged = due === true;
    if (graphChanged) {
      rebuildGraph(now);
      if (graph.refit) {
        graph.refit = false;
        graphView.fit();
      }
    }
    const model = graph.model;
    let lanesChanged = false;
    if (graphChanged || store.timeline.laneVersion !== lanesVersion) {
      lanesVersion = store.timeline.laneVersion;
      timeline.setLanes(layoutLanes(store, graph.laneFilter(), undefined, model?.busGroupOf));
      lanesChanged = true;
    }
    const focus = graph.focusSets();
    const selection = state.selection;
    const selKey = graph.selectionKey(selection);
    graphView.setSelection(selKey);
    graphView.setFocus(focus ? focus.keys : null);
    timeline.setSelection(selection?.kind === 'dispatch' ? selection.seq : null);
    timeline.setFocus(focus ? focus.types : null, focus ? focus.subs : null);
    toolbar.setFocus(focus ? focus.label : null);
    toolbar.setBuses(
      [...store.buses.values()].map((b) => b.name),
      state.busFilter,
    );
    if (model) {
      const hidden = store.hiddenSubscriptions ? ` · ${fmtInt(store.hiddenSubscriptions)} not shown (cap)` : '';
      // The host sends at most its cap of types (the most active): say how many it left out.
      const unsent = store.omitted?.types ?? 0;
      const allTypes = store.types.size + unsent;
      const notSent = unsent > 0 ? ` · ${fmtInt(unsent)} more types not shown` : '';
      toolbar.setCounts(
        `${fmtInt(store.buses.size)} buses · ${fmtInt(model.typeCount)} of ${fmtInt(allTypes)} types · ${fmtInt(model.subscriptionCount)} subscriptions${hidden}${notSent}`,
      );
    }
    if (graphChanged || parts.has('graph')) graphView.render();
    if (graphChanged || parts.has('outline')) {
      nodeList.setSelection(selKey);
      nodeList.render();
    }
    if (lanesChanged || parts.has('timeline')) {
      timeline.render();
      rangeView.render(store, state.rangeStats, origin());
    }
    // Only when the warnings (or the focused one) changed: the list updates its elements in place.
    const warningsKey = `${store.warningsVersion}:${store.hasSnapshot}:${state.focusedWarning}:${analysisPartialText(store.session.analysis)}`;
    if (parts.has('warnings') || warningsKey !== warningsShown) {
      warningsShown = warningsKey;
      warnings.setFocused(state.focusedWarning);
      warnings.render(store);
    }
    if (parts.has('details') || graphChanged) details.render(store, state.detailsInput(origin()));
    if (parts.has('banner')) banner.render(store.session, state.awaitingSnapshot);
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

  function requestRangeStats(range: { from: number; to: number } | null): void {
    rangeView.setNote('');
    if (range === null) state.rangeStats = null;
    else if (store.session.phase === 'empty') state.rangeStats = { ...range, stats: null };
    else {
      state.rangeStats = { ...range, stats: 'pending' };
      port.postMessage({ type: 'rangeStats', requestId: ++state.rangeRequestId, from: range.from, to: range.to });
    }
    scheduler.invalidate('timeline');
    stateChanged();
  }

  // --- actions -----------------------------------------------------------------------------
  function invalidateAll(): void {
    scheduler.invalidate('graph', 'outline', 'timeline', 'warnings', 'details', 'banner');
  }

  function userSelect(target: SelectionRef | null): void {
    if (sameSelection(target, state.selection)) {
      // Re-selecting still reveals it (the list and the canvas may have scrolled away).
      scheduler.invalidate('graph', 'outline', 'details');
      return;
    }
    state.selection = target;
    port.postMessage({ type: 'select', target });
    state.requestDetails(target);
    const key = graph.selectionKey(target);
    if (key) graphView.reveal(key);
    scheduler.invalidate('graph', 'outline', 'timeline', 'details');
    stateChanged();
  }

  function openSource(site: SiteInfo): void {
    port.postMessage({ type: 'openSource', file: site.file, line: Math.max(1, Math.floor(site.line)), column: Math.max(1, Math.floor(site.column)) });
  }

  function toggleNode(n: GraphNode, expand?: boolean): void {
    if (n.kind === 'bus') {
      const open = expand ?? n.collapsed;
      if (open) {
        state.collapsedBuses.delete(n.busName);
        state.expandedBuses.add(n.busName);
      } else {
        state.expandedBuses.delete(n.busName);
        state.collapsedBuses.add(n.busName);
      }
      optionsChanged();
    } else if (n.kind === 'more') {
      state.expandedMore.add(n.key);
      optionsChanged();
    } else userSelect(n.ref);
  }

  /** Tells the host which groups of buses are expanded; only when that changed. */
  function sendExpansion(): void {
    const change = state.expansionChange();
    if (change) port.postMessage({ type: 'expandGroups', groups: change.groups, more: change.more });
  }

  function optionsChanged(): void {
    sendExpansion();
    graph.needFullLayout = true;
    invalidateAll();
    stateChanged();
  }

  function setFilter(text: string, bus = state.busFilter): void {
    if (text === state.filterText && bus === state.busFilter) return;
    state.filterText = text;
    state.busFilter = bus;
    toolbar.setFilterText(text);
    optionsChanged();
  }

  function relayout(): void {
    graph.needFullLayout = true;
    graphView.fit();
    invalidateAll();
  }

  function setFocusWarning(id: string | null): void {
    if (id === state.focusedWarning) return;
    state.focusedWarning = id;
    port.postMessage({ type: 'focusWarning', warningId: id });
    // Its subjects may sit in collapsed buses: rebuild (they open), then bring the first into view.
    const buses = graph.focusBuses();
    const shown = graph.focusedBusIds;
    if ([...buses].some((b) => !shown.has(b)) || [...shown].some((b) => !buses.has(b))) graph.needFullLayout = true;
    scheduler.invalidate('graph', 'timeline', 'warnings', 'details', 'outline');
    scheduler.flush();
    const f = graph.focusSets();
    const model = graph.model;
    if (f) {
      const first = model?.nodes.find((n) => f.keys.has(n.key) && n.column === 2) ?? model?.nodes.find((n) => f.keys.has(n.key));
      if (first) graphView.reveal(first.key);
    }
    stateChanged();
  }

  function currentState(): PersistedViewState {
    return state.persisted({
      follow: timeline.follow,
      timelineSpanMs: timeline.span,
      timelineView: timeline.follow ? null : timeline.view,
      brush: timeline.currentBrush,
      graphTransform: graphView.currentTransform,
    });
  }

  function stateChanged(): void {
    if (stateListeners.size > 0) stateReport.request();
  }

  // --- messages ----------------------------------------------------------------------------
  const handlers: HostMessageHandlers = {
    snapshot(msg) {
      const t0 = performance.now();
      const changedSession = msg.snapshot.session.sessionId !== state.sessionId;
      store.applySnapshot(msg.snapshot);
      metrics.snapshotApplyMs = performance.now() - t0;
      snapshotAt = t0;
      state.awaitingSnapshot = false;
      if (changedSession) {
        state.forgetSession(msg.snapshot.session.sessionId);
        timeline.reset();
        graph.needFullLayout = true;
        graph.refit = metrics.renders > 0;
      } else if (!graph.hasLayout) graph.needFullLayout = true;
      if (restored?.brush && !changedSession && state.rangeStats === null) timeline.setBrush(restored.brush);
      else if (state.rangeStats && !changedSession) requestRangeStats(state.rangeStats);
      const selection = state.selection;
      if (selection && (selection.kind === 'subscription' || selection.kind === 'dispatch')) {
        state.requestDetails(selection);
        port.postMessage({ type: 'select', target: selection });
      }
      invalidateAll();
      stateChanged();
    },
    delta(msg) {
      if (state.awaitingSnapshot) {
        drops.report('delta', 'waiting for the snapshot asked for after a gap in the delta sequence');
        return;
      }
      const result = store.applyDelta(msg.delta);
      if (result === 'gap') {
        state.awaitingSnapshot = true;
        drops.report('delta', `delta ${msg.delta.seq} does not follow delta ${store.lastDeltaSeq}: asked for a snapshot`);
        port.postMessage({ type: 'requestSnapshot', reason: 'gap' });
        scheduler.invalidate('banner');
        return;
      }
      if (result === 'stale') {
        drops.report('delta', `delta ${msg.delta.seq} is older than the snapshot it follows`);
        return;
      }
      // Flow control: the host sends more once the page has read this one.
      port.postMessage({ type: 'applied', seq: msg.delta.seq });
      const parts: Part[] = ['timeline'];
      if (msg.delta.warnings || msg.delta.clearedWarnings) parts.push('warnings');
      // The details' figures follow the graph's rebuilds (≤ 2/s for figures alone), not every delta:
      // the pane is rebuilt when it renders, and a press on its links must not straddle a rebuild.
      scheduler.invalidate(...parts);
    },
    session(msg) {
      store.setSession(msg.session);
      scheduler.invalidate('banner', 'timeline');
    },
    details(msg) {
      state.acceptDetails(msg.details);
      scheduler.invalidate('details');
    },
    reveal(msg) {
      userSelect(msg.target);
    },
    rangeStats(msg) {
      const current = state.rangeStats;
      if (msg.requestId === state.rangeRequestId && current) {
        state.rangeStats = { from: current.from, to: current.to, stats: msg.stats };
        scheduler.invalidate('timeline');
      } else drops.report('rangeStats', `answer to request ${msg.requestId}, superseded by request ${state.rangeRequestId} or a cleared brush`);
    },
    exported(msg) {
      rangeView.setNote(msg.message);
      scheduler.invalidate('timeline');
    },
    breakpoints(msg) {
      state.breakpointTypes = new Set(msg.types);
      scheduler.invalidate('details');
    },
  };

  const subscription = port.onMessage((msg: HostToWebview) => {
    if (!disposed) routeHostMessage(msg, handlers, (message, reason) => drops.report(message, reason));
  });
  invalidateAll();
  // The restored expansion first, so the snapshot that answers `ready` already has those instances.
  sendExpansion();
  port.postMessage({ type: 'ready', version: INSPECTOR_MESSAGES_VERSION, state: restored });

  return {
    store,
    graphView,
    timeline,
    metrics,
    graphModel: (): GraphModel | null => graph.model,
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
      stateReport.cancel();
      drops.dispose();
      stateListeners.clear();
      shell.remove();
    },
  };
}
