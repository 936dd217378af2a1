// Recording at detail `handlers` (issue 11, deliverable 3: ≤ 3× the detached cost, by sampling), on
// the mixed workload of recording.bench.ts (its app and reader children): in each of ≥ 10 app
// processes (one bus build each), detached, then with a real client in another process reading over
// the real socket at detail `dispatch` and at detail `handlers`, side by side, at 1 and 10 handlers
// per type. Ratio = recording ÷ detached per process; median with the p10–p90 spread; the machine's
// load. Also how many handler calls were timed (handler records per dispatch record): the sample.
import os from 'node:os';
import { formatRatio, markdownTable } from './lib/measure';
import { Child, spread } from './lib/child';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';
import type { AppCommand, AppReply } from './recording-app.child';
import type { ReaderCommand, ReaderCounts, ReaderReply } from './probe-reader.child';

const HANDLER_COUNTS = [1, 10] as const;
const DETAILS = ['dispatch', 'handlers'] as const;
type Detail = (typeof DETAILS)[number];

const key = (detail: Detail | 'detached', n: number): string => `${detail}/${n}`;

export async function run(): Promise<void> {
  const processes = Math.max(10, benchRounds(10));
  const ms = benchMs(200);
  const loadBefore = os.loadavg();
  const ns = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  const cpuRatios = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, k: string, v: number): void => void m.set(k, [...(m.get(k) ?? []), v]);
  const timedShare: number[] = [];
  let dispatched = 0;
  let dropped = 0;
  const reader = new Child<ReaderCommand, ReaderReply>('probe-reader.child.ts');
  try {
    for (let p = 0; p < processes; p++) {
      const app = new Child<AppCommand, AppReply>('recording-app.child.ts');
      try {
        const det = new Map<number, { wall: number; cpu: number }>();
        for (const n of HANDLER_COUNTS) {
          await app.ask({ cmd: 'measure', handlers: n, ms: ms / 2 }, 'measured'); // warm-up, not reported
          const d = await app.ask({ cmd: 'measure', handlers: n, ms }, 'measured');
          det.set(n, { wall: d.nsPerDispatch, cpu: d.cpuNsPerDispatch });
          push(ns, key('detached', n), d.nsPerDispatch);
        }
        const info = await app.ask({ cmd: 'start-probe' }, 'probe');
        await reader.ask({ cmd: 'connect', port: info.port, token: info.token }, 'ready');
        let made = 0;
        let before: ReaderCounts | undefined;
        // Alternate which detail goes first, so neither always gets the warmer process.
        for (const detail of p % 2 === 0 ? DETAILS : [...DETAILS].reverse()) {
          await reader.ask({ cmd: 'configure', detail }, 'configured');
          await app.ask({ cmd: 'wait-recording', on: true }, 'recording');
          for (const n of HANDLER_COUNTS) {
            made += (await app.ask({ cmd: 'measure', handlers: n, ms: ms / 2 }, 'measured')).dispatches; // warm-up, counted
            const r = await app.ask({ cmd: 'measure', handlers: n, ms }, 'measured');
            made += r.dispatches;
            const d = det.get(n) as { wall: number; cpu: number };
            push(ns, key(detail, n), r.nsPerDispatch);
            push(ratios, key(detail, n), r.nsPerDispatch / d.wall);
            push(cpuRatios, key(detail, n), r.cpuNsPerDispatch / d.cpu);
          }
          const counts = (await reader.ask({ cmd: 'sync' }, 'counts')).counts;
          if (detail === 'handlers') {
            const handlerRecords = counts.handlerRecords - (before?.handlerRecords ?? 0);
            const dispatchRecords = counts.dispatchRecords - (before?.dispatchRecords ?? 0);
            if (handlerRecords === 0) throw new Error(`process ${p}: no handler records at detail handlers`);
            timedShare.push(handlerRecords / dispatchRecords);
          }
          before = counts;
        }
        const counts = (await reader.ask({ cmd: 'sync' }, 'counts')).counts;
        if (counts.dispatchRecords + counts.droppedDispatches !== made) {
          throw new Error(`process ${p}: dispatched ${made}, client got ${counts.dispatchRecords} + ${counts.droppedDispatches} dropped`);
        }
        dispatched += made;
        dropped += counts.droppedDispatches;
        await reader.ask({ cmd: 'close' }, 'closed');
      } finally {
        await app.exit({ cmd: 'exit' });
      }
    }
  } finally {
    await reader.exit({ cmd: 'exit' });
  }
  const loadAfter = os.loadavg();
  const nsText = (x: number): string => `${x.toFixed(1)} ns`;
  const rows = HANDLER_COUNTS.map((n) => [
    `${n} handler${n > 1 ? 's' : ''} per type`,
    spread(ns.get(key('detached', n)) ?? [], nsText),
    spread(ratios.get(key('dispatch', n)) ?? [], formatRatio),
    spread(ratios.get(key('handlers', n)) ?? [], formatRatio),
    spread(cpuRatios.get(key('handlers', n)) ?? [], formatRatio),
    '≤ 3×',
  ]);
  report(
    `## Recording at detail \`handlers\` (sampled handler timings), mixed workload\n\n` +
      `${processes} app processes (one bus build each), ${ms} ms per cell; the workload of the \`dispatch\`-detail table (8 event types interleaved, some nested). ` +
      `A real ProbeClient in another process reads over the real socket at detail \`dispatch\`, then \`handlers\` (order alternating per process). ` +
      `Ratio = recording ÷ detached per process; median with p10–p90. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} before, ` +
      `${loadAfter.map((l) => l.toFixed(1)).join(' / ')} after (2 cores, shared).\n\n` +
      markdownTable(['workload', 'detached', '`dispatch` ratio', '`handlers` ratio', '`handlers` CPU ratio', 'target (`handlers`)'], rows) +
      `\n\nHandler records per dispatch record at detail \`handlers\` (both cells together; 5.5 handler calls per dispatch on average): ` +
      `${spread(timedShare, (x) => x.toFixed(4))} — each type's first 32 dispatches, then about 1,000 timed dispatches per type per second. ` +
      `Delivered + dropped = dispatched, exactly: ${dispatched.toLocaleString('en-US')} dispatched, ${dropped.toLocaleString('en-US')} dropped (counted).`,
  );
}
