// Keeps the graph model in step with the store and the view state: when to rebuild it, its layout, and which nodes a selection or a focused warning lands on.

import { assertNever, type SelectionRef } from '../../runtime-probe/src/analysis/inspector-messages';
import { isGroupKey } from './graph/busGroups';
import { buildGraph, type GraphModel } from './graph/graphModel';
import { fullLayout, incrementalLayout, type PositionMemory } from './graph/layout';
import type { InspectorState } from './inspectorState';
import type { InspectorStore } from './store/inspectorStore';

/**
 * Least time between graph rebuilds for changed figures (rates, counts) or warnings alone: a live
 * app changes them with every delta, and the graph and its list need not follow faster than this.
 */
export const FIGURES_REBUILD_MS = 500;

/** A focused warning's subjects, as graph node keys, type indexes and subscription ids. */
export interface FocusSets {
  readonly keys: Set<string>;
  readonly types: Set<number>;
  readonly subs: Set<number>;
  readonly label: string;
}

export interface GraphSyncOptions {
  /** Buses with more types than this start collapsed (until the user expands them). */
  readonly autoCollapseTypes: number;
  /** Subscriber nodes shown per type before the rest fold into "+N more". */
  readonly maxGroupsPerType: number;
}

export class GraphSync {
  model: GraphModel | null = null;
  /** The next rebuild lays the graph out afresh (view options changed) instead of incrementally. */
  needFullLayout = true;
  /** Another session's graph: show it whole rather than where the last one was scrolled. */
  refit = false;
  /** Buses held open because they hold the focused warning's subjects (as of the last rebuild). */
  focusedBusIds = new Set<number>();
  private memory: PositionMemory = new Map();
  private builtStructure = -1;
  private builtFigures = '';
  private builtAt = -Infinity;
  private subToNode = new Map<number, string>();

  constructor(
    private readonly store: InspectorStore,
    private readonly state: InspectorState,
    private readonly options: GraphSyncOptions,
  ) {}

  /** The positions kept from the last layout are gone (nothing laid out yet). */
  get hasLayout(): boolean {
    return this.memory.size > 0;
  }

  /**
   * Whether the graph must be rebuilt at `now`: at once for structure and view options; for
   * figures and warnings alone at most every FIGURES_REBUILD_MS (`force`: now anyway). Otherwise
   * the ms until a figures-only rebuild is due, or 0 when nothing changed.
   */
  due(now: number, force: boolean): true | number {
    const store = this.store;
    if (this.needFullLayout || this.model === null || store.structureVersion !== this.builtStructure) return true;
    if (this.figuresKey() === this.builtFigures) return 0;
    const wait = FIGURES_REBUILD_MS - (now - this.builtAt);
    return force || wait <= 0 ? true : wait;
  }

  rebuild(now: number): GraphModel {
    const store = this.store;
    const state = this.state;
    this.builtStructure = store.structureVersion;
    this.builtFigures = this.figuresKey();
    this.builtAt = now;
    this.focusedBusIds = this.focusBuses();
    const model = buildGraph(store, {
      filterText: state.filterText,
      busFilter: state.busFilter,
      isCollapsed: (id, name) => this.isCollapsed(id, name),
      maxGroupsPerType: this.options.maxGroupsPerType,
      expandedMore: state.expandedMore,
    });
    this.model = model;
    this.memory = this.needFullLayout ? fullLayout(model) : incrementalLayout(model, this.memory);
    this.needFullLayout = false;
    this.subToNode = new Map();
    for (const n of model.nodes) for (const id of n.subscriptions) this.subToNode.set(id, n.key);
    return model;
  }

  /** Which timeline lanes the graph's filter keeps. */
  laneFilter(): (type: number) => boolean {
    const m = this.model;
    if (!m || !m.filtered) return () => true;
    return (type) => m.types.has(type);
  }

  /** Buses holding the focused warning's subjects: shown open while it is focused. */
  focusBuses(): Set<number> {
    const store = this.store;
    const out = new Set<number>();
    const w = this.state.focusedWarning ? store.warnings.get(this.state.focusedWarning) : undefined;
    if (!w) return out;
    for (const b of w.subjects.buses) out.add(b);
    for (const t of w.subjects.types) out.add(t.bus);
    for (const id of w.subjects.subscriptions) {
      const s = store.subscriptions.get(id);
      if (s) out.add(s.bus);
    }
    return out;
  }

  /** The node that shows `sel`, or null (not in the graph, or no graph yet). */
  selectionKey(sel: SelectionRef | null): string | null {
    const model = this.model;
    const store = this.store;
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
        return this.subToNode.get(sel.id) ?? null;
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

  /** The focused warning's subjects in the graph, or null when none is focused. */
  focusSets(): FocusSets | null {
    const store = this.store;
    const model = this.model;
    const focused = this.state.focusedWarning;
    if (!focused) return null;
    const w = store.warnings.get(focused);
    if (!w || !model) return null;
    const keys = new Set<string>();
    const types = new Set<number>();
    for (const ref of w.subjects.types) {
      const index = store.typeIndexOf(ref.bus, ref.type);
      if (index >= 0) types.add(index);
    }
    const subs = new Set<number>(w.subjects.subscriptions);
    for (const id of subs) {
      const k = this.subToNode.get(id);
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

  private figuresKey(): string {
    return `${this.store.statsVersion}:${this.store.warningsVersion}`;
  }

  private isCollapsed(id: number, name: string): boolean {
    const state = this.state;
    if (this.focusedBusIds.has(id)) return false;
    // A class of emitters or the libraries group stays one node until the user expands it.
    if (isGroupKey(name)) return !state.expandedBuses.has(name);
    if (state.expandedBuses.has(name)) return false;
    if (state.collapsedBuses.has(name)) return true;
    return this.store.types.size > this.options.autoCollapseTypes;
  }
}
