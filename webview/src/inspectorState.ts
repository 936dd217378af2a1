// The inspector's view state: what the user selected, filtered, expanded and focused, and the host's answers about it.

import type {
  DetailsView as DetailsMessage,
  DispatchDetailsView,
  PersistedViewState,
  SelectionRef,
  WhyReport,
} from '../../runtime-probe/src/analysis/inspector-messages';
import { assertNever } from '../../runtime-probe/src/analysis/inspector-messages';
import type { DetailsInput } from './details/detailsView';
import { isGroupKey } from './graph/busGroups';
import { BoundedMap } from './store/boundedQueue';
import type { RangeStatsState } from './timeline/rangeStatsView';

/** What the persisted state takes from the views themselves (the timeline's and the graph's own state). */
export type ViewPositions = Pick<PersistedViewState, 'follow' | 'timelineSpanMs' | 'timelineView' | 'brush' | 'graphTransform'>;

export class InspectorState {
  selection: SelectionRef | null;
  filterText: string;
  busFilter: string;
  readonly collapsedBuses: Set<string>;
  readonly expandedBuses: Set<string>;
  /** "+N more" nodes the user opened. */
  readonly expandedMore = new Set<string>();
  focusedWarning: string | null;
  sessionId: string;
  /** A delta did not follow the last one: deltas are dropped until the snapshot asked for arrives. */
  awaitingSnapshot = false;
  rangeStats: RangeStatsState = null;
  rangeRequestId = 0;
  /** Event types that break when dispatched, from the host; null until it says (or when it has none). */
  breakpointTypes: ReadonlySet<string> | null = null;
  private readonly explanations = new BoundedMap<number, WhyReport>(256);
  private readonly dispatchDetails = new BoundedMap<number, DispatchDetailsView | null>(256);
  private readonly pendingDetails = new Set<string>();
  /** The expansion last told to the host (sendExpansion). */
  private sentExpansion = '';

  constructor(restored: PersistedViewState | null) {
    this.selection = restored?.selection ?? null;
    this.filterText = restored?.filterText ?? '';
    this.busFilter = restored?.busFilter ?? '';
    this.collapsedBuses = new Set(restored?.collapsedBuses ?? []);
    this.expandedBuses = new Set(restored?.expandedBuses ?? []);
    this.focusedWarning = restored?.focusedWarning || null;
    this.sessionId = restored?.sessionId ?? '';
  }

  /** Another app's snapshot: what was selected there means nothing here. */
  forgetSession(sessionId: string): void {
    this.sessionId = sessionId;
    this.selection = null;
    this.focusedWarning = null;
    this.rangeStats = null;
    this.explanations.clear();
    this.dispatchDetails.clear();
    this.pendingDetails.clear();
  }

  /** Marks the details of `target` as asked for (the host answers a `select` with them). */
  requestDetails(target: SelectionRef | null): void {
    // Answers normally come at once; a host that never answers must not make this grow.
    if (this.pendingDetails.size > 64) this.pendingDetails.clear();
    if (target?.kind === 'subscription' && !this.explanations.has(target.id)) this.pendingDetails.add(`u${target.id}`);
    if (target?.kind === 'dispatch' && !this.dispatchDetails.has(target.seq)) this.pendingDetails.add(`d${target.seq}`);
  }

  acceptDetails(d: DetailsMessage): void {
    switch (d.kind) {
      case 'subscription':
        this.explanations.set(d.id, d.report);
        this.pendingDetails.delete(`u${d.id}`);
        break;
      case 'dispatch':
        this.dispatchDetails.set(d.seq, d.dispatch);
        this.pendingDetails.delete(`d${d.seq}`);
        break;
      default:
        assertNever(d);
    }
  }

  detailsInput(origin: number): DetailsInput {
    const selection = this.selection;
    let report: WhyReport | 'pending' | null = null;
    let dispatch: DispatchDetailsView | 'pending' | null = null;
    if (selection?.kind === 'subscription') {
      report = this.explanations.get(selection.id) ?? (this.pendingDetails.has(`u${selection.id}`) ? 'pending' : null);
    } else if (selection?.kind === 'dispatch') {
      dispatch = this.dispatchDetails.has(selection.seq)
        ? this.dispatchDetails.get(selection.seq)!
        : this.pendingDetails.has(`d${selection.seq}`)
          ? 'pending'
          : null;
    }
    return { selection, report, dispatch, origin, breakpoints: this.breakpointTypes };
  }

  /**
   * The groups of buses (and "+N more" classes) expanded, when that changed since the last call:
   * the host sends their instances, and records expanded library emitters at full detail.
   */
  expansionChange(): { groups: string[]; more: string[] } | null {
    const groups = [...this.expandedBuses].filter(isGroupKey).sort();
    const more = [...this.expandedMore]
      .filter((k) => k.startsWith('mc:'))
      .map((k) => k.slice(3))
      .sort();
    const key = JSON.stringify([groups, more]);
    if (key === this.sentExpansion) return null;
    this.sentExpansion = key;
    return { groups, more };
  }

  persisted(views: ViewPositions): PersistedViewState {
    return {
      v: 1,
      sessionId: this.sessionId,
      selection: this.selection,
      filterText: this.filterText,
      busFilter: this.busFilter,
      collapsedBuses: [...this.collapsedBuses],
      expandedBuses: [...this.expandedBuses],
      follow: views.follow,
      timelineSpanMs: views.timelineSpanMs,
      timelineView: views.timelineView,
      brush: views.brush,
      graphTransform: views.graphTransform,
      focusedWarning: this.focusedWarning ?? '',
    };
  }
}
