// The app process of bench/crossThread.bench.ts's forwarding cells: a bus dispatching flat out on the
// main thread, and the same bus in a worker thread (bench/crossThread.dispatch.cjs), measured
// detached and then while the main thread's probe serves a real client (another process) at detail
// `dispatch`, which the worker's records reach through the main thread. Driven over IPC by the
// bench; never run by bench/index.ts itself (not a *.bench.ts file).
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { probe } from 'busscope-probe';

export type Where = 'main' | 'worker';
export type AppCommand = { readonly cmd: 'measure'; readonly where: Where; readonly ms: number } | { readonly cmd: 'start-probe' } | { readonly cmd: 'exit' };
export type AppReply =
  /** `cpuNsPerDispatch`: the whole process's CPU time (every thread) per dispatch, less disturbed by other work on a shared machine than the wall time. */
  | { readonly type: 'measured'; readonly where: Where; readonly nsPerDispatch: number; readonly cpuNsPerDispatch: number; readonly dispatches: number }
  | { readonly type: 'probe'; readonly port: number; readonly token: string }
  | { readonly type: 'error'; readonly message: string };

interface Measured {
  nsPerDispatch: number;
  cpuNsPerDispatch: number;
  dispatches: number;
}

interface FlatOut {
  makeBus(name: string): unknown;
  measure(bus: unknown, ms: number): Promise<Measured>;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(here, 'crossThread.dispatch.cjs');
const flatOut = createRequire(import.meta.url)(file) as FlatOut;
const mainBus = flatOut.makeBus('main-flat-out');
// Created before the probe starts, as an app's workers usually are: it joins the session anyway.
const worker = new Worker(file, { execArgv: [] });
const workerReady = once(worker, 'message');

async function inWorker(ms: number): Promise<Measured> {
  await workerReady;
  const reply = once(worker, 'message');
  worker.postMessage({ ms });
  const [r] = (await reply) as [Measured & { error?: string }];
  if (r.error !== undefined) throw new Error(`worker: ${r.error}`);
  return r;
}

async function handle(c: AppCommand): Promise<AppReply | undefined> {
  switch (c.cmd) {
    case 'measure': {
      const r = c.where === 'main' ? await flatOut.measure(mainBus, c.ms) : await inWorker(c.ms);
      return { type: 'measured', where: c.where, ...r };
    }
    case 'start-probe': {
      const info = await probe.start({ discovery: false, captureStacks: false });
      return { type: 'probe', port: info.port, token: info.token };
    }
    case 'exit':
      await probe.stop();
      worker.postMessage('exit');
      await Promise.race([once(worker, 'exit'), new Promise((r) => setTimeout(r, 2000))]);
      await worker.terminate();
      process.disconnect?.();
      return undefined;
    default: {
      const never: never = c;
      throw new Error(`unknown command ${JSON.stringify(never)}`);
    }
  }
}

let chain: Promise<void> = Promise.resolve();
process.on('message', (c: AppCommand) => {
  chain = chain
    .then(async () => {
      const r = await handle(c);
      if (r !== undefined) process.send?.(r);
    })
    .catch((e: unknown) => {
      process.send?.({ type: 'error', message: e instanceof Error ? e.message : String(e) } satisfies AppReply);
    });
});
