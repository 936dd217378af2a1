// A worker thread's dispatches travel as protocol-version-6 dispatch columns (record code 18) inside
// its thread frames (code 17) when the stream speaks 6: the main thread's hub tells each worker the
// version of the stream it feeds (before, a worker wrote 40-byte dispatch blocks). Real worker_threads load the built package; a real
// ProbeClient over the main probe's real socket feeds the real Model; its raw frames are read again
// by a real StreamDecoder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ProbeClient, probe } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamDecoder, type RecordSink } from '../../../runtime-probe/src/protocol/index';
import { waitFor } from '../../support/wait';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/columns-worker.cjs');

interface Entry {
  seq: number;
  bus: number;
  type: string;
  delivered: number;
  depth: number;
  parentSeq: number;
}

for (const version of [6, 5]) {
  test(`a version-${version} client gets a worker's dispatches ${version === 6 ? 'as dispatch columns' : 'as dispatch blocks'} in its thread frames, each decoded exactly`, async (t) => {
    const OUTER = 3000;
    const TOTAL = OUTER + OUTER / 3;
    const info = await probe.start({ discovery: false, name: 'worker-columns' });
    const model = new Model();
    const frames: Uint8Array[] = [];
    const client = await ProbeClient.connect({
      port: info.port,
      token: info.token,
      protocolVersions: [version],
      onMessage: (m) => model.apply(m),
      onFrame: (f) => frames.push(f),
    });
    const worker = new Worker(workerFile, { workerData: { dispatches: OUTER }, execArgv: [] });
    try {
      assert.equal(client.welcome.protocolVersion, version);
      const { busId } = await new Promise<{ busId: number }>((resolve, reject) => {
        worker.once('error', reject);
        worker.once('message', resolve);
      });
      await client.configure({ detail: 'dispatch' });
      const workerBus = () => [...model.buses.values()].find((b) => b.name === 'columns-worker-bus');
      await waitFor(() => workerBus() !== undefined, 10_000, "the worker's bus in the session");
      await new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage('dispatch');
      });
      await waitFor(() => (workerBus()?.dispatches ?? 0) + model.drops.dispatches >= TOTAL, 10_000, "the worker's dispatches in the session");
      assert.equal((workerBus()?.dispatches ?? 0) + model.drops.dispatches, TOTAL, 'delivered + dropped = dispatched');

      // The same bytes again, through a decoder that tells runs (dispatch blocks or columns) from plain
      // records; a dispatch block takes 40 B per dispatch, columns a few.
      const decoder = new StreamDecoder();
      const runEntries: Entry[] = [];
      let plain = 0;
      const sink: RecordSink = {
        dispatch: (_seq, bus) => {
          if (bus === busId) plain++;
        },
        record: () => undefined,
        dispatchRun: (c) => {
          for (let i = 0; i < c.count; i++) {
            if (c.bus[i] !== busId) continue;
            runEntries.push({ seq: c.seq[i], bus: c.bus[i], type: c.type[i], delivered: c.delivered[i], depth: c.depth[i], parentSeq: c.parentSeq[i] });
          }
        },
      };
      let threadBytes = 0;
      for (const frame of frames) {
        decoder.feed(frame);
        const m = decoder.next(sink);
        if (m?.type === 'records' && m.thread !== undefined) threadBytes += frame.length;
      }
      t.diagnostic(`worker thread frames: ${(threadBytes / TOTAL).toFixed(2)} B per dispatch (${runEntries.length} in runs, ${plain} plain)`);
      assert.equal(model.drops.dispatches, 0, 'nothing dropped at this rate');
      assert.equal(plain, 0, 'no plain dispatch records');
      assert.equal(runEntries.length, TOTAL);
      // Version 5 reads no columns: it gets what it always got.
      if (version === 6) assert.ok(threadBytes / TOTAL < 12, `columns, not 40-byte blocks: ${threadBytes / TOTAL} B per dispatch`);
      else assert.ok(threadBytes / TOTAL >= 40, `dispatch blocks: ${threadBytes / TOTAL} B per dispatch`);

      // Each one exact: the outer dispatches in order, every third with its nested one under it.
      runEntries.sort((a, b) => a.seq - b.seq);
      assert.equal(new Set(runEntries.map((e) => e.seq)).size, TOTAL, 'seqs unique');
      const outer = runEntries.filter((e) => e.type === 'job.done');
      const parts = runEntries.filter((e) => e.type === 'job.part');
      assert.equal(outer.length, OUTER);
      assert.equal(parts.length, OUTER / 3);
      for (const e of runEntries) assert.equal(e.bus, busId);
      for (const e of outer) assert.deepEqual([e.delivered, e.depth, e.parentSeq], [2, 0, 0]);
      outer.forEach((e, i) => {
        if (i % 3 !== 0) return;
        const part = parts[i / 3];
        assert.deepEqual([part.delivered, part.depth, part.parentSeq, part.seq], [1, 1, e.seq, e.seq + 1]);
      });
    } finally {
      worker.postMessage('exit');
      await worker.terminate();
      client.close();
      await probe.stop();
    }
  });
}
