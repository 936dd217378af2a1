// One object per subscription: the handle the user holds, the record the bus iterates and what the
// tracer reads are the same object, which keeps memory per subscription low.
import { disposeSymbol } from '../delegates/disposable';
import type { DispatchContextImpl } from './dispatch-context';
import { runtime } from './runtime';
import type { SourceSite, TracedSubscription, UnsubscribeReason } from './tracer';
import type { DispatchResult, Subscription } from './types';

/** @internal A handler as the bus stores it. */
export type StoredHandler = (payload: unknown, ctx: DispatchContextImpl) => unknown;

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

/** @internal Process-wide (every copy of the package), positive, never reused. */
export function takeSubscriptionId(): number {
  return runtime.nextSubscriptionId++;
}

const released: StoredHandler = () => undefined;

/**
 * @internal `SubscriptionRecord.state`: one field the dispatch loop reads per handler.
 * PLAIN: active, no owner, not once (call it straight away); SLOW: active with an owner or `once`
 * (check first); INACTIVE: unsubscribed.
 */
export const PLAIN = 0;
/** @internal */
export const SLOW = 1;
/** @internal */
export const INACTIVE = 2;

/** @internal */
export class SubscriptionRecord implements Subscription, TracedSubscription {
  state: number;
  calls = 0;
  /** Set by the tracer at subscribe time. */
  site: SourceSite | undefined = undefined;
  /** The last consumed result this subscription produced (reused while `delivered` matches). */
  consumedResult: DispatchResult | null = null;
  /** The owner's group; set by the bus right after construction when there is an owner. */
  group: OwnerGroup | null = null;

  constructor(
    readonly id: number,
    readonly type: string,
    public handler: StoredHandler,
    readonly priority: number,
    readonly label: string | undefined,
    readonly once: boolean,
    readonly createdAt: number,
    public host: SubscriptionHost | null,
    public signal: AbortSignal | null,
  ) {
    this.state = host === null ? INACTIVE : once ? SLOW : PLAIN;
  }

  /** False once unsubscribed for any reason. */
  get active(): boolean {
    return this.state !== INACTIVE;
  }

  /** @internal Attaches the owner's group (the subscription then needs the owner check at dispatch). */
  attachOwner(group: OwnerGroup): void {
    this.group = group;
    this.state = SLOW;
  }

  /** Owner description, computed once when the owner first subscribed on this bus. */
  get ownerDescription(): string | undefined {
    return this.group === null ? undefined : this.group.description;
  }

  /** The owner's per-process id; undefined without an owner. */
  get ownerId(): number | undefined {
    return this.group === null ? undefined : this.group.ownerId;
  }

  /** Unsubscribes. Idempotent. */
  dispose(): void {
    const host = this.host;
    if (host !== null) host.removeSubscription(this, 'dispose');
  }

  /** Same as `dispose()`, for `using`. */
  [disposeSymbol](): void {
    this.dispose();
  }

  /** @internal The AbortSignal's 'abort' listener (an EventListener object, so no closure per subscription). */
  handleEvent(): void {
    const host = this.host;
    if (host !== null) host.removeSubscription(this, 'signal');
  }

  /** @internal Called by the bus once the record has left every list. */
  release(): void {
    this.state = INACTIVE;
    this.host = null;
    // Drop the handler so a handle kept by the user does not keep the handler's closure alive.
    this.handler = released;
    const signal = this.signal;
    if (signal !== null) {
      this.signal = null;
      signal.removeEventListener('abort', this);
    }
  }
}

/**
 * @internal The subscriptions of one event type (or of `'*'`), highest priority first, ties in
 * subscription order. Copy-on-write while any dispatch runs (`copy`): a dispatch keeps iterating the
 * array it started with, so subscribers added meanwhile are not called and indexes never shift under
 * it. (Copying whenever *any* dispatch runs, rather than tracking which lists are being iterated,
 * keeps the dispatch loop free of bookkeeping; changes made inside handlers are rare and small.)
 */
export class ListenerList {
  list: SubscriptionRecord[] = [];

  insert(sub: SubscriptionRecord, copy: boolean): void {
    const list = this.list;
    let i = list.length;
    while (i > 0 && list[i - 1].priority < sub.priority) i--;
    if (!copy) {
      if (i === list.length) list.push(sub);
      else list.splice(i, 0, sub);
    } else {
      const next = list.slice(0, i);
      next.push(sub);
      for (let k = i; k < list.length; k++) next.push(list[k]);
      this.list = next;
    }
  }

  unlink(sub: SubscriptionRecord, copy: boolean): void {
    const list = this.list;
    const i = list.lastIndexOf(sub);
    if (i < 0) return;
    if (copy) this.list = list.slice(0, i).concat(list.slice(i + 1));
    else if (i === list.length - 1) list.pop(); // the common subscribe-then-dispose case
    else list.splice(i, 1);
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
