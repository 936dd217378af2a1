// A process with every EventEmitter instrumented has hundreds of thousands of buses, each with a
// type or two and a listener that ran. The model must hold them without off-heap buffers per type
// or per subscription: 240,000 ArrayBuffers (a rate window per type, a duration histogram per
// subscription) made ingesting 120,000 emitters spend most of its time in the garbage collector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BusRecord, SiteInfo } from '../../../runtime-probe/src/protocol/records';
import { Model } from '../../../runtime-probe/src/analysis/model/model';

const NET: SiteInfo = { file: 'node:net', line: 447, column: 8, functionName: 'Socket' };

test('20,000 emitters with a listener that ran each: the model allocates no off-heap buffer per type or subscription', () => {
  const model = new Model();
  const records: BusRecord[] = [];
  let seq = 0;
  for (let b = 1; b <= 20_000; b++) {
    const time = b * 0.01;
    records.push({ kind: 'bus-created', time, bus: b, name: `Socket#${b}` });
    records.push({ kind: 'subscribe', time, subscriptionId: b, bus: b, type: 'data', priority: 0, label: null, owner: null, once: false, site: NET });
    records.push({ kind: 'handler', seq: ++seq, subscriptionId: b, start: time, duration: 0.002, consumed: false });
    records.push({
      kind: 'dispatch',
      seq,
      bus: b,
      type: 'data',
      start: time,
      duration: 0.003,
      delivered: 1,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  const before = process.memoryUsage().arrayBuffers;
  model.applyRecords(records);
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.equal(model.buses.size, 20_000);
  assert.equal(model.subscriptions.get(20_000)?.durations?.count, 1);
  assert.ok(model.typeAt(0)!.rate.ratePerSecond(model.now) > 0);
  // The rings are allocated with the model; 20,000 typed arrays of even 80 bytes would be 1.6 MB.
  assert.ok(grown < 256 * 1024, `off-heap memory grew by ${grown} bytes while ingesting 20,000 emitters`);
});
