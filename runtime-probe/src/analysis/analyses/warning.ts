// The warnings the analyses produce: one discriminated union on `kind`, each with its own evidence
// (numbers a view can show and a test can check), a plain-language title and explanation, the
// subjects it is about, and the subscribe sites to jump to. All values are JSON-safe.
import type { SiteInfo } from '../../protocol/index';
import type { NearMissReason } from './similarity';

export type Severity = 'error' | 'warning' | 'info';

export interface TypeRef {
  readonly bus: number;
  readonly busName: string;
  readonly type: string;
}

export interface WarningSubjects {
  readonly buses: readonly number[];
  readonly types: readonly TypeRef[];
  readonly subscriptions: readonly number[];
}

interface WarningOf<K extends string, E> {
  /** Stable while the warning holds (kind + what it is about): views key on it. */
  readonly id: string;
  readonly kind: K;
  readonly severity: Severity;
  readonly title: string;
  readonly explanation: string;
  readonly evidence: E;
  readonly subjects: WarningSubjects;
  /** Subscribe sites (or dispatch sites, for dispatch warnings), most relevant first. */
  readonly sites: readonly SiteInfo[];
  /** Record time when this warning was first raised (kept across runs while it holds). */
  readonly since: number;
}

export interface SiteCount {
  readonly site: SiteInfo | null;
  readonly label: string | null;
  readonly count: number;
}

export interface ListenerGrowthEvidence {
  readonly listeners: number;
  /** The count threshold, and whether the count reached it. */
  readonly threshold: number;
  readonly thresholdReached: boolean;
  /** Times the threshold monitor has warned since the count was last below it (re-arming). */
  readonly timesWarned: number;
  /** The count at which it will warn again. */
  readonly nextWarningAt: number;
  /** Net new listeners per second over the recent window. */
  readonly growthPerSecond: number;
  /** The most frequent subscribe site among the live listeners. */
  readonly topSite: SiteCount | null;
  /**
   * The same owner subscribed from the same site again and again without disposing. `sharedEmitter`:
   * listeners without an owner (a watched emitter's), so `owner` is the bus name and the emitter is
   * shared by whatever code runs at `site` (per request, per connection).
   */
  readonly repeated: {
    readonly owner: string;
    readonly site: SiteInfo | null;
    readonly label: string | null;
    readonly count: number;
    readonly overMs: number;
    readonly sharedEmitter?: true;
  } | null;
  /** Node's own MaxListenersExceededWarning for this emitter and event (watched emitters), if it fired. */
  readonly nodeWarning: { readonly count: number; readonly time: number; readonly message: string } | null;
  /** Present when several instances of one class (`Socket#1`, `Socket#2`…) leak the same way: one warning for them. */
  readonly instances?: { readonly className: string; readonly count: number };
}

export interface DeadOwnerEvidence {
  readonly removed: number;
  readonly deadOwner: number;
  readonly collected: number;
  readonly firstAt: number;
  readonly lastAt: number;
  readonly owners: readonly string[];
}

export interface OwnerGoneEvidence {
  /** Owners that disposed a sibling subscription but left this one registered. */
  readonly owners: number;
  readonly stillRegistered: number;
  readonly sampleOwners: readonly string[];
  /** What they did dispose (type and label of the sibling). */
  readonly disposedType: string;
  readonly disposedLabel: string | null;
  /** Calls of the remaining subscriptions after their sibling was disposed (handler records only). */
  readonly callsAfterDisposal: number;
  readonly oldestDisposalAt: number;
}

export interface NearMissEvidence {
  readonly bus: number;
  readonly busName: string;
  readonly type: string;
  readonly reason: NearMissReason | 'other-bus';
  readonly score: number;
  readonly listeners: number;
  readonly dispatches: number;
}

/**
 * Present when one warning stands for many types (see typeGroups.ts): a family of names that differ
 * only in id-like parts (`user.#.updated`), or the types beyond the per-bus cap of single warnings.
 * The other evidence fields then sum (or take the extreme) over the group; `nearMisses` are the
 * first example's.
 */
export interface TypeGroupEvidence {
  readonly by: 'family' | 'more';
  /** The family's pattern (`user.#.updated`); null for `more`. */
  readonly pattern: string | null;
  /** Types in the group. */
  readonly types: number;
  /** A few of their names, likely typos first. */
  readonly examples: readonly string[];
}

export interface UnheardDispatchEvidence {
  readonly unheard: number;
  readonly dispatches: number;
  readonly lastUnheardAt: number;
  readonly nearMisses: readonly NearMissEvidence[];
  readonly group?: TypeGroupEvidence;
}

export interface NeverDispatchedEvidence {
  readonly subscriptions: number;
  readonly oldestSubscribedAt: number;
  readonly waitedMs: number;
  readonly nearMisses: readonly NearMissEvidence[];
  readonly group?: TypeGroupEvidence;
}

export interface ChurnEvidence {
  readonly cyclesPerSecond: number;
  readonly cyclesInWindow: number;
  readonly meanLifetimeMs: number;
  readonly totalCycles: number;
  readonly windowMs: number;
}

export interface SlowHandlerEvidence {
  readonly calls: number;
  /** Calls whose self time reached the p95 threshold (bucket-rounded upper estimate). */
  readonly slowCalls: number;
  /** Handler self time (nested dispatches excluded), milliseconds. */
  readonly p95Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  readonly totalMs: number;
  readonly p95ThresholdMs: number;
  readonly maxThresholdMs: number;
  /** Dispatches per second of its event type. */
  readonly typeRatePerSecond: number;
  /**
   * Present when the handler was timed on a sample of its calls (detail `handlers` samples busy
   * types): on average 1 call in this many. `calls`, `slowCalls`, p95, mean and total are then
   * estimates weighted by it; `maxMs` is the largest timed call.
   */
  readonly sampleEvery?: number;
}

export interface ThrowingHandlerEvidence {
  readonly errors: number;
  readonly calls: number;
  readonly lastMessage: string;
  readonly lastAt: number;
  readonly lastStack: string | null;
}

export interface DepthLimitEvidence {
  readonly hits: number;
  readonly hitsPerSecond: number;
  readonly maxRefusedDepth: number;
  readonly firstAt: number;
  readonly lastAt: number;
  /** Handlers whose nested dispatch was refused (they got the DispatchDepthError). */
  readonly handlers: readonly { readonly subscriptionId: number; readonly label: string | null; readonly depthErrors: number }[];
}

export interface QueueGrowthEvidence {
  /**
   * `never-flushed`: events wait and nothing flushes; `outrun`: flushes run, each with more to do;
   * `dropping`: neither right now, but events from producer threads were dropped at the cap.
   */
  readonly pattern: 'never-flushed' | 'outrun' | 'dropping';
  /** Events from producer threads dropped at the bus's producer queue cap (0: none reported). */
  readonly dropped: number;
  /** Which end was dropped, and the cap (null / 0 when nothing was dropped). */
  readonly dropPolicy: 'oldest' | 'newest' | null;
  readonly cap: number;
  /** Where the producer threads that post into this queue connected (`connectProducer`), as far as the inspector saw. */
  readonly producerSites: readonly SiteInfo[];
  /** Events waiting to flush now, and the most ever seen waiting. */
  readonly queueLength: number;
  readonly maxQueueLength: number;
  readonly flushes: number;
  /** Since the queue was last empty, ms. */
  readonly waitingMs: number;
  /** Events dispatched by the latest flushes, oldest first. */
  readonly recentFlushSizes: readonly number[];
  /** The types with the most enqueued events on this bus. */
  readonly topTypes: readonly { readonly type: string; readonly enqueued: number }[];
}

export interface StarvedEvidence {
  readonly priority: number;
  readonly dispatchesSinceSubscribed: number;
  readonly consumedAhead: number;
  readonly consumers: readonly { readonly subscriptionId: number; readonly label: string | null; readonly priority: number; readonly consumed: number }[];
}

export type ListenerGrowthWarning = WarningOf<'listener-growth', ListenerGrowthEvidence>;
export type DeadOwnerWarning = WarningOf<'dead-owner-listeners', DeadOwnerEvidence>;
export type OwnerGoneWarning = WarningOf<'owner-gone-still-registered', OwnerGoneEvidence>;
export type UnheardDispatchWarning = WarningOf<'unheard-dispatch', UnheardDispatchEvidence>;
export type NeverDispatchedWarning = WarningOf<'never-dispatched', NeverDispatchedEvidence>;
export type ChurnWarning = WarningOf<'subscription-churn', ChurnEvidence>;
export type SlowHandlerWarning = WarningOf<'slow-handler', SlowHandlerEvidence>;
export type ThrowingHandlerWarning = WarningOf<'throwing-handler', ThrowingHandlerEvidence>;
export type DepthLimitWarning = WarningOf<'depth-limit-storm', DepthLimitEvidence>;
export type StarvedWarning = WarningOf<'starved-subscriber', StarvedEvidence>;
export type QueueGrowthWarning = WarningOf<'queue-growth', QueueGrowthEvidence>;

export type Warning =
  | ListenerGrowthWarning
  | DeadOwnerWarning
  | OwnerGoneWarning
  | UnheardDispatchWarning
  | NeverDispatchedWarning
  | ChurnWarning
  | SlowHandlerWarning
  | ThrowingHandlerWarning
  | DepthLimitWarning
  | StarvedWarning
  | QueueGrowthWarning;

export type WarningKind = Warning['kind'];

export const WARNING_KINDS: readonly WarningKind[] = [
  'listener-growth',
  'dead-owner-listeners',
  'owner-gone-still-registered',
  'unheard-dispatch',
  'never-dispatched',
  'subscription-churn',
  'slow-handler',
  'throwing-handler',
  'depth-limit-storm',
  'starved-subscriber',
  'queue-growth',
];

/** A warning as an analysis produces it; the analyzer stamps `since`. */
export type WarningDraft = Warning extends infer W ? (W extends Warning ? Omit<W, 'since'> : never) : never;
