// Drops at a producer queue's cap reach the inspector (issue 16): a real worker floods a capped
// main-thread bus through connectProducer; the real probe socket, ProbeClient and Model see the
// drops as `producer-drops` messages (batched), counted exactly, and the queue-growth warning shows
// them with the producers' `connectProducer` line in the worker (`producer-connected`), which is
// where its Problems entry points. Every wait has a deadline: a lost message fails, never idles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus, ProbeClient, probe } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { Session } from '../../../extension/src/sessions/session';
import { diagnosticEntries } from '../../../extension/src/diagnostics/entries';
import { warningsOf } from '../analyses/helpers';
import { sleep, waitFor, withTimeout } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/producer-worker.cjs');
/** The worker's `connectProducer(port)` line (1-based). */
const connectLine =
  fs
    .readFileSync(workerFile, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('= connectProducer(port)')) + 1;

interface WorkEvents {
  'work.done': { producer: number; i: number };
}

function flood(bus: EventBus<WorkEvents>, producer: number, count: number): Promise<unknown> {
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(workerFile, { workerData: { port, producer, count }, transferList: [port], execArgv: [] });
  return withTimeout(new Promise((resolve) => worker.once('exit', resolve)), 20_000, `producer ${producer} exits`);
}

test('a worker flooding a capped bus: the model counts exactly the drops the bus counted, batched, and the queue-growth warning shows them at the producer', async () => {
  assert.ok(connectLine > 0, 'the fixture calls connectProducer(port)');
  const info = await probe.start({ discovery: false, name: 'producer-drops-test' });
  const model = new Model();
  const session = new Session({ id: 'drops', source: { kind: 'address', host: '127.0.0.1', port: info.port, token: info.token }, updateIntervalMs: 0 });
  const drops: StreamMessage[] = [];
  const client = await ProbeClient.connect({
    port: info.port,
    token: info.token,
    timeoutMs: 5000,
    onMessage: (m) => {
      if (m.type === 'producer-drops') drops.push(m);
      model.apply(m);
      session.ingest(m);
    },
  });
  let late: ProbeClient | undefined;
  const warn = console.warn;
  console.warn = () => undefined; // the bus's one console warning at the cap is expected here
  const bus = new EventBus<WorkEvents>({ name: 'results', producerQueue: { cap: 100, drop: 'oldest' } });
  const quiet = new EventBus<WorkEvents>({ name: 'quiet', producerQueue: { cap: 100_000 } });
  try {
    bus.subscribe('work.done', () => undefined);
    quiet.subscribe('work.done', () => undefined);
    await Promise.all([flood(bus, 0, 3000), flood(bus, 1, 3000), flood(quiet, 2, 3000)]);
    await withTimeout(Promise.all([bus.producersClosed(), quiet.producersClosed()]), 10_000, 'the producer ports close');
    const dropped = bus.producerStats.dropped;
    assert.equal(dropped, 6000 - 100, 'the cap kept 100 of 6000');
    assert.equal(bus.flush(), 100);
    assert.equal(quiet.flush(), 3000);
    const state = () => [...model.buses.values()].find((b) => b.name === 'results');
    const quietState = () => [...model.buses.values()].find((b) => b.name === 'quiet');
    await waitFor(
      () => state()?.producerDropped === dropped && state()?.producerSites.length === 1 && quietState()?.producerSites.length === 1,
      10_000,
      'the drops and the producers in the model',
    );
    await sleep(50); // nothing more arrives
    assert.equal(state()?.producerDropped, dropped, 'exactly bus.producerStats.dropped');
    assert.equal(state()?.producerDropPolicy, 'oldest');
    assert.equal(state()?.producerCap, 100);
    assert.ok(drops.length >= 1 && drops.length < dropped / 10, `batched: ${drops.length} messages for ${dropped} drops`);
    assert.equal(
      drops.reduce((n, m) => n + (m.type === 'producer-drops' ? m.dropped : 0), 0),
      dropped,
      'the batches add up',
    );
    assert.equal(quietState()?.producerDropped, 0);

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

    // Both producers connected from the same line of the worker: one site, the warning's first, named in its title.
    assert.deepEqual(
      w.evidence.producerSites.map((s) => [s.file, s.line]),
      [[workerFile, connectLine]],
    );
    assert.deepEqual([w.sites[0].file, w.sites[0].line], [workerFile, connectLine]);
    assert.match(w.title, new RegExp(`reached its producer cap \\(producer at producer-worker\\.cjs:${connectLine}\\);`));
    assert.deepEqual(
      quietState()?.producerSites.map((s) => [s.file, s.line]),
      [[workerFile, connectLine]],
    );

    // The extension's Problems entry for the warning opens the worker's source at that line.
    session.update();
    const entry = diagnosticEntries([session]).find((e) => e.kind === 'queue-growth');
    assert.ok(entry !== undefined, 'a Problems entry for the queue growth');
    assert.deepEqual([entry.site.file, entry.site.line], [workerFile, connectLine]);

    // A client attaching later gets the producers' sites and the drop total too.
    const lateModel = new Model();
    late = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: (m) => lateModel.apply(m) });
    const lateState = () => [...lateModel.buses.values()].find((b) => b.name === 'results');
    await waitFor(
      () => lateState()?.producerDropped === dropped && lateState()?.producerSites.length === 1,
      10_000,
      'the late client sees the drops and the producer site',
    );
  } finally {
    console.warn = warn;
    bus.dispose();
    quiet.dispose();
    late?.close();
    client.close();
    session.dispose();
    await withTimeout(probe.stop(), 5000, 'probe.stop()');
  }
});
