// One object per subscription: the handle the user holds, the record the bus iterates and what the
// tracer reads are the same object, which keeps memory per subscription low.
import { disposeSymbol } from '../delegates/disposable';
import { notConsumedResult } from './dispatch-context';
import { runHandlersFor, type RunHandlers } from './dispatch-code';
import { runsBefore } from './priority';
import { runtime } from './runtime';
import { INACTIVE, KIND, ONCE, PLAIN, SLOW } from './subscription-state';
import type { LogCache, SourceSite, TracedSubscription, UnsubscribeReason } from './tracer';
import type { DispatchResult, Subscription } from './types';

/** @internal The states the bus's loops test (event-bus.ts). */
export { INACTIVE, PLAIN, SLOW };

/** @internal What handlers get as `ctx`: a Snapshot (fast loop) or a DispatchContextImpl (checking loops). */
export interface HandlerContext {
  readonly type: string;
  readonly depth: number;
  readonly subscriptionId: number;
  consume(): void;
}

/** @internal A handler as the bus stores it. */
export type StoredHandler = (payload: unknown, ctx: HandlerContext) => unknown;

/** @internal What a subscription needs of its bus to remove itself. */
export interface SubscriptionHost {
  removeSubscription(sub: SubscriptionRecord, reason: UnsubscribeReason): boolean;
}

/**
 * @internal The subscriptions of one owner on one bus. Holds the owner weakly (one WeakRef per owner
 * per bus, not per subscription); also the FinalizationRegistry's held value. Kept while the owner
 * lives, even when empty, so re-subscribing the same owner is cheap.
 */
export class OwnerGroup {
  readonly subs: SubscriptionRecord[] = [];
  /** The owner's per-process id (see `ownerIdOf`). */
  readonly ownerId: number;
  constructor(
    readonly ref: WeakRef<object>,
    readonly description: string,
  ) {
    this.ownerId = ownerIdOf(ref.deref());
  }
}

/** Owner object → its id. Weak: an id outlives nothing but the object it names. Shared by every copy of the package. */
const ownerIds = runtime.ownerIds;

/**
 * @internal A positive id per owner object, unique per process and never reused: the same object
 * gets the same id on every bus (descriptions such as `Enemy` can repeat; ids cannot). 0 for none.
 */
export function ownerIdOf(owner: object | undefined): number {
  if (owner === undefined) return 0;
  let id = ownerIds.get(owner);
  if (id === undefined) {
    id = runtime.nextOwnerId++;
    ownerIds.set(owner, id);
  }
  return id;
}

const released: StoredHandler = () => undefined;
/** @internal Swapped into a running snapshot in place of a handler unsubscribed before its turn. */
export const skippedHandler: StoredHandler = () => undefined;

/**
 * @internal When subscriptions were made: one shared object per task (or per 64 subscriptions,
 * whichever ends first), so subscribing reads no clock (`Date.now()` costs ~65 ns here, more than the
 * rest of a subscribe + dispose) and stores a reference instead of a boxed double.
 */
class Instant {
  declare readonly ms: number;
  /** False here; true for SubscriptionExtras (cheaper to test than `instanceof`). */
  declare own: boolean;
  constructor(ms: number) {
    this.ms = ms;
    this.own = false;
  }
}
const INSTANT_USES = 64;
let instant: Instant | null = null;
let instantUses = 0;
const forgetInstant = (): void => {
  instant = null;
};
function subscribeInstant(): Instant {
  // The clock read apart: this stays small enough to inline into subscribe.
  const i = instant;
  return i !== null && ++instantUses <= INSTANT_USES ? i : newInstant(i);
}
function newInstant(old: Instant | null): Instant {
  if (old === null) queueMicrotask(forgetInstant);
  instantUses = 0;
  return (instant = new Instant(Date.now()));
}

/**
 * @internal What few subscriptions have, kept out of the record so the common one stays small (six
 * fields). Also carries `createdAt`, so the record needs one field for both.
 */
class SubscriptionExtras extends Instant {
  constructor(ms: number) {
    super(ms);
    this.own = true;
  }
  label: string | undefined = undefined;
  priority = 0;
  signal: AbortSignal | null = null;
  group: OwnerGroup | null = null;
  site: SourceSite | undefined = undefined;
  /** The last consumed result this subscription produced (reused while `delivered` matches). */
  consumedResult: DispatchResult | null = null;
}

/**
 * @internal Its fields are `declare`d and assigned in the constructor: a class field is defined on
 * the new object before the constructor runs (and then assigned), which made subscribing slower.
 */
export class SubscriptionRecord implements Subscription, TracedSubscription {
  declare readonly id: number;
  declare handler: StoredHandler;
  /** PLAIN / SLOW / INACTIVE, plus ONCE. */
  declare state: number;
  /**
   * Its call count, as a base for the list's dispatch count: while in a list, calls are
   * `callCount + list.runs` (minus a call not made yet, see `pendingCall`); the checking
   * loops add their calls, the fast loop takes back dispatches that did not reach it. When it leaves
   * its list it becomes the plain count.
   */
  declare callCount: number;
  /** While active its list (how it finds its bus, its dispatch count, its type); afterwards its type. */
  declare private where: ListenerList | string;
  /** createdAt (shared per task), or this subscription's own extras (which carry createdAt too). */
  declare private meta: Instant;

  constructor(
    id: number,
    type: string,
    handler: StoredHandler,
    priority: number,
    label: string | undefined,
    once: boolean,
    list: ListenerList | null,
    signal: AbortSignal | null,
  ) {
    this.id = id;
    this.handler = handler;
    this.state = (list === null ? INACTIVE : once ? SLOW : PLAIN) | (once ? ONCE : 0);
    // Joins `list` at the end of its dispatches so far (see `calls`). `0 -`, not `-`: -0 is no small
    // integer to the engine, and one such value made the field a boxed double (+16 B per record).
    this.callCount = list === null ? 0 : 0 - list.runs;
    this.where = list === null ? type : list;
    this.meta = subscribeInstant();
    if (label !== undefined || signal !== null || priority !== 0) {
      const extras = this.more();
      extras.label = label;
      extras.signal = signal;
      extras.priority = priority;
    }
  }

  private more(): SubscriptionExtras {
    const meta = this.meta;
    if (meta.own) return meta as SubscriptionExtras;
    const extras = new SubscriptionExtras(meta.ms);
    this.meta = extras;
    return extras;
  }

  private get extras(): SubscriptionExtras | undefined {
    const meta = this.meta;
    return meta.own ? (meta as SubscriptionExtras) : undefined;
  }

  /** The list it is in; null once inactive. */
  get list(): ListenerList | null {
    const where = this.where;
    return typeof where === 'string' ? null : where;
  }

  /** The subscribed event name, or `'*'`. */
  get type(): string {
    const where = this.where;
    return typeof where === 'string' ? where : where.snap.type;
  }

  /** Epoch milliseconds (of the task that subscribed, see `subscribeInstant`). */
  get createdAt(): number {
    return this.meta.ms;
  }

  get priority(): number {
    const meta = this.meta;
    return meta.own ? (meta as SubscriptionExtras).priority : 0;
  }

  get once(): boolean {
    return (this.state & ONCE) !== 0;
  }

  get label(): string | undefined {
    return this.extras?.label;
  }

  /** The owner's group, when it has an owner. */
  get group(): OwnerGroup | null {
    return this.extras?.group ?? null;
  }

  /** Set by the tracer at subscribe time. */
  get site(): SourceSite | undefined {
    return this.extras?.site;
  }
  set site(site: SourceSite | undefined) {
    if (site !== undefined || this.extras) this.more().site = site;
  }

  /** The last consumed result this subscription produced (reused while `delivered` matches). */
  get consumedResult(): DispatchResult | null {
    return this.extras?.consumedResult ?? null;
  }
  set consumedResult(result: DispatchResult | null) {
    this.more().consumedResult = result;
  }

  /** How many times the handler has been called (derived: the fast loop counts dispatches per list). */
  get calls(): number {
    const list = this.list;
    if (list === null) return this.callCount;
    return this.callCount + list.runs - list.pendingCall(this);
  }

  /** @internal Leaves `list`: the count becomes plain. */
  left(list: ListenerList): void {
    this.callCount += list.runs;
    this.where = list.snap.type;
  }

  /** False once unsubscribed for any reason. */
  get active(): boolean {
    return (this.state & KIND) !== INACTIVE;
  }

  /** @internal Checked at dispatch (owner or once) or not (PLAIN); INACTIVE once unsubscribed. */
  get kind(): number {
    return this.state & KIND;
  }

  /** @internal Attaches the owner's group (the subscription then needs the owner check at dispatch). */
  attachOwner(group: OwnerGroup): void {
    this.more().group = group;
    this.state = (this.state & ONCE) | SLOW;
  }

  /** Owner description, computed once when the owner first subscribed on this bus. */
  get ownerDescription(): string | undefined {
    const group = this.group;
    return group === null ? undefined : group.description;
  }

  /** The owner's per-process id; undefined without an owner. */
  get ownerId(): number | undefined {
    const group = this.group;
    return group === null ? undefined : group.ownerId;
  }

  /** Unsubscribes. Idempotent. */
  dispose(): void {
    const where = this.where;
    if (typeof where !== 'string') where.bus.removeSubscription(this, 'dispose');
  }

  /** Same as `dispose()`, for `using`. */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @internal The AbortSignal's 'abort' listener (an EventListener object, so no closure per subscription). */
  handleEvent(): void {
    const where = this.where;
    if (typeof where !== 'string') where.bus.removeSubscription(this, 'signal');
  }

  /**
   * @internal Called by the bus once the record has left every list (after `ListenerList.unlink`).
   * Returns its owner's group (for the bus to leave), or null.
   */
  release(): OwnerGroup | null {
    this.state = (this.state & ONCE) | INACTIVE;
    // Drop the handler so a handle kept by the user does not keep the handler's closure alive.
    this.handler = released;
    const extras = this.extras;
    if (extras === undefined) return null;
    const signal = extras.signal;
    if (signal !== null) {
      extras.signal = null;
      signal.removeEventListener('abort', this);
    }
    return extras.group;
  }
}

/** `Snapshot.run` after the handler count changed in place: updates the snapshot, then runs. */
const runResized: RunHandlers = (handlers, payload, snap, sink) => {
  snap.resized();
  return snap.run(handlers, payload, snap, sink);
};

const EMPTY_HANDLERS: readonly StoredHandler[] = [];
const EMPTY_SUBS: readonly SubscriptionRecord[] = [];

/**
 * @internal One version of a list's handlers: `handlers[i]` is `subs[i].handler`. It is also the
 * `ctx` the fast loop hands to the handlers (one object fewer to load and write per dispatch):
 * `index` says whose turn it is, from which `subscriptionId` is read.
 */
export class Snapshot {
  /** The fast loop runs only as the outermost dispatch. */
  readonly depth = 0;
  /**
   * Set by `consume()` (only while the fast loop runs over this snapshot: a ctx kept past its dispatch
   * changes nothing); reset by a throwing handler and by `ListenerList.settle`. So it is false whenever
   * a dispatch starts, and the loop does not reset it first.
   */
  consumed = false;
  /**
   * Whose turn it is in the fast loop running over this snapshot: 0 between dispatches, so the loop
   * need not store it for the first handler (see RunHandlers).
   */
  index = 0;
  /** Indexes of handlers swapped for `skippedHandler` while this snapshot ran (rare; null when none). */
  skipped: number[] | null = null;
  /**
   * What a dispatch that called every handler returns (in step with the handler count once `run` ran);
   * null once the list changed under the fast loop running over this snapshot (see the bus's `dispatchUntraced`).
   */
  result!: DispatchResult | null;
  /**
   * The fast loop's body for this many handlers (no table lookup per dispatch), or `runResized`
   * after the count changed in place: subscribe and dispose only store that, and the next dispatch
   * brings `run`, `result` and `index` up to date (pairs with no dispatch between them cost no lookups).
   */
  run!: RunHandlers;
  constructor(
    /** Its list (see `ListenerList.fast`). */
    readonly list: ListenerList,
    readonly type: string,
    public handlers: StoredHandler[],
    public subs: SubscriptionRecord[],
  ) {
    this.resized();
  }
  /** After the handler count changed (in place, while no dispatch runs over it). */
  resized(): void {
    const n = this.handlers.length;
    this.index = 0;
    this.result = notConsumedResult(n);
    this.run = runHandlersFor(n);
  }
  get subscriptionId(): number {
    return this.subs[this.index].id;
  }
  consume(): void {
    if (this.list.fast !== 0) this.consumed = true;
  }
}

/** `ListenerList.gate` per subscription that needs checks. */
const SLOW_STEP = 2;
/** @internal `ListenerList.gate`'s bit for "the bus has '*' subscribers" (set and cleared by the bus). */
export const STAR = 1;

/**
 * @internal The subscriptions of one event type (or of `'*'`), highest priority first, ties in
 * subscription order, as a Snapshot. Copy-on-write while any dispatch runs (`copy`): a dispatch keeps
 * iterating the snapshot it started with, so subscribers added meanwhile are not called and indexes
 * never shift under it; one unsubscribed before its turn is swapped for a no-op in the running
 * snapshot (so the fast loop checks nothing per handler). (Copying whenever *any* dispatch runs,
 * rather than tracking which lists are being iterated, keeps the loop free of bookkeeping; changes
 * made inside handlers are rare and small.)
 */
export class ListenerList {
  snap: Snapshot;
  /**
   * 1 while the fast loop (the bus's `dispatchUntraced`) runs over this list, else 0. The fast loop runs
   * only as the outermost dispatch (nested ones take the checking loop), so at most one list has it.
   * A number, not a reference to the running list somewhere: storing an object reference costs the
   * engine a write barrier, measured at ~1.5 ns per dispatch.
   */
  fast = 0;
  /**
   * Zero when the fast loop may run over this list: it counts the subscriptions needing checks (an
   * owner or `once`, SLOW_STEP each), and has the STAR bit while the bus has '*' subscribers; either
   * sends every dispatch of the list to the checking loop.
   */
  gate = 0;
  /**
   * Dispatches the fast loop has started over this list. Every subscription's call count derives
   * from it, so the loop increments nothing per handler.
   */
  runs = 0;
  /**
   * While the fast loop runs over this list (`fast`): the snapshot it runs over, once `snap` was replaced (before
   * that, it is `snap`). Reset by the loop on its way out.
   */
  running: Snapshot | null = null;
  /** @internal The Node recorder's cache for the buses' fused path (LogCache in tracer.ts; null until a fused dispatch of the list). */
  log: LogCache | null = null;

  constructor(
    readonly bus: SubscriptionHost,
    type: string,
  ) {
    this.snap = new Snapshot(this, type, EMPTY_HANDLERS as StoredHandler[], EMPTY_SUBS as SubscriptionRecord[]);
  }

  get list(): SubscriptionRecord[] {
    return this.snap.subs;
  }

  /** The snapshot the fast loop is running over, or null when none runs. */
  runningSnapshot(): Snapshot | null {
    return this.fast === 0 ? null : (this.running ?? this.snap);
  }

  insert(sub: SubscriptionRecord, copy: boolean): void {
    const snap = this.snap;
    const subs = snap.subs;
    let i = subs.length;
    // The newest subscription: it goes after every one that runs before it.
    while (i > 0 && !runsBefore(subs[i - 1].priority, subs[i - 1].id, sub.priority, sub.id)) i--;
    if (sub.kind !== PLAIN) this.gate += SLOW_STEP;
    if (!copy && subs !== EMPTY_SUBS) {
      const handlers = snap.handlers;
      if (i === subs.length) {
        subs.push(sub);
        handlers.push(sub.handler);
      } else {
        subs.splice(i, 0, sub);
        handlers.splice(i, 0, sub.handler);
      }
      snap.run = runResized;
    } else {
      const nextSubs = subs.slice(0, i);
      nextSubs.push(sub);
      for (let k = i; k < subs.length; k++) nextSubs.push(subs[k]);
      this.replace(nextSubs);
    }
  }

  /** A new snapshot object: the running one keeps its arrays and its role as some handler's ctx. */
  private replace(subs: SubscriptionRecord[]): void {
    if (this.fast !== 0 && this.running === null) {
      // Tells the fast loop, once it is back, that the list changed under it (see `runFast`).
      this.snap.result = null;
      this.running = this.snap;
    }
    const handlers: StoredHandler[] = [];
    for (let k = 0; k < subs.length; k++) handlers.push(subs[k].handler);
    this.snap = new Snapshot(this, this.snap.type, handlers, subs);
  }

  /** Takes `sub` out (settling its call count); false when it was not in the list. */
  unlink(sub: SubscriptionRecord, copy: boolean): boolean {
    const snap = this.snap;
    const subs = snap.subs;
    // From the end by hand (the common dispose is of the latest subscription; the builtin's call costs more).
    let i = subs.length - 1;
    while (i >= 0 && subs[i] !== sub) i--;
    if (i < 0) return false;
    this.leave(sub);
    if (copy) {
      this.replace(subs.slice(0, i).concat(subs.slice(i + 1)));
    } else if (i === subs.length - 1) {
      // the common subscribe-then-dispose case
      subs.pop();
      snap.handlers.pop();
      snap.run = runResized;
    } else {
      subs.splice(i, 1);
      snap.handlers.splice(i, 1);
      snap.run = runResized;
    }
    return true;
  }

  /** Takes every subscription out (each settled as by `unlink`); returns them. */
  unlinkAll(): SubscriptionRecord[] {
    const subs = this.snap.subs;
    for (let k = 0; k < subs.length; k++) this.leave(subs[k]);
    this.replace(EMPTY_SUBS as SubscriptionRecord[]);
    return subs;
  }

  /**
   * Settles a leaving subscription's call count, and if the fast loop is running over this list and
   * has not reached it yet, swaps a no-op in for its handler there (it must not be called).
   */
  private leave(sub: SubscriptionRecord): void {
    sub.left(this);
    if (sub.kind !== PLAIN) this.gate -= SLOW_STEP;
    const running = this.runningSnapshot();
    if (running === null) return;
    const j = running.subs.lastIndexOf(sub);
    if (j <= running.index || running.handlers[j] === skippedHandler) return;
    running.handlers[j] = skippedHandler;
    (running.skipped ??= []).push(j);
    sub.callCount--; // counted by `runs`, never called
  }

  /**
   * The fast loop's way out when it stopped at `stop` (consumed, or an error escaping; ALL_RAN: it
   * did not stop) or the list changed under it: the subscriptions after `stop` were counted by
   * `runs` but not called, skipped handlers were not called either. Returns how many handlers were
   * really called, and leaves the snapshot ready for the next dispatch.
   */
  settle(snap: Snapshot, stop: number): number {
    this.running = null;
    const n = snap.handlers.length;
    snap.index = 0;
    snap.consumed = false;
    snap.result = notConsumedResult(n);
    const skipped = snap.skipped;
    const reached = stop < 0 ? n : stop + 1;
    for (let k = reached; k < n; k++) {
      if (skipped === null || !skipped.includes(k)) snap.subs[k].callCount--;
    }
    let delivered = reached;
    if (skipped !== null) {
      for (const k of skipped) if (k < reached) delivered--;
      snap.skipped = null;
    }
    return delivered;
  }

  /**
   * Calls of `sub` (a member) not made yet although `runs` counts them: 1 while the fast loop runs
   * over this list and has not reached it (read from inside a handler), else 0.
   */
  pendingCall(sub: SubscriptionRecord): number {
    const running = this.runningSnapshot();
    if (running === null) return 0;
    const j = running.subs.lastIndexOf(sub);
    return j > running.index && running.handlers[j] !== skippedHandler ? 1 : 0;
  }
}

/** @internal Constructor name, plus `#id` or `#name` when the owner has a string/number one (e.g. `HudWidget#3`). */
export function describeOwner(owner: object): string {
  let name = 'Object';
  try {
    const o = owner as { constructor?: unknown; id?: unknown; name?: unknown };
    const ctor = o.constructor;
    if (typeof ctor === 'function' && typeof ctor.name === 'string' && ctor.name !== '') name = ctor.name;
    const id = o.id;
    if (typeof id === 'string' || typeof id === 'number') return `${name}#${id}`;
    const ownName = o.name;
    if (typeof ownName === 'string' || typeof ownName === 'number') return `${name}#${ownName}`;
  } catch {
    // a throwing getter on the owner: the constructor name is enough
  }
  return name;
}

/** @internal Default `isOwnerAlive`: dead when `disposed === true` or `isDisposed === true`. */
export function defaultIsOwnerAlive(owner: object): boolean {
  const o = owner as { disposed?: unknown; isDisposed?: unknown };
  return o.disposed !== true && o.isDisposed !== true;
}
