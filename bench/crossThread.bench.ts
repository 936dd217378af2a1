// Cross-thread events (#16): the cost per event of a worker's `producer.enqueue` into a main-thread
// bus (clone, port, queue, dispatch by autoFlush to one handler; the worker runs the built package),
// side by side with a bare `postMessage` of the same message over a MessageChannel to one `message` listener.
// Each round runs both in fresh workers (alternating which goes first) and takes the worker's own
// time to post every event (producer side) and the time from its first post until the main thread
// has handled the last event (end to end). Medians over the rounds; ratios are medians of per-round
// ratios.
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { EventBus } from '../runtime-probe/src/bus/index';
import { formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';

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

export async function run(): Promise<void> {
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
