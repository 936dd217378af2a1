// Compile-time API tests for the bus and the delegates. Checked by `npm run typecheck` (test/tsconfig.json),
// never executed. Every `@ts-expect-error` line is a claim that the line is a compile error: if the
// typing ever loosens so the line compiles, tsc fails with "Unused '@ts-expect-error' directive".
// The positive cases pin the types users rely on with exact-type assertions (`Expect<Equal<…>>`), so
// they cannot silently widen to `any` either. (The shipped .d.ts gets the same treatment from a real
// consumer project in test/package/pack.test.ts.)
import {
  Delegate,
  DispatchDepthError,
  Emitter,
  EventBus,
  MulticastDelegate,
  type DispatchContext,
  type DispatchResult,
  type Disposable,
  type EmitterEvent,
  type HandlerErrorInfo,
  type Subscription,
  type SubscriptionInfo,
} from '../../runtime-probe/src/index';
import * as browserEntry from '../../runtime-probe/src/bus/index';

// ------------------------------------------------------------------------------------------------
// Type-level assertion helpers

/** True only when A and B are the same type (not merely mutually assignable; `any` is not `string`). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type IsAny<T> = 0 extends 1 & T ? true : false;
/** Silences unused-variable lint without affecting types. */
function use(..._values: unknown[]): void {}

// ------------------------------------------------------------------------------------------------
// The event map of runtime-probe/README.md (Define the event map), as an `interface` (no implicit index signature: must still be accepted)

interface GameEvents {
  'item.picked': { itemId: number; picker: string };
  'health.changed': { current: number; max: number };
  'enemy.killed': { enemyType: string };
  tick: void;
  'level.reset': undefined;
  'score.maybe': number | undefined;
}

declare const bar: { set(fraction: number): void };
declare const widget: { disposed: boolean };

const bus = new EventBus<GameEvents>({ name: 'gameplay' });

// The README's Subscribe and dispatch sample, verbatim in substance.
{
  const sub = bus.subscribe('health.changed', (e) => bar.set(e.current / e.max), { owner: widget, priority: 10, label: 'HealthBar' });
  bus.dispatch('health.changed', { current: 80, max: 100 });
  bus.dispatch('tick');
  sub.dispose();
}

// ------------------------------------------------------------------------------------------------
// dispatch / enqueue: names and payloads are checked

// Wrong payload: a field of the wrong type, a missing field, an extra field, another event's payload.
// @ts-expect-error current must be a number
bus.dispatch('health.changed', { current: '80', max: 100 });
// @ts-expect-error max is missing
bus.dispatch('health.changed', { current: 80 });
// @ts-expect-error an object literal with an unknown field
bus.dispatch('health.changed', { current: 80, max: 100, min: 0 });
// @ts-expect-error another event's payload
bus.dispatch('health.changed', { itemId: 1, picker: 'a' });
// @ts-expect-error a void event takes no payload
bus.dispatch('tick', 5);
// @ts-expect-error null is not a payload of 'item.picked'
bus.dispatch('item.picked', null);

// Missing payload.
// @ts-expect-error the payload of 'health.changed' is required
bus.dispatch('health.changed');
// @ts-expect-error the payload of 'item.picked' is required
bus.enqueue('item.picked');

// Unknown event names (typos, wrong case, any string, the wildcard).
// @ts-expect-error a typo
bus.dispatch('health.change', { current: 1, max: 2 });
// @ts-expect-error names are case-sensitive
bus.dispatch('Tick');
// @ts-expect-error an arbitrary string is not an event name
bus.dispatch('tick' as string);
// @ts-expect-error '*' can be subscribed to, not dispatched
bus.dispatch('*');
// @ts-expect-error unknown event on enqueue
bus.enqueue('enemy.spawned', { enemyType: 'x' });
// @ts-expect-error unknown event on subscribe
bus.subscribe('enemy.spawned', () => {});
// @ts-expect-error unknown event for listenerCount
bus.listenerCount('enemy.spawned');
// @ts-expect-error unknown event for subscriptions
bus.subscriptions('enemy.spawned');

// Void / undefined payloads may be omitted (or passed as undefined). A payload that is merely
// possibly undefined (`number | undefined`) is still an argument: pass it explicitly.
bus.dispatch('tick');
bus.dispatch('tick', undefined);
bus.dispatch('level.reset');
bus.enqueue('tick');
bus.dispatch('score.maybe', undefined);
bus.dispatch('score.maybe', 3);
// @ts-expect-error but not with a payload of the wrong type
bus.dispatch('score.maybe', '3');

// ------------------------------------------------------------------------------------------------
// subscribe: handler parameter types, options

// A handler with the wrong parameter type.
// @ts-expect-error the handler expects another event's payload
bus.subscribe('health.changed', (e: { itemId: number }) => use(e));
// @ts-expect-error the handler expects a string payload
bus.subscribe('enemy.killed', (e: string) => use(e));
// @ts-expect-error a handler's second parameter is the dispatch context, not a number
bus.subscribe('enemy.killed', (_e, ctx: number) => use(ctx));
// @ts-expect-error reading a field the payload does not have
bus.subscribe('health.changed', (e) => use(e.itemId));
// @ts-expect-error a handler for a void event gets undefined, not an object
bus.subscribe('tick', (e: { n: number }) => use(e));
// @ts-expect-error not a function
bus.subscribe('tick', 'handler');

// Payload and context types are inferred exactly.
bus.subscribe('item.picked', (e, ctx) => {
  type _payload = Expect<Equal<typeof e, { itemId: number; picker: string }>>;
  type _ctx = Expect<Equal<typeof ctx, DispatchContext<GameEvents>>>;
  const type: 'item.picked' | 'health.changed' | 'enemy.killed' | 'tick' | 'level.reset' | 'score.maybe' = ctx.type;
  const depth: number = ctx.depth;
  const id: number = ctx.subscriptionId;
  ctx.consume();
  // @ts-expect-error the context is read-only
  ctx.depth = 1;
  use(type, depth, id);
});
bus.subscribe('tick', (e) => {
  type _voidArrivesAsUndefined = Expect<Equal<typeof e, undefined>>;
});

// A handler may return anything; `true` consumes. Handlers taking fewer parameters are fine.
bus.subscribe('enemy.killed', () => true);
bus.subscribe('enemy.killed', () => 42);
bus.subscribe('enemy.killed', async () => {});
bus.subscribe('enemy.killed', (e) => e.enemyType === 'boss');

// Options.
const controller = new AbortController();
bus.subscribe('tick', () => {}, { priority: -1.5, owner: widget, once: true, signal: controller.signal, label: 'x' });
bus.subscribe('tick', () => {}, {});
// @ts-expect-error priority is a number
bus.subscribe('tick', () => {}, { priority: '1' });
// @ts-expect-error an owner is an object
bus.subscribe('tick', () => {}, { owner: 5 });
// @ts-expect-error once is a boolean
bus.subscribe('tick', () => {}, { once: 'yes' });
// @ts-expect-error signal is an AbortSignal
bus.subscribe('tick', () => {}, { signal: controller });
// @ts-expect-error unknown option
bus.subscribe('tick', () => {}, { prio: 1 });

// '*': every event; payload is the union of the map's payloads, ctx.type names the event.
bus.subscribe('*', (payload, ctx) => {
  type _union = Expect<
    Equal<typeof payload, { itemId: number; picker: string } | { current: number; max: number } | { enemyType: string } | number | undefined>
  >;
  if (ctx.type === 'health.changed') use(ctx.type);
  // @ts-expect-error without narrowing the payload may be undefined or any event's
  use(payload.itemId);
});

// ------------------------------------------------------------------------------------------------
// Subscription, DispatchResult, SubscriptionInfo, errors, bus options

{
  const sub = bus.subscribe('enemy.killed', () => {});
  type _sub = Expect<Equal<typeof sub, Subscription>>;
  const id: number = sub.id;
  const type: string = sub.type;
  const active: boolean = sub.active;
  const disposeResult: void = sub.dispose();
  sub[Symbol.dispose]();
  // @ts-expect-error ids are read-only
  sub.id = 2;
  // @ts-expect-error active is read-only
  sub.active = false;
  const asDisposable: Disposable = sub;
  use(id, type, active, disposeResult, asDisposable);

  const removed: boolean = bus.unsubscribe(sub);
  const removedById: boolean = bus.unsubscribe(sub.id);
  // @ts-expect-error not a subscription or id
  bus.unsubscribe('1');
  const byOwner: number = bus.unsubscribeOwner(widget);
  // @ts-expect-error an owner is an object
  bus.unsubscribeOwner('widget');
  use(removed, removedById, byOwner);
}

// `using` unsubscribes at the end of the scope (TypeScript 5.2+, Symbol.dispose).
function scoped(): void {
  using sub = bus.subscribe('tick', () => {});
  using ownBus = new EventBus<{ ping: void }>();
  use(sub, ownBus);
}
use(scoped);

{
  const r = bus.dispatch('enemy.killed', { enemyType: 'slime' });
  type _result = Expect<Equal<typeof r, DispatchResult>>;
  const delivered: number = r.delivered;
  const consumed: boolean = r.consumed;
  const by: number | undefined = r.consumedBy;
  type _by = Expect<Equal<DispatchResult['consumedBy'], number | undefined>>;
  // @ts-expect-error results are read-only (they are shared)
  r.delivered = 0;
  use(delivered, consumed, by);
}

{
  const flushed: number = bus.flush();
  const all: number = bus.listenerCount();
  const ofType: number = bus.listenerCount('tick');
  const wild: number = bus.listenerCount('*');
  const infos: SubscriptionInfo[] = bus.subscriptions();
  const info = bus.subscriptions('health.changed')[0];
  const fields: [number, string, number, string | undefined, string | undefined, number, number, boolean, string] = [
    info.id,
    info.type,
    info.priority,
    info.label,
    info.owner,
    info.calls,
    info.createdAt,
    info.once,
    info.bus,
  ];
  const clearResult: void = bus.clear();
  const disposed: void = bus.dispose();
  const name: string = bus.name;
  const maxDepth: number = bus.maxDepth;
  const isDisposed: boolean = bus.disposed;
  use(flushed, all, ofType, wild, infos, fields, clearResult, disposed, name, maxDepth, isDisposed);
}

{
  const e = new DispatchDepthError('gameplay', 'tick', 33, 32);
  const asError: Error = e;
  const fields: [string, number, string, number] = [e.type, e.depth, e.busName, e.maxDepth];
  use(asError, fields);
}

// Bus options.
new EventBus<GameEvents>();
new EventBus<GameEvents>({
  name: 'ui',
  maxDepth: 8,
  autoFlush: 'microtask',
  warnOnCollectedOwner: false,
  onError: (error, info) => {
    type _error = Expect<Equal<typeof error, unknown>>;
    type _info = Expect<Equal<typeof info, HandlerErrorInfo>>;
    const fields: [string, string, number] = [info.bus, info.type, info.subscriptionId];
    use(fields);
  },
  isOwnerAlive: (owner) => {
    type _owner = Expect<Equal<typeof owner, object>>;
    return true;
  },
});
// @ts-expect-error maxDepth is a number
new EventBus<GameEvents>({ maxDepth: '8' });
// @ts-expect-error warnOnCollectedOwner is a boolean
new EventBus<GameEvents>({ warnOnCollectedOwner: 'no' });
// @ts-expect-error autoFlush is 'manual' or 'microtask'
new EventBus<GameEvents>({ autoFlush: 'idle' });
// @ts-expect-error unknown option
new EventBus<GameEvents>({ nmae: 'typo' });

// Event maps may be interfaces or type aliases; payloads may be any type.
new EventBus<{ a: string; b: [number, number]; c: () => void; d: void }>().dispatch('b', [1, 2]);

// Nothing leaks `any` into user code.
type _noAnyPayload = Expect<Equal<IsAny<Parameters<Parameters<typeof bus.subscribe<'tick'>>[1]>[0]>, false>>;
type _noAnyResult = Expect<Equal<IsAny<ReturnType<typeof bus.dispatch>>, false>>;

// ------------------------------------------------------------------------------------------------
// Delegates

{
  const d = new Delegate<[number, string], boolean>();
  d.bind((n, s) => n > s.length);
  const r: boolean = d.execute(1, 'a');
  const maybe: boolean | undefined = d.executeIfBound(1, 'a');
  const bound: boolean = d.isBound();
  d.unbind();
  // @ts-expect-error wrong argument types
  d.execute('a', 1);
  // @ts-expect-error missing argument
  d.execute(1);
  // @ts-expect-error the bound function must return boolean
  d.bind(() => 'yes');
  // @ts-expect-error the bound function's parameters must accept the delegate's arguments
  d.bind((n: string) => n === '');
  type _execute = Expect<Equal<ReturnType<typeof d.executeIfBound>, boolean | undefined>>;
  use(r, maybe, bound);

  const plain = new Delegate();
  plain.bind(() => {});
  plain.execute();
  // @ts-expect-error Delegate<[], void> takes no arguments
  plain.execute(1);
}

{
  const owner = { name: 'panel' };
  const m = new MulticastDelegate<[path: string, size: number]>();
  const handle: number = m.add((path, size) => use(path.length + size), { owner });
  m.add(() => {});
  m.broadcast('/tmp/x', 3);
  const removed: boolean = m.remove(handle);
  const removedOfOwner: number = m.removeAll(owner);
  const size: number = m.size;
  // @ts-expect-error wrong argument type
  m.broadcast(3, '/tmp/x');
  // @ts-expect-error missing argument
  m.broadcast('/tmp/x');
  // @ts-expect-error a function with an incompatible parameter
  m.add((path: number) => use(path));
  // @ts-expect-error handles are numbers
  m.remove('1');
  // @ts-expect-error an owner is an object
  m.add(() => {}, { owner: 'panel' });
  use(removed, removedOfOwner, size);
}

{
  class TextModel {
    private readonly changed = new Emitter<{ version: number }>();
    /** Handed out; only the holder of `changed` can fire. */
    readonly onDidChange = this.changed.event;
    edit(version: number): void {
      this.changed.fire({ version });
    }
  }
  const doc = new TextModel();
  type _event = Expect<Equal<typeof doc.onDidChange, EmitterEvent<{ version: number }>>>;
  const listener = doc.onDidChange((e) => {
    type _value = Expect<Equal<typeof e, { version: number }>>;
  });
  type _disposable = Expect<Equal<typeof listener, Disposable>>;
  listener.dispose();
  const bag: Disposable[] = [];
  doc.onDidChange(
    function (this: { tag: string }, e) {
      use(this.tag, e.version);
    },
    { tag: 't' },
    bag,
  );
  // @ts-expect-error the event function cannot fire: only the Emitter's holder can
  doc.onDidChange.fire({ version: 1 });
  // @ts-expect-error the emitter is private to its holder
  doc.changed.fire({ version: 1 });
  // @ts-expect-error a listener for another value type
  doc.onDidChange((e: string) => use(e));

  const em = new Emitter<number>();
  em.fire(1);
  // @ts-expect-error wrong value type
  em.fire('1');
  const count: number = em.listenerCount;
  em.dispose();
  const v = new Emitter<void>();
  v.fire();
  use(count);
}

// ------------------------------------------------------------------------------------------------
// The browser entry exports the same bus and delegates

type _sameBus = Expect<Equal<typeof browserEntry.EventBus, typeof EventBus>>;
type _sameEmitter = Expect<Equal<typeof browserEntry.Emitter, typeof Emitter>>;
type _sameError = Expect<Equal<typeof browserEntry.DispatchDepthError, typeof DispatchDepthError>>;
