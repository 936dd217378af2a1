// Bad input gets a precise TypeError at the call and leaves the bus exactly as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';

interface Events {
  tick: void;
  move: { x: number };
}

/** The bus as plain JavaScript sees it: no compile-time checks, so the runtime ones are exercised. */
interface UntypedBus {
  subscribe(...args: unknown[]): unknown;
  dispatch(...args: unknown[]): unknown;
  enqueue(...args: unknown[]): unknown;
  unsubscribe(...args: unknown[]): unknown;
  unsubscribeOwner(...args: unknown[]): unknown;
  listenerCount(...args: unknown[]): unknown;
  subscriptions(...args: unknown[]): unknown;
}
const UntypedEventBus = EventBus as unknown as new (options?: unknown) => EventBus<Events>;

function populated(): { bus: EventBus<Events>; untyped: UntypedBus; snapshot: () => string; calls: () => number } {
  const bus = new EventBus<Events>({ name: 'checked' });
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { priority: 1, label: 'counter' },
  );
  bus.subscribe('move', () => {}, { owner: { id: 1 } });
  bus.subscribe('*', () => {});
  bus.enqueue('tick');
  const snapshot = (): string =>
    JSON.stringify({
      total: bus.listenerCount(),
      tick: bus.listenerCount('tick'),
      subs: bus.subscriptions().map(({ createdAt: _c, ...rest }) => rest),
      queued: bus.queueLength,
    });
  return { bus, untyped: bus as unknown as UntypedBus, snapshot, calls: () => calls };
}

/** Asserts `call` throws a TypeError whose message matches `message`, and the bus did not change. */
function rejects(call: (bus: UntypedBus) => unknown, message: RegExp): void {
  const { bus, untyped, snapshot, calls } = populated();
  const before = snapshot();
  assert.throws(
    () => call(untyped),
    (error: unknown) => {
      assert.ok(error instanceof TypeError, `expected a TypeError, got ${String(error)}`);
      assert.match(error.message, message);
      return true;
    },
  );
  assert.equal(snapshot(), before, 'the bus changed');
  // ...and it still works.
  bus.dispatch('tick');
  assert.equal(calls(), 1);
  assert.equal(bus.flush(), 1);
}

test('subscribe rejects a type that is not a non-empty string', () => {
  rejects((b) => b.subscribe(42, () => {}), /subscribe: type must be a non-empty string \(got number 42\)/);
  rejects((b) => b.subscribe('', () => {}), /subscribe: type must be a non-empty string \(got an empty string\)/);
  rejects((b) => b.subscribe(undefined, () => {}), /type .*got undefined/);
});

test('subscribe rejects a handler that is not a function', () => {
  rejects((b) => b.subscribe('tick', 'not a function'), /subscribe: handler must be a function \(got the string "not a function"\)/);
  rejects((b) => b.subscribe('tick'), /handler must be a function \(got undefined\)/);
  rejects((b) => b.subscribe('tick', {}), /handler must be a function \(got an object\)/);
});

test('subscribe rejects options that are not an object', () => {
  rejects((b) => b.subscribe('tick', () => {}, 5), /subscribe: options must be an object/);
  rejects((b) => b.subscribe('tick', () => {}, null), /options must be an object \(got null\)/);
});

test('subscribe rejects a priority that is not a finite number', () => {
  rejects((b) => b.subscribe('tick', () => {}, { priority: Number.NaN }), /options\.priority must be a finite number \(got number NaN\)/);
  rejects((b) => b.subscribe('tick', () => {}, { priority: Infinity }), /options\.priority must be a finite number/);
  rejects((b) => b.subscribe('tick', () => {}, { priority: '10' }), /options\.priority must be a finite number \(got the string "10"\)/);
});

test('subscribe rejects an owner that is not an object', () => {
  rejects((b) => b.subscribe('tick', () => {}, { owner: 7 }), /options\.owner must be an object \(got number 7\)/);
  rejects((b) => b.subscribe('tick', () => {}, { owner: 'widget' }), /options\.owner must be an object/);
  rejects((b) => b.subscribe('tick', () => {}, { owner: null }), /options\.owner must be an object \(got null\)/);
});

test('subscribe rejects a signal that is not an AbortSignal', () => {
  rejects((b) => b.subscribe('tick', () => {}, { signal: {} }), /options\.signal must be an AbortSignal/);
  rejects((b) => b.subscribe('tick', () => {}, { signal: true }), /options\.signal must be an AbortSignal/);
});

test('subscribe rejects a label that is not a string and a once that is not a boolean', () => {
  rejects((b) => b.subscribe('tick', () => {}, { label: 12 }), /options\.label must be a string \(got number 12\)/);
  rejects((b) => b.subscribe('tick', () => {}, { once: 'yes' }), /options\.once must be a boolean/);
});

test('a rejected subscribe with an owner and a signal leaves neither attached', () => {
  const controller = new AbortController();
  const owner = {};
  rejects((b) => b.subscribe('tick', () => {}, { owner, signal: controller.signal, priority: Number.NaN }), /priority/);
  controller.abort(); // would throw or misbehave if a listener had been left behind
});

test('dispatch and enqueue reject an empty, non-string or wildcard type', () => {
  rejects((b) => b.dispatch(''), /dispatch: type must be a non-empty string/);
  rejects((b) => b.dispatch(3), /dispatch: type must be a non-empty string \(got number 3\)/);
  rejects((b) => b.dispatch('*'), /dispatch: type '\*' only subscribes/);
  rejects((b) => b.enqueue(''), /enqueue: type must be a non-empty string/);
  rejects((b) => b.enqueue('*'), /enqueue: type '\*'/);
  rejects((b) => b.enqueue(null), /enqueue: type must be a non-empty string \(got null\)/);
});

test('unsubscribe rejects anything but a Subscription or a positive integer id', () => {
  rejects((b) => b.unsubscribe('1'), /unsubscribe: expected a Subscription returned by subscribe\(\) or its id/);
  rejects((b) => b.unsubscribe({ id: 1, dispose() {} }), /unsubscribe: expected a Subscription/);
  rejects((b) => b.unsubscribe(null), /unsubscribe: expected a Subscription .*got null/);
  rejects((b) => b.unsubscribe(0), /unsubscribe: an id must be a positive integer \(got number 0\)/);
  rejects((b) => b.unsubscribe(-3), /an id must be a positive integer/);
  rejects((b) => b.unsubscribe(1.5), /an id must be a positive integer/);
});

test('unsubscribeOwner rejects an owner that is not an object', () => {
  rejects((b) => b.unsubscribeOwner(1), /unsubscribeOwner: owner must be an object \(got number 1\)/);
  rejects((b) => b.unsubscribeOwner(undefined), /unsubscribeOwner: owner must be an object/);
});

test('listenerCount and subscriptions reject a bad type', () => {
  rejects((b) => b.listenerCount(''), /listenerCount: type must be a non-empty string/);
  rejects((b) => b.subscriptions(5), /subscriptions: type must be a non-empty string/);
});

test('the constructor rejects bad options, naming the option', () => {
  const bad: [unknown, RegExp][] = [
    [5, /new EventBus: options must be an object/],
    [{ name: '' }, /options\.name must be a non-empty string/],
    [{ name: 3 }, /options\.name must be a non-empty string \(got number 3\)/],
    [{ maxDepth: 0 }, /options\.maxDepth must be a positive integer \(got number 0\)/],
    [{ maxDepth: -1 }, /options\.maxDepth must be a positive integer/],
    [{ maxDepth: 2.5 }, /options\.maxDepth must be a positive integer/],
    [{ maxDepth: '8' }, /options\.maxDepth must be a positive integer/],
    [{ maxDepth: Number.NaN }, /options\.maxDepth must be a positive integer/],
    [{ onError: 'log' }, /options\.onError must be a function/],
    [{ isOwnerAlive: true }, /options\.isOwnerAlive must be a function/],
    [{ autoFlush: 'sometimes' }, /options\.autoFlush must be 'manual' or 'microtask'/],
    [{ warnOnCollectedOwner: 'no' }, /options\.warnOnCollectedOwner must be a boolean \(got the string "no"\)/],
  ];
  for (const [options, message] of bad) {
    assert.throws(
      () => new UntypedEventBus(options),
      (error: unknown) => error instanceof TypeError && message.test(error.message),
      JSON.stringify(options),
    );
  }
});

test('valid edge values are accepted', () => {
  const bus = new UntypedEventBus({ name: 'x', maxDepth: 1, autoFlush: 'manual', onError: undefined, isOwnerAlive: undefined });
  const untyped = bus as unknown as UntypedBus;
  assert.doesNotThrow(() => untyped.subscribe('tick', () => {}, { priority: -0, once: false, label: '', owner: () => {} }));
  assert.doesNotThrow(() => untyped.subscribe('tick', () => {}, {}));
  assert.doesNotThrow(() => untyped.subscribe('tick', () => {}, undefined));
  assert.equal(bus.listenerCount(), 3);
});
