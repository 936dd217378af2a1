// Payload capture's cost per dispatch, side by side for a 1 KB, a 1 MB and a 50 MB payload (an array
// of order records), as ratios to the 1 KB case. The probe records to a trace file with
// `capturePayloads` on (detail `dispatch`, cap 1024 characters), so each dispatch runs the real
// sanitize-free capture, its ring write and the file encoding (the loop yields to the event loop
// between batches, so the off-hot-path work is inside the measured time). The target: capture costs
// about the same whatever the payload's size (the cap bounds the work; runtime-probe/README.md says so). For reference: the same dispatches with the probe
// stopped and with recording but no capture, and what capture did before — `JSON.stringify` the whole
// payload, then cut it — timed alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, probe } from 'busscope-probe';
import { formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';

interface Order {
  id: number;
  customer: string;
  items: { sku: string; qty: number; price: number }[];
  note: string;
}
interface Events {
  orders: { orders: Order[] };
}

const CAP = 1024;
const BATCH = 256;
const SIZES = [
  { title: '1 KB', records: 8 },
  { title: '1 MB', records: 8_000 },
  { title: '50 MB', records: 400_000 },
] as const;

function makePayload(records: number): { orders: Order[] } {
  const orders: Order[] = [];
  for (let i = 0; i < records; i++) {
    orders.push({ id: i, customer: `customer-${i}`, items: [{ sku: `sku-${i % 977}`, qty: 1 + (i % 5), price: 19.99 }], note: 'leave at the door' });
  }
  return { orders };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function dispatchFor(bus: EventBus<Events>, payload: { orders: Order[] }, ms: number): Promise<number> {
  let dispatches = 0;
  const start = performance.now();
  for (;;) {
    for (let i = 0; i < BATCH; i++) bus.dispatch('orders', payload);
    dispatches += BATCH;
    await yieldToLoop();
    const elapsed = performance.now() - start;
    if (elapsed >= ms) return (elapsed * 1e6) / dispatches;
  }
}

export async function run(): Promise<void> {
  if (probe.info !== undefined || probe.snapshot().recording)
    throw new Error('the probe is already running in this process (unset BUSSCOPE / BUSSCOPE_RECORD)');
  const rounds = benchRounds(3);
  const ms = benchMs(200);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-payload-bench-'));
  const payloads = SIZES.map((s) => makePayload(s.records));
  const jsonBytes = payloads.map((p) => JSON.stringify(p).length);
  const bus = new EventBus<Events>({ name: 'payload-bench' });
  let calls = 0;
  bus.subscribe('orders', (e) => {
    calls += e.orders.length > 0 ? 1 : 0;
  });
  const captured: number[][] = SIZES.map(() => []);
  const uncaptured: number[][] = SIZES.map(() => []);
  const detached: number[][] = SIZES.map(() => []);
  let traceBytes = 0;
  try {
    // Round 0 warms up and is not reported.
    for (let round = 0; round <= rounds; round++) {
      for (let s = 0; s < SIZES.length; s++) {
        const ns = await dispatchFor(bus, payloads[s], ms);
        if (round > 0) detached[s].push(ns);
      }
      for (const capturePayloads of [false, true]) {
        const file = path.join(tmp, `round-${round}.bustrace`);
        const recording = probe.record(file, { discovery: false, detail: 'dispatch', captureStacks: false, capturePayloads, payloadSizeCap: CAP });
        for (let s = 0; s < SIZES.length; s++) {
          const ns = await dispatchFor(bus, payloads[s], ms);
          if (round > 0) (capturePayloads ? captured : uncaptured)[s].push(ns);
        }
        await recording.stop();
        traceBytes = fs.statSync(file).size;
        fs.rmSync(file);
      }
    }
    // What capture did before (stringify everything, then keep the first CAP characters), timed
    // alone, repeated for `ms` (at least once: 50 MB takes seconds).
    const before = payloads.map((p) => {
      let calls = 0;
      const t0 = performance.now();
      do {
        if (JSON.stringify(p).slice(0, CAP).length === 0) throw new Error('stringify reference');
        calls++;
      } while (performance.now() - t0 < ms);
      return ((performance.now() - t0) * 1e6) / calls;
    });
    if (calls === 0) throw new Error('handlers never ran');

    const base = median(captured[0]);
    const rows = SIZES.map((s, i) => {
      const ns = median(captured[i]);
      return [
        `${s.title} (${(jsonBytes[i] / 1e6).toFixed(jsonBytes[i] < 1e5 ? 4 : 1)} MB of JSON, ${s.records.toLocaleString('en-US')} records)`,
        `${(median(detached[i]) / 1000).toFixed(2)} µs`,
        `${(median(uncaptured[i]) / 1000).toFixed(2)} µs`,
        `${(ns / 1000).toFixed(2)} µs`,
        formatRatio(ns / base),
        `${(before[i] / 1000).toFixed(before[i] < 1e6 ? 1 : 0)} µs (${formatRatio(before[i] / base)})`,
      ];
    });
    report(
      `## Payload capture per dispatch, by payload size\n\n` +
        `Median of ${rounds} interleaved rounds, ${ms} ms per cell, batches of ${BATCH} dispatches with a yield between batches; ` +
        `recording to a trace file, detail \`dispatch\`, \`capturePayloads: true\`, \`payloadSizeCap: ${CAP}\`, one handler. ` +
        `Ratios are to the 1 KB payload with capture. Target: about the same cost for 1 KB and 50 MB. ` +
        `Last trace file: ${(traceBytes / 1e6).toFixed(1)} MB.\n\n` +
        markdownTable(['payload', 'probe stopped', 'recording, capture off', 'recording, capturing', 'vs 1 KB', 'before: stringify all then cut, alone'], rows),
    );
  } finally {
    await probe.stop();
    bus.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
