// Everything the webview knows about the session it shows, fed by `snapshot` and `delta` messages:
// the model's own views (buses, types, subscriptions, warnings) plus the timeline rings. Every
// collection has a cap (see `StoreLimits`); what a cap refuses is counted, never silently lost.

import type {
  BusGroupView,
  InspectorBusView,
  InspectorDelta,
  InspectorSnapshot,
  OmittedCounts,
  SessionView,
  SiteInfo,
  SubscriptionHealth,
  SubscriptionStatsColumns,
  SubscriptionView,
  TypeStatsColumns,
  TypeView,
  Warning,
} from '../../../runtime-probe/src/analysis/inspector-messages';
import { emptySession } from '../../../runtime-probe/src/analysis/inspector-messages';
import { BoundedMap } from './boundedQueue';
import { healthFromWarnings } from './health';
import { TimelineStore } from './timelineStore';
import { threadsKey } from './threads';

export interface StoreLimits {
  readonly dispatches: number;
  readonly handlers: number;
  readonly markers: number;
  /** Live subscriptions held; beyond it new ones are counted in `hiddenSubscriptions`. */
  readonly subscriptions: number;
  /** Ended subscriptions kept for details and explanations (oldest forgotten first). */
  readonly endedSubscriptions: number;
  readonly warnings: number;
  /** Sites referenced by the timeline. */
  readonly sites: number;
}

export const DEFAULT_LIMITS: StoreLimits = {
  dispatches: 200_000,
  handlers: 200_000,
  markers: 4_096,
  subscriptions: 50_000,
  endedSubscriptions: 2_000,
  warnings: 2_000,
  sites: 50_000,
};

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export type DeltaResult = 'applied' | 'gap' | 'stale';

/** Calls per second of a subscription, smoothed over successive stats updates. */
interface RateTrack {
  calls: number;
  at: number;
  rate: number;
}

export function typeKey(bus: number, name: string): string {
  return `${bus}\u0000${name}`;
}

export function siteKey(site: SiteInfo): string {
  return `${site.file}:${site.line}:${site.column}`;
}

export class InspectorStore {
  readonly limits: StoreLimits;
  session: SessionView = emptySession();
  now = 0;
  readonly buses = new Map<number, InspectorBusView>();
  /**
   * The host's groups of buses ("Socket ×40,000", the libraries), by key; null when the host sent
   * every bus ungrouped (the webview then groups what it has itself).
   */
  busGroups: Map<string, BusGroupView> | null = null;
  readonly types = new Map<number, Mutable<TypeView>>();
  readonly subscriptions = new Map<number, Mutable<SubscriptionView>>();
  readonly warnings: BoundedMap<string, Warning>;
  /** Timeline site column → site. */
  readonly sites: BoundedMap<number, SiteInfo>;
  readonly timeline: TimelineStore;
  /** Live subscriptions refused by the cap. */
  hiddenSubscriptions = 0;
  /** What the host did not send (it caps types, subscriptions and warnings); null: nothing. */
  omitted: OmittedCounts | null = null;
  /** Bumped when entities were added, removed or renamed (the graph rebuilds its structure). */
  structureVersion = 0;
  /** Bumped when figures (rates, counts) changed. */
  statsVersion = 0;
  warningsVersion = 0;
  sessionVersion = 0;
  /** Seq of the last applied delta; deltas must follow without gaps. */
  lastDeltaSeq = 0;
  hasSnapshot = false;

  private readonly typeIndexByKey = new Map<string, number>();
  private readonly endedOrder = new Set<number>();
  private readonly rates = new Map<number, RateTrack>();
  private health = new Map<number, ReadonlySet<SubscriptionHealth>>();
  private healthVersion = -1;

  constructor(limits: Partial<StoreLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    for (const [k, v] of Object.entries(this.limits)) {
      if (!Number.isInteger(v) || v < 1) throw new TypeError(`StoreLimits.${k} must be a positive integer, got ${v}`);
    }
    this.sites = new BoundedMap(this.limits.sites);
    this.warnings = new BoundedMap(this.limits.warnings);
    this.timeline = new TimelineStore(this.limits);
  }

  applySnapshot(s: InspectorSnapshot): void {
    this.buses.clear();
    this.types.clear();
    this.typeIndexByKey.clear();
    this.subscriptions.clear();
    this.endedOrder.clear();
    this.rates.clear();
    this.warnings.clear();
    this.sites.clear();
    this.timeline.clear();
    this.hiddenSubscriptions = 0;
    this.omitted = s.omitted ?? null;
    this.setSession(s.session);
    this.now = s.now;
    for (const b of s.buses) this.buses.set(b.id, b);
    this.busGroups = s.busGroups === undefined ? null : new Map(s.busGroups.map((g) => [g.key, g]));
    for (const t of s.types) this.putType(t);
    for (const sub of s.subscriptions) this.putSubscription(sub);
    for (const w of s.warnings) this.warnings.set(w.id, w);
    for (const site of s.sites) this.sites.set(site.index, site.site);
    this.timeline.appendDispatches(s.dispatches);
    this.timeline.appendHandlers(s.handlers);
    this.timeline.addMarkers(s.markers);
    this.lastDeltaSeq = 0;
    this.hasSnapshot = true;
    this.structureVersion++;
    this.statsVersion++;
    this.warningsVersion++;
  }

  /** Applies a delta; 'gap' when one was missed (the caller asks for a new snapshot). */
  applyDelta(d: InspectorDelta): DeltaResult {
    if (!this.hasSnapshot || d.seq <= this.lastDeltaSeq) return 'stale';
    if (d.seq !== this.lastDeltaSeq + 1) return 'gap';
    this.lastDeltaSeq = d.seq;
    if (d.now > this.now) this.now = d.now;
    let structure = false;
    for (const b of d.buses ?? []) {
      const old = this.buses.get(b.id);
      if (!old || old.name !== b.name || old.group !== b.group) structure = true;
      this.buses.set(b.id, b);
    }
    if (d.busGroups || d.forgetBusGroups) {
      const groups = (this.busGroups ??= new Map());
      for (const g of d.busGroups ?? []) {
        const old = groups.get(g.key);
        // Figures redraw with the structure: a group node's badge and detail are built with it.
        groups.set(g.key, g);
        if (old === undefined || old.buses !== g.buses || old.types !== g.types || old.listeners !== g.listeners) structure = true;
        else this.statsVersion++;
      }
      for (const key of d.forgetBusGroups ?? []) if (groups.delete(key)) structure = true;
    }
    for (const index of d.forgetTypes ?? []) {
      const t = this.types.get(index);
      if (t === undefined) continue;
      this.types.delete(index);
      if (this.typeIndexByKey.get(typeKey(t.bus, t.type)) === index) this.typeIndexByKey.delete(typeKey(t.bus, t.type));
      structure = true;
    }
    for (const t of d.types ?? []) {
      if (this.putType(t)) structure = true;
    }
    for (const s of d.subscriptions ?? []) {
      this.putSubscription(s);
      structure = true;
    }
    for (const id of d.forgetSubscriptions ?? []) {
      if (this.subscriptions.delete(id)) structure = true;
      this.endedOrder.delete(id);
      this.rates.delete(id);
    }
    if (d.omitted) {
      this.omitted = d.omitted.types === 0 && d.omitted.subscriptions === 0 && d.omitted.warnings === 0 ? null : d.omitted;
      structure = true;
    }
    if (d.typeStats) this.applyTypeStats(d.typeStats);
    if (d.subscriptionStats) this.applySubscriptionStats(d.subscriptionStats, d.now);
    if (d.warnings || d.clearedWarnings) {
      for (const w of d.warnings ?? []) this.warnings.set(w.id, w);
      for (const id of d.clearedWarnings ?? []) this.warnings.delete(id);
      this.warningsVersion++;
    }
    for (const site of d.sites ?? []) this.sites.set(site.index, site.site);
    if (d.dispatches) this.timeline.appendDispatches(d.dispatches);
    if (d.handlers) this.timeline.appendHandlers(d.handlers);
    if (d.markers) this.timeline.addMarkers(d.markers);
    if (structure) this.structureVersion++;
    return 'applied';
  }

  setSession(session: SessionView): void {
    // New or exited threads regroup the buses (graph outline and timeline lanes).
    if (threadsKey(session.threads) !== threadsKey(this.session.threads)) this.structureVersion++;
    this.session = session;
    this.sessionVersion++;
  }

  /** Types of a bus the host did not send. */
  omittedTypesOf(bus: number): number {
    if (this.omitted === null) return 0;
    for (const b of this.omitted.typesByBus) if (b.bus === bus) return b.count;
    return 0;
  }

  busName(id: number): string {
    return this.buses.get(id)?.name ?? `bus ${id}`;
  }

  typeName(index: number): string {
    return this.types.get(index)?.type ?? `type #${index}`;
  }

  /** The model's type index of (bus, name), or -1 when the store has no such type. */
  typeIndexOf(bus: number, name: string): number {
    return this.typeIndexByKey.get(typeKey(bus, name)) ?? -1;
  }

  typeOfSubscription(s: SubscriptionView): number {
    return this.typeIndexOf(s.bus, s.type);
  }

  subscriptionLabel(id: number): string {
    const s = this.subscriptions.get(id);
    if (!s) return `subscription #${id}`;
    return s.label || s.owner || `subscription #${id}`;
  }

  /** Live subscriptions (ended ones are kept only for details). */
  *activeSubscriptions(): IterableIterator<SubscriptionView> {
    for (const s of this.subscriptions.values()) if (s.active) yield s;
  }

  /** Calls per second, smoothed; falls back to its type's rate before two updates were seen. */
  subscriptionRate(id: number): number {
    const r = this.rates.get(id);
    if (r && r.rate >= 0) {
      // Stats come only for subscriptions whose calls changed: silence means the rate is falling.
      const quiet = this.now - r.at;
      return quiet > 1000 ? r.rate * Math.exp(-(quiet - 1000) / 1000) : r.rate;
    }
    const s = this.subscriptions.get(id);
    if (!s || s.calls === 0) return 0;
    return this.types.get(this.typeOfSubscription(s))?.ratePerSecond ?? 0;
  }

  /** What the current warnings say about a subscription. */
  healthOf(id: number): ReadonlySet<SubscriptionHealth> {
    if (this.healthVersion !== this.warningsVersion) {
      this.health = healthFromWarnings(this.warnings.values());
      this.healthVersion = this.warningsVersion;
    }
    return this.health.get(id) ?? NO_HEALTH;
  }

  private putType(t: TypeView): boolean {
    const old = this.types.get(t.index);
    this.types.set(t.index, { ...t, dispatchSites: [...t.dispatchSites] });
    this.typeIndexByKey.set(typeKey(t.bus, t.type), t.index);
    return !old || old.type !== t.type || old.bus !== t.bus || old.dispatchSites.length !== t.dispatchSites.length;
  }

  private putSubscription(s: SubscriptionView): void {
    const existing = this.subscriptions.get(s.id);
    if (!existing && s.active && this.subscriptions.size - this.endedOrder.size >= this.limits.subscriptions) {
      this.hiddenSubscriptions++;
      return;
    }
    this.subscriptions.set(s.id, { ...s });
    if (!s.active) {
      this.endedOrder.delete(s.id);
      this.endedOrder.add(s.id);
      this.rates.delete(s.id);
      while (this.endedOrder.size > this.limits.endedSubscriptions) {
        const oldest = this.endedOrder.values().next().value as number;
        this.endedOrder.delete(oldest);
        this.subscriptions.delete(oldest);
      }
    } else if (existing && !existing.active) this.endedOrder.delete(s.id);
  }

  private applyTypeStats(c: TypeStatsColumns): void {
    for (let k = 0; k < c.count; k++) {
      const t = this.types.get(c.index[k]);
      if (!t) continue;
      t.dispatches = c.dispatches[k];
      t.ratePerSecond = c.ratePerSecond[k];
      t.liveSubscriptions = c.liveSubscriptions[k];
      t.unheard = c.unheard[k];
      t.consumed = c.consumed[k];
      t.handlerErrors = c.handlerErrors[k];
      t.lastDispatchAt = c.lastDispatchAt[k] < 0 ? null : c.lastDispatchAt[k];
    }
    if (c.count > 0) this.statsVersion++;
  }

  private applySubscriptionStats(c: SubscriptionStatsColumns, now: number): void {
    for (let k = 0; k < c.count; k++) {
      const id = c.id[k];
      const s = this.subscriptions.get(id);
      if (!s) continue;
      const calls = c.calls[k];
      const r = this.rates.get(id);
      if (!r) this.rates.set(id, { calls, at: now, rate: -1 });
      else if (now > r.at) {
        const instant = ((calls - r.calls) * 1000) / (now - r.at);
        r.rate = r.rate < 0 ? instant : r.rate * 0.6 + instant * 0.4;
        r.calls = calls;
        r.at = now;
      }
      s.calls = calls;
      s.consumed = c.consumed[k];
      s.errors = c.errors[k];
      s.lastCalledAt = c.lastCalledAt[k] < 0 ? null : c.lastCalledAt[k];
      const timed = c.timedCalls[k];
      // Fewer timed calls than the calls they stand for: detail `handlers` timed a sample of them.
      const sampled = c.sampledCalls?.[k] ?? timed;
      const timing = { calls: timed, totalMs: c.totalMs[k], meanMs: c.totalMs[k] / timed, maxMs: c.maxMs[k], p95Ms: c.p95Ms[k] };
      s.timing = timed <= 0 ? null : sampled > 0 && timed > sampled ? { ...timing, sampleEvery: timed / sampled } : timing;
    }
    if (c.count > 0) this.statsVersion++;
  }
}

const NO_HEALTH: ReadonlySet<SubscriptionHealth> = new Set();
