// Cross-thread queues: bus.openProducerPort() in this thread, connectProducer(port) in real
// worker_threads (test/fixtures/workers/producer-worker.cjs, which loads the built package).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import path from 'node:path';
import { isMainThread, Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import fc from 'fast-check';
import { connectProducer, EventBus } from '../../../runtime-probe/src/bus/index';
import { waitFor } from '../../support/wait';

interface WorkEvents {
  'work.done': { producer: number; i: number };
  tick: void;
}
type End = 'return' | 'exit' | 'throw' | 'close' | 'hang';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/producer-worker.cjs');

interface Spawned {
  worker: Worker;
  exited: Promise<unknown>;
}

function spawnProducer(
  bus: EventBus<WorkEvents>,
  producer: number,
  count: number,
  options: { pauses?: number[]; end?: End; posted?: Int32Array; bad?: number } = {},
): Spawned {
  // The runtime's MessagePort; this project also loads jsdom's DOM types, whose MessagePort is not Node's.
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(workerFile, {
    workerData: { port, producer, count, ...options },
    transferList: [port],
    execArgv: [], // not the test runner's flags
    stderr: true, // the 'throw' ending prints nothing on the test's stderr
  });
  worker.on('error', () => undefined); // 'throw' is on purpose
  // Not events.once: it rejects on 'error', and a worker ending with 'throw' emits one.
  return { worker, exited: new Promise((resolve) => worker.once('exit', resolve)) };
}

/** Every event each producer sent, in the order this thread's handlers saw them. */
function collect(bus: EventBus<WorkEvents>): Map<number, number[]> {
  const seen = new Map<number, number[]>();
  bus.subscribe('work.done', (e) => {
    let list = seen.get(e.producer);
    if (list === undefined) seen.set(e.producer, (list = []));
    list.push(e.i);
  });
  return seen;
}

const range = (n: number, from = 0): number[] => Array.from({ length: n }, (_, k) => from + k);

test("N workers × M events: each arrives exactly once, in its producer's order, dispatched by flush on this thread", async () => {
  const bus = new EventBus<WorkEvents>({ name: 'results' });
  const seen = collect(bus);
  let wrongThread = 0;
  bus.subscribe('work.done', () => {
    if (!isMainThread) wrongThread++;
  });
  const workers = range(4).map((p) => spawnProducer(bus, p, 500, { pauses: [99, 250] }));
  await Promise.all(workers.map((w) => w.exited));
  await bus.producersClosed();
  assert.equal(seen.size, 0, 'nothing is dispatched before flush');
  assert.equal(bus.flush(), 2000);
  for (const p of range(4)) assert.deepEqual(seen.get(p), range(500), `producer ${p}`);
  assert.equal(wrongThread, 0);
  assert.deepEqual(bus.producerStats, { openPorts: 0, received: 2000, dropped: 0, discarded: 0 });
});

test('autoFlush dispatches events from workers without a flush call', async () => {
  const bus = new EventBus<WorkEvents>({ autoFlush: 'microtask' });
  const seen = collect(bus);
  const w = spawnProducer(bus, 0, 100);
  await w.exited;
  await bus.producersClosed();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen.get(0), range(100));
  assert.equal(bus.queueLength, 0);
});

test('property: random producers, pauses, endings and flush timings — exactly once, per-producer order', async () => {
  const ending = fc.constantFrom<End>('return', 'exit', 'throw', 'close');
  const producerPlan = fc.record({
    count: fc.integer({ min: 0, max: 300 }),
    pauses: fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 5 }),
    end: ending,
  });
  await fc.assert(
    fc.asyncProperty(
      fc.array(producerPlan, { minLength: 1, maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
      async (plans, flushGaps) => {
        const bus = new EventBus<WorkEvents>();
        const seen = collect(bus);
        const spawned = plans.map((plan, p) => spawnProducer(bus, p, plan.count, plan));
        // Flush at random moments while the producers run: after 0–3 macrotasks, repeatedly.
        const closed = bus.producersClosed();
        let done = false;
        void closed.then(() => (done = true));
        for (let k = 0; !done; k++) {
          for (let gap = flushGaps[k % flushGaps.length]; gap > 0; gap--) await new Promise((resolve) => setImmediate(resolve));
          bus.flush();
          if (k > 100_000) break;
        }
        await Promise.all(spawned.map((s) => s.exited));
        await closed;
        bus.flush();
        plans.forEach((plan, p) => assert.deepEqual(seen.get(p) ?? [], range(plan.count), `producer ${p} (${plan.end})`));
        const total = plans.reduce((sum, plan) => sum + plan.count, 0);
        assert.equal(bus.producerStats.received, total);
        assert.equal(bus.producerStats.dropped, 0);
      },
    ),
    { numRuns: 8 },
  );
});

test('a payload that cannot be cloned fails at enqueue in the worker: a TypeError naming the event, the DataCloneError as cause', async () => {
  const bus = new EventBus<WorkEvents>();
  const seen = collect(bus);
  const w = spawnProducer(bus, 0, 10, { bad: 4 });
  const [report] = (await once(w.worker, 'message')) as [{ cloneError: { name: string; message: string; cause: string } | null }];
  await w.exited;
  await bus.producersClosed();
  bus.flush();
  assert.ok(report.cloneError !== null, 'enqueue threw');
  assert.equal(report.cloneError.name, 'TypeError');
  assert.match(report.cloneError.message, /^Producer\.enqueue\("work\.done"\): the payload cannot be sent to the bus's thread: .*could not be cloned/);
  assert.equal(report.cloneError.cause, 'DataCloneError');
  assert.deepEqual(seen.get(0), [0, 1, 2, 3, 5, 6, 7, 8, 9], 'the events around it arrive');
});

async function capRun(drop: 'newest' | 'oldest'): Promise<{ bus: EventBus<WorkEvents>; seen: Map<number, number[]>; warnings: string[] }> {
  const bus = new EventBus<WorkEvents>({ name: `capped-${drop}`, producerQueue: { cap: 100, drop } });
  const seen = collect(bus);
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
  try {
    // The consumer never flushes while two producers outrun it.
    const workers = [spawnProducer(bus, 0, 600), spawnProducer(bus, 1, 400)];
    await Promise.all(workers.map((w) => w.exited));
    await bus.producersClosed();
  } finally {
    console.warn = warn;
  }
  return { bus, seen, warnings };
}

test('the cap bounds events waiting to flush: newest-first drops the arriving events, counted, warned once', async () => {
  const { bus, seen, warnings } = await capRun('newest');
  assert.equal(bus.queueLength, 100);
  assert.deepEqual(bus.producerStats, { openPorts: 0, received: 1000, dropped: 900, discarded: 0 });
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /bus "capped-newest": 100 events are waiting to flush.*dropping the newest events from producer threads \(the first from the producer connected at .*producer-worker\.cjs:\d+:\d+\)/,
  );
  assert.equal(bus.flush(), 100);
  // What was kept is what arrived first, in each producer's order.
  const kept = [...seen.values()].flat().length;
  assert.equal(kept, 100);
  for (const list of seen.values()) assert.deepEqual(list, range(list.length));
});

test('the cap with oldest-first drops the head of the queue: the latest events are kept, counted, warned once', async () => {
  const { bus, seen, warnings } = await capRun('oldest');
  assert.equal(bus.queueLength, 100);
  assert.deepEqual(bus.producerStats, { openPorts: 0, received: 1000, dropped: 900, discarded: 0 });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /dropping the oldest/);
  assert.equal(bus.flush(), 100);
  // Each producer's last events survive, still in order: a tail of its sequence.
  for (const [p, list] of seen) {
    const total = p === 0 ? 600 : 400;
    assert.deepEqual(list, range(list.length, total - list.length), `producer ${p}`);
  }
});

test('local enqueues are never dropped by the producer cap', () => {
  const bus = new EventBus<WorkEvents>({ producerQueue: { cap: 2 } });
  for (let i = 0; i < 5; i++) bus.enqueue('tick');
  assert.equal(bus.queueLength, 5);
  assert.equal(bus.producerStats.dropped, 0);
});

test('terminate() is best effort: every event whose enqueue returned before the worker was stopped arrives', async () => {
  const bus = new EventBus<WorkEvents>();
  const seen = collect(bus);
  const posted = new Int32Array(new SharedArrayBuffer(4));
  const w = spawnProducer(bus, 0, 50_000_000, { posted, pauses: range(1000, 0).map((k) => k * 50) });
  while (Atomics.load(posted, 0) < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
  await w.worker.terminate();
  await bus.producersClosed();
  bus.flush();
  const returned = Atomics.load(posted, 0);
  const got = seen.get(0) ?? [];
  assert.deepEqual(got, range(got.length), 'in order, no gaps');
  // The counter is bumped after enqueue returns: the last event may have been posted and not counted.
  assert.ok(got.length === returned || got.length === returned + 1, `received ${got.length}, posted ${returned}`);
});

test('same-thread producer: bad arguments are precise TypeErrors; close() ends the port', async () => {
  const bus = new EventBus<WorkEvents>();
  const seen = collect(bus);
  const port = bus.openProducerPort();
  // @ts-expect-error not a port
  assert.throws(() => connectProducer<WorkEvents>({}), /connectProducer: port must be the MessagePort returned by bus\.openProducerPort\(\) \(got/);
  const producer = connectProducer<WorkEvents>(port);
  // @ts-expect-error an empty name is not an event of the map
  assert.throws(() => producer.enqueue(''), { name: 'TypeError', message: /Producer\.enqueue: type must be a non-empty event name/ });
  assert.throws(() => producer.enqueue('work.done', { producer: 0, i: Symbol('x') as unknown as number }), {
    name: 'TypeError',
    message: /Producer\.enqueue\("work\.done"\)/,
  });
  producer.enqueue('work.done', { producer: 9, i: 0 });
  producer.enqueue('tick');
  assert.equal(producer.posted, 2);
  producer.close();
  producer.close();
  assert.throws(() => producer.enqueue('tick'), /Producer\.enqueue\("tick"\): the producer is closed/);
  await bus.producersClosed();
  assert.equal(bus.flush(), 2);
  assert.deepEqual(seen.get(9), [0]);
  assert.equal(bus.producerStats.openPorts, 0);
});

test("messages that are not a producer's are discarded and counted; dispose closes every port", async () => {
  const bus = new EventBus<WorkEvents>();
  const port = bus.openProducerPort();
  port.postMessage('hello');
  port.postMessage([0, '', 1]);
  port.postMessage([0, '*', 1]);
  port.postMessage([99]);
  // Port messages arrive in order on the bus's side: wait for the four, not for a guessed time.
  await waitFor(() => bus.producerStats.discarded >= 4, 10_000, 'the four foreign messages to arrive');
  assert.equal(bus.producerStats.discarded, 4);
  assert.equal(bus.queueLength, 0);
  bus.openProducerPort();
  assert.equal(bus.producerStats.openPorts, 2);
  bus.dispose();
  assert.equal(bus.producerStats.openPorts, 0);
  await bus.producersClosed();
  assert.throws(() => bus.openProducerPort(), { name: 'TypeError', message: /disposed/ });
});

test('bad producerQueue options are TypeErrors', () => {
  assert.throws(() => new EventBus({ producerQueue: { cap: 0 } }), /options\.producerQueue\.cap must be a positive integer/);
  assert.throws(() => new EventBus({ producerQueue: { cap: 1.5 } }), /options\.producerQueue\.cap must be a positive integer/);
  // @ts-expect-error not a policy
  assert.throws(() => new EventBus({ producerQueue: { drop: 'middle' } }), /options\.producerQueue\.drop must be 'newest' or 'oldest'/);
});
