// The fast loop's gate and its ways out (event-bus.ts `dispatchUntraced`): one integer per list sends
// '*' subscribers, owners, `once` and nested dispatches to the checking loop. These cases change the
// gate between or during dispatches and check what a user sees: who is called, ctx.depth, results,
// call counts, and that an owner stays weakly held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DispatchDepthError, EventBus } from '../../../runtime-probe/src/bus/index';
import type { DispatchContext, Subscription } from '../../../runtime-probe/src/bus/index';

interface Events {
  a: number;
  b: number;
  c: number;
}

/** Call counts as `subscriptions()` reports them (live subscriptions only). */
const callsOf = (bus: EventBus<Events>, subs: readonly Subscription[]): number[] => {
  const infos = bus.subscriptions();
  return subs.map((s) => infos.find((i) => i.id === s.id)?.calls ?? -1);
};

test("'*' subscribers added and removed between dispatches: lists made before, after, and types nobody subscribed to", () => {
  const bus = new EventBus<Events>();
  const seen: string[] = [];
  const a = bus.subscribe('a', (n) => void seen.push(`a:${n}`));
  assert.deepEqual(bus.dispatch('a', 1), { delivered: 1, consumed: false });
  const star = bus.subscribe('*', (_p, ctx) => void seen.push(`*:${ctx.type}`));
  // The list of 'a' existed before the '*' subscriber; the one of 'b' is made after it; 'c' has none.
  const b = bus.subscribe('b', (n) => void seen.push(`b:${n}`));
  assert.deepEqual(bus.dispatch('a', 2), { delivered: 2, consumed: false });
  assert.deepEqual(bus.dispatch('b', 3), { delivered: 2, consumed: false });
  assert.deepEqual(bus.dispatch('c', 4), { delivered: 1, consumed: false });
  assert.deepEqual(callsOf(bus, [a, star, b]), [2, 3, 1]);
  star.dispose();
  assert.deepEqual(bus.dispatch('a', 5), { delivered: 1, consumed: false });
  assert.deepEqual(bus.dispatch('b', 6), { delivered: 1, consumed: false });
  assert.deepEqual(bus.dispatch('c', 7), { delivered: 0, consumed: false });
  // Back again, and gone through clear().
  const star2 = bus.subscribe('*', (_p, ctx) => void seen.push(`*2:${ctx.type}`));
  bus.dispatch('b', 8);
  assert.deepEqual(callsOf(bus, [a, b, star2]), [3, 3, 1]);
  bus.clear();
  assert.deepEqual(bus.dispatch('a', 9), { delivered: 0, consumed: false });
  bus.subscribe('a', (n) => void seen.push(`a':${n}`));
  bus.dispatch('a', 10);
  assert.deepEqual(seen, ['a:1', 'a:2', '*:a', '*:b', 'b:3', '*:c', 'a:5', 'b:6', 'b:8', '*2:b', "a':10"]);
});

test("a '*' subscriber added by a handler during a fast dispatch: not called by it, called by the next", () => {
  const bus = new EventBus<Events>();
  const seen: string[] = [];
  bus.subscribe('a', (n) => {
    seen.push(`a:${n}`);
    if (n === 1) bus.subscribe('*', (_p, ctx) => void seen.push(`*:${ctx.type}`));
  });
  assert.deepEqual(bus.dispatch('a', 1), { delivered: 1, consumed: false });
  assert.deepEqual(bus.dispatch('a', 2), { delivered: 2, consumed: false });
  assert.deepEqual(seen, ['a:1', 'a:2', '*:a']);
});

test('nested dispatches from the fast loop take the checking loop: depths, results, counts and the depth limit', () => {
  const bus = new EventBus<Events>({ maxDepth: 2 });
  const seen: string[] = [];
  const ctxs: DispatchContext<Events>[] = [];
  const errors: unknown[] = [];
  const a = bus.subscribe('a', (n, ctx) => {
    ctxs.push(ctx);
    seen.push(`a:${n}@${ctx.depth}`);
    if (n < 4) {
      try {
        // Re-entrant (the same list the outer fast loop runs over) and nested on another list.
        seen.push(`a→${bus.dispatch('a', n + 1).delivered}`);
        seen.push(`b→${bus.dispatch('b', n).delivered}`);
      } catch (error) {
        errors.push(error);
      }
    }
    seen.push(`a:${n} after@${ctx.depth}`);
  });
  const b = bus.subscribe('b', (n, ctx) => void seen.push(`b:${n}@${ctx.depth}`));
  assert.deepEqual(bus.dispatch('a', 1), { delivered: 1, consumed: false });
  // prettier-ignore
  assert.deepEqual(seen, [
    'a:1@0', 'a:2@1', 'a:3@2', 'a:3 after@2', // a:3's dispatch at depth 3 is refused (maxDepth 2)
    'a→1', 'b:2@2', 'b→1', 'a:2 after@1',
    'a→1', 'b:1@1', 'b→1', 'a:1 after@0',
  ]);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof DispatchDepthError);
  assert.equal(new Set(ctxs).size, 3, 'each depth has its own ctx');
  assert.deepEqual(callsOf(bus, [a, b]), [3, 2]);
  // The depth is back to 0: the next dispatch is outermost again and reaches 'b' at depth 1.
  seen.length = 0;
  errors.length = 0;
  const inner = bus.subscribe('c', (n, ctx) => {
    seen.push(`c:${n}@${ctx.depth}`);
    seen.push(`b→${bus.dispatch('b', n).delivered}`);
  });
  assert.deepEqual(bus.dispatch('c', 7), { delivered: 1, consumed: false });
  assert.deepEqual(seen, ['c:7@0', 'b:7@1', 'b→1']);
  assert.deepEqual(callsOf(bus, [inner, b]), [1, 3]);
});

test("ctx.consume() on a ctx kept past its dispatch changes no later dispatch, of its list or another's", () => {
  const bus = new EventBus<Events>();
  let kept: DispatchContext<Events> | null = null;
  const calls: string[] = [];
  bus.subscribe('a', (n, ctx) => {
    calls.push(`a1:${n}`);
    kept ??= ctx;
  });
  bus.subscribe('a', (n) => void calls.push(`a2:${n}`));
  bus.subscribe('b', (n) => {
    calls.push(`b1:${n}`);
    kept?.consume(); // during a dispatch of another list
  });
  bus.subscribe('b', (n) => void calls.push(`b2:${n}`));
  assert.deepEqual(bus.dispatch('a', 1), { delivered: 2, consumed: false });
  kept!.consume(); // between dispatches
  assert.deepEqual(bus.dispatch('a', 2), { delivered: 2, consumed: false });
  assert.deepEqual(bus.dispatch('b', 3), { delivered: 2, consumed: false });
  assert.deepEqual(bus.dispatch('a', 4), { delivered: 2, consumed: false });
  assert.deepEqual(calls, ['a1:1', 'a2:1', 'a1:2', 'a2:2', 'b1:3', 'b2:3', 'a1:4', 'a2:4']);
});

test('a consumed fast dispatch, then one that is not: the second calls everyone and says not consumed', () => {
  const bus = new EventBus<Events>();
  const calls: number[] = [];
  const first = bus.subscribe('a', (n, ctx) => {
    calls.push(1);
    if (n === 1) ctx.consume();
  });
  bus.subscribe('a', () => void calls.push(2));
  const last = bus.subscribe('a', (n, ctx) => {
    calls.push(3);
    if (n === 3) ctx.consume();
  });
  assert.deepEqual(bus.dispatch('a', 1), { delivered: 1, consumed: true, consumedBy: first.id });
  assert.deepEqual(bus.dispatch('a', 2), { delivered: 3, consumed: false });
  assert.deepEqual(bus.dispatch('a', 3), { delivered: 3, consumed: true, consumedBy: last.id });
  assert.deepEqual(bus.dispatch('a', 4), { delivered: 3, consumed: false });
  assert.deepEqual(calls, [1, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
});

function getGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = getGc();
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('an owner is collectable once its subscription is disposed: subscribe keeps nothing of its options', async () => {
  const bus = new EventBus<Events>();
  let collected = false;
  const registry = new FinalizationRegistry(() => {
    collected = true;
  });
  (() => {
    const owner = { name: 'widget' };
    registry.register(owner, 'widget');
    bus.subscribe('a', () => {}, { owner, priority: 1, label: 'w' }).dispose();
    // Later subscriptions without options (or with others) must not hold it either.
    bus.subscribe('a', () => {}).dispose();
  })();
  for (let i = 0; i < 20 && !collected; i++) {
    await macrotask();
    gc();
    await macrotask();
  }
  assert.ok(collected, 'the owner was garbage-collected');
  assert.equal(bus.listenerCount(), 0);
});
