// Exact results and call counts when a dispatch does not simply run every handler: the bus derives
// call counts per list (one count per dispatch, taken back for handlers a dispatch did not reach) and
// swaps a no-op in for handlers unsubscribed before their turn, so these cases are where it could
// drift. Each test reads `delivered`, `consumedBy` and `subscriptions()[].calls` together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import type { DispatchContext, Subscription } from '../../../runtime-probe/src/bus/index';

interface Events {
  tick: void;
  other: void;
}

const callsById = (bus: EventBus<Events>, subs: readonly Subscription[]): number[] => {
  const infos = bus.subscriptions();
  return subs.map((s) => infos.find((i) => i.id === s.id)?.calls ?? -1);
};

test('clear() from a handler: handlers not reached yet are neither called nor delivered nor counted', () => {
  const bus = new EventBus<Events>({ onError: () => {} });
  const log: string[] = [];
  const subs = [
    bus.subscribe('tick', () => {
      log.push('first');
      bus.clear();
      throw new Error('after clearing');
    }),
    bus.subscribe('tick', () => void log.push('second')),
    bus.subscribe('tick', () => {
      log.push('third');
      return true;
    }),
  ];
  bus.dispatch('other');
  assert.deepEqual(bus.dispatch('tick'), { delivered: 1, consumed: false });
  assert.deepEqual(log, ['first']);
  assert.deepEqual(bus.subscriptions(), []);
  assert.deepEqual(
    subs.map((s) => s.active),
    [false, false, false],
  );
});

test('unsubscribing later handlers from a handler: delivered and calls count only the handlers that ran', () => {
  const bus = new EventBus<Events>();
  const log: string[] = [];
  let second: Subscription | undefined;
  const first = bus.subscribe('tick', () => {
    log.push('first');
    second?.dispose();
  });
  second = bus.subscribe('tick', () => void log.push('second'));
  const third = bus.subscribe('tick', () => void log.push('third'));
  assert.deepEqual(bus.dispatch('tick'), { delivered: 2, consumed: false });
  assert.deepEqual(log, ['first', 'third']);
  assert.deepEqual(callsById(bus, [first, third]), [1, 1]);
  bus.dispatch('tick');
  assert.deepEqual(callsById(bus, [first, third]), [2, 2]);
});

test('consumption stops the count too: handlers after the consumer are not counted, in this or later dispatches', () => {
  const bus = new EventBus<Events>();
  let consume = true;
  const subs = [bus.subscribe('tick', () => {}), bus.subscribe('tick', () => consume), bus.subscribe('tick', () => {})];
  const r = bus.dispatch('tick');
  assert.deepEqual(r, { delivered: 2, consumed: true, consumedBy: subs[1].id });
  assert.deepEqual(callsById(bus, subs), [1, 1, 0]);
  consume = false;
  bus.dispatch('tick');
  bus.dispatch('tick');
  assert.deepEqual(callsById(bus, subs), [3, 3, 2]);
});

test('calls read from inside a handler count the calls made so far in this dispatch', () => {
  const bus = new EventBus<Events>();
  let seen: number[] = [];
  const subs: Subscription[] = [];
  subs.push(bus.subscribe('tick', () => {}));
  subs.push(
    bus.subscribe('tick', () => {
      seen = callsById(bus, subs);
    }),
  );
  subs.push(bus.subscribe('tick', () => {}));
  bus.dispatch('tick');
  assert.deepEqual(seen, [1, 1, 0], 'the running handler counts, the one after it not yet');
  bus.dispatch('tick');
  assert.deepEqual(seen, [2, 2, 1]);
  assert.deepEqual(callsById(bus, subs), [2, 2, 2]);
});

test('a disposed subscription keeps the count it had; a subscription made during a dispatch starts at 0', () => {
  const bus = new EventBus<Events>();
  let late: Subscription | undefined;
  const a = bus.subscribe('tick', () => {
    late ??= bus.subscribe('tick', () => {});
  });
  bus.dispatch('tick');
  bus.dispatch('tick');
  assert.ok(late !== undefined);
  assert.deepEqual(callsById(bus, [a, late]), [2, 1]);
  const infoBefore = bus.subscriptions().find((i) => i.id === a.id);
  a.dispose();
  bus.dispatch('tick');
  assert.equal(infoBefore?.calls, 2);
  assert.deepEqual(callsById(bus, [late]), [2]);
});

test('re-entrant dispatch of the same type: the nested one unsubscribes a handler the outer has not reached', () => {
  const bus = new EventBus<Events>();
  const log: string[] = [];
  let victim: Subscription | undefined;
  const seen: { depth: number; id: number }[] = [];
  const outer = bus.subscribe('tick', (_p, ctx: DispatchContext<Events>) => {
    seen.push({ depth: ctx.depth, id: ctx.subscriptionId });
    log.push(`outer@${ctx.depth}`);
    if (ctx.depth === 0) {
      const r = bus.dispatch('tick');
      log.push(`nested delivered ${r.delivered}`);
      // ctx still describes this call after the nested dispatch
      seen.push({ depth: ctx.depth, id: ctx.subscriptionId });
    } else {
      victim?.dispose();
    }
  });
  victim = bus.subscribe('tick', () => void log.push('victim'));
  const r = bus.dispatch('tick');
  assert.deepEqual(log, ['outer@0', 'outer@1', 'nested delivered 1']);
  assert.deepEqual(r, { delivered: 1, consumed: false });
  assert.deepEqual(seen, [
    { depth: 0, id: outer.id },
    { depth: 1, id: outer.id },
    { depth: 0, id: outer.id },
  ]);
  assert.deepEqual(callsById(bus, [outer]), [2]);
  assert.equal(victim.active, false);
});

test('a stack overflow abandoning a dispatch leaves exact counts for the handlers it did not reach', () => {
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({ onError: (e) => errors.push(e), maxDepth: 1_000_000 });
  const recurse = (): void => void bus.dispatch('tick');
  const a = bus.subscribe('tick', recurse);
  const b = bus.subscribe('tick', () => {});
  bus.dispatch('tick');
  assert.equal(errors.length, 1, 'reported once, by the outermost dispatch');
  const [ca, cb] = callsById(bus, [a, b]);
  // Every level called `a`; only the outermost went on to `b` after reporting the overflow.
  assert.ok(ca > 100, `a was called at every level (${ca})`);
  assert.equal(cb, 1);
});

test('handler counts changing between dispatches (across the unrolled / loop boundary): ids, delivered and calls follow', () => {
  // Subscribe and dispose only mark the list's snapshot; the next dispatch updates its body, result
  // and running index. 14 handlers take the loop (which leaves its index on the last handler), 12
  // the unrolled body (which starts at index 0): the switch must not show a stale index as ctx.subscriptionId.
  const bus = new EventBus<Events>({ name: 'resized' });
  let seen: number[] = [];
  const subscribeOne = (): Subscription => bus.subscribe('tick', (_p, ctx: DispatchContext<Events>) => void seen.push(ctx.subscriptionId));
  const subs: Subscription[] = [];
  for (let i = 0; i < 14; i++) subs.push(subscribeOne());
  const run = (): number => {
    seen = [];
    return bus.dispatch('tick').delivered;
  };
  assert.equal(run(), 14);
  assert.deepEqual(
    seen,
    subs.map((s) => s.id),
  );
  subs.pop()!.dispose();
  subs.pop()!.dispose();
  for (let i = 0; i < 3; i++) subscribeOne().dispose(); // pairs with no dispatch between them
  assert.equal(run(), 12);
  assert.deepEqual(
    seen,
    subs.map((s) => s.id),
  );
  const late = subscribeOne();
  assert.equal(run(), 13);
  assert.deepEqual(
    seen,
    [...subs, late].map((s) => s.id),
  );
  late.dispose();
  assert.equal(run(), 12);
  assert.deepEqual(
    callsById(bus, subs),
    subs.map(() => 4),
  );
  assert.equal(
    bus.subscriptions().find((i) => i.id === late.id),
    undefined,
  );
  bus.dispose();
});
