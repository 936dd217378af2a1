// While OpenTelemetry is active, the probe's dispatch records carry the dispatch span's trace id
// (the protocol's optional dispatch extension key 2), the model keeps it per dispatch, and the
// inspector's host answers it in the dispatch details. Records without one read as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import { probe } from '../../../runtime-probe/src/index';
import { readTraceFile, readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { instrumentOpenTelemetry } from '../../../runtime-probe/src/otel/index';
import type { DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { AlwaysOffSampler, makeSdk } from '../../support/otel/sdk';

interface Events {
  placed: { id: number };
  shipped: { id: number };
  untraced: void;
}

function traceFile(): string {
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-traceid-')), 'run.bustrace');
}

async function dispatchRecords(file: string): Promise<DispatchRecord[]> {
  const messages = await readTraceFileMessages(file);
  return messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r): r is DispatchRecord => r.kind === 'dispatch');
}

for (const detail of ['dispatch', 'handlers'] as const) {
  test(`recording at detail ${detail} with OpenTelemetry active: each sampled dispatch record carries its span's trace id`, async () => {
    const sdk = makeSdk();
    const file = traceFile();
    const recording = probe.record(file, { discovery: false, detail });
    const otel = instrumentOpenTelemetry({ tracerProvider: sdk.provider, include: (_bus, type) => type !== 'untraced' });
    const bus = new EventBus<Events>({ name: 'orders' });
    bus.subscribe('placed', (e) => {
      bus.dispatch('untraced'); // excluded by include: no trace id of its own, not its parent's
      bus.dispatch('shipped', e);
    });
    bus.dispatch('placed', { id: 1 });
    bus.dispatch('placed', { id: 2 });
    otel.dispose();
    bus.dispatch('placed', { id: 3 }); // after dispose: none
    await recording.stop();
    bus.dispose();
    const records = await dispatchRecords(file);
    const sends = sdk.spans().filter((s) => s.name === 'send orders');
    const roots = sends.filter((s) => s.attributes['messaging.destination.name'] === 'placed');
    assert.equal(roots.length, 2);
    const placed = records.filter((r) => r.type === 'placed');
    assert.deepEqual(
      placed.map((r) => r.traceId),
      [roots[0].spanContext().traceId, roots[1].spanContext().traceId, undefined],
    );
    const shipped = records.filter((r) => r.type === 'shipped');
    assert.deepEqual(
      shipped.map((r) => r.traceId),
      [roots[0].spanContext().traceId, roots[1].spanContext().traceId, undefined],
    );
    assert.deepEqual(
      records.filter((r) => r.type === 'untraced').map((r) => r.traceId),
      [undefined, undefined, undefined],
    );
    // The model keeps it per dispatch, from the records and from the sink path alike.
    for (const fromSink of [false, true]) {
      const model = new Model();
      if (fromSink) for await (const m of readTraceFile(file, model.recordSink)) model.apply(m);
      else for (const m of await readTraceFileMessages(file)) model.apply(m);
      const ring = model.timeline;
      const kept = new Map<number, string | null>();
      for (let k = 0; k < ring.size; k++) {
        const i = ring.physicalIndex(k);
        kept.set(ring.seq[i], ring.traceIdAt(i));
      }
      for (const r of records) assert.equal(kept.get(r.seq), r.traceId ?? null, `dispatch #${r.seq} (${r.type}), sink ${fromSink}`);
    }
    await sdk.shutdown();
  });
}

test('unsampled dispatches carry no trace id', async () => {
  const sdk = makeSdk(new AlwaysOffSampler());
  const file = traceFile();
  const recording = probe.record(file, { discovery: false });
  const otel = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const bus = new EventBus<Events>({ name: 'orders' });
  bus.dispatch('placed', { id: 1 });
  otel.dispose();
  await recording.stop();
  bus.dispose();
  const records = await dispatchRecords(file);
  assert.equal(records.length, 1);
  assert.equal(records[0].traceId, undefined);
  await sdk.shutdown();
});
