// Drops at a producer queue's cap reach the inspector (issue 16): a real worker floods a capped
// main-thread bus through connectProducer; the real probe socket, ProbeClient and Model see the
// drops as `producer-drops` messages (batched), counted exactly, and the queue-growth warning shows them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus, ProbeClient, probe } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { warningsOf } from '../analyses/helpers';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/producer-worker.cjs');

interface WorkEvents {
  'work.done': { producer: number; i: number };
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function flood(bus: EventBus<WorkEvents>, producer: number, count: number): Promise<unknown> {
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(workerFile, { workerData: { port, producer, count }, transferList: [port], execArgv: [] });
  return new Promise((resolve) => worker.once('exit', resolve));
}

test('a worker flooding a capped bus: the model counts exactly the drops the bus counted, batched, and the queue-growth warning shows them', async () => {
  const info = await probe.start({ discovery: false, name: 'producer-drops-test' });
  const model = new Model();
  const drops: StreamMessage[] = [];
  const client = await ProbeClient.connect({
    port: info.port,
    token: info.token,
    timeoutMs: 5000,
    onMessage: (m) => {
      if (m.type === 'producer-drops') drops.push(m);
      model.apply(m);
    },
  });
  const warn = console.warn;
  console.warn = () => undefined; // the bus's one console warning at the cap is expected here
  const bus = new EventBus<WorkEvents>({ name: 'results', producerQueue: { cap: 100, drop: 'oldest' } });
  const quiet = new EventBus<WorkEvents>({ name: 'quiet', producerQueue: { cap: 100_000 } });
  try {
    bus.subscribe('work.done', () => undefined);
    quiet.subscribe('work.done', () => undefined);
    await Promise.all([flood(bus, 0, 3000), flood(bus, 1, 3000), flood(quiet, 2, 3000)]);
    await Promise.all([bus.producersClosed(), quiet.producersClosed()]);
    const dropped = bus.producerStats.dropped;
    assert.equal(dropped, 6000 - 100, 'the cap kept 100 of 6000');
    assert.equal(bus.flush(), 100);
    assert.equal(quiet.flush(), 3000);
    const state = () => [...model.buses.values()].find((b) => b.name === 'results');
    await until('the drops in the model', () => state()?.producerDropped === dropped);
    await new Promise((r) => setTimeout(r, 50)); // nothing more arrives
    assert.equal(state()?.producerDropped, dropped, 'exactly bus.producerStats.dropped');
    assert.equal(state()?.producerDropPolicy, 'oldest');
    assert.equal(state()?.producerCap, 100);
    assert.ok(drops.length >= 1 && drops.length < dropped / 10, `batched: ${drops.length} messages for ${dropped} drops`);
    assert.equal(
      drops.reduce((n, m) => n + (m.type === 'producer-drops' ? m.dropped : 0), 0),
      dropped,
      'the batches add up',
    );
    assert.equal([...model.buses.values()].find((b) => b.name === 'quiet')?.producerDropped, 0);

    // Flushed now, so neither never-flushed nor outrun: the drops alone make the warning.
    const ws = warningsOf(model, 'queue-growth');
    assert.deepEqual(
      ws.map((w) => w.subjects.buses[0]),
      [bus.busId],
      'only the bus that dropped',
    );
    const w = ws[0];
    assert.equal(w.evidence.pattern, 'dropping');
    assert.equal(w.evidence.dropped, dropped);
    assert.equal(w.evidence.dropPolicy, 'oldest');
    assert.equal(w.evidence.cap, 100);
    assert.match(w.title, /bus "results".*5,?900 events from producer threads dropped at the cap \(100\)/);
  } finally {
    console.warn = warn;
    bus.dispose();
    quiet.dispose();
    client.close();
    await probe.stop();
  }
});
