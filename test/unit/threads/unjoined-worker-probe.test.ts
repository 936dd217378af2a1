// A worker of a main thread that never loaded busscope-probe (this test file imports the client and
// the model only, never the package's entry): the worker is on its own, as the README says.
// BUSSCOPE=1 starts nothing in it (only a main thread acts on the environment), and its own
// probe.start() opens a socket and a discovery file for the process, serving that worker's buses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ProbeClient } from '../../../runtime-probe/src/client/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { ProbeInfo } from '../../../runtime-probe/src/probe/probe';
import { waitFor } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/lonely-probe-worker.cjs');

test("a worker of a main thread without the package: BUSSCOPE=1 starts nothing there, its own probe.start() listens and serves that worker's buses", async () => {
  assert.equal((globalThis as Record<symbol, unknown>)[Symbol.for('busscope.runtime')], undefined, 'this main thread has not loaded the package');
  const DISPATCHES = 12;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-lonely-worker-'));
  const worker = new Worker(workerFile, {
    workerData: { dispatches: DISPATCHES },
    env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: dir },
    execArgv: [],
  });
  let client: ProbeClient | undefined;
  try {
    const report = await new Promise<{ fromEnvironment: ProbeInfo | null; info: ProbeInfo }>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', resolve);
    });
    assert.equal(report.fromEnvironment, null, 'BUSSCOPE=1 started no probe in the worker');
    const { info } = report;
    assert.ok(info.port > 0, 'its own start listens');
    assert.ok(info.discoveryFile !== null);
    assert.deepEqual(fs.readdirSync(dir), [path.basename(info.discoveryFile)]);
    assert.match(path.basename(info.discoveryFile), new RegExp(`^${process.pid}-`), "the discovery file is the process's");

    const model = new Model();
    client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: (m) => model.apply(m) });
    assert.equal(client.welcome.app.pid, process.pid);
    assert.equal(client.welcome.app.name, 'lonely-worker');
    const answered = new Promise((resolve) => worker.once('message', resolve));
    worker.postMessage('dispatch');
    await answered;
    const lonely = () => [...model.buses.values()].find((b) => b.name === 'lonely');
    await waitFor(() => (lonely()?.dispatches ?? 0) >= DISPATCHES, 10_000, "the worker's dispatches");
    assert.equal(lonely()?.dispatches, DISPATCHES);
  } finally {
    client?.close();
    worker.postMessage('exit');
    await new Promise((resolve) => worker.once('exit', resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
