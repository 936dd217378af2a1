// One app process of bench/recording.bench.ts (one bus build per process): a mixed workload — 8 event
// types interleaved, some dispatched from inside handlers (nested) — measured detached, then recording
// at detail `dispatch` with a real client (another process) reading over the real socket. Driven over
// IPC by the bench; never run by bench/index.ts itself (not a *.bench.ts file).
import { EventBus, probe } from 'busscope-probe';

export type AppCommand =
  | { readonly cmd: 'measure'; readonly handlers: number; readonly ms: number }
  | { readonly cmd: 'start-probe' }
  /** Records at least `dispatches` of the workload (1 handler per type) to a trace file at detail `dispatch` (the ingest cell's input). */
  | { readonly cmd: 'record-trace'; readonly file: string; readonly dispatches: number }
  | { readonly cmd: 'stop-probe' }
  /** Replies once the probe records (or not), i.e. the client's configure took effect. */
  | { readonly cmd: 'wait-recording'; readonly on: boolean }
  | { readonly cmd: 'exit' };
export type AppReply =
  /** `cpuNsPerDispatch`: this process's CPU time (user + system) per dispatch: less disturbed by other work on a shared machine than the wall time. */
  | { readonly type: 'measured'; readonly handlers: number; readonly nsPerDispatch: number; readonly cpuNsPerDispatch: number; readonly dispatches: number }
  | { readonly type: 'probe'; readonly port: number; readonly token: string }
  | { readonly type: 'stopped' }
  | { readonly type: 'recorded'; readonly dispatches: number }
  | { readonly type: 'recording'; readonly on: boolean }
  | { readonly type: 'error'; readonly message: string };

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;
type Events = { [K in (typeof TYPES)[number]]: { v: number } };
/** The interleaving: a fixed pseudo-random order of types, so no run of one type repeats for long. */
const ORDER: (typeof TYPES)[number][] = [];
{
  let seed = 11;
  for (let i = 0; i < 4096; i++) ORDER.push(TYPES[((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) % TYPES.length]);
}
const BATCH = 8192;
const PAYLOAD = { v: 1 };
let accumulator = 0;
let nested = 0;

/** One bus per handler count, built once (per process). */
const buses = new Map<number, EventBus<Events>>();
function busFor(handlers: number): EventBus<Events> {
  let bus = buses.get(handlers);
  if (bus !== undefined) return bus;
  bus = new EventBus<Events>({ name: `mixed-${handlers}` });
  const b = bus;
  for (const type of TYPES) {
    for (let h = 0; h < handlers; h++) {
      b.subscribe(type, (e) => {
        accumulator += e.v;
        // some nesting: every 4th collide causes damage (counted as a dispatch, like any other)
        if (h === 0 && type === 'collide' && (accumulator & 3) === 0) {
          nested++;
          b.dispatch('damage', e);
        }
      });
    }
  }
  buses.set(handlers, bus);
  return bus;
}

/**
 * One batch, in its own function: it stays optimized from one `measure` call to the next, where a
 * loop inside the async `measure` would start each call unoptimized (on-stack replacement), charging
 * each cell's first milliseconds to whichever path is slower to interpret.
 */
function runBatch(bus: EventBus<Events>): void {
  for (let i = 0; i < BATCH; i++) bus.dispatch(ORDER[i & 4095], PAYLOAD);
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function measure(handlers: number, ms: number): Promise<AppReply> {
  const bus = busFor(handlers);
  nested = 0;
  let top = 0;
  const start = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  for (;;) {
    runBatch(bus);
    top += BATCH;
    await yieldToLoop(); // the probe's off-hot-path work (drain, socket writes) runs inside the measured time
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (elapsed >= ms) {
      const dispatches = top + nested; // dispatches, not runs: nested ones count
      const cpu = process.cpuUsage(cpuStart);
      return {
        type: 'measured',
        handlers,
        nsPerDispatch: (elapsed * 1e6) / dispatches,
        cpuNsPerDispatch: ((cpu.user + cpu.system) * 1e3) / dispatches,
        dispatches,
      };
    }
  }
}

async function handle(c: AppCommand): Promise<AppReply | undefined> {
  switch (c.cmd) {
    case 'measure':
      return measure(c.handlers, c.ms);
    case 'start-probe': {
      const info = await probe.start({ discovery: false, detail: 'dispatch', captureStacks: false });
      return { type: 'probe', port: info.port, token: info.token };
    }
    case 'wait-recording': {
      for (let i = 0; i < 400 && probe.snapshot().recording !== c.on; i++) await new Promise((r) => setTimeout(r, 5));
      if (probe.snapshot().recording !== c.on) throw new Error(`probe recording is not ${c.on}`);
      return { type: 'recording', on: c.on };
    }
    case 'record-trace': {
      const recording = probe.record(c.file, { detail: 'dispatch', captureStacks: false });
      let made = 0;
      while (made < c.dispatches) {
        const r = await measure(1, 1);
        if (r.type === 'measured') made += r.dispatches;
      }
      await recording.stop();
      return { type: 'recorded', dispatches: made };
    }
    case 'stop-probe':
      await probe.stop();
      return { type: 'stopped' };
    case 'exit':
      await probe.stop();
      if (accumulator === 0) throw new Error('handlers never ran');
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
