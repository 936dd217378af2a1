// probe.record(file) inside a worker thread that joined the main thread's probe: the file gets the
// worker's buses and dispatches, and the worker's bus stays in the main thread's session while it
// records and after (before, the worker's own recorder took its buses over: the session saw none of
// the dispatches made while the file recorded). Real worker_threads load the built package; a real
// ProbeClient over the main probe's real socket feeds the real Model; the trace is read back by the
// package's own reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ProbeClient, probe } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { waitFor } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/record-worker.cjs');

function ask<T>(w: Worker, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    w.once('error', reject);
    w.once('message', resolve);
    w.postMessage(message);
  });
}

test("probe.record(file) in a joined worker: the file has the worker's dispatches, and the main probe's session keeps seeing them", async () => {
  const DISPATCHES = 40;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-worker-record-'));
  const file = path.join(dir, 'worker.bustrace');
  const previousDir = process.env.BUSSCOPE_DISCOVERY_DIR;
  process.env.BUSSCOPE_DISCOVERY_DIR = dir;
  const info = await probe.start({ discovery: false, name: 'main-probe' });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: (m) => model.apply(m) });
  const worker = new Worker(workerFile, { workerData: { file, dispatches: DISPATCHES }, execArgv: [] });
  try {
    const hello = await new Promise<{ threadId: number }>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', resolve);
    });
    const workerBus = () => [...model.buses.values()].find((b) => b.name === 'recording-worker-bus');
    await waitFor(() => workerBus() !== undefined, 10_000, "the worker's bus in the main probe's session");

    const recorded = await ask<{ recorded: number; file: string }>(worker, 'record');
    assert.equal(recorded.file, file);
    await waitFor(() => (workerBus()?.dispatches ?? 0) >= DISPATCHES, 10_000, 'the dispatches made while the worker recorded, in the session');
    assert.equal(workerBus()?.thread, hello.threadId);

    // The file: a trace of its own, readable by the package's reader, with the worker's bus and every dispatch.
    const messages = await readTraceFileMessages(file);
    assert.equal(messages[0]?.type, 'welcome');
    const fromFile = new Model();
    for (const m of messages) fromFile.apply(m);
    const fileBus = [...fromFile.buses.values()].find((b) => b.name === 'recording-worker-bus');
    assert.ok(fileBus !== undefined, 'the worker bus is in the file');
    assert.equal(fileBus.dispatches, DISPATCHES);

    // After the file stopped, the worker's dispatches still reach the session.
    await ask(worker, 'dispatch');
    await waitFor(() => (workerBus()?.dispatches ?? 0) >= 2 * DISPATCHES, 10_000, 'the dispatches after the recording stopped, in the session');
    assert.equal(workerBus()?.dispatches, 2 * DISPATCHES);
  } finally {
    worker.postMessage('exit');
    await worker.terminate();
    client.close();
    await probe.stop();
    if (previousDir === undefined) delete process.env.BUSSCOPE_DISCOVERY_DIR;
    else process.env.BUSSCOPE_DISCOVERY_DIR = previousDir;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
