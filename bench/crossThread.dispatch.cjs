// The bus of bench/crossThread.bench.ts's forwarding cells (the built package), one file for both
// places it runs: required by the app's main thread (bench/crossThread-app.child.ts) it exports the
// loop; run as a worker it builds the same bus and answers { ms } with { nsPerDispatch, cpuNsPerDispatch, dispatches }
// ('exit': it ends).
// A bus with one handler dispatching flat out, in batches in one function (so it stays optimized from
// one measurement to the next), yielding to the event loop between batches: the recorder's drain
// (and, in a worker, the forwarding of its frames) runs inside the measured time.
const { isMainThread, parentPort } = require('node:worker_threads');
const { EventBus } = require('../runtime-probe/dist/index.cjs');

const BATCH = 4096;
const PAYLOAD = { v: 1 };
let accumulator = 0;

function makeBus(name) {
  const bus = new EventBus({ name });
  bus.subscribe('tick', (e) => {
    accumulator += e.v;
  });
  return bus;
}

function runBatch(bus) {
  for (let i = 0; i < BATCH; i++) bus.dispatch('tick', PAYLOAD);
}

const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve));

async function measure(bus, ms) {
  let dispatches = 0;
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  for (;;) {
    runBatch(bus);
    dispatches += BATCH;
    await yieldToLoop();
    const elapsedNs = Number(process.hrtime.bigint() - start);
    if (elapsedNs >= ms * 1e6) {
      if (accumulator === 0) throw new Error('the handler never ran');
      // The whole process's CPU time (every thread's): in a worker, the main thread's share of forwarding counts too.
      const cpu = process.cpuUsage(cpuStart);
      return { nsPerDispatch: elapsedNs / dispatches, cpuNsPerDispatch: ((cpu.user + cpu.system) * 1e3) / dispatches, dispatches };
    }
  }
}

if (!isMainThread && parentPort !== null) {
  const bus = makeBus('worker-flat-out');
  parentPort.on('message', (m) => {
    // 'exit': end normally (a terminated worker writes no CPU profile).
    if (m === 'exit') return parentPort.close();
    measure(bus, m.ms).then(
      (r) => parentPort.postMessage(r),
      (e) => parentPort.postMessage({ error: String(e && e.message) }),
    );
  });
  parentPort.postMessage({ ready: true });
}

module.exports = { makeBus, measure };
