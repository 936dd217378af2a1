// From one session's Model (and its warnings) to the inspector's messages: a snapshot, then deltas
// holding only what changed since the previous one. Plain TypeScript (no `vscode`), so Node tests
// and the browser test harness drive it with a real Model.
//
// Budgets keep a delta small whatever the app does: at most `maxDispatchesPerDelta` new dispatches
// (the newest; the rest become a `skipped` marker with their exact count), and the figures that
// change all the time (type and subscription statistics, warnings) at most every `statsIntervalMs`.
//
// Caps keep what the webview receives and holds bounded whatever the app's cardinality (an app
// dispatching `user.${id}.updated` for 100,000 ids): at most `maxTypes` types (a snapshot picks the
// most active; deltas add new types while under the cap), the subscriptions of those types up to
// `maxSubscriptions`, and the `maxWarnings` most severe warnings. What is left out travels as counts
// (`omitted`), so the webview can say "N more types not shown". A delta looks only at new type
// indices and at the types it sent; every `rerankIntervalMs` (only while types are left out) the
// types are ranked again and up to `maxTypeSwaps` busy newcomers replace quiet ones (`forgetTypes`).
//
// Buses are sent grouped (busGroupFeed.ts): a class of emitters with two or more instances and the
// libraries group are one `BusGroupView` each; the webview gets a bus's own view only for buses of
// their own, the buses of the types it was sent, and a page of the instances of each group the user
// expanded (`setExpansion`). A delta finds new buses through the new event types, so it never walks
// every bus; the groups' figures (and buses whose listeners moved them to the other side) are
// refreshed every `rerankIntervalMs`. Subscriptions likewise: a delta looks only at the types sent
// whose subscriptions changed, and at the subscriptions it sent (both bounded by the caps).

import type { Warning } from '../../../runtime-probe/src/analysis/analyses/warning';
import { BusGrouper } from './busGroupFeed';
import { LIBRARIES_GROUP, MAX_INSTANCES_EXPANDED, MAX_INSTANCES_SHOWN } from '../../../webview/src/graph/busGroups';
import { explainSubscription } from '../../../runtime-probe/src/analysis/analyses/explain';
import { HandlerFlag } from '../../../runtime-probe/src/analysis/model/handlerRing';
import type { BusState, EventTypeState } from '../../../runtime-probe/src/analysis/model/entities';
import type { Model } from '../../../runtime-probe/src/analysis/model/model';
import { topIndices } from '../../../runtime-probe/src/analysis/model/ranking';
import { dispatchAt, handlerSlicesOf, rangeStatistics, type RangeStatistics } from '../../../runtime-probe/src/analysis/model/queries';
import { busView, subscriptionView, typeView, type SubscriptionView, type TypeView } from '../../../runtime-probe/src/analysis/model/views';
import type {
  DetailsView,
  DispatchColumns,
  HandlerColumns,
  InspectorDelta,
  InspectorBusView,
  InspectorSnapshot,
  OmittedCounts,
  SelectionRef,
  SessionView,
  SiteView,
  SubscriptionStatsColumns,
  TimelineMarker,
  TypeStatsColumns,
} from '../../../runtime-probe/src/analysis/inspector-messages';
import { DispatchFlag, emptyDispatchColumns, emptyHandlerColumns } from '../../../runtime-probe/src/analysis/inspector-messages';

export interface FeedOptions {
  /** Newest dispatches a snapshot carries (older ones stay in the model for range statistics). */
  readonly snapshotDispatches: number;
  readonly maxDispatchesPerDelta: number;
  readonly maxHandlersPerDelta: number;
  /** Minimum wall-clock time between statistics/warnings updates, ms. */
  readonly statsIntervalMs: number;
  /** Event types sent at most (the webview never holds more); the rest are counted in `omitted`. */
  readonly maxTypes: number;
  /** Subscriptions sent at most (only those of types sent). */
  readonly maxSubscriptions: number;
  /** Warnings sent at most (errors first, then warnings, then infos). */
  readonly maxWarnings: number;
  /** Least wall-clock time between re-rankings of the types sent (only while some are left out), ms. */
  readonly rerankIntervalMs: number;
  /** Types replaced per re-ranking at most. */
  readonly maxTypeSwaps: number;
}

export const DEFAULT_FEED_OPTIONS: FeedOptions = {
  snapshotDispatches: 50_000,
  maxDispatchesPerDelta: 20_000,
  maxHandlersPerDelta: 20_000,
  statsIntervalMs: 250,
  maxTypes: 2_000,
  maxSubscriptions: 50_000,
  maxWarnings: 2_000,
  rerankIntervalMs: 2_000,
  maxTypeSwaps: 200,
};

interface SentSub {
  active: boolean;
  calls: number;
  consumed: number;
  errors: number;
  timed: number;
  depthErrors: number;
}

interface SentType {
  sites: number;
  dispatches: number;
  live: number;
  unheard: number;
  consumed: number;
  errors: number;
  rate: number;
  depthLimitHits: number;
  maxDepth: number;
  /** `subscribedEver` and live count as last looked at: new subscriptions are looked for only when they moved. */
  subscribedEver: number;
  liveSubs: number;
}

export class InspectorFeed {
  readonly options: FeedOptions;
  private deltaSeq = 0;
  private dispatchCursor = 0;
  private handlerCursor = 0;
  private lastStatsAt = -Infinity;
  private readonly sentSubs = new Map<number, SentSub>();
  private readonly sentTypes = new Map<number, SentType>();
  /** Bus id → `name\0group` as sent. */
  private readonly sentBuses = new Map<number, string>();
  private readonly grouper = new BusGrouper();
  /** Group view as sent (JSON), by key. */
  private sentGroups = new Map<string, string>();
  private lastRegroupAt = -Infinity;
  /** Groups the user expanded, and those whose "+N more" is open (`setExpansion`). */
  private expanded: ReadonlySet<string> = new Set();
  private expandedMore: ReadonlySet<string> = new Set();
  private expansionChanged = false;
  /** Types sent because their bus is an instance shown in an expanded group (never swapped out meanwhile). */
  private readonly pinnedTypes = new Set<number>();

  private readonly sentSites = new Set<number>();
  private sentWarnings = new Map<string, string>();
  private droppedRecords = 0;
  /** Type indices below this were either sent or counted as omitted (indices only grow). */
  private typeCursor = 0;
  private readonly omittedTypesByBus = new Map<number, number>();
  private omittedTypes = 0;
  private omittedWarnings = 0;
  /** `omitted` as last sent (JSON), so a delta carries it only when it changed. */
  private sentOmitted = '';
  private lastRerankAt = -Infinity;
  /** Dispatches known to contain a throwing handler / a refused nested dispatch (recent, bounded). */
  private readonly threwSeqs = new Set<number>();
  private readonly depthSeqs = new Set<number>();

  constructor(
    readonly model: Model,
    options: Partial<FeedOptions> = {},
    private readonly wallClock: () => number = () => Date.now(),
  ) {
    this.options = { ...DEFAULT_FEED_OPTIONS, ...options };
  }

  /** Everything, from scratch; resets the delta sequence. */
  snapshot(session: SessionView, warnings: readonly Warning[]): InspectorSnapshot {
    const m = this.model;
    this.deltaSeq = 0;
    this.sentSubs.clear();
    this.sentTypes.clear();
    this.sentBuses.clear();
    this.pinnedTypes.clear();
    this.expansionChanged = false;
    this.sentSites.clear();
    this.threwSeqs.clear();
    this.depthSeqs.clear();
    this.omittedTypesByBus.clear();
    this.omittedTypes = 0;
    this.grouper.rebuild(m.buses.values(), m.now);
    this.lastRegroupAt = this.wallClock();
    const sentWarnings = this.pickWarnings(warnings);
    const picked = this.pickTypes(sentWarnings, false);
    const pickedSet = new Set(picked);
    // The instances shown in expanded groups bring their types (beyond the cap, up to as many again).
    const shown = this.shownInstances();
    for (const b of shown)
      for (const t of b.types.values()) if (!pickedSet.has(t) && this.pinnedTypes.size < this.options.maxTypes) this.pinnedTypes.add(t.index);
    for (const index of this.pinnedTypes) pickedSet.add(m.typeAt(index)!);
    const sentTypes = [...pickedSet].sort((a, b) => a.index - b.index);
    const types = sentTypes.map((t) => typeView(t, m.now));
    for (const t of types) this.sentTypes.set(t.index, sentType(t));
    this.typeCursor = m.typeCount;
    if (sentTypes.length < m.typeCount) {
      const sentByBus = new Map<number, number>();
      for (const t of sentTypes) sentByBus.set(t.bus, (sentByBus.get(t.bus) ?? 0) + 1);
      for (const b of m.buses.values()) {
        const left = b.types.size - (sentByBus.get(b.id) ?? 0);
        if (left > 0) this.omittedTypesByBus.set(b.id, left);
      }
      this.omittedTypes = m.typeCount - sentTypes.length;
    }
    // Buses: those of their own, the shown instances, and the buses of the types sent.
    const busSet = new Set<BusState>(this.grouper.ungrouped());
    for (const b of shown) busSet.add(b);
    for (const t of sentTypes) busSet.add(t.busState);
    const buses = [...busSet].sort((a, b) => a.id - b.id).map((b) => this.busViewOf(b));
    const busGroups = this.grouper.views();
    this.sentGroups = new Map(busGroups.map((g) => [g.key, JSON.stringify(g)]));
    const subscriptions: SubscriptionView[] = [];
    const maxSubs = this.options.maxSubscriptions;
    for (const t of sentTypes) {
      for (const set of [t.live, t.retired]) {
        for (const s of set) {
          if (subscriptions.length >= maxSubs) break;
          const v = subscriptionView(s);
          subscriptions.push(v);
          this.rememberSub(s, v);
        }
      }
    }
    // Ended subscriptions the model retains (no longer in their type's live set), within the cap.
    for (const s of m.subscriptions.values()) {
      if (subscriptions.length >= maxSubs) break;
      if (s.active || this.sentSubs.has(s.id) || !this.sentTypes.has(s.type.index)) continue;
      const v = subscriptionView(s);
      subscriptions.push(v);
      this.rememberSub(s, v);
    }
    this.sentWarnings = new Map(sentWarnings.map((w) => [w.id, JSON.stringify(w)]));
    this.droppedRecords = m.drops.records;
    // Newest handler slices first, so the dispatches' error flags are known.
    const handlers = this.collectHandlers(Math.min(m.handlerSlices.size, this.options.snapshotDispatches));
    this.handlerCursor = m.handlerSlices.written;
    const markers: TimelineMarker[] = [];
    const { columns, sites } = this.collectDispatches(Math.min(m.timeline.size, this.options.snapshotDispatches));
    this.dispatchCursor = m.timeline.written;
    const skipped = m.timeline.size - columns.count;
    if (skipped > 0 && columns.count > 0) markers.push({ kind: 'skipped', at: columns.start[0], count: skipped });
    if (m.drops.records > 0) markers.push({ kind: 'drop', at: m.now, count: m.drops.records });
    for (const t of picked) if (t.depthLimitHits > 0) markers.push({ kind: 'depth-limit', at: t.lastDepthLimitAt, type: t.index, seq: 0 });
    this.lastStatsAt = this.wallClock();
    this.lastRerankAt = this.lastStatsAt;
    const omitted = this.omittedCounts();
    this.sentOmitted = JSON.stringify(omitted);
    const snapshot: InspectorSnapshot = {
      session,
      now: m.now,
      buses,
      busGroups,
      types,
      subscriptions,
      warnings: [...sentWarnings],
      sites,
      dispatches: columns,
      handlers,
      markers,
    };
    return isNothingOmitted(omitted) ? snapshot : { ...snapshot, omitted };
  }

  /**
   * What changed since the last snapshot or delta; null when nothing did. `force` sends the
   * statistics now even inside `statsIntervalMs`.
   */
  delta(warnings: readonly Warning[], force = false): InspectorDelta | null {
    const m = this.model;
    const wall = this.wallClock();
    const statsDue = force || wall - this.lastStatsAt >= this.options.statsIntervalMs;
    let any = false;
    const out: { -readonly [K in keyof InspectorDelta]: InspectorDelta[K] } = { seq: 0, now: m.now };

    // Structure: buses, new types, new and ended subscriptions (always, so the graph is never behind).
    const buses: InspectorBusView[] = [];
    const fullTypes: TypeView[] = [];
    const stats = typeStatsColumns();
    const all = m.allTypes();
    if (this.typeCursor > all.length) this.typeCursor = all.length;
    // Every `rerankIntervalMs`: regroup (figures, and buses whose listeners moved them to the other side).
    const regroup = wall - this.lastRegroupAt >= this.options.rerankIntervalMs;
    if (regroup) {
      this.lastRegroupAt = wall;
      this.grouper.rebuild(m.buses.values(), m.now);
      for (const id of this.sentBuses.keys()) {
        const b = m.buses.get(id);
        if (b !== undefined) this.sendBus(b, buses);
      }
    } else {
      // New buses show up with their first event type (the probe makes a bus when a listener is added or an event emitted).
      for (let i = this.typeCursor; i < all.length; i++) {
        const b = all[i].busState;
        if (this.grouper.has(b.id)) continue;
        const regrouped = this.grouper.add(b, m.now);
        if (regrouped !== null && this.sentBuses.has(regrouped.id)) this.sendBus(regrouped, buses);
      }
    }
    // Buses of their own among the new ones, and a page of each expanded group not sent yet.
    for (let i = this.typeCursor; i < all.length; i++) {
      const b = all[i].busState;
      if (!this.sentBuses.has(b.id) && this.grouper.groupKeyOf(b.id) === '') this.sendBus(b, buses);
    }
    if (regroup || this.expansionChanged || this.typeCursor < all.length) {
      for (const b of this.shownInstances()) {
        this.sendBus(b, buses);
        // Its types come along (pinned: never swapped out while shown), up to as many again as the cap.
        for (const t of b.types.values()) {
          if (this.sentTypes.has(t.index) || this.pinnedTypes.size >= this.options.maxTypes || t.index >= this.typeCursor) continue;
          this.pinnedTypes.add(t.index);
          const v = typeView(t, m.now);
          fullTypes.push(v);
          this.sentTypes.set(t.index, sentType(v));
          this.unomit(t);
        }
      }
      this.expansionChanged = false;
    }
    const groups = changesSince(this.grouper.views(), (g) => g.key, this.sentGroups);
    this.sentGroups = groups.fingerprints;
    if (groups.changed.length) out.busGroups = groups.changed;
    if (groups.gone.length) out.forgetBusGroups = groups.gone;
    // New types (type indices only grow): sent while under the cap, counted beyond it.
    for (let i = this.typeCursor; i < all.length; i++) {
      const t = all[i];
      const shownInstance = this.pinnedTypes.size < this.options.maxTypes && this.isShownInstance(t.busState);
      if (shownInstance) this.pinnedTypes.add(t.index);
      if (shownInstance || this.sentTypes.size - this.pinnedTypes.size < this.options.maxTypes) {
        const v = typeView(t, m.now);
        fullTypes.push(v);
        this.sentTypes.set(t.index, sentType(v));
        if (!this.sentBuses.has(t.bus)) this.sendBus(t.busState, buses);
      } else {
        this.omittedTypes++;
        this.omittedTypesByBus.set(t.bus, (this.omittedTypesByBus.get(t.bus) ?? 0) + 1);
      }
    }
    const firstNew = this.typeCursor;
    this.typeCursor = all.length;
    // Types already sent: only these are compared (at most `maxTypes`).
    for (const [index, prev] of this.sentTypes) {
      if (index >= firstNew) continue;
      const t = all[index];
      if (t === undefined) continue;
      const changedShape = prev.sites !== t.dispatchSites.length || prev.depthLimitHits !== t.depthLimitHits || prev.maxDepth !== t.maxDepth;
      if (changedShape) {
        const v = typeView(t, m.now);
        fullTypes.push(v);
        this.sentTypes.set(t.index, sentType(v));
        continue;
      }
      if (!statsDue) continue;
      const rate = t.rate.ratePerSecond(m.now);
      if (
        prev.dispatches !== t.dispatches ||
        prev.live !== t.live.size ||
        prev.unheard !== t.unheard ||
        prev.consumed !== t.consumed ||
        prev.errors !== t.handlerErrors ||
        Math.abs(prev.rate - rate) > Math.max(0.05, prev.rate * 0.02)
      ) {
        stats.index.push(t.index);
        stats.dispatches.push(t.dispatches);
        stats.ratePerSecond.push(rate);
        stats.liveSubscriptions.push(t.live.size);
        stats.unheard.push(t.unheard);
        stats.consumed.push(t.consumed);
        stats.handlerErrors.push(t.handlerErrors);
        stats.lastDispatchAt.push(Number.isFinite(t.lastDispatchAt) ? t.lastDispatchAt : -1);
        stats.count++;
        Object.assign(prev, { dispatches: t.dispatches, live: t.live.size, unheard: t.unheard, consumed: t.consumed, errors: t.handlerErrors, rate });
      }
    }
    if (this.omittedTypes > 0 && wall - this.lastRerankAt >= this.options.rerankIntervalMs) {
      this.lastRerankAt = wall;
      const forgetTypes = this.rerank(warnings, fullTypes);
      if (forgetTypes.length) out.forgetTypes = forgetTypes;
    }
    for (const v of fullTypes) {
      // The bus of a type sent (a rerank newcomer) must be known to the webview.
      if (!this.sentBuses.has(v.bus)) {
        const b = m.buses.get(v.bus);
        if (b !== undefined) this.sendBus(b, buses);
      }
    }
    if (buses.length) out.buses = buses;
    if (fullTypes.length) out.types = fullTypes;
    if (stats.count) out.typeStats = stats;

    const subs: SubscriptionView[] = [];
    const subStats = subscriptionStatsColumns();
    const forget: number[] = [];
    const maxSubs = this.options.maxSubscriptions;
    // New subscriptions: only in the types sent whose subscribe count or live count moved.
    for (const [index, prev] of this.sentTypes) {
      const t = all[index];
      if (t === undefined || (prev.subscribedEver === t.subscribedEver && prev.liveSubs === t.live.size)) continue;
      prev.subscribedEver = t.subscribedEver;
      prev.liveSubs = t.live.size;
      for (const s of t.live) {
        if (this.sentSubs.size >= maxSubs) break;
        if (this.sentSubs.has(s.id)) continue;
        const v = subscriptionView(s);
        subs.push(v);
        this.rememberSub(s, v);
      }
    }
    // The subscriptions sent (at most `maxSubscriptions`): ended, forgotten, figures.
    for (const [id, prev] of this.sentSubs) {
      const s = m.subscriptions.get(id);
      if (s === undefined || !this.sentTypes.has(s.type.index)) {
        // The model forgot it (ended long ago), or its type was replaced by a busier one: the webview forgets it too.
        forget.push(id);
        this.sentSubs.delete(id);
        continue;
      }
      if (prev.active !== s.active) {
        const v = subscriptionView(s);
        subs.push(v);
        this.sentSubs.set(s.id, sentSub(v, s.depthErrors));
        continue;
      }
      if (s.depthErrors !== prev.depthErrors) {
        if (s.lastDepthError) this.rememberSeq(this.depthSeqs, s.lastDepthError.seq);
        prev.depthErrors = s.depthErrors;
      }
      if (!statsDue) continue;
      const timed = s.durations?.count ?? 0;
      if (prev.calls !== s.calls || prev.consumed !== s.consumed || prev.errors !== s.errors || prev.timed !== timed) {
        const h = s.durations;
        subStats.id.push(s.id);
        subStats.calls.push(s.calls);
        subStats.consumed.push(s.consumed);
        subStats.errors.push(s.errors);
        subStats.lastCalledAt.push(Number.isFinite(s.lastCalledAt) ? s.lastCalledAt : -1);
        subStats.timedCalls.push(timed);
        subStats.totalMs.push(h ? h.total : 0);
        subStats.maxMs.push(h ? h.max : 0);
        subStats.p95Ms.push(h ? h.quantile(0.95) : 0);
        (subStats.sampledCalls as number[]).push(h ? h.samples : 0);
        subStats.count++;
        Object.assign(prev, { calls: s.calls, consumed: s.consumed, errors: s.errors, timed });
      }
    }
    if (subs.length) out.subscriptions = subs;
    if (forget.length) out.forgetSubscriptions = forget;
    if (subStats.count) out.subscriptionStats = subStats;

    if (statsDue) {
      const picked = changesSince(this.pickWarnings(warnings), (w) => w.id, this.sentWarnings);
      this.sentWarnings = picked.fingerprints;
      if (picked.changed.length) out.warnings = picked.changed;
      if (picked.gone.length) out.clearedWarnings = picked.gone;
      this.lastStatsAt = wall;
    }

    // Timeline: handler slices first (their error flags mark the dispatches that follow).
    const markers: TimelineMarker[] = [];
    const newHandlers = m.handlerSlices.written - this.handlerCursor;
    if (newHandlers > 0) {
      const h = this.collectHandlers(Math.min(newHandlers, m.handlerSlices.size, this.options.maxHandlersPerDelta));
      this.handlerCursor = m.handlerSlices.written;
      if (h.count) out.handlers = h;
    }
    const newDispatches = m.timeline.written - this.dispatchCursor;
    if (newDispatches > 0) {
      const take = Math.min(newDispatches, m.timeline.size, this.options.maxDispatchesPerDelta);
      const { columns, sites } = this.collectDispatches(take);
      this.dispatchCursor = m.timeline.written;
      if (columns.count) out.dispatches = columns;
      if (sites.length) out.sites = sites;
      if (newDispatches > take && columns.count > 0) markers.push({ kind: 'skipped', at: columns.start[0], count: newDispatches - take });
    }
    if (m.drops.records > this.droppedRecords) {
      markers.push({ kind: 'drop', at: m.now, count: m.drops.records - this.droppedRecords });
      this.droppedRecords = m.drops.records;
    }
    for (const v of fullTypes) {
      if (v.depthLimitHits > 0) {
        const t = m.typeAt(v.index);
        if (t && Number.isFinite(t.lastDepthLimitAt)) markers.push({ kind: 'depth-limit', at: t.lastDepthLimitAt, type: v.index, seq: 0 });
      }
    }
    if (markers.length) out.markers = markers;
    const omitted = this.omittedCounts();
    const omittedText = JSON.stringify(omitted);
    if (omittedText !== this.sentOmitted) {
      this.sentOmitted = omittedText;
      out.omitted = omitted;
    }

    for (const k of Object.keys(out)) if (k !== 'seq' && k !== 'now') any = true;
    if (!any) return null;
    out.seq = ++this.deltaSeq;
    return out as InspectorDelta;
  }

  /**
   * The groups the user expanded (and whose "+N more" is open): the next delta sends a page of
   * their instances, with those instances' types. Collapsing keeps what was sent (bounded by the
   * page sizes); the next snapshot leaves it out.
   */
  setExpansion(groups: Iterable<string>, more: Iterable<string>): void {
    const g = new Set(groups);
    const mo = new Set(more);
    if (sameSet(g, this.expanded) && sameSet(mo, this.expandedMore)) return;
    this.expanded = g;
    this.expandedMore = mo;
    this.expansionChanged = true;
    for (const index of [...this.pinnedTypes]) {
      const t = this.model.typeAt(index);
      if (t === undefined || !this.isShownInstance(t.busState)) this.pinnedTypes.delete(index);
    }
  }

  /** The library buses an expanded libraries group (or library class) stands for: what the probe should record in full. */
  expandedLibraryBuses(): number[] {
    if (!this.expanded.has(LIBRARIES_GROUP)) return [];
    return this.grouper.libraryBuses();
  }

  /** Bumped when the grouping was rebuilt (a snapshot, or the periodic regroup). */
  get groupingVersion(): number {
    return this.grouper.version;
  }

  /** The host's part of a selection's details (the model's explanation, a dispatch's handlers). */
  details(target: SelectionRef, payloadOf?: (seq: number) => string | null): DetailsView | null {
    switch (target.kind) {
      case 'subscription':
        return { kind: 'subscription', id: target.id, report: explainSubscription(this.model, target.id) };
      case 'dispatch':
        return { kind: 'dispatch', seq: target.seq, dispatch: this.dispatchDetails(target.seq, payloadOf) };
      case 'bus':
      case 'type':
      case 'site':
      case 'group':
        return null;
      default: {
        const never: never = target;
        return never;
      }
    }
  }

  rangeStats(from: number, to: number): RangeStatistics {
    return rangeStatistics(this.model, from, to);
  }

  // -------------------------------------------------------------------------------------------

  /**
   * The types a snapshot sends: all of them within the cap, else the most active ones — those a
   * warning names first, then by rate, live subscriptions and dispatches — in first-seen order.
   */
  private pickTypes(warnings: readonly Warning[], preferSent: boolean): EventTypeState[] {
    const m = this.model;
    const all = m.allTypes();
    const max = this.options.maxTypes;
    if (all.length <= max) return all.slice();
    const warned = new Set<string>();
    for (const w of warnings) for (const t of w.subjects.types) warned.add(`${t.bus}\u0000${t.type}`);
    const n = all.length;
    const score = new Float64Array(n);
    const live = new Float64Array(n);
    const dispatches = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const t = all[i];
      const rate = t.lastDispatchAt >= m.now - t.rate.windowMs ? t.rate.ratePerSecond(m.now) : 0;
      // Re-ranking favours the types already shown, so types near the cut do not flap in and out.
      const sticky = preferSent && this.sentTypes.has(t.index);
      score[i] = (warned.size > 0 && warned.has(`${t.bus}\u0000${t.name}`) ? 1e15 : 0) + (sticky ? rate * 1.5 + 1 : rate);
      live[i] = t.live.size;
      dispatches[i] = t.dispatches;
    }
    return topIndices(n, max, (a, b) => score[b] - score[a] || live[b] - live[a] || dispatches[b] - dispatches[a] || a - b).map((i) => all[i]);
  }

  /**
   * Over the type cap: the types now ranked into the top that are not sent replace sent ones that
   * fell out (at most `maxTypeSwaps`). Adds the newcomers to `fullTypes`; returns the indices dropped.
   */
  private rerank(warnings: readonly Warning[], fullTypes: TypeView[]): number[] {
    const m = this.model;
    const desired = this.pickTypes(this.pickWarnings(warnings), true);
    const wanted = new Set<number>();
    for (const t of desired) wanted.add(t.index);
    const incoming = desired.filter((t) => !this.sentTypes.has(t.index));
    if (incoming.length === 0) return [];
    const outgoing: number[] = [];
    for (const index of this.sentTypes.keys()) if (!wanted.has(index) && !this.pinnedTypes.has(index)) outgoing.push(index);
    const swaps = Math.min(incoming.length, outgoing.length, this.options.maxTypeSwaps);
    const byBus = this.omittedTypesByBus;
    const dropped = outgoing.slice(0, swaps);
    for (const index of dropped) {
      this.sentTypes.delete(index);
      const bus = m.typeAt(index)?.bus;
      if (bus !== undefined) byBus.set(bus, (byBus.get(bus) ?? 0) + 1);
    }
    for (const t of incoming.slice(0, swaps)) {
      const v = typeView(t, m.now);
      fullTypes.push(v);
      this.sentTypes.set(t.index, sentType(v));
      const left = (byBus.get(t.bus) ?? 0) - 1;
      if (left > 0) byBus.set(t.bus, left);
      else byBus.delete(t.bus);
    }
    return dropped;
  }

  /** At most `maxWarnings`, the most severe first (in their order within a severity). */
  private pickWarnings(warnings: readonly Warning[]): readonly Warning[] {
    const max = this.options.maxWarnings;
    if (warnings.length <= max) {
      this.omittedWarnings = 0;
      return warnings;
    }
    const out: Warning[] = [];
    for (const severity of ['error', 'warning', 'info'] as const) {
      for (const w of warnings) {
        if (out.length >= max) break;
        if (w.severity === severity) out.push(w);
      }
    }
    this.omittedWarnings = warnings.length - out.length;
    return out;
  }

  /** The instances the webview shows of the groups it has expanded (a page each). */
  private shownInstances(): BusState[] {
    const out: BusState[] = [];
    for (const key of this.expanded) {
      if (!this.isExpandedGroup(key)) continue;
      out.push(...this.grouper.page(key, this.expandedMore.has(key) ? MAX_INSTANCES_EXPANDED : MAX_INSTANCES_SHOWN));
    }
    return out;
  }

  /** Expanded and visible: a library class only inside the expanded libraries group. */
  private isExpandedGroup(key: string): boolean {
    if (!this.expanded.has(key)) return false;
    return key === LIBRARIES_GROUP || !key.startsWith('\u0000L:') || this.expanded.has(LIBRARIES_GROUP);
  }

  /** A bus sent as an instance of an expanded group. */
  private isShownInstance(bus: BusState): boolean {
    if (!this.sentBuses.has(bus.id)) return false;
    const key = this.grouper.groupKeyOf(bus.id);
    return key !== '' && this.isExpandedGroup(key);
  }

  private busViewOf(b: BusState): InspectorBusView {
    const group = this.grouper.groupKeyOf(b.id);
    this.sentBuses.set(b.id, `${b.name}\u0000${group}\u0000${b.thread}`);
    const v = busView(b, this.options.maxTypes);
    return group === '' ? v : { ...v, group };
  }

  /** Adds the bus's view to `out` when the webview does not have it as it is now (name and group). */
  private sendBus(b: BusState, out: InspectorBusView[]): void {
    if (this.sentBuses.get(b.id) === `${b.name}\u0000${this.grouper.groupKeyOf(b.id)}\u0000${b.thread}`) return;
    out.push(this.busViewOf(b));
  }

  /** A type counted as left out is sent after all. */
  private unomit(t: EventTypeState): void {
    const left = (this.omittedTypesByBus.get(t.bus) ?? 0) - 1;
    if (left < 0) return;
    this.omittedTypes--;
    if (left > 0) this.omittedTypesByBus.set(t.bus, left);
    else this.omittedTypesByBus.delete(t.bus);
  }

  private rememberSub(s: { readonly id: number; readonly depthErrors: number }, v: SubscriptionView): void {
    this.sentSubs.set(s.id, sentSub(v, s.depthErrors));
  }

  private omittedCounts(): OmittedCounts {
    // Per bus only for the buses the webview has (with 100,000 emitters, most are inside a group).
    const typesByBus: { bus: number; count: number }[] = [];
    if (this.omittedTypesByBus.size > 0)
      for (const bus of this.sentBuses.keys()) {
        const count = this.omittedTypesByBus.get(bus);
        if (count !== undefined) typesByBus.push({ bus, count });
      }
    // Sent subscriptions the model forgot are forgotten here too (see `delta`): a subset.
    return {
      types: this.omittedTypes,
      typesByBus,
      subscriptions: Math.max(0, this.model.subscriptions.size - this.sentSubs.size),
      warnings: this.omittedWarnings,
    };
  }

  private rememberSeq(set: Set<number>, seq: number): void {
    set.add(seq);
    if (set.size > 4096) set.delete(set.values().next().value as number);
  }

  /** The newest `n` handler slices, oldest first. */
  private collectHandlers(n: number): HandlerColumns {
    const ring = this.model.handlerSlices;
    const out = emptyHandlerColumns();
    for (let k = ring.size - n; k < ring.size; k++) {
      const i = ring.physicalIndex(k);
      out.seq.push(ring.seq[i]);
      out.subscription.push(ring.subscription[i]);
      out.start.push(micros(ring.start[i]));
      out.duration.push(tenthMicros(ring.duration[i]));
      out.flags.push(ring.flags[i]);
      if (ring.flags[i] & HandlerFlag.threw) this.rememberSeq(this.threwSeqs, ring.seq[i]);
      out.count++;
    }
    return out;
  }

  /** The newest `n` dispatches, oldest first, with their flags and the sites they reference. */
  private collectDispatches(n: number): { columns: DispatchColumns; sites: SiteView[] } {
    const m = this.model;
    const ring = m.timeline;
    const out = emptyDispatchColumns();
    const sites: SiteView[] = [];
    // Cross-thread columns only when the batch has a cross-thread event (older webviews and most batches need none).
    let fromThread: number[] | null = null;
    let enqueuedAt: number[] | null = null;
    for (let k = ring.size - n; k < ring.size; k++) {
      const i = ring.physicalIndex(k);
      const seq = ring.seq[i];
      const from = ring.fromThreadAt(i);
      if (from >= 0 && fromThread === null) {
        fromThread = new Array<number>(out.count).fill(-1);
        enqueuedAt = new Array<number>(out.count).fill(0);
      }
      if (fromThread !== null && enqueuedAt !== null) {
        fromThread.push(from);
        enqueuedAt.push(from >= 0 ? micros(ring.enqueuedAtAt(i)) : 0);
      }
      const site = ring.siteIndex[i];
      out.seq.push(seq);
      out.bus.push(ring.bus[i]);
      out.type.push(ring.typeIndex[i]);
      out.start.push(micros(ring.start[i]));
      out.duration.push(tenthMicros(ring.duration[i]));
      out.delivered.push(ring.delivered[i]);
      out.consumedBy.push(ring.consumedBy[i]);
      out.depth.push(ring.depth[i]);
      out.parentSeq.push(ring.parentSeq[i]);
      out.site.push(site);
      out.startBound.push(Math.round(ring.startBound[i] * 1000));
      out.flags.push(
        (ring.delivered[i] === 0 ? DispatchFlag.unheard : 0) |
          (this.threwSeqs.has(seq) ? DispatchFlag.error : 0) |
          (this.depthSeqs.has(seq) ? DispatchFlag.depthLimit : 0),
      );
      out.count++;
      if (site >= 0 && !this.sentSites.has(site)) {
        const info = m.siteAt(site);
        if (info) {
          sites.push({ index: site, site: info });
          this.sentSites.add(site);
        }
      }
    }
    if (fromThread !== null && enqueuedAt !== null) return { columns: { ...out, fromThread, enqueuedAt }, sites };
    return { columns: out, sites };
  }

  private dispatchDetails(seq: number, payloadOf?: (seq: number) => string | null) {
    const m = this.model;
    const ring = m.timeline;
    let found = -1;
    for (let k = ring.size - 1; k >= 0; k--) {
      const i = ring.physicalIndex(k);
      if (ring.seq[i] === seq) {
        found = i;
        break;
      }
    }
    if (found < 0) return null;
    const dispatch = dispatchAt(m, found);
    const handlers = handlerSlicesOf(m, seq).map((h) => {
      const sub = m.subscriptions.get(h.subscription);
      const err = sub?.lastError?.seq === seq ? sub.lastError : sub?.lastDepthError?.seq === seq ? sub.lastDepthError : null;
      return {
        subscription: h.subscription,
        label: sub?.label ?? sub?.owner ?? null,
        start: h.start,
        duration: h.duration,
        consumed: h.consumed,
        threw: h.threw,
        error: err ? err.message : null,
      };
    });
    const traceId = ring.traceIdAt(found);
    return traceId === null
      ? { dispatch, handlers, payloadPreview: payloadOf?.(seq) ?? null }
      : { dispatch, handlers, payloadPreview: payloadOf?.(seq) ?? null, traceId };
  }
}

/**
 * A keyed list against the fingerprints (JSON) sent last: the items new or changed since, the keys
 * sent and gone since, and the fingerprints to keep for the next delta.
 */
function changesSince<T>(
  items: Iterable<T>,
  keyOf: (item: T) => string,
  sent: ReadonlyMap<string, string>,
): { changed: T[]; gone: string[]; fingerprints: Map<string, string> } {
  const fingerprints = new Map<string, string>();
  const changed: T[] = [];
  for (const item of items) {
    const key = keyOf(item);
    const fp = JSON.stringify(item);
    fingerprints.set(key, fp);
    if (sent.get(key) !== fp) changed.push(item);
  }
  const gone = [...sent.keys()].filter((k) => !fingerprints.has(k));
  return { changed, gone, fingerprints };
}

function isNothingOmitted(o: OmittedCounts): boolean {
  return o.types === 0 && o.subscriptions === 0 && o.warnings === 0;
}

/** Times travel as JSON: µs precision (starts) and 0.1 µs (durations) keep them short. */
function micros(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

function tenthMicros(ms: number): number {
  return Math.round(ms * 10_000) / 10_000;
}

function sentType(t: TypeView): SentType {
  return {
    sites: t.dispatchSites.length,
    dispatches: t.dispatches,
    live: t.liveSubscriptions,
    unheard: t.unheard,
    consumed: t.consumed,
    errors: t.handlerErrors,
    rate: t.ratePerSecond,
    depthLimitHits: t.depthLimitHits,
    maxDepth: t.maxDepth,
    // Unknown: the next delta looks at the type's subscriptions once.
    subscribedEver: -1,
    liveSubs: -1,
  };
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const k of a) if (!b.has(k)) return false;
  return true;
}

function sentSub(v: SubscriptionView, depthErrors: number): SentSub {
  return { active: v.active, calls: v.calls, consumed: v.consumed, errors: v.errors, timed: v.timing?.calls ?? 0, depthErrors };
}

function typeStatsColumns(): { -readonly [K in keyof TypeStatsColumns]: K extends 'count' ? number : number[] } {
  return { count: 0, index: [], dispatches: [], ratePerSecond: [], liveSubscriptions: [], unheard: [], consumed: [], handlerErrors: [], lastDispatchAt: [] };
}

function subscriptionStatsColumns(): { -readonly [K in keyof SubscriptionStatsColumns]: K extends 'count' ? number : number[] } {
  return { count: 0, id: [], calls: [], consumed: [], errors: [], lastCalledAt: [], timedCalls: [], totalMs: [], maxMs: [], p95Ms: [], sampledCalls: [] };
}
