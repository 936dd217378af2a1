// Subscribing and dispatching: payloads, '*', ordering by priority, consumption, the context object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import type { DispatchContext } from '../../../runtime-probe/src/bus/index';

interface GameEvents {
  'item.picked': { itemId: number; picker: string };
  'health.changed': { current: number; max: number };
  'enemy.killed': { enemyType: string };
  tick: void;
}

const quiet = { onError: (): void => {} };

test('a handler receives the dispatched payload', () => {
  const bus = new EventBus<GameEvents>({ name: 'gameplay' });
  const seen: { current: number; max: number }[] = [];
  bus.subscribe('health.changed', (e) => seen.push(e));
  bus.dispatch('health.changed', { current: 80, max: 100 });
  assert.deepEqual(seen, [{ current: 80, max: 100 }]);
});

test('a void event is dispatched without a payload and the handler gets undefined', () => {
  const bus = new EventBus<GameEvents>();
  const seen: unknown[] = [];
  bus.subscribe('tick', (p) => seen.push(p));
  bus.dispatch('tick');
  assert.deepEqual(seen, [undefined]);
});

test('only subscribers of the dispatched type are called', () => {
  const bus = new EventBus<GameEvents>();
  const calls: string[] = [];
  bus.subscribe('item.picked', () => calls.push('item'));
  bus.subscribe('enemy.killed', () => calls.push('enemy'));
  bus.dispatch('enemy.killed', { enemyType: 'orc' });
  assert.deepEqual(calls, ['enemy']);
});

test('dispatch reports how many handlers were called', () => {
  const bus = new EventBus<GameEvents>();
  bus.subscribe('tick', () => {});
  bus.subscribe('tick', () => {});
  assert.deepEqual(bus.dispatch('tick'), { delivered: 2, consumed: false });
});

test('dispatching an event nobody subscribed to delivers to nobody', () => {
  const bus = new EventBus<GameEvents>();
  const result = bus.dispatch('enemy.killed', { enemyType: 'orc' });
  assert.deepEqual(result, { delivered: 0, consumed: false });
  assert.equal(result.consumedBy, undefined);
});

test('the dispatch result cannot be modified', () => {
  const bus = new EventBus<GameEvents>();
  bus.subscribe('tick', () => {});
  const result = bus.dispatch('tick');
  assert.ok(Object.isFrozen(result));
});

test("'*' subscribers receive every event with ctx.type naming it", () => {
  const bus = new EventBus<GameEvents>();
  const seen: [string, unknown][] = [];
  bus.subscribe('*', (payload, ctx) => seen.push([ctx.type, payload]));
  bus.dispatch('enemy.killed', { enemyType: 'orc' });
  bus.dispatch('tick');
  assert.deepEqual(seen, [
    ['enemy.killed', { enemyType: 'orc' }],
    ['tick', undefined],
  ]);
});

test('higher priority handlers run first', () => {
  const bus = new EventBus<GameEvents>();
  const order: string[] = [];
  bus.subscribe('tick', () => order.push('low'), { priority: -5 });
  bus.subscribe('tick', () => order.push('default'));
  bus.subscribe('tick', () => order.push('high'), { priority: 10 });
  bus.subscribe('tick', () => order.push('fractional'), { priority: 0.5 });
  bus.dispatch('tick');
  assert.deepEqual(order, ['high', 'fractional', 'default', 'low']);
});

test('equal priorities run in subscription order', () => {
  const bus = new EventBus<GameEvents>();
  const order: number[] = [];
  for (let i = 0; i < 5; i++) bus.subscribe('tick', () => order.push(i), { priority: 3 });
  bus.subscribe('tick', () => order.push(99), { priority: 4 });
  bus.dispatch('tick');
  assert.deepEqual(order, [99, 0, 1, 2, 3, 4]);
});

test("'*' subscribers interleave with typed ones by priority, then subscription order", () => {
  const bus = new EventBus<GameEvents>();
  const order: string[] = [];
  bus.subscribe('tick', () => order.push('typed 0 (first)'));
  bus.subscribe('*', () => order.push('star 0'));
  bus.subscribe('tick', () => order.push('typed 0 (second)'));
  bus.subscribe('*', () => order.push('star 5'), { priority: 5 });
  bus.subscribe('tick', () => order.push('typed 7'), { priority: 7 });
  bus.subscribe('*', () => order.push('star -1'), { priority: -1 });
  bus.dispatch('tick');
  assert.deepEqual(order, ['typed 7', 'star 5', 'typed 0 (first)', 'star 0', 'typed 0 (second)', 'star -1']);
});

test('returning true consumes the event: later handlers are not called and consumedBy names the consumer', () => {
  const bus = new EventBus<GameEvents>();
  const order: string[] = [];
  bus.subscribe('tick', () => order.push('first'), { priority: 2 });
  const consumer = bus.subscribe(
    'tick',
    () => {
      order.push('consumer');
      return true;
    },
    { priority: 1 },
  );
  bus.subscribe('tick', () => order.push('never'));
  const result = bus.dispatch('tick');
  assert.deepEqual(order, ['first', 'consumer']);
  assert.deepEqual(result, { delivered: 2, consumed: true, consumedBy: consumer.id });
});

test('ctx.consume() consumes the event like returning true', () => {
  const bus = new EventBus<GameEvents>();
  const order: string[] = [];
  const consumer = bus.subscribe('tick', (_p, ctx) => {
    order.push('consumer');
    ctx.consume();
  });
  bus.subscribe('tick', () => order.push('never'));
  const result = bus.dispatch('tick');
  assert.deepEqual(order, ['consumer']);
  assert.equal(result.consumed, true);
  assert.equal(result.consumedBy, consumer.id);
});

test('a truthy return value other than true does not consume', () => {
  const bus = new EventBus<GameEvents>();
  let later = 0;
  bus.subscribe('tick', () => 1);
  bus.subscribe('tick', () => 'yes');
  bus.subscribe('tick', () => {
    later++;
  });
  assert.deepEqual(bus.dispatch('tick'), { delivered: 3, consumed: false });
  assert.equal(later, 1);
});

test('consumption applies to one dispatch only', () => {
  const bus = new EventBus<GameEvents>();
  let consume = true;
  let second = 0;
  bus.subscribe('tick', () => consume);
  bus.subscribe('tick', () => {
    second++;
  });
  bus.dispatch('tick');
  consume = false;
  bus.dispatch('tick');
  assert.equal(second, 1);
});

test("a '*' subscriber can consume an event before typed subscribers with lower priority", () => {
  const bus = new EventBus<GameEvents>();
  let typed = 0;
  const gate = bus.subscribe('*', () => true, { priority: 100 });
  bus.subscribe('enemy.killed', () => {
    typed++;
  });
  const result = bus.dispatch('enemy.killed', { enemyType: 'orc' });
  assert.equal(typed, 0);
  assert.equal(result.consumedBy, gate.id);
});

test('ctx tells the handler its subscription id, the event type and depth 0 at top level', () => {
  const bus = new EventBus<GameEvents>();
  let seen: { type: string; depth: number; subscriptionId: number } | undefined;
  const sub = bus.subscribe('enemy.killed', (_e, ctx: DispatchContext<GameEvents>) => {
    seen = { type: ctx.type, depth: ctx.depth, subscriptionId: ctx.subscriptionId };
  });
  bus.dispatch('enemy.killed', { enemyType: 'orc' });
  assert.deepEqual(seen, { type: 'enemy.killed', depth: 0, subscriptionId: sub.id });
});

test('a throwing handler after ctx.consume() does not consume', () => {
  const bus = new EventBus<GameEvents>(quiet);
  let later = 0;
  bus.subscribe('tick', (_p, ctx) => {
    ctx.consume();
    throw new Error('after consume');
  });
  bus.subscribe('tick', () => {
    later++;
  });
  assert.deepEqual(bus.dispatch('tick'), { delivered: 2, consumed: false });
  assert.equal(later, 1);
});

test('each handler call is counted in the subscription info', () => {
  const bus = new EventBus<GameEvents>();
  const sub = bus.subscribe('tick', () => {});
  for (let i = 0; i < 3; i++) bus.dispatch('tick');
  assert.equal(bus.subscriptions()[0].id, sub.id);
  assert.equal(bus.subscriptions()[0].calls, 3);
});

test('buses are independent channels', () => {
  const ui = new EventBus<GameEvents>({ name: 'ui' });
  const gameplay = new EventBus<GameEvents>({ name: 'gameplay' });
  let uiCalls = 0;
  ui.subscribe('tick', () => {
    uiCalls++;
  });
  gameplay.dispatch('tick');
  assert.equal(uiCalls, 0);
  assert.equal(ui.name, 'ui');
  assert.equal(new EventBus<GameEvents>().name, 'default');
});

test('many handlers, and dispatches alternating between types, all reach the right subscribers', () => {
  const bus = new EventBus<GameEvents>();
  const counts = new Map<string, number>();
  const bump = (k: string): void => {
    counts.set(k, (counts.get(k) ?? 0) + 1);
  };
  for (let i = 0; i < 100; i++) bus.subscribe('tick', () => bump('tick'));
  bus.subscribe('enemy.killed', () => bump('enemy'));
  for (let i = 0; i < 10; i++) {
    assert.equal(bus.dispatch('tick').delivered, 100);
    assert.equal(bus.dispatch('enemy.killed', { enemyType: 'x' }).delivered, 1);
    assert.equal(bus.dispatch('item.picked', { itemId: 1, picker: 'p' }).delivered, 0);
  }
  assert.equal(counts.get('tick'), 1000);
  assert.equal(counts.get('enemy'), 10);
});

test('subscribing to a type after it was dispatched with no subscribers still works', () => {
  const bus = new EventBus<GameEvents>();
  bus.dispatch('enemy.killed', { enemyType: 'none yet' });
  let calls = 0;
  bus.subscribe('enemy.killed', () => {
    calls++;
  });
  bus.dispatch('enemy.killed', { enemyType: 'orc' });
  assert.equal(calls, 1);
});
