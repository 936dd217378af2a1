// A client that stops reading: the app keeps its dispatch rate, its memory stays bounded, and when
// the client reads again it is told exactly how many records it missed (the numbers add up).
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { BusRecord } from '../../../runtime-probe/src/protocol/index';
import { cleanup, connect, spawnApp, withTimeout } from './helpers';

after(cleanup);

interface FloodResult {
  dispatched: number;
  ms: number;
  perSecond: number;
  baseRss: number;
  peakRss: number;
}

const MiB = 1024 * 1024;

test('a stalled client: bounded memory, steady dispatch rate, exact drop counts', async () => {
  const app = await spawnApp({ start: { discovery: false, maxClientBufferBytes: 256 * 1024, maxBufferedRecords: 8192 } });
  assert.ok(app.info);
  const c = await connect(app.info);
  // 1 KiB payload JSON per dispatch: a backlog nobody bounded would grow by ~200 MiB below.
  await c.client.configure({ capturePayloads: true, payloadSizeCap: 4096 });

  // Reference rate while the client reads.
  const reading = await app.call<FloodResult>('flood', { total: 10_000, chunk: 1000, payloadBytes: 1024 }, 30_000);
  await withTimeout(c.client.ping(), 10_000, 'reference run delivered');

  c.client.pause();
  const stalled = await app.call<FloodResult>('flood', { total: 200_000, chunk: 1000, payloadBytes: 1024 }, 60_000);
  const growth = stalled.peakRss - stalled.baseRss;
  console.log(
    `# reading ${reading.perSecond.toFixed(0)}/s, stalled ${stalled.perSecond.toFixed(0)}/s, app RSS +${(growth / MiB).toFixed(1)} MiB while stalled`,
  );
  assert.ok(growth < 64 * MiB, `app memory grew by ${(growth / MiB).toFixed(1)} MiB`);
  assert.ok(
    stalled.perSecond > reading.perSecond * 0.5,
    `dispatch rate with a stalled client ${stalled.perSecond.toFixed(0)}/s vs ${reading.perSecond.toFixed(0)}/s while reading`,
  );

  c.client.resume();
  await withTimeout(c.client.ping(), 20_000, 'catching up');
  const total = reading.dispatched + stalled.dispatched;
  const records = c.records();
  const received = records.filter((r) => r.kind === 'dispatch' && r.type === 'flood').length;
  const payloads = records.filter((r) => r.kind === 'payload').length;
  const drops = records.filter((r): r is Extract<BusRecord, { kind: 'drops' }> => r.kind === 'drops');
  assert.ok(drops.length > 0, 'drops were reported in-band');
  assert.ok(drops.every((d) => d.reason === 'slow-client'));
  const droppedDispatches = drops.reduce((n, d) => n + d.dispatches, 0);
  const droppedRecords = drops.reduce((n, d) => n + d.count, 0);
  assert.ok(droppedDispatches > stalled.dispatched / 4, `${droppedDispatches} of ${stalled.dispatched} dropped`);
  assert.equal(received + droppedDispatches, total, 'received + dropped == dispatched');
  // Every record of the flood: a payload and a dispatch per dispatch, and two handler timings per
  // dispatch the handler sampler timed (each type's first 32, then about 1 in N): what arrived plus
  // what was counted dropped lies between those bounds, and the dispatches themselves add up exactly (above).
  const handlers = records.filter((r) => r.kind === 'handler').length;
  const accounted = received + payloads + handlers + droppedRecords;
  assert.ok(accounted >= 2 * total + 2 * 32 && accounted <= 4 * total, `${accounted} records for ${total} dispatches`);
  // What arrived is in order; the gaps in the sequence numbers are what was dropped.
  const seqs = records.filter((r) => r.kind === 'dispatch' && r.type === 'flood').map((r) => (r as { seq: number }).seq);
  for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1]);
  let gaps = 0;
  for (let i = 1; i < seqs.length; i++) gaps += seqs[i] - seqs[i - 1] - 1;
  assert.ok(gaps <= droppedDispatches);

  // Reading again, the client gets everything again.
  const after = await app.call<FloodResult>('flood', { total: 2000, chunk: 500, payloadBytes: 1024 }, 30_000);
  await withTimeout(c.client.ping(), 10_000, 'after the catch-up');
  const later = c.records().slice(records.length);
  assert.equal(later.filter((r) => r.kind === 'dispatch').length, after.dispatched);
  assert.equal(later.filter((r) => r.kind === 'drops').length, 0);
});
