// Subscription ids are unique across a process's threads (issue 16) without costing subscribe an
// atomic operation on shared memory each time (issue 11: behind the shared-counter accessor that made
// subscribe + dispose five times slower): each copy of the package reserves a block of ids at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EventBus } from '../../../runtime-probe/src/index';
import { ID_BLOCK, runtime } from '../../../runtime-probe/src/bus/runtime';

const distEntry = path.resolve(__dirname, '../../../runtime-probe/dist/index.cjs');

test('10,000 subscriptions take their ids from shared memory a block at a time, not one atomic add each', () => {
  assert.ok(runtime.sharedIds !== undefined, 'the Node entry shares the id counters across threads');
  const bus = new EventBus({ name: 'ids-blocks' });
  const add = Atomics.add;
  let adds = 0;
  // Counting the shared-memory operations: the real Atomics.add still does the work.
  Atomics.add = ((array: Uint32Array, index: number, value: number) => {
    adds++;
    return add(array, index, value);
  }) as typeof Atomics.add;
  const ids: number[] = [];
  try {
    for (let i = 0; i < 10_000; i++) {
      const sub = bus.subscribe('tick', () => undefined);
      ids.push(sub.id);
      sub.dispose();
    }
  } finally {
    Atomics.add = add;
    bus.dispose();
  }
  assert.ok(adds <= Math.ceil(10_000 / ID_BLOCK) + 1, `${adds} atomic adds for 10,000 subscriptions`);
  assert.equal(new Set(ids).size, ids.length, 'every id distinct');
  assert.ok(
    ids.every((id, i) => Number.isInteger(id) && id > 0 && id < 2 ** 32 && (i === 0 || id > ids[i - 1])),
    'positive u32 ids, increasing within a thread',
  );
});

test('ids stay unique across threads while each thread hands out ids from its own blocks', async () => {
  const bus = new EventBus({ name: 'ids-main' });
  const mainIds: number[] = [];
  const subscribeMany = (n: number): void => {
    for (let i = 0; i < n; i++) mainIds.push(bus.subscribe('tick', () => undefined).id);
  };
  subscribeMany(1500);
  // A worker with the built package (another copy, in another thread) subscribes while this thread has a block open.
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const { EventBus } = require(${JSON.stringify(distEntry)});
     const bus = new EventBus({ name: 'ids-worker' });
     const ids = [];
     for (let i = 0; i < 3000; i++) ids.push(bus.subscribe('tick', () => undefined).id);
     parentPort.postMessage(ids);`,
    { eval: true, execArgv: [] },
  );
  const workerIds = await new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  subscribeMany(1500);
  bus.dispose();
  const all = [...mainIds, ...workerIds];
  assert.equal(workerIds.length, 3000);
  assert.equal(new Set(all).size, all.length, 'no id handed out twice across the two threads');
  assert.ok(
    all.every((id) => Number.isInteger(id) && id > 0 && id < 2 ** 32),
    'positive u32 ids',
  );
});
