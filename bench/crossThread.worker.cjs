// The producer side of bench/crossThread.bench.ts: posts `count` events through the built package's
// connectProducer, or through a bare postMessage of the same message shape, and reports how long
// posting took in this thread.
const { workerData, parentPort } = require('node:worker_threads');
const { connectProducer } = require('../runtime-probe/dist/index.cjs');

const { port, mode, count } = workerData;
const payload = { itemId: 0, picker: 'ann' };
let post;
if (mode === 'busscope') {
  const producer = connectProducer(port);
  post = (i) => {
    payload.itemId = i;
    producer.enqueue('item.picked', payload);
  };
} else {
  post = (i) => {
    payload.itemId = i;
    port.postMessage([0, 'item.picked', payload]);
  };
}
// hrtime is one monotonic clock for every thread of the process: the main thread subtracts it.
const t0 = process.hrtime.bigint();
for (let i = 0; i < count; i++) post(i);
const postNs = Number(process.hrtime.bigint() - t0);
parentPort.postMessage({ startNs: t0.toString(), postNs });
