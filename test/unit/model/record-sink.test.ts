// Record batches decoded straight into the model (RecordSink: dispatch records as fields, no object
// each) must leave the model exactly as applying the decoded record objects does — on a real
// probe's trace (detail `handlers`: nesting, consumption, throws, sites, start bounds) and on a
// version-1 trace — and the sink path must really skip the dispatch objects.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFile } from '../../../runtime-probe/src/client/index';
import { FrameDecoder, FrameKind, StreamDecoder, TRACE_HEADER_BYTES, type BusRecord, type RecordSink } from '../../../runtime-probe/src/protocol/index';
import { Model, buildSnapshot } from '../../../runtime-probe/src/analysis/model/index';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-sink-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/traces');

interface Events {
  move: { x: number };
  hit: { x: number };
  idle: undefined;
}

async function recordRealTrace(file: string): Promise<void> {
  const recording = probe.record(file, { detail: 'handlers', captureStacks: false });
  const bus = new EventBus<Events>({ name: 'sink-test', onError: () => undefined });
  bus.subscribe('move', (e) => {
    if (e.x % 7 === 0) bus.dispatch('hit', e); // nested
  });
  bus.subscribe('move', () => undefined, { label: 'second' });
  bus.subscribe(
    'hit',
    (e, ctx) => {
      if (e.x % 3 === 0) ctx.consume();
    },
    { priority: 5 },
  );
  bus.subscribe('hit', (e) => {
    if (e.x % 14 === 0) throw new Error('boom');
  });
  for (let i = 0; i < 3000; i++) {
    bus.dispatch('move', { x: i });
    if (i % 50 === 0) bus.dispatch('idle', undefined);
    if (i % 1000 === 0) await new Promise((r) => setImmediate(r));
  }
  bus.dispose();
  await recording.stop();
}

/** Model state that the views and analyses read: the snapshot, the timeline columns and handler slices. */
function state(model: Model): unknown {
  const t = model.timeline;
  const h = model.handlerSlices;
  const rows = Array.from({ length: t.size }, (_, k) => t.row(k));
  const slices = Array.from({ length: h.size }, (_, k) => h.slice(k));
  const p95 = [...model.subscriptions.values()].map((s) => [s.id, s.durations?.quantile(0.95) ?? null, s.durations?.count ?? 0]);
  return JSON.parse(JSON.stringify({ snapshot: buildSnapshot(model), rows, slices, p95 }));
}

async function bothWays(file: string): Promise<{ objects: Model; sink: Model; applied: number; listed: number }> {
  const objects = new Model();
  for await (const m of readTraceFile(file)) objects.apply(m);
  const sink = new Model();
  let applied = 0;
  let listed = 0;
  for await (const m of readTraceFile(file, sink.recordSink)) {
    if (m.type === 'records') {
      applied += m.applied ?? 0;
      listed += m.records.length;
    }
    sink.apply(m);
  }
  return { objects, sink, applied, listed };
}

test('a real trace decoded into the model through its record sink gives the same model as record objects', async () => {
  const file = path.join(tmp, 'real.bustrace');
  await recordRealTrace(file);
  const { objects, sink, applied, listed } = await bothWays(file);
  assert.ok(objects.totalDispatches > 3000, `dispatches recorded: ${objects.totalDispatches}`);
  assert.ok(objects.totalHandlerErrors > 0 && objects.totalHandlerCalls > 0);
  assert.ok(objects.timeline.row(0).startBound >= 0);
  assert.deepEqual(state(sink), state(objects));
  assert.equal(listed, 0, 'with a sink, batches carry no record objects');
  assert.ok(applied > objects.totalDispatches, 'every record reached the sink and was counted');
});

test('a version-1 trace reads the same through the record sink', async () => {
  const { objects, sink } = await bothWays(path.join(fixtures, 'protocol-v1.bustrace'));
  assert.equal(objects.totalDispatches, 6);
  assert.deepEqual(state(sink), state(objects));
});

test('the sink gets dispatch records as fields and every other record as its object, in stream order', async () => {
  const file = path.join(tmp, 'order.bustrace');
  await recordRealTrace(file);
  const bytes = new Uint8Array(fs.readFileSync(file));
  const frames = new FrameDecoder(1 << 26);
  frames.push(bytes.subarray(TRACE_HEADER_BYTES));
  const listDecoder = new StreamDecoder(1 << 26);
  const sinkDecoder = new StreamDecoder(1 << 26);
  const expected: string[] = [];
  const got: string[] = [];
  const sink: RecordSink = {
    dispatch: (seq, bus, type, typeId, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound) => {
      assert.equal(sinkDecoder.records.stringById(typeId), type);
      got.push(JSON.stringify(['dispatch', seq, bus, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound]));
    },
    record: (r: BusRecord) => {
      assert.notEqual(r.kind, 'dispatch');
      got.push(JSON.stringify(r));
    },
  };
  for (let f = frames.next(); f !== undefined; f = frames.next()) {
    const listed = listDecoder.decodeFrame(f);
    const viaSink = sinkDecoder.decodeFrame(f, f.kind === FrameKind.Records ? sink : undefined);
    if (listed.type !== 'records') continue;
    assert.equal(viaSink.type === 'records' && viaSink.applied, listed.records.length);
    for (const r of listed.records) {
      expected.push(
        r.kind === 'dispatch'
          ? JSON.stringify([
              'dispatch',
              r.seq,
              r.bus,
              r.type,
              r.start,
              r.startBound ?? 0,
              r.duration,
              r.delivered,
              r.consumedBy,
              r.depth,
              r.parentSeq,
              r.site,
              r.durationBound ?? 0,
            ])
          : JSON.stringify(r),
      );
    }
  }
  assert.ok(expected.length > 3000);
  assert.deepEqual(got, expected);
});
