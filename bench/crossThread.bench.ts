// Cross-thread events (#16): the cost per event of a worker's `producer.enqueue` into a main-thread
// bus (clone, port, queue, dispatch by autoFlush to one handler; the worker runs the built package),
// side by side with a bare `postMessage` of the same message over a MessageChannel to one `message` listener.
// Each round runs both in fresh workers (alternating which goes first) and takes the worker's own
// time to post every event (producer side) and the time from its first post until the main thread
// has handled the last event (end to end). Medians over the rounds; ratios are medians of per-round
// ratios.
// Then the cost of forwarding a worker's records: in each of several app processes
// (bench/crossThread-app.child.ts), a bus with one handler dispatching flat out on the main thread and
// the same bus in a worker thread, detached, then while the main thread's probe serves a real client
// (bench/probe-reader.child.ts, another process) at detail `dispatch`, the worker's records reaching it
// through the main thread. Per process ns per dispatch; reported as median (p10–p90) over processes,
// ratios per process. Delivered + dropped dispatch records are checked against the dispatches made.
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus } from '../runtime-probe/src/bus/index';
import { formatRatio, markdownTable, median } from './lib/measure';
import { Child, spread } from './lib/child';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';
import type { AppCommand, AppReply, Where } from './crossThread-app.child';
import type { ReaderCommand, ReaderCounts, ReaderReply } from './probe-reader.child';

const here = path.dirname(fileURLToPath(import.meta.url));
const workerFile = path.join(here, 'crossThread.worker.cjs');
type Mode = 'busscope' | 'postMessage';
const MODES: readonly Mode[] = ['busscope', 'postMessage'];

interface Events {
  'item.picked': { itemId: number; picker: string };
}

interface Sample {
  post: number;
  endToEnd: number;
}

async function measure(mode: Mode, count: number): Promise<Sample> {
  let handled = 0;
  let lastAt = 0n;
  let port: NodeMessagePort;
  let bus: EventBus<Events> | undefined;
  let bare: MessageChannel | undefined;
  const done = (): void => {
    if (++handled === count) lastAt = process.hrtime.bigint();
  };
  if (mode === 'busscope') {
    bus = new EventBus<Events>({ autoFlush: 'microtask', producerQueue: { cap: count } });
    bus.subscribe('item.picked', done);
    port = bus.openProducerPort() as unknown as NodeMessagePort;
  } else {
    bare = new MessageChannel();
    (bare.port1 as unknown as NodeMessagePort).on('message', (m: [number, string, unknown]) => {
      if (m[0] === 0 && typeof m[1] === 'string') done();
    });
    port = bare.port2 as unknown as NodeMessagePort;
  }
  const worker = new Worker(workerFile, { workerData: { port, mode, count }, transferList: [port], execArgv: [] });
  const [{ startNs, postNs }] = (await once(worker, 'message')) as [{ startNs: string; postNs: number }];
  await once(worker, 'exit');
  if (bus !== undefined) await bus.producersClosed();
  while (handled < count) await new Promise((resolve) => setImmediate(resolve));
  bare?.port1.close();
  bus?.dispose();
  return { post: postNs / count, endToEnd: Number(lastAt - BigInt(startNs)) / count };
}

/** BENCH_PROFILE_DIR=dir: the app processes write CPU profiles there (main thread and worker). */
function profileArgs(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

type Clock = 'wall' | 'cpu';
type Cell = Record<Where, Record<Clock, number>>;

interface ForwardingSample {
  readonly detached: Cell;
  readonly attached: Cell;
  /** Dispatch records delivered or counted as dropped, over dispatches made while attached. */
  readonly accounted: number;
}

/** Delivered + dropped dispatch records so far. */
const accountedOf = (c: ReaderCounts): number => c.dispatchRecords + c.droppedDispatches;

async function forwardingSample(processIndex: number, ms: number): Promise<ForwardingSample> {
  const app = new Child<AppCommand, AppReply>('crossThread-app.child.ts', profileArgs());
  const reader = new Child<ReaderCommand, ReaderReply>('probe-reader.child.ts');
  try {
    const order: readonly Where[] = processIndex % 2 === 0 ? ['main', 'worker'] : ['worker', 'main'];
    const measure = async (where: Where, forMs: number) => app.ask({ cmd: 'measure', where, ms: forMs }, 'measured');
    const cell = async (dispatched: { n: number }): Promise<Cell> => {
      const out = {} as Cell;
      for (const where of order) {
        const r = await measure(where, ms);
        out[where] = { wall: r.nsPerDispatch, cpu: r.cpuNsPerDispatch };
        dispatched.n += r.dispatches;
      }
      return out;
    };
    for (const where of order) await measure(where, 50); // warm up
    const detached = await cell({ n: 0 });

    const { port, token } = await app.ask({ cmd: 'start-probe' }, 'probe');
    await reader.ask({ cmd: 'connect', port, token }, 'ready');
    await reader.ask({ cmd: 'configure', detail: 'dispatch' }, 'configured');
    // The worker hears of the client and its detail over the process's channel. The first tens of
    // milliseconds of recording in each thread cost far more (the recorder's code is compiled, the
    // thread's snapshot sent): warm up past them, as an app that records for a while does.
    for (const where of order) await measure(where, Math.max(200, ms));
    const settled = async (): Promise<number> => {
      let last = -1;
      for (let i = 0; i < 40; i++) {
        const n = accountedOf((await reader.ask({ cmd: 'sync' }, 'counts')).counts);
        if (n === last) return n;
        last = n;
        await new Promise((r) => setTimeout(r, 50));
      }
      return last;
    };
    const before = await settled();
    const dispatched = { n: 0 };
    const attached = await cell(dispatched);
    const accounted = ((await settled()) - before) / dispatched.n;
    if (accounted < 0.9) throw new Error(`only ${(accounted * 100).toFixed(1)}% of the dispatches reached the client as records or counted drops`);
    return { detached, attached, accounted };
  } finally {
    await reader.exit({ cmd: 'exit' });
    await app.exit({ cmd: 'exit' });
  }
}

async function forwarding(): Promise<void> {
  const ms = benchMs(200);
  const processes = Math.max(3, benchRounds(5));
  const samples: ForwardingSample[] = [];
  for (let p = 0; p < processes; p++) samples.push(await forwardingSample(p, ms));
  const nsOf = (x: number): string => `${x.toFixed(0)} ns`;
  const col = (f: (s: ForwardingSample) => number, fmt: (x: number) => string): string => spread(samples.map(f), fmt);
  const row = (where: Where, clock: Clock, label: string): string[] => [
    label,
    col((s) => s.detached[where][clock], nsOf),
    col((s) => s.attached[where][clock], nsOf),
    col((s) => s.attached[where][clock] / s.detached[where][clock], formatRatio),
    col((s) => s.attached[where][clock] - s.detached[where][clock], nsOf),
  ];
  const perThread = (clock: Clock): string =>
    `detached ${col((s) => s.detached.worker[clock] / s.detached.main[clock], formatRatio)}, ` +
    `attached ${col((s) => s.attached.worker[clock] / s.attached.main[clock], formatRatio)}, ` +
    `added by recording ${col((s) => (s.attached.worker[clock] - s.detached.worker[clock]) / (s.attached.main[clock] - s.detached.main[clock]), formatRatio)}`;
  report(
    `## Forwarding a worker's records: a bus dispatching flat out, main thread vs worker thread\n\n` +
      `One handler, one event type, batches of 4096 with a yield to the event loop between them; ${processes} app processes, ` +
      `${ms} ms per cell; median (p10–p90) over the processes, ratios per process. "Attached": the main thread's probe serves ` +
      `a real client in another process at detail \`dispatch\`; a worker's records reach it through the main thread. ` +
      `CPU: the app process's CPU time (all its threads: in the worker rows, the main thread's share of forwarding too) per ` +
      `dispatch; wall: elapsed time per dispatch, which on a shared machine also counts the time other processes ran. ` +
      `Dispatch records delivered or counted as dropped: ${spread(
        samples.map((s) => s.accounted * 100),
        (x) => `${x.toFixed(1)}%`,
      )} of the dispatches made.\n\n` +
      markdownTable(
        ['per dispatch', 'detached', 'client attached (`dispatch`)', 'attached / detached', 'added by recording'],
        [
          row('main', 'cpu', 'main-thread bus, CPU'),
          row('worker', 'cpu', 'worker-thread bus, CPU'),
          row('main', 'wall', 'main-thread bus, wall'),
          row('worker', 'wall', 'worker-thread bus, wall'),
        ],
      ) +
      `\n\nWorker / main thread, per process — CPU: ${perThread('cpu')}; wall: ${perThread('wall')}.`,
  );
}

export async function run(): Promise<void> {
  await crossThreadEvents();
  await forwarding();
}

async function crossThreadEvents(): Promise<void> {
  // BENCH_MS scales the events per run (default 200 ms → 100,000 events).
  const count = Math.max(1000, Math.round(benchMs(200) * 500));
  const rounds = benchRounds(5);
  const samples: Record<Mode, Sample[]> = { busscope: [], postMessage: [] };
  const ratios = { post: [] as number[], endToEnd: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? MODES : [...MODES].reverse();
    const got = {} as Record<Mode, Sample>;
    for (const mode of order) got[mode] = await measure(mode, count);
    for (const mode of MODES) samples[mode].push(got[mode]);
    ratios.post.push(got.busscope.post / got.postMessage.post);
    ratios.endToEnd.push(got.busscope.endToEnd / got.postMessage.endToEnd);
  }
  const ns = (mode: Mode, key: keyof Sample): string => `${median(samples[mode].map((s) => s[key])).toFixed(0)} ns`;
  report(
    `## Cross-thread events: worker → main-thread bus\n\n` +
      `${count.toLocaleString('en-US')} events of \`{ itemId, picker }\` per run, one worker, ${rounds} rounds (medians).\n\n` +
      markdownTable(
        ['per event', 'producer.enqueue → bus (autoFlush, 1 handler)', 'bare postMessage → 1 listener', 'ratio'],
        [
          ['worker: posting', ns('busscope', 'post'), ns('postMessage', 'post'), formatRatio(median(ratios.post))],
          ['end to end (first post → last handled)', ns('busscope', 'endToEnd'), ns('postMessage', 'endToEnd'), formatRatio(median(ratios.endToEnd))],
        ],
      ),
  );
}
