// A trace file's sink writes each frame synchronously, so the recorder hands it a view of its batch
// writer's buffer instead of a fresh copy of every batch (a copy and an allocation per drain, a few
// percent of a recording app's time). The file must still hold every dispatch exactly once: the
// writer reuses that buffer for the next batch only after the write returned.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { FileSink } from '../../../runtime-probe/src/trace/file-sink';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-file-sink-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('a trace file gets record batches as views of one buffer, not a copy each, and still every dispatch once', async () => {
  const file = path.join(tmp, 'views.bustrace');
  const sink = new FileSink(file);
  /** The buffer behind each record batch the sink was given (a batch says how many records it holds). */
  const buffers: ArrayBufferLike[] = [];
  const write = sink.write.bind(sink);
  sink.write = (frame: Uint8Array, records?: number) => {
    if (records !== undefined) buffers.push(frame.buffer);
    write(frame);
  };
  const rec = new Recorder({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const dispatched = 30_000;
  try {
    rec.attach(sink, [], () => undefined);
    const bus = new EventBus<{ a: number; b: number }>({ name: 'file-views' });
    bus.subscribe('a', () => undefined);
    bus.subscribe('b', () => undefined);
    for (let i = 0; i < dispatched; i++) bus.dispatch(i % 3 === 0 ? 'b' : 'a', i);
    rec.flushTo(sink);
    rec.detach(sink, false);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
    sink.close();
  }
  assert.ok(buffers.length >= 5, `${buffers.length} batches (one per drain)`);
  assert.equal(new Set(buffers).size, 1, 'every batch a view of the same buffer: none copied');
  const messages = await readTraceFileMessages(file);
  const seqs = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).flatMap((r) => (r.kind === 'dispatch' ? [r.seq] : []));
  assert.equal(seqs.length, dispatched);
  assert.equal(new Set(seqs).size, dispatched, 'every dispatch exactly once');
});
