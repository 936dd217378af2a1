// The handler order is defined once (bus/priority.ts): the order a real bus calls its handlers in —
// typed and '*' subscribers merged, equal priorities, subscriptions added in any priority order — is
// exactly the order `byExecutionOrder` sorts them in, which the model, the analyses and the views use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { byExecutionOrder, runsBefore } from '../../../runtime-probe/src/bus/priority';
import { byExecutionOrder as modelOrder } from '../../../runtime-probe/src/analysis/model/index';

test("a bus calls its handlers in byExecutionOrder's order", () => {
  const bus = new EventBus<{ tick: number }>({ name: 'priority-order' });
  const called: number[] = [];
  const subs: { id: number; priority: number }[] = [];
  const priorities = [0, 5, -1, 5, 0, 2.5, -1, 10, 0, 5];
  priorities.forEach((priority, n) => {
    const type = n % 3 === 0 ? '*' : 'tick';
    const sub = bus.subscribe(type as 'tick', () => void called.push(sub.id), { priority });
    subs.push({ id: sub.id, priority });
  });
  bus.dispatch('tick', 1);
  assert.deepEqual(
    called,
    [...subs].sort(byExecutionOrder).map((s) => s.id),
  );
  bus.dispose();
});

test('the model uses the same comparator, and it agrees with runsBefore', () => {
  assert.equal(modelOrder, byExecutionOrder);
  const a = { priority: 1, id: 9 };
  const b = { priority: 1, id: 3 };
  const c = { priority: 2, id: 20 };
  assert.deepEqual([a, b, c].sort(byExecutionOrder), [c, b, a]);
  assert.equal(runsBefore(c.priority, c.id, a.priority, a.id), true);
  assert.equal(byExecutionOrder(a, a), 0);
});
