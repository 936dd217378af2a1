// Dispatch blocks reach a reader's sink as columns, one call per block (RecordSink.dispatchRun): the
// reader's per-dispatch calls, and the numbers boxed for each, were a third of its cost at millions of
// dispatches per second. The rows must be exactly the records the block holds, in stream order, and
// the model fed this way must equal the model fed record objects.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFile } from '../../../runtime-probe/src/client/index';
import {
  FrameDecoder,
  FrameKind,
  StreamDecoder,
  TRACE_HEADER_BYTES,
  type BusRecord,
  type DispatchColumns,
  type RecordSink,
} from '../../../runtime-probe/src/protocol/index';
import { Model, buildSnapshot } from '../../../runtime-probe/src/analysis/model/index';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-run-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

type Events = { input: { v: number }; move: { v: number }; collide: { v: number }; damage: { v: number } };

/** A real probe's trace at detail `dispatch`: interleaved types, some nested, a few consumed. */
async function recordDispatchTrace(file: string, dispatches: number): Promise<void> {
  const recording = probe.record(file, { detail: 'dispatch', captureStacks: false });
  const bus = new EventBus<Events>({ name: 'run-test' });
  bus.subscribe('input', () => undefined);
  bus.subscribe('move', () => undefined);
  bus.subscribe('collide', (e) => {
    if (e.v % 8 === 2) bus.dispatch('damage', e); // nested
  });
  bus.subscribe('damage', (e, ctx) => {
    if (e.v % 3 === 0) ctx.consume();
  });
  const types = ['input', 'move', 'collide', 'damage'] as const;
  for (let i = 0; i < dispatches; i++) {
    bus.dispatch(types[(i * 7) % 4], { v: i });
    if (i % 5000 === 0) await new Promise((r) => setImmediate(r));
  }
  bus.dispose();
  await recording.stop();
}

const row = (...fields: unknown[]): string => JSON.stringify(['dispatch', ...fields]);

test('a dispatch block reaches a sink that takes runs in one call per block, as the rows it holds, in stream order', async () => {
  const file = path.join(tmp, 'runs.bustrace');
  await recordDispatchTrace(file, 20_000);
  const frames = new FrameDecoder(1 << 26);
  frames.push(new Uint8Array(fs.readFileSync(file)).subarray(TRACE_HEADER_BYTES));
  const listDecoder = new StreamDecoder(1 << 26);
  const sinkDecoder = new StreamDecoder(1 << 26);
  const expected: string[] = [];
  const got: string[] = [];
  let dispatchCalls = 0;
  let runCalls = 0;
  const sink: RecordSink = {
    dispatch: (seq, bus, type, _typeId, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound) => {
      dispatchCalls++;
      got.push(row(seq, bus, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound));
    },
    dispatchRun: (c: DispatchColumns) => {
      runCalls++;
      for (let i = 0; i < c.count; i++) {
        assert.equal(sinkDecoder.records.stringById(c.typeId[i]), c.type[i]);
        got.push(
          row(
            c.seq[i],
            c.bus[i],
            c.type[i],
            c.start[i],
            c.startBound[i],
            c.duration[i],
            c.delivered[i],
            c.consumedBy[i],
            c.depth[i],
            c.parentSeq[i],
            c.site[i],
            c.durationBound[i],
          ),
        );
      }
    },
    record: (r: BusRecord) => void got.push(JSON.stringify(r)),
  };
  let batches = 0;
  for (let f = frames.next(); f !== undefined; f = frames.next()) {
    const listed = listDecoder.decodeFrame(f);
    sinkDecoder.decodeFrame(f, f.kind === FrameKind.Records ? sink : undefined);
    if (listed.type !== 'records') continue;
    batches++;
    for (const r of listed.records) {
      expected.push(
        r.kind === 'dispatch'
          ? row(r.seq, r.bus, r.type, r.start, r.startBound ?? 0, r.duration, r.delivered, r.consumedBy, r.depth, r.parentSeq, r.site, r.durationBound ?? 0)
          : JSON.stringify(r),
      );
    }
  }
  const dispatches = expected.filter((e) => e.startsWith('["dispatch"')).length;
  assert.ok(dispatches >= 20_000, `dispatches recorded: ${dispatches}`);
  assert.deepEqual(got, expected);
  // Bounded work: the sink is called per block, not per dispatch (a block holds up to a drain's
  // records: thousands here, whichever layout the probe wrote).
  assert.equal(dispatchCalls, 0, 'no dispatch of a block went one at a time');
  assert.ok(runCalls >= 1 && runCalls <= dispatches / 500, `${runCalls} runs for ${dispatches} dispatches in ${batches} batches`);
});

test('a model fed dispatch blocks as runs equals the model fed record objects', async () => {
  const file = path.join(tmp, 'model.bustrace');
  await recordDispatchTrace(file, 20_000);
  const objects = new Model();
  for await (const m of readTraceFile(file)) objects.apply(m);
  const runs = new Model();
  for await (const m of readTraceFile(file, runs.recordSink)) runs.apply(m);
  assert.ok(objects.totalDispatches >= 20_000);
  const state = (model: Model): unknown => {
    const t = model.timeline;
    const rows = Array.from({ length: t.size }, (_, k) => t.row(k));
    return JSON.parse(JSON.stringify({ snapshot: buildSnapshot(model), rows, now: model.now, version: model.version > 0 }));
  };
  assert.deepEqual(state(runs), state(objects));
  assert.ok(runs.allTypes().some((t) => t.consumed > 0) && runs.allTypes().some((t) => t.maxDepth > 0), 'consumption and nesting were exercised');
});
