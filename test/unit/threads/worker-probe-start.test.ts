// probe.start() (and BUSSCOPE=1) inside a worker thread (issue 16): only the main thread opens a
// socket and a discovery file. A worker that joined the main thread's probe does not listen, warns
// once, and its buses still reach the main thread's session. Real worker_threads load the built
// package; a real ProbeClient over the main probe's real socket feeds the real Model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ProbeClient, probe, type ProbeInfo } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { waitFor } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/probe-start-worker.cjs');

interface Report {
  threadId: number;
  first: ProbeInfo;
  second: ProbeInfo;
  info: ProbeInfo | null;
  warnings: string[];
}

/** TCP sockets this process (every thread: one fd table) listens on, from /proc (Linux); null elsewhere. */
function listeningSockets(): number | null {
  if (process.platform !== 'linux') return null;
  const inodes = new Set<string>();
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/self/fd/${fd}`));
      if (m !== null) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  let listening = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A' && inodes.has(cols[9])) listening++; // 0A: LISTEN
    }
  }
  return listening;
}

test("probe.start() and BUSSCOPE=1 in a joined worker: no socket, no discovery file, one warning, and the worker's bus is in the main probe's session", async () => {
  const DISPATCHES = 30;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-worker-start-'));
  const previousDir = process.env.BUSSCOPE_DISCOVERY_DIR;
  process.env.BUSSCOPE_DISCOVERY_DIR = dir;
  const info = await probe.start({ discovery: true, name: 'main-probe' });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: (m) => model.apply(m) });
  let worker: Worker | undefined;
  try {
    assert.ok(info.discoveryFile !== null);
    assert.deepEqual(fs.readdirSync(dir), [path.basename(info.discoveryFile)]);
    const socketsBefore = listeningSockets();
    worker = new Worker(workerFile, { workerData: { dispatches: DISPATCHES }, env: { ...process.env, BUSSCOPE: '1' }, execArgv: [] });
    const w = worker;
    const report = await new Promise<Report>((resolve, reject) => {
      w.once('error', reject);
      w.once('message', resolve);
    });

    // start() returned normally, twice, without listening; said so once.
    for (const started of [report.first, report.second]) {
      assert.deepEqual({ ...started }, { host: '127.0.0.1', port: 0, token: '', discoveryFile: null });
    }
    assert.equal(report.info, null, 'probe.info: no server in the worker');
    assert.equal(report.warnings.length, 1, report.warnings.join('\n'));
    assert.match(
      report.warnings[0],
      new RegExp(`probe\\.start\\(\\) in worker thread ${report.threadId} does not listen: .*recorded by the main thread's probe`),
    );
    // Nothing the worker opened: the main thread's discovery file alone, no further listening socket.
    assert.deepEqual(fs.readdirSync(dir), [path.basename(info.discoveryFile)]);
    if (socketsBefore !== null) assert.equal(listeningSockets(), socketsBefore, 'no listening socket of the worker');

    // The worker's bus, with its dispatches, in the main thread's session under its thread.
    const answered = new Promise((resolve) => w.once('message', resolve));
    w.postMessage('dispatch');
    await answered;
    const workerBus = () => [...model.buses.values()].find((b) => b.name === 'worker-bus');
    await waitFor(() => (workerBus()?.dispatches ?? 0) >= DISPATCHES, 10_000, "the worker's dispatches in the main probe's session");
    assert.equal(workerBus()?.thread, report.threadId);
    assert.equal(workerBus()?.dispatches, DISPATCHES);
  } finally {
    worker?.postMessage('exit');
    await worker?.terminate();
    client.close();
    await probe.stop();
    if (previousDir === undefined) delete process.env.BUSSCOPE_DISCOVERY_DIR;
    else process.env.BUSSCOPE_DISCOVERY_DIR = previousDir;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
