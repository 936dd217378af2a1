// A cross-thread event's flow, end to end (issue 16): a real worker posts through a producer port
// into a main-thread bus; the probe records the dispatches `flush()` makes of them with the
// producer's thread id and enqueue time (dispatch extension keys 1 and 4); a real ProbeClient over
// the real socket feeds the real Model, and the inspector feed hands them to the webview as the
// `fromThread` / `enqueuedAt` columns it draws flows from. Local dispatches carry neither.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus, ProbeClient, probe } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { DispatchColumns, SessionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { waitFor } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/flow-producer-worker.cjs');

interface Events {
  'job.done': { i: number };
  local: number;
}
interface Posted {
  threadId: number;
  /** Epoch ms, the worker's clock: before its first enqueue, before its last `tail` ones, after its last. */
  before: number;
  tailBefore: number;
  after: number;
}

const SESSION: SessionView = { phase: 'attached', sessionId: 'flow', label: 'flow', detail: '', droppedRecords: 0, offline: false, sessions: [] };

/** A worker posting `count` events into `bus`; resolves once it has posted them all and closed its producer. */
async function runProducer(bus: EventBus<Events>, count: number, tail = 0): Promise<Posted> {
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(workerFile, { workerData: { port, count, tail }, transferList: [port], execArgv: [] });
  const posted = await new Promise<Posted>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', resolve);
  });
  await bus.producersClosed();
  return posted;
}

/** The probe started, a client attached, its model; `run` gets the model and the feed's dispatch columns. */
async function withProbe(name: string, run: (model: Model, columns: () => DispatchColumns) => Promise<void>): Promise<void> {
  const info = await probe.start({ discovery: false, name });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: (m) => model.apply(m) });
  try {
    await run(model, () => new InspectorFeed(model, {}, () => 0).snapshot(SESSION, []).dispatches);
  } finally {
    client.close();
    await probe.stop();
  }
}

test("a worker's events posted through a producer port: their dispatches carry the worker's threadId and enqueue time, local ones neither", async () => {
  const COUNT = 20;
  const bus = new EventBus<Events>({ name: 'jobs' });
  bus.subscribe('job.done', () => undefined);
  bus.subscribe('local', () => undefined);
  await withProbe('flow-test', async (model, columns) => {
    const posted = await runProducer(bus, COUNT);
    bus.enqueue('local', 1);
    assert.equal(bus.flush(), COUNT + 1);
    bus.dispatch('local', 2);
    const jobs = () => [...model.buses.values()].find((b) => b.name === 'jobs');
    await waitFor(() => (jobs()?.dispatches ?? 0) >= COUNT + 2, 10_000, 'the dispatches in the model');

    const d = columns();
    assert.ok(d.fromThread !== undefined && d.enqueuedAt !== undefined, 'the batch has the cross-thread columns');
    const typeOf = (r: number) => model.typeAt(d.type[r])?.name;
    const origin = model.sessionInfo.timeOrigin;
    let crossThread = 0;
    let local = 0;
    for (let r = 0; r < d.count; r++) {
      if (d.bus[r] !== jobs()?.id) continue;
      if (typeOf(r) === 'job.done') {
        crossThread++;
        assert.equal(d.fromThread[r], posted.threadId, `dispatch ${d.seq[r]} names the worker's thread`);
        const at = d.enqueuedAt[r];
        // Session clock (ms since the main thread's timeOrigin); start ± its bound, µs rounding.
        assert.ok(at <= d.start[r] + d.startBound[r] / 1000 + 0.001, `enqueued (${at}) no later than its dispatch started (${d.start[r]})`);
        assert.ok(at >= posted.before - origin - 0.001, `enqueued (${at}) no earlier than the worker began posting (${posted.before - origin})`);
        assert.ok(at <= posted.after - origin + 0.001, `enqueued (${at}) no later than the worker ended posting (${posted.after - origin})`);
      } else {
        local++;
        assert.equal(d.fromThread[r], -1, `the local dispatch ${d.seq[r]} has no producer thread`);
      }
    }
    assert.equal(crossThread, COUNT);
    assert.equal(local, 2);
  });
  bus.dispose();
});

test('oldest-first drops at the cap keep each kept event with its own origin: the kept ones are the last posted, a local event stays local', async () => {
  // 3,000 arrivals at a cap of 10 move the queue's head past the point where it compacts (1,024).
  const COUNT = 3000;
  const CAP = 10;
  const bus = new EventBus<Events>({ name: 'capped', producerQueue: { cap: CAP, drop: 'oldest' } });
  const seen: number[] = [];
  bus.subscribe('job.done', (e) => void seen.push(e.i));
  bus.subscribe('local', () => undefined);
  const warn = console.warn;
  console.warn = () => undefined; // the cap's warning, said once
  try {
    await withProbe('flow-cap-test', async (model, columns) => {
      const posted = await runProducer(bus, COUNT, CAP);
      assert.equal(bus.producerStats.dropped, COUNT - CAP);
      bus.enqueue('local', 1);
      assert.equal(bus.flush(), CAP + 1);
      assert.deepEqual(
        seen,
        Array.from({ length: CAP }, (_, k) => COUNT - CAP + k),
      );
      const capped = () => [...model.buses.values()].find((b) => b.name === 'capped');
      await waitFor(() => (capped()?.dispatches ?? 0) >= CAP + 1, 10_000, 'the dispatches in the model');
      const d = columns();
      assert.ok(d.fromThread !== undefined && d.enqueuedAt !== undefined);
      const origin = model.sessionInfo.timeOrigin;
      let kept = 0;
      for (let r = 0; r < d.count; r++) {
        if (d.bus[r] !== capped()?.id) continue;
        if (model.typeAt(d.type[r])?.name === 'local') {
          assert.equal(d.fromThread[r], -1, 'the local event is not taken for a producer thread');
          continue;
        }
        kept++;
        assert.equal(d.fromThread[r], posted.threadId);
        // Each kept event's own enqueue time: among the last CAP posts, not an early (dropped) one's.
        const at = d.enqueuedAt[r];
        const bound = d.startBound[r] / 1000 + 0.001;
        assert.ok(at >= posted.tailBefore - origin - bound, `enqueued (${at}) during the last ${CAP} posts (from ${posted.tailBefore - origin})`);
        assert.ok(at <= posted.after - origin + bound, `enqueued (${at}) before the worker ended posting (${posted.after - origin})`);
      }
      assert.equal(kept, CAP);
    });
  } finally {
    console.warn = warn;
    bus.dispose();
  }
});
