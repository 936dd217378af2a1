// Subscription lifecycles: handles and ids, once, AbortSignal, unsubscribe, clear, dispose, and
// the introspection the inspector relies on (listenerCount, subscriptions()).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import type { Subscription } from '../../../runtime-probe/src/bus/index';

interface Events {
  open: { path: string };
  close: { path: string };
  tick: void;
}

test('subscription ids are positive integers, unique across buses, and never reused', () => {
  const one = new EventBus<Events>();
  const two = new EventBus<Events>();
  const seen = new Set<number>();
  for (let i = 0; i < 50; i++) {
    for (const bus of [one, two]) {
      const sub = bus.subscribe('tick', () => {});
      assert.ok(Number.isInteger(sub.id) && sub.id > 0);
      assert.ok(!seen.has(sub.id), `id ${sub.id} reused`);
      seen.add(sub.id);
      if (i % 2 === 0) sub.dispose();
    }
  }
  one.clear();
  const after = one.subscribe('tick', () => {});
  assert.ok(!seen.has(after.id));
  assert.ok(after.id > Math.max(...seen));
});

test('a subscription reports its type and whether it is active', () => {
  const bus = new EventBus<Events>();
  const sub = bus.subscribe('open', () => {});
  const star = bus.subscribe('*', () => {});
  assert.equal(sub.type, 'open');
  assert.equal(star.type, '*');
  assert.equal(sub.active, true);
  sub.dispose();
  assert.equal(sub.active, false);
});

test('dispose unsubscribes and is idempotent', () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  const sub = bus.subscribe('tick', () => {
    calls++;
  });
  const other = bus.subscribe('tick', () => {});
  sub.dispose();
  sub.dispose();
  bus.dispatch('tick');
  assert.equal(calls, 0);
  assert.equal(other.active, true);
  assert.equal(bus.listenerCount(), 1);
});

test('Symbol.dispose unsubscribes, so `using` works', () => {
  const bus = new EventBus<Events>();
  {
    using sub = bus.subscribe('tick', () => {});
    assert.equal(sub.active, true);
    assert.equal(bus.listenerCount(), 1);
  }
  assert.equal(bus.listenerCount(), 0);
  const sub = bus.subscribe('tick', () => {});
  sub[Symbol.dispose]();
  assert.equal(sub.active, false);
});

test('unsubscribe(subscription) and unsubscribe(id) return whether something was removed', () => {
  const bus = new EventBus<Events>();
  const a = bus.subscribe('open', () => {});
  const b = bus.subscribe('close', () => {});
  assert.equal(bus.unsubscribe(a), true);
  assert.equal(bus.unsubscribe(a), false);
  assert.equal(bus.unsubscribe(b.id), true);
  assert.equal(bus.unsubscribe(b.id), false);
  assert.equal(bus.unsubscribe(987654321), false);
  assert.equal(bus.listenerCount(), 0);
});

test('unsubscribe on another bus leaves the subscription alone', () => {
  const one = new EventBus<Events>();
  const two = new EventBus<Events>();
  const sub = one.subscribe('tick', () => {});
  assert.equal(two.unsubscribe(sub), false);
  assert.equal(two.unsubscribe(sub.id), false);
  assert.equal(sub.active, true);
});

test('a once subscription runs once and is removed before its handler runs', () => {
  const bus = new EventBus<Events>();
  const seen: { active: boolean; count: number }[] = [];
  const sub: Subscription = bus.subscribe(
    'tick',
    () => {
      seen.push({ active: sub.active, count: bus.listenerCount('tick') });
    },
    { once: true },
  );
  assert.equal(bus.dispatch('tick').delivered, 1);
  assert.equal(bus.dispatch('tick').delivered, 0);
  assert.deepEqual(seen, [{ active: false, count: 0 }]);
});

test('a once handler that dispatches the same event recursively is not called again', () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
      bus.dispatch('tick');
    },
    { once: true },
  );
  bus.dispatch('tick');
  assert.equal(calls, 1);
});

test('a once handler that consumes still counts as consumer', () => {
  const bus = new EventBus<Events>();
  const sub = bus.subscribe('tick', () => true, { once: true });
  assert.deepEqual(bus.dispatch('tick'), { delivered: 1, consumed: true, consumedBy: sub.id });
});

test('aborting the signal unsubscribes', () => {
  const bus = new EventBus<Events>();
  const controller = new AbortController();
  let calls = 0;
  const sub = bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { signal: controller.signal },
  );
  bus.dispatch('tick');
  controller.abort();
  bus.dispatch('tick');
  assert.equal(calls, 1);
  assert.equal(sub.active, false);
  assert.equal(bus.listenerCount(), 0);
});

test('one signal can end many subscriptions at once', () => {
  const bus = new EventBus<Events>();
  const controller = new AbortController();
  const subs = [
    bus.subscribe('open', () => {}, { signal: controller.signal }),
    bus.subscribe('close', () => {}, { signal: controller.signal }),
    bus.subscribe('*', () => {}, { signal: controller.signal }),
  ];
  controller.abort();
  assert.deepEqual(
    subs.map((s) => s.active),
    [false, false, false],
  );
});

test('an already aborted signal subscribes nothing and returns an inactive subscription', () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  const sub = bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { signal: AbortSignal.abort() },
  );
  assert.equal(sub.active, false);
  assert.ok(sub.id > 0);
  assert.equal(bus.listenerCount(), 0);
  bus.dispatch('tick');
  assert.equal(calls, 0);
  sub.dispose(); // harmless
});

test('aborting during a dispatch stops a later handler that used the signal', () => {
  const bus = new EventBus<Events>();
  const controller = new AbortController();
  const calls: string[] = [];
  bus.subscribe('tick', () => {
    calls.push('aborter');
    controller.abort();
  });
  bus.subscribe('tick', () => calls.push('aborted'), { signal: controller.signal });
  bus.dispatch('tick');
  assert.deepEqual(calls, ['aborter']);
});

test('a subscription that ends another way stops listening to its signal', () => {
  const bus = new EventBus<Events>();
  const controller = new AbortController();
  let listeners = 0;
  const signal = controller.signal;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  // Count the bus's abort listeners on this signal (the signal itself stays real).
  signal.addEventListener = ((...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  }) as typeof signal.addEventListener;
  signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  }) as typeof signal.removeEventListener;
  const a = bus.subscribe('tick', () => {}, { signal });
  bus.subscribe('tick', () => {}, { signal, once: true });
  const c = bus.subscribe('open', () => {}, { signal });
  assert.equal(listeners, 3);
  a.dispose();
  bus.dispatch('tick'); // the once subscription ends
  assert.equal(listeners, 1);
  bus.clear();
  assert.equal(listeners, 0);
  assert.equal(c.active, false);
});

test('clear() removes every subscription, including wildcard ones, and the bus stays usable', () => {
  const bus = new EventBus<Events>();
  const subs = [bus.subscribe('open', () => {}), bus.subscribe('tick', () => {}), bus.subscribe('*', () => {})];
  bus.clear();
  assert.equal(bus.listenerCount(), 0);
  assert.deepEqual(
    subs.map((s) => s.active),
    [false, false, false],
  );
  assert.equal(bus.dispatch('tick').delivered, 0);
  bus.subscribe('tick', () => {});
  assert.equal(bus.dispatch('tick').delivered, 1);
});

test('listenerCount counts all subscriptions, or those of exactly one type', () => {
  const bus = new EventBus<Events>();
  bus.subscribe('open', () => {});
  bus.subscribe('open', () => {});
  bus.subscribe('close', () => {});
  bus.subscribe('*', () => {});
  assert.equal(bus.listenerCount(), 4);
  assert.equal(bus.listenerCount('open'), 2);
  assert.equal(bus.listenerCount('close'), 1);
  assert.equal(bus.listenerCount('tick'), 0);
  assert.equal(bus.listenerCount('*'), 1);
});

test('subscriptions() describes live subscriptions in subscription order', () => {
  const bus = new EventBus<Events>({ name: 'files' });
  const owner = { id: 42 };
  const before = Date.now();
  const a = bus.subscribe('open', () => {}, { priority: 5, label: 'Opener', owner });
  const b = bus.subscribe('*', () => {}, { once: true });
  const gone = bus.subscribe('close', () => {});
  const c = bus.subscribe('open', () => {}, { priority: 10 });
  gone.dispose();
  bus.dispatch('open', { path: '/a' });
  const infos = bus.subscriptions();
  assert.deepEqual(
    infos.map(({ createdAt: _c, ...rest }) => rest),
    [
      { id: a.id, type: 'open', priority: 5, label: 'Opener', owner: 'Object#42', calls: 1, once: false, bus: 'files' },
      { id: c.id, type: 'open', priority: 10, label: undefined, owner: undefined, calls: 1, once: false, bus: 'files' },
    ],
  );
  assert.equal(b.active, false, 'the once subscription ran and is gone');
  for (const info of infos) assert.ok(info.createdAt >= before && info.createdAt <= Date.now());
});

test('subscriptions(type) lists only that type', () => {
  const bus = new EventBus<Events>();
  const a = bus.subscribe('open', () => {});
  bus.subscribe('close', () => {});
  const star = bus.subscribe('*', () => {});
  assert.deepEqual(
    bus.subscriptions('open').map((s) => s.id),
    [a.id],
  );
  assert.deepEqual(
    bus.subscriptions('*').map((s) => s.id),
    [star.id],
  );
  assert.deepEqual(bus.subscriptions('tick'), []);
});

test('subscriptions() returns snapshots that do not change afterwards', () => {
  const bus = new EventBus<Events>();
  bus.subscribe('tick', () => {});
  const [info] = bus.subscriptions();
  bus.dispatch('tick');
  assert.equal(info.calls, 0);
  assert.equal(bus.subscriptions()[0].calls, 1);
});

test('a disposed bus is inert: subscribe returns inactive subscriptions and dispatch delivers to nobody', () => {
  const bus = new EventBus<Events>();
  const before = bus.subscribe('tick', () => {});
  assert.equal(bus.disposed, false);
  bus.dispose();
  assert.equal(bus.disposed, true);
  assert.equal(before.active, false);
  assert.equal(bus.listenerCount(), 0);
  let calls = 0;
  const after = bus.subscribe('tick', () => {
    calls++;
  });
  assert.equal(after.active, false);
  assert.deepEqual(bus.dispatch('tick'), { delivered: 0, consumed: false });
  bus.enqueue('tick');
  assert.equal(bus.flush(), 0);
  assert.equal(calls, 0);
  bus.dispose(); // idempotent
});

test('disposing a bus during its own dispatch stops the remaining handlers', () => {
  const bus = new EventBus<Events>();
  const calls: string[] = [];
  bus.subscribe('tick', () => {
    calls.push('disposer');
    bus.dispose();
  });
  bus.subscribe('tick', () => calls.push('later'));
  bus.dispatch('tick');
  assert.deepEqual(calls, ['disposer']);
});

test('a disposed bus counts as a dead owner', () => {
  const parent = new EventBus<Events>({ name: 'parent' });
  const child = new EventBus<Events>({ name: 'child' });
  let calls = 0;
  parent.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner: child },
  );
  child.dispose();
  parent.dispatch('tick');
  assert.equal(calls, 0);
});

test('the bus itself works with `using`', () => {
  let outer: EventBus<Events> | undefined;
  {
    using bus = new EventBus<Events>();
    outer = bus;
    bus.subscribe('tick', () => {});
  }
  assert.equal(outer.disposed, true);
});
