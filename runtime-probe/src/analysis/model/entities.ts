// The model's live state: buses, event types, subscriptions and owners, as mutable records the
// model updates in place (no allocation per dispatch). Everything outside the model reads them
// through the `Readonly…` views and `ModelSnapshot`.
import type { BusKind, SiteInfo, SiteOrigin, UnsubscribeReason } from '../../protocol/index';
import { DurationHistogram, WindowedCounter } from './stats';

/** Why the model considers a subscription ended: a probe reason, or gone from a later snapshot. */
export type EndReason = UnsubscribeReason | 'missing-from-snapshot';

export interface RateWindow {
  readonly bucketMs: number;
  readonly buckets: number;
}

/** `file:line:column`: how sites are grouped and compared. */
export function siteKey(site: SiteInfo): string {
  return `${site.file}:${site.line}:${site.column}`;
}

/** The bus's handler order (bus/priority.ts), which the model, analyses and views follow. */
export { byExecutionOrder, runsBefore } from '../../bus/priority';

/** A probe-side owner description names one object when it carries an id or name (`Enemy#12`). */
export function ownerIsIdentifiable(owner: string | null): owner is string {
  return owner !== null && owner.includes('#');
}

/**
 * How the model tells owners apart: by the probe's per-process owner id when the stream carries it
 * (every distinct owner object has one), else by the description. The two key spaces cannot meet:
 * an id key starts with a NUL, which no description does.
 */
export function ownerKey(description: string, ownerId: number | null | undefined): string {
  return ownerId != null && ownerId > 0 ? `\u0000${ownerId}` : description;
}

/**
 * The owner's key when it names exactly one object — an owner id, or a description that carries an
 * id or name (`Enemy#12`) — else null (`Enemy` may be many objects).
 */
export function ownerIdentity(owner: string | null, ownerId: number | null | undefined): string | null {
  if (owner === null) return null;
  if (ownerId != null && ownerId > 0) return ownerKey(owner, ownerId);
  return ownerIsIdentifiable(owner) ? owner : null;
}

/**
 * The owner as warnings name it: its description, plus the owner id when the description alone
 * does not single it out (`Enemy (owner 7)`).
 */
export function ownerLabel(owner: string, ownerId: number | null | undefined): string {
  return ownerId != null && ownerId > 0 && !ownerIsIdentifiable(owner) ? `${owner} (owner ${ownerId})` : owner;
}

export class BusState {
  readonly types = new Map<string, EventTypeState>();
  disposedAt: number | null = null;
  dispatches = 0;
  flushes = 0;
  enqueued = 0;
  /** The deferred queue as the latest enqueue/flush record left it: events waiting to flush. */
  queueLength = 0;
  maxQueueLength = 0;
  /** When the queue last went from empty to non-empty (null while empty). */
  queueWaitingSince: number | null = null;
  lastFlushAt: number | null = null;
  /** Events each of the latest flushes dispatched (at most 8, oldest first): rising means the producers outrun the consumer. */
  readonly recentFlushSizes: number[] = [];
  depthLimitHits = 0;
  ownersCollected = 0;
  /**
   * Node's MaxListenersExceededWarning per event name of this (watched emitter) bus, the latest
   * one: the listener count it fired at and its text. Node warns once per emitter and event.
   */
  /** Events from producer threads dropped at the producer queue's cap (`producer-drops` messages), and the latest policy and cap. */
  producerDropped = 0;
  producerDropPolicy: 'oldest' | 'newest' | null = null;
  producerCap = 0;
  /** Where producer threads connected to this bus (`producer-connected` messages; distinct, at most 16). */
  readonly producerSites: SiteInfo[] = [];
  readonly maxListenersWarnings = new Map<string, { readonly count: number; readonly time: number; readonly message: string }>();
  /**
   * Subscriptions just removed with reason `clear`. `dispose()` clears the bus and then reports it
   * disposed; if `bus-disposed` follows, they were still registered when the bus ended (the app
   * never removed them); any other record of the bus first means a plain `clear()`.
   */
  readonly pendingClear: SubscriptionState[] = [];
  /** What the bus is, when the probe said (protocol 3, snapshots): an EventBus or a watched emitter's kind. */
  kind: BusKind | null = null;
  /** A watched emitter's class name (`Hub`), when the probe said. */
  className: string | null = null;
  /** The worker thread that created it (protocol 5: its records came in a thread's batches); 0: the main thread. */
  thread = 0;

  constructor(
    readonly id: number,
    public name: string,
    /** Record time (ms since the time origin); may be negative for buses created before attach. */
    public createdAt: number,
  ) {}
}

/** Counters of subscriptions of one (type, subscribe site) that ended a given way. */
export class SiteRemovals {
  count = 0;
  deadOwner = 0;
  collected = 0;
  firstAt = Infinity;
  lastAt = -Infinity;
  /** Up to 8 owners (descriptions, with the owner id where they repeat: see `ownerLabel`), for the explanation. */
  readonly owners: string[] = [];
  /** Keys (see `ownerKey`) of `owners`, in the same order. */
  private readonly ownerKeys: string[] = [];
  /** Up to 8 subscription ids, newest last. */
  readonly subscriptionIds: number[] = [];

  constructor(
    readonly site: SiteInfo | null,
    readonly label: string | null,
  ) {}

  add(time: number, owner: string | null, id: number, reason: 'dead-owner' | 'collected', ownerId: number | null = null): void {
    this.count++;
    if (reason === 'dead-owner') this.deadOwner++;
    else this.collected++;
    if (time < this.firstAt) this.firstAt = time;
    if (time > this.lastAt) this.lastAt = time;
    if (owner !== null && this.owners.length < 8) {
      const key = ownerKey(owner, ownerId);
      if (!this.ownerKeys.includes(key)) {
        this.ownerKeys.push(key);
        this.owners.push(ownerLabel(owner, ownerId));
      }
    }
    this.subscriptionIds.push(id);
    if (this.subscriptionIds.length > 8) this.subscriptionIds.shift();
  }
}

/** Subscribe→unsubscribe cycles of one (type, subscribe site): the churn analysis reads these. */
export class ChurnCounter {
  readonly cycles: WindowedCounter;
  /** Sum of lifetimes (ms) of the cycles in the same window. */
  readonly lifetimes: WindowedCounter;
  total = 0;

  constructor(
    readonly type: EventTypeState,
    readonly site: SiteInfo | null,
    readonly label: string | null,
    window: RateWindow,
  ) {
    this.cycles = new WindowedCounter(window.bucketMs, window.buckets);
    this.lifetimes = new WindowedCounter(window.bucketMs, window.buckets);
  }
}

/**
 * Shared, always-empty stand-ins for the per-type collections most types never use: an app with
 * 100,000 event types (one dispatch each) must not pay for 100,000 empty maps, sets and rate
 * windows. Readers get these; the model swaps in a real one on first write (`EventTypeState.ensure…`).
 */
const EMPTY_SUBSCRIPTIONS: ReadonlySet<SubscriptionState> = new Set();
const EMPTY_CONSUMERS: ReadonlyMap<number, ConsumerCount> = new Map();
const EMPTY_REMOVALS: ReadonlyMap<string, SiteRemovals> = new Map();
/** Per window: an all-zero counter reads as 0 at any time (nothing ever adds to it). */
const emptyCounters = new WeakMap<RateWindow, WindowedCounter>();
function emptyCounter(window: RateWindow): WindowedCounter {
  let c = emptyCounters.get(window);
  if (c === undefined) emptyCounters.set(window, (c = new WindowedCounter(window.bucketMs, window.buckets)));
  return c;
}

export interface ConsumerCount {
  count: number;
  readonly priority: number;
  readonly label: string | null;
}

export class EventTypeState {
  /** Live subscriptions to exactly this type (for `'*'`: the bus's wildcard subscriptions). */
  readonly live = new Set<SubscriptionState>();
  /**
   * Subscriptions still registered when the bus was disposed (usually the app shutting down).
   * The bus's final state stays judgeable after the app exits: see `registered()`.
   */
  get retired(): ReadonlySet<SubscriptionState> {
    return this.retiredSet ?? EMPTY_SUBSCRIPTIONS;
  }
  private retiredSet: Set<SubscriptionState> | null = null;
  subscribedEver = 0;
  /** Dispatches observed (records), plus the snapshot's count from before attach. */
  dispatches = 0;
  /** From the snapshot: dispatches the probe had counted before this model saw records. */
  dispatchesBeforeAttach = 0;
  firstDispatchAt = Infinity;
  lastDispatchAt = -Infinity;
  /** Dispatches with `delivered` 0. */
  unheard = 0;
  lastUnheardAt = -Infinity;
  lastHeardAt = -Infinity;
  consumed = 0;
  /** Consumer subscription id → dispatches of this type it consumed. */
  get consumers(): ReadonlyMap<number, ConsumerCount> {
    return this.consumerMap ?? EMPTY_CONSUMERS;
  }
  private consumerMap: Map<number, ConsumerCount> | null = null;
  totalDuration = 0;
  maxDuration = 0;
  maxDepth = 0;
  readonly rate: WindowedCounter;
  /** +1 per subscribe, −1 per unsubscribe: net listener growth over the window. */
  get netGrowth(): WindowedCounter {
    return this.growthCounter ?? emptyCounter(this.window);
  }
  private growthCounter: WindowedCounter | null = null;
  enqueued = 0;
  maxQueueLength = 0;
  depthLimitHits = 0;
  firstDepthLimitAt = Infinity;
  lastDepthLimitAt = -Infinity;
  maxRefusedDepth = 0;
  get depthLimitRate(): WindowedCounter {
    return this.depthLimitCounter ?? emptyCounter(this.window);
  }
  private depthLimitCounter: WindowedCounter | null = null;
  handlerErrors = 0;
  /** Subscriptions removed because their owner was dead (`dead-owner`) or collected, by site. */
  get ownerRemovals(): ReadonlyMap<string, SiteRemovals> {
    return this.removalMap ?? EMPTY_REMOVALS;
  }
  private removalMap: Map<string, SiteRemovals> | null = null;
  /** Sampled dispatch sites (at most 8 distinct). */
  readonly dispatchSites: SiteInfo[] = [];
  /**
   * The model's type-change count when this type last changed (a dispatch, a subscription made or
   * ended, a handler call, a snapshot's counts): equal versions mean nothing the analyses read of
   * it changed. See `Model.readTypeChanges`.
   */
  version = 0;
  /** The model's journal epoch in which this type was last journaled (the model's bookkeeping). */
  journalEpoch = -1;

  constructor(
    /** Dense index, stored in the timeline's type column. */
    readonly index: number,
    readonly busState: BusState,
    readonly name: string,
    private readonly window: RateWindow,
  ) {
    this.rate = new WindowedCounter(window.bucketMs, window.buckets);
  }

  // Writers (the model only): the collection, made on first use.

  ensureRetired(): Set<SubscriptionState> {
    return (this.retiredSet ??= new Set());
  }

  ensureConsumers(): Map<number, ConsumerCount> {
    return (this.consumerMap ??= new Map());
  }

  ensureOwnerRemovals(): Map<string, SiteRemovals> {
    return (this.removalMap ??= new Map());
  }

  ensureNetGrowth(): WindowedCounter {
    return (this.growthCounter ??= new WindowedCounter(this.window.bucketMs, this.window.buckets));
  }

  ensureDepthLimitRate(): WindowedCounter {
    return (this.depthLimitCounter ??= new WindowedCounter(this.window.bucketMs, this.window.buckets));
  }

  get bus(): number {
    return this.busState.id;
  }

  get isWildcard(): boolean {
    return this.name === '*';
  }

  /** Live subscriptions, plus those its disposed bus still held at the end. */
  get registeredCount(): number {
    return this.live.size + this.retired.size;
  }

  *registered(): IterableIterator<SubscriptionState> {
    yield* this.live;
    yield* this.retired;
  }
}

export interface HandlerErrorInfo {
  readonly time: number;
  readonly seq: number;
  readonly message: string;
  readonly stack: string | null;
}

export class SubscriptionState {
  endedAt: number | null = null;
  endReason: EndReason | null = null;
  /** Removed only because its bus was disposed (it was registered until the end). */
  endedWithBus = false;
  /** Lifetime calls: the snapshot's count, plus handler records, corrected by the unsubscribe record. */
  calls = 0;
  /** Handler records seen for it. */
  callsObserved = 0;
  lastCalledAt = -Infinity;
  /** Handler durations; allocated with the first handler record. */
  durations: DurationHistogram | null = null;
  errors = 0;
  /** Errors that were `DispatchDepthError`s (a nested dispatch refused at the depth limit). */
  depthErrors = 0;
  /** The last error that was not a DispatchDepthError. */
  lastError: HandlerErrorInfo | null = null;
  lastDepthError: HandlerErrorInfo | null = null;
  /** Dispatches it consumed. */
  consumed = 0;
  /** `type.dispatches` when observation of this subscription began. */
  typeDispatchesAtStart = 0;
  /** Dispatches of its type consumed by subscriptions running before it, when observation began. */
  consumedAheadAtStart = 0;
  /** Made before the probe started (the snapshot says so): why it has no site, with capture on. */
  beforeProbe = false;
  /** Whose code subscribed, when the probe said (process-wide emitters): see protocol/site-origin.ts. */
  origin: SiteOrigin | null = null;

  constructor(
    readonly id: number,
    readonly bus: number,
    readonly type: EventTypeState,
    readonly priority: number,
    readonly label: string | null,
    readonly owner: string | null,
    readonly once: boolean,
    readonly site: SiteInfo | null,
    readonly siteKey: string | null,
    /** Record time of the subscribe (from the snapshot's epoch time when it predates attach). */
    readonly createdAt: number,
    /** Record time from which this model saw everything about it (attach time for snapshot ones). */
    readonly observedFrom: number,
    readonly fromSnapshot: boolean,
    /** The probe's per-process owner id; null without an owner or from a probe that does not send it. */
    readonly ownerId: number | null = null,
  ) {
    this.ownerKey = owner === null ? null : ownerKey(owner, ownerId);
  }

  /** Which owner it belongs to (see `ownerKey`); null without an owner. */
  readonly ownerKey: string | null;

  get active(): boolean {
    return this.endedAt === null;
  }
}

/** A partial teardown: the owner disposed one subscription while others stayed registered. */
export interface ExplicitDisposal {
  readonly time: number;
  readonly subscriptionId: number;
  /** When the disposed subscription was made (siblings are made together). */
  readonly createdAt: number;
  readonly type: string;
  readonly label: string | null;
  /** Calls of the owner's other live subscriptions at that moment (id → calls). */
  readonly othersCalls: ReadonlyMap<number, number>;
}

export class OwnerState {
  readonly live = new Set<SubscriptionState>();
  /** Its subscriptions still registered when their bus was disposed. */
  readonly retired = new Set<SubscriptionState>();
  subscribedEver = 0;
  collectedAt: number | null = null;
  /** Subscriptions it disposed explicitly (`dispose`) while it still had others (first 4). */
  readonly disposals: ExplicitDisposal[] = [];
  /** Its key in `Model.owners` (see `ownerKey`). */
  readonly key: string;

  constructor(
    readonly description: string,
    /** The probe's per-process owner id; null when the stream does not carry it. */
    readonly ownerId: number | null = null,
  ) {
    this.key = ownerKey(description, ownerId);
  }

  /** True when it is known to be one object (an owner id, or a description like `Enemy#12`). */
  get identifiable(): boolean {
    return this.ownerId !== null || ownerIsIdentifiable(this.description);
  }
}
