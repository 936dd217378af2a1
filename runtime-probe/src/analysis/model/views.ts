// Plain, JSON-safe views of the model's entities (no Infinity, no Maps, no class instances): what
// trees, the webview and analyses' evidence carry. Times are record times (ms since the origin).
import type { BusKind, SiteInfo, SubscriptionSnapshot } from '../../protocol/index';
import type { BusState, EndReason, EventTypeState, OwnerState, SubscriptionState } from './entities';

/** The snapshot fields a view carries as they are (its `createdAt` is a record time, not epoch ms). */
type SnapshotSubscriptionFields = 'id' | 'bus' | 'type' | 'priority' | 'label' | 'owner' | 'ownerId' | 'once' | 'site' | 'calls' | 'beforeProbe' | 'origin';

/** A subscription as the model knows it: the probe's snapshot of it, plus what the records told since. */
export interface SubscriptionView extends Pick<SubscriptionSnapshot, SnapshotSubscriptionFields> {
  /** Record time (ms since the origin), unlike the snapshot's epoch ms. */
  readonly createdAt: number;
  readonly observedFrom: number;
  readonly fromSnapshot: boolean;
  readonly active: boolean;
  readonly endedAt: number | null;
  readonly endReason: EndReason | null;
  /** Still registered when its bus was disposed (the app never removed it). */
  readonly endedWithBus: boolean;
  readonly lastCalledAt: number | null;
  readonly consumed: number;
  readonly errors: number;
  readonly lastError: { readonly time: number; readonly message: string } | null;
  /**
   * Handler timing (null without handler records). `calls` counts the calls the timed ones stand for;
   * `sampleEvery` (present when above 1) says they were 1 in that many on average (detail `handlers`
   * samples busy types), the figures then being estimates weighted by it.
   */
  readonly timing: {
    readonly calls: number;
    readonly totalMs: number;
    readonly meanMs: number;
    readonly maxMs: number;
    readonly p95Ms: number;
    readonly sampleEvery?: number;
  } | null;
}

export interface TypeView {
  readonly index: number;
  readonly bus: number;
  readonly type: string;
  readonly liveSubscriptions: number;
  /** Subscriptions still registered when the bus was disposed. */
  readonly retiredSubscriptions: number;
  readonly subscribedEver: number;
  readonly dispatches: number;
  readonly dispatchesBeforeAttach: number;
  readonly ratePerSecond: number;
  readonly unheard: number;
  readonly consumed: number;
  readonly totalDurationMs: number;
  readonly maxDurationMs: number;
  readonly maxDepth: number;
  readonly depthLimitHits: number;
  readonly enqueued: number;
  readonly handlerErrors: number;
  readonly firstDispatchAt: number | null;
  readonly lastDispatchAt: number | null;
  readonly dispatchSites: readonly SiteInfo[];
}

export interface BusView {
  readonly id: number;
  readonly name: string;
  readonly createdAt: number;
  readonly disposedAt: number | null;
  readonly dispatches: number;
  readonly liveSubscriptions: number;
  readonly enqueued: number;
  readonly flushes: number;
  readonly depthLimitHits: number;
  readonly ownersCollected: number;
  /** Type names on this bus, in first-seen order (the inspector feed sends at most its type cap). */
  readonly types: readonly string[];
  /** How many types the bus has (`types` may be cut short). */
  readonly typeCount?: number;
  /** What the bus is, when the probe said (protocol 3): an EventBus or an emitter's kind. */
  readonly kind?: BusKind;
  /** The `worker_threads` threadId of the thread that created the bus; absent or 0: the main thread. */
  readonly thread?: number;
}

/** A thread of the app (worker_threads; a page's workers) that has reported buses. */
export interface ThreadView {
  /** `threadId` (0: the main thread). */
  readonly id: number;
  /** The worker's name (`new Worker(file, { name })`) or its script's file name; 'main' for 0. */
  readonly name: string;
  readonly startedAt: number;
  readonly exitedAt: number | null;
}

export interface OwnerView {
  readonly description: string;
  /** The probe's per-process owner id (null when the stream does not carry it). */
  readonly ownerId?: number | null;
  readonly liveSubscriptions: readonly number[];
  readonly subscribedEver: number;
  readonly collectedAt: number | null;
}

export function finiteOrNull(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}

function lastErrorOf(s: SubscriptionState): SubscriptionView['lastError'] {
  const a = s.lastError;
  const b = s.lastDepthError;
  const e = a === null ? b : b === null ? a : a.time >= b.time ? a : b;
  return e === null ? null : { time: e.time, message: e.message };
}

/** Timing figures of `count` calls stood for by `samples` timed ones. */
export function timingView(count: number, samples: number, totalMs: number, maxMs: number, p95Ms: number): NonNullable<SubscriptionView['timing']> {
  const base = { calls: count, totalMs, meanMs: count === 0 ? 0 : totalMs / count, maxMs, p95Ms };
  return samples > 0 && count > samples ? { ...base, sampleEvery: count / samples } : base;
}

export function subscriptionView(s: SubscriptionState): SubscriptionView {
  const h = s.durations;
  return {
    id: s.id,
    bus: s.bus,
    type: s.type.name,
    priority: s.priority,
    label: s.label,
    owner: s.owner,
    ownerId: s.ownerId,
    once: s.once,
    site: s.site,
    createdAt: s.createdAt,
    observedFrom: s.observedFrom,
    fromSnapshot: s.fromSnapshot,
    ...(s.beforeProbe ? { beforeProbe: true } : {}),
    ...(s.origin !== null ? { origin: s.origin } : {}),
    active: s.active,
    endedAt: s.endedAt,
    endReason: s.endReason,
    endedWithBus: s.endedWithBus,
    calls: s.calls,
    lastCalledAt: finiteOrNull(s.lastCalledAt),
    consumed: s.consumed,
    errors: s.errors,
    lastError: lastErrorOf(s),
    timing: h === null ? null : timingView(h.count, h.samples, h.total, h.max, h.quantile(0.95)),
  };
}

export function typeView(t: EventTypeState, now: number): TypeView {
  return {
    index: t.index,
    bus: t.bus,
    type: t.name,
    liveSubscriptions: t.live.size,
    retiredSubscriptions: t.retired.size,
    subscribedEver: t.subscribedEver,
    dispatches: t.dispatches,
    dispatchesBeforeAttach: t.dispatchesBeforeAttach,
    ratePerSecond: t.rate.ratePerSecond(now),
    unheard: t.unheard,
    consumed: t.consumed,
    totalDurationMs: t.totalDuration,
    maxDurationMs: t.maxDuration,
    maxDepth: t.maxDepth,
    depthLimitHits: t.depthLimitHits,
    enqueued: t.enqueued,
    handlerErrors: t.handlerErrors,
    firstDispatchAt: finiteOrNull(t.firstDispatchAt),
    lastDispatchAt: finiteOrNull(t.lastDispatchAt),
    dispatchSites: [...t.dispatchSites],
  };
}

/** `maxTypeNames` cuts `types` short (a bus of 100,000 types need not carry every name). */
export function busView(b: BusState, maxTypeNames = Infinity): BusView {
  let live = 0;
  const names: string[] = [];
  for (const t of b.types.values()) {
    live += t.live.size;
    if (names.length < maxTypeNames) names.push(t.name);
  }
  return {
    id: b.id,
    name: b.name,
    createdAt: b.createdAt,
    disposedAt: b.disposedAt,
    dispatches: b.dispatches,
    liveSubscriptions: live,
    enqueued: b.enqueued,
    flushes: b.flushes,
    depthLimitHits: b.depthLimitHits,
    ownersCollected: b.ownersCollected,
    types: names,
    typeCount: b.types.size,
    ...(b.kind !== null ? { kind: b.kind } : {}),
    ...(b.thread !== 0 ? { thread: b.thread } : {}),
  };
}

export function ownerView(o: OwnerState): OwnerView {
  return {
    description: o.description,
    ownerId: o.ownerId,
    liveSubscriptions: [...o.live].map((s) => s.id),
    subscribedEver: o.subscribedEver,
    collectedAt: o.collectedAt,
  };
}
