// Queue growth (#16): a deferred queue whose consumer never flushes, or whose producers outrun it,
// is a warning — judged from a real probe's trace of a real bus (producer threads included), read
// back into the model.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFile } from '../../../runtime-probe/src/client/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { warningsOf } from './helpers';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-queue-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const workerFile = path.resolve(__dirname, '../../fixtures/workers/producer-worker.cjs');

interface WorkEvents {
  'work.done': { producer: number; i: number };
  'frame.input': { n: number };
}

async function modelOf(file: string): Promise<Model> {
  const model = new Model();
  for await (const m of readTraceFile(file)) model.apply(m);
  return model;
}

function producerWorker(bus: EventBus<WorkEvents>, producer: number, count: number): Promise<unknown> {
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(workerFile, { workerData: { port, producer, count }, transferList: [port], execArgv: [] });
  return new Promise((resolve) => worker.once('exit', resolve));
}

test('a consumer that never flushes while worker threads produce: a queue-growth warning on its bus', async () => {
  const file = path.join(tmp, 'never-flushed.bustrace');
  const recording = probe.record(file, { detail: 'lifecycle', captureStacks: true });
  const bus = new EventBus<WorkEvents>({ name: 'results' });
  const flushed = new EventBus<WorkEvents>({ name: 'flushed', autoFlush: 'microtask' });
  bus.subscribe('work.done', () => undefined, { label: 'Results.store' });
  flushed.subscribe('work.done', () => undefined);
  await Promise.all([producerWorker(bus, 0, 1500), producerWorker(bus, 1, 1500), producerWorker(flushed, 2, 3000)]);
  await Promise.all([bus.producersClosed(), flushed.producersClosed()]);
  await new Promise((resolve) => setTimeout(resolve, 60));
  flushed.enqueue('frame.input', { n: 1 }); // a record after the wait: the trace's "now"
  await new Promise((resolve) => setImmediate(resolve));
  await recording.stop();
  assert.equal(bus.queueLength, 3000);

  const model = await modelOf(file);
  const ws = warningsOf(model, 'queue-growth', { queueGrowth: { staleMs: 50 } });
  assert.equal(ws.length, 1, JSON.stringify(ws.map((w) => w.title)));
  const w = ws[0];
  assert.equal(w.subjects.buses[0], bus.busId);
  assert.equal(w.evidence.pattern, 'never-flushed');
  assert.equal(w.evidence.queueLength, 3000);
  assert.equal(w.evidence.flushes, 0);
  assert.deepEqual(w.evidence.topTypes, [{ type: 'work.done', enqueued: 3000 }]);
  assert.match(w.title, /3,?000 events wait in the queue of bus "results" and nothing flushes/);
  assert.ok(
    w.sites.some((s) => s.file.endsWith('queueGrowth.test.ts')),
    'the handler waiting for them is a site',
  );
  // Below the staleness threshold it is not (yet) a warning.
  assert.deepEqual(warningsOf(model, 'queue-growth', { queueGrowth: { staleMs: 60_000 } }), []);
  bus.dispose();
  flushed.dispose();
});

test('producers that outrun the consumer: each flush with more to do is a queue-growth warning', async () => {
  const file = path.join(tmp, 'outrun.bustrace');
  const recording = probe.record(file, { detail: 'lifecycle', captureStacks: false });
  const bus = new EventBus<WorkEvents>({ name: 'input' });
  const steady = new EventBus<WorkEvents>({ name: 'steady' });
  bus.subscribe('frame.input', () => undefined);
  steady.subscribe('frame.input', () => undefined);
  for (const batch of [800, 1200, 1600, 2400]) {
    for (let i = 0; i < batch; i++) bus.enqueue('frame.input', { n: i });
    for (let i = 0; i < 1500; i++) steady.enqueue('frame.input', { n: i });
    bus.flush();
    steady.flush();
  }
  await recording.stop();
  const model = await modelOf(file);
  const ws = warningsOf(model, 'queue-growth');
  assert.deepEqual(
    ws.map((w) => w.subjects.buses[0]),
    [bus.busId],
    'the steady consumer is fine',
  );
  assert.equal(ws[0].evidence.pattern, 'outrun');
  assert.deepEqual(ws[0].evidence.recentFlushSizes, [800, 1200, 1600, 2400]);
  assert.match(ws[0].title, /Producers outrun the consumer of bus "input".*1200 → 1600 → 2400/);
  bus.dispose();
  steady.dispose();
});
