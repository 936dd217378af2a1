// Changes made from inside handlers, nested dispatch and the depth limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DispatchDepthError, EventBus } from '../../../runtime-probe/src/bus/index';
import type { HandlerErrorInfo, Subscription } from '../../../runtime-probe/src/bus/index';

interface Events {
  a: { n: number };
  b: { n: number };
  ping: void;
  pong: void;
}

function collectErrors(): { errors: { error: unknown; info: HandlerErrorInfo }[]; onError: (error: unknown, info: HandlerErrorInfo) => void } {
  const errors: { error: unknown; info: HandlerErrorInfo }[] = [];
  return { errors, onError: (error, info) => errors.push({ error, info }) };
}

test('a handler subscribed during a dispatch is not called by that dispatch, but by the next one', () => {
  const bus = new EventBus<Events>();
  const calls: string[] = [];
  bus.subscribe('ping', () => {
    calls.push('first');
    if (calls.length === 1) bus.subscribe('ping', () => calls.push('late'), { priority: 100 });
  });
  bus.subscribe('ping', () => calls.push('second'));
  assert.equal(bus.dispatch('ping').delivered, 2);
  assert.deepEqual(calls, ['first', 'second']);
  calls.length = 0;
  bus.dispatch('ping');
  assert.deepEqual(calls, ['late', 'first', 'second']);
});

test("a '*' handler subscribed during a dispatch is not called by that dispatch", () => {
  const bus = new EventBus<Events>();
  let star = 0;
  bus.subscribe('ping', () => {
    bus.subscribe('*', () => {
      star++;
    });
  });
  bus.dispatch('ping');
  assert.equal(star, 0);
  bus.dispatch('pong');
  assert.equal(star, 1);
});

test('a handler unsubscribed during a dispatch, before its turn, is not called', () => {
  const bus = new EventBus<Events>();
  const calls: string[] = [];
  let victim: Subscription | undefined;
  bus.subscribe('ping', () => {
    calls.push('killer');
    victim?.dispose();
  });
  victim = bus.subscribe('ping', () => calls.push('victim'));
  bus.subscribe('ping', () => calls.push('bystander'));
  assert.equal(bus.dispatch('ping').delivered, 2);
  assert.deepEqual(calls, ['killer', 'bystander']);
  assert.equal(victim.active, false);
});

test('a handler unsubscribing itself finishes its call and the rest still run', () => {
  const bus = new EventBus<Events>();
  const calls: string[] = [];
  const self: Subscription = bus.subscribe('ping', () => {
    self.dispose();
    calls.push('self');
  });
  bus.subscribe('ping', () => calls.push('next'));
  bus.dispatch('ping');
  bus.dispatch('ping');
  assert.deepEqual(calls, ['self', 'next', 'next']);
});

test("unsubscribing a '*' handler during a dispatch, before its turn, skips it", () => {
  const bus = new EventBus<Events>();
  let star = 0;
  let starSub: Subscription | undefined;
  bus.subscribe('ping', () => starSub?.dispose(), { priority: 1 });
  starSub = bus.subscribe('*', () => {
    star++;
  });
  bus.dispatch('ping');
  assert.equal(star, 0);
});

test('clear() during a dispatch stops the handlers that have not run yet', () => {
  const bus = new EventBus<Events>();
  const calls: string[] = [];
  bus.subscribe('ping', () => {
    calls.push('clearer');
    bus.clear();
  });
  bus.subscribe('ping', () => calls.push('after'));
  assert.equal(bus.dispatch('ping').delivered, 1);
  assert.deepEqual(calls, ['clearer']);
  assert.equal(bus.listenerCount(), 0);
});

test('nested dispatch runs depth-first, with ctx.depth counting the nesting', () => {
  const bus = new EventBus<Events>();
  const order: string[] = [];
  bus.subscribe('a', (e, ctx) => {
    order.push(`a1(${e.n}) depth ${ctx.depth}`);
    if (e.n === 1) bus.dispatch('b', { n: 2 });
    order.push(`a1 after nested, ctx still says type ${ctx.type} depth ${ctx.depth}`);
  });
  bus.subscribe('b', (e, ctx) => {
    order.push(`b(${e.n}) depth ${ctx.depth}`);
  });
  bus.subscribe('a', (e, ctx) => {
    order.push(`a2(${e.n}) depth ${ctx.depth}`);
  });
  bus.dispatch('a', { n: 1 });
  assert.deepEqual(order, ['a1(1) depth 0', 'b(2) depth 1', 'a1 after nested, ctx still says type a depth 0', 'a2(1) depth 0']);
});

test('a nested dispatch of the same type does not disturb the outer one', () => {
  const bus = new EventBus<Events>();
  const order: string[] = [];
  bus.subscribe('a', (e) => {
    order.push(`first ${e.n}`);
    if (e.n < 2) bus.dispatch('a', { n: e.n + 1 });
  });
  bus.subscribe('a', (e) => order.push(`second ${e.n}`));
  bus.dispatch('a', { n: 0 });
  assert.deepEqual(order, ['first 0', 'first 1', 'first 2', 'second 2', 'second 1', 'second 0']);
});

test('depth counts nesting across buses', () => {
  const outer = new EventBus<Events>({ name: 'outer' });
  const inner = new EventBus<Events>({ name: 'inner' });
  let innerDepth = -1;
  inner.subscribe('pong', (_p, ctx) => {
    innerDepth = ctx.depth;
  });
  outer.subscribe('ping', () => {
    inner.dispatch('pong');
  });
  outer.dispatch('ping');
  assert.equal(innerDepth, 1);
});

test('beyond maxDepth nested levels the nested dispatch throws DispatchDepthError, isolated by the outer handler', () => {
  const { errors, onError } = collectErrors();
  const bus = new EventBus<Events>({ name: 'recursive', maxDepth: 3, onError });
  const depths: number[] = [];
  bus.subscribe('ping', (_p, ctx) => {
    depths.push(ctx.depth);
    bus.dispatch('ping');
  });
  const result = bus.dispatch('ping');
  assert.deepEqual(depths, [0, 1, 2, 3]);
  assert.equal(result.delivered, 1);
  assert.equal(errors.length, 1);
  const [{ error, info }] = errors;
  assert.ok(error instanceof DispatchDepthError);
  assert.ok(error instanceof Error);
  assert.equal(error.name, 'DispatchDepthError');
  assert.equal(error.type, 'ping');
  assert.equal(error.depth, 4);
  assert.equal(error.busName, 'recursive');
  assert.match(error.message, /ping/);
  assert.deepEqual(info, { bus: 'recursive', type: 'ping', subscriptionId: bus.subscriptions()[0].id });
});

test('a ping-pong recursion across two buses is caught by the depth limit', () => {
  const { errors, onError } = collectErrors();
  const left = new EventBus<Events>({ name: 'left', maxDepth: 5, onError });
  const right = new EventBus<Events>({ name: 'right', maxDepth: 5, onError });
  let calls = 0;
  left.subscribe('ping', () => {
    calls++;
    right.dispatch('pong');
  });
  right.subscribe('pong', () => {
    calls++;
    left.dispatch('ping');
  });
  left.dispatch('ping');
  assert.equal(calls, 6); // depths 0..5
  assert.equal(errors.length, 1);
  assert.ok(errors[0].error instanceof DispatchDepthError);
});

test('each bus applies its own maxDepth to the process-wide depth', () => {
  const { errors, onError } = collectErrors();
  const deep = new EventBus<Events>({ name: 'deep', maxDepth: 50, onError });
  const shallow = new EventBus<Events>({ name: 'shallow', maxDepth: 2, onError });
  let reachedShallow = 0;
  shallow.subscribe('pong', () => {
    reachedShallow++;
  });
  deep.subscribe('a', (e) => {
    if (e.n < 3) deep.dispatch('a', { n: e.n + 1 });
    else shallow.dispatch('pong'); // at depth 4 > 2
  });
  deep.dispatch('a', { n: 0 });
  assert.equal(reachedShallow, 0);
  assert.equal(errors.length, 1);
  const error = errors[0].error as DispatchDepthError;
  assert.equal(error.busName, 'shallow');
  assert.equal(error.depth, 4);
});

test('a top-level dispatch throws DispatchDepthError nowhere: the limit only concerns nesting', () => {
  const bus = new EventBus<Events>({ maxDepth: 1 });
  assert.doesNotThrow(() => bus.dispatch('ping'));
});

test('after a depth error the bus and the depth counter are back to normal', () => {
  const bus = new EventBus<Events>({ maxDepth: 2, onError: () => {} });
  bus.subscribe('ping', () => {
    bus.dispatch('ping');
  });
  bus.dispatch('ping');
  let depth = -1;
  const probe = bus.subscribe('pong', (_p, ctx) => {
    depth = ctx.depth;
  });
  bus.dispatch('pong');
  assert.equal(depth, 0);
  probe.dispose();
});

test('a bus with a very large maxDepth handles deep nesting', () => {
  const bus = new EventBus<Events>({ maxDepth: 200, onError: (e) => assert.fail(String(e)) });
  let deepest = 0;
  bus.subscribe('a', (e, ctx) => {
    deepest = Math.max(deepest, ctx.depth);
    if (e.n < 150) bus.dispatch('a', { n: e.n + 1 });
  });
  bus.dispatch('a', { n: 0 });
  assert.equal(deepest, 150);
});

test('the depth limit is enforced with a huge maxDepth as well', () => {
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({ maxDepth: 100, onError: (e) => errors.push(e) });
  bus.subscribe('ping', () => {
    bus.dispatch('ping');
  });
  bus.dispatch('ping');
  assert.equal(errors.length, 1);
  assert.equal((errors[0] as DispatchDepthError).depth, 101);
});
