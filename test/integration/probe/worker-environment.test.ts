// BUSSCOPE=1 and BUSSCOPE_RECORD reach worker threads (they share the process's environment), but
// only the main thread acts on them (#16): a worker that loads the package opens no socket, writes
// no discovery file and does not open the trace file a second time.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Worker } from 'node:worker_threads';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-worker-env-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const dist = path.resolve(__dirname, '../../../runtime-probe/dist/index.cjs');

test('a worker thread with BUSSCOPE=1 and BUSSCOPE_RECORD starts no probe of its own', async () => {
  const discovery = path.join(tmp, 'discovery');
  const trace = path.join(tmp, 'run.bustrace');
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const { EventBus, probe } = require(${JSON.stringify(dist)});
     const bus = new EventBus({ name: 'in-worker' });
     bus.dispatch('x');
     setTimeout(() => parentPort.postMessage({ started: probe.info !== undefined }), 300);`,
    {
      eval: true,
      execArgv: [],
      env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: discovery, BUSSCOPE_RECORD: trace },
    },
  );
  const report = await new Promise<{ started: boolean }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const files = fs.existsSync(discovery) ? fs.readdirSync(discovery) : [];
  await worker.terminate();
  assert.deepEqual(report, { started: false });
  assert.deepEqual(files, [], 'no discovery file');
  assert.equal(fs.existsSync(trace), false, 'no trace file');
});
