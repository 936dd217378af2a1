// Owners: held weakly, removed in bulk, never called once dead or garbage-collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventBus } from '../../../runtime-probe/src/bus/index';

interface Events {
  tick: void;
  resize: { w: number };
}

function getGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = getGc();
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Collects until `done()` holds, yielding before and after each collection (bounded). */
async function collectUntil(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 20 && !done(); i++) {
    await macrotask();
    gc();
    await macrotask();
    await macrotask();
  }
  return done();
}

class HudWidget {
  disposed = false;
  constructor(readonly id: number) {}
}

// Handlers that do not close over their owner (a closure over the owner would keep it alive).
let ticks = 0;
function countTick(): void {
  ticks++;
}

test('unsubscribeOwner removes every subscription of that owner and returns how many', () => {
  const bus = new EventBus<Events>();
  const widget = new HudWidget(1);
  const other = new HudWidget(2);
  const a = bus.subscribe('tick', () => {}, { owner: widget });
  const b = bus.subscribe('resize', () => {}, { owner: widget });
  const c = bus.subscribe('tick', () => {}, { owner: other });
  const d = bus.subscribe('tick', () => {});
  assert.equal(bus.unsubscribeOwner(widget), 2);
  assert.deepEqual([a.active, b.active, c.active, d.active], [false, false, true, true]);
  assert.equal(bus.unsubscribeOwner(widget), 0);
  assert.equal(bus.listenerCount(), 2);
});

test('unsubscribeOwner only touches the bus it is called on', () => {
  const one = new EventBus<Events>();
  const two = new EventBus<Events>();
  const owner = {};
  one.subscribe('tick', () => {}, { owner });
  const kept = two.subscribe('tick', () => {}, { owner });
  assert.equal(one.unsubscribeOwner(owner), 1);
  assert.equal(kept.active, true);
});

test('an owner marked disposed is never called again: its subscription is removed at the next dispatch', () => {
  const bus = new EventBus<Events>();
  const widget = new HudWidget(3);
  let calls = 0;
  const sub = bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner: widget },
  );
  bus.dispatch('tick');
  widget.disposed = true;
  assert.equal(sub.active, true, 'nothing happens until the next dispatch reaches it');
  const result = bus.dispatch('tick');
  assert.equal(calls, 1);
  assert.equal(result.delivered, 0);
  assert.equal(sub.active, false);
  assert.equal(bus.listenerCount(), 0);
});

test('an owner with isDisposed === true counts as dead too', () => {
  const bus = new EventBus<Events>();
  const owner = { isDisposed: false };
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner },
  );
  owner.isDisposed = true;
  bus.dispatch('tick');
  assert.equal(calls, 0);
});

test('only a disposed flag that is exactly true means dead', () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner: { disposed: 'yes', isDisposed: 1 } },
  );
  bus.dispatch('tick');
  assert.equal(calls, 1);
});

test('a custom isOwnerAlive decides which owners are alive', () => {
  const dead = new WeakSet<object>();
  const bus = new EventBus<Events>({ isOwnerAlive: (owner) => !dead.has(owner) });
  const owner = new HudWidget(4);
  owner.disposed = true; // ignored: the custom check replaces the default
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner },
  );
  bus.dispatch('tick');
  dead.add(owner);
  bus.dispatch('tick');
  assert.equal(calls, 1);
  assert.equal(bus.listenerCount(), 0);
});

test('a dead owner mid-dispatch: a handler that disposes a later owner prevents its call', () => {
  const bus = new EventBus<Events>();
  const later = new HudWidget(5);
  const calls: string[] = [];
  bus.subscribe('tick', () => {
    calls.push('first');
    later.disposed = true;
  });
  bus.subscribe('tick', () => calls.push('later'), { owner: later });
  bus.dispatch('tick');
  assert.deepEqual(calls, ['first']);
});

test('an isOwnerAlive that throws skips the call, reports the error and keeps the subscription', () => {
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({
    isOwnerAlive: () => {
      throw new Error('cannot tell');
    },
    onError: (e) => errors.push(e),
  });
  let calls = 0;
  bus.subscribe(
    'tick',
    () => {
      calls++;
    },
    { owner: {} },
  );
  bus.subscribe('tick', () => {
    calls += 10;
  });
  const result = bus.dispatch('tick');
  assert.equal(calls, 10);
  assert.equal(result.delivered, 1);
  assert.equal(errors.length, 1);
  assert.equal(bus.listenerCount(), 2);
});

test('the inspector sees owners described by constructor name and id or name', () => {
  const bus = new EventBus<Events>();
  class Panel {
    constructor(readonly name: string) {}
  }
  bus.subscribe('tick', () => {}, { owner: new HudWidget(3) });
  bus.subscribe('tick', () => {}, { owner: new Panel('inventory') });
  bus.subscribe('tick', () => {}, { owner: {} });
  bus.subscribe('tick', () => {}, { owner: Object.create(null) as object });
  bus.subscribe('tick', () => {});
  assert.deepEqual(
    bus.subscriptions().map((s) => s.owner),
    ['HudWidget#3', 'Panel#inventory', 'Object', 'Object', undefined],
  );
});

test('an owner whose getters throw is still described', () => {
  const bus = new EventBus<Events>();
  class Touchy {
    get id(): number {
      throw new Error('no');
    }
  }
  bus.subscribe('tick', () => {}, { owner: new Touchy() });
  assert.equal(bus.subscriptions()[0].owner, 'Touchy');
});

test('the bus holds owners weakly: a garbage-collected owner loses its subscriptions without any dispatch', async () => {
  const bus = new EventBus<Events>();
  (() => {
    const widget = new HudWidget(7);
    bus.subscribe('tick', countTick, { owner: widget });
    bus.subscribe('resize', countTick, { owner: widget });
  })();
  const kept = bus.subscribe('tick', countTick, { owner: new HudWidget(8) });
  const keepAlive = new HudWidget(9);
  bus.subscribe('tick', countTick, { owner: keepAlive });
  assert.equal(bus.listenerCount(), 4);
  // The FinalizationRegistry removes both subscriptions of the collected widget (and of #8).
  assert.ok(await collectUntil(() => bus.listenerCount() === 1), `listeners left: ${bus.listenerCount()}`);
  assert.equal(kept.active, false);
  assert.deepEqual(
    bus.subscriptions().map((s) => s.owner),
    ['HudWidget#9'],
  );
  assert.equal(keepAlive.id, 9);
});

test('a garbage-collected owner is never called again, even when a dispatch comes before the registry runs', async () => {
  const bus = new EventBus<Events>();
  ticks = 0;
  (() => {
    bus.subscribe('tick', countTick, { owner: new HudWidget(10) });
  })();
  let removed = false;
  let lastDelivered = -1;
  for (let i = 0; i < 20 && !removed; i++) {
    await macrotask(); // let the subscribing job end, so the WeakRef may be cleared
    const before = ticks;
    gc();
    // No yield between the collection and the dispatch: the registry has usually not run yet, so
    // the dispatch itself finds the owner gone and removes the subscription instead of calling it.
    lastDelivered = bus.dispatch('tick').delivered;
    removed = bus.listenerCount() === 0;
    assert.equal(ticks - before, lastDelivered);
  }
  assert.ok(removed, 'the owner was collected');
  assert.equal(lastDelivered, 0, 'the dispatch after the collection called nobody');
  const before = ticks;
  bus.dispatch('tick');
  assert.equal(ticks, before);
});

test('subscriptions without owners are unaffected by garbage collection', async () => {
  const bus = new EventBus<Events>();
  bus.subscribe('tick', countTick);
  await macrotask();
  gc();
  await macrotask();
  assert.equal(bus.listenerCount(), 1);
});

test('an owner can be any object, including a function', () => {
  const bus = new EventBus<Events>();
  function component(): void {}
  bus.subscribe('tick', () => {}, { owner: component });
  assert.equal(bus.unsubscribeOwner(component), 1);
});
