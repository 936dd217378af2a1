// Recording cost on a mixed workload (issue 11, deliverables 2 and 4), one bus build per process:
// each of ≥ 10 app processes (bench/recording-app.child.ts) measures its own detached cost, then its
// cost while a real client in another process (bench/probe-reader.child.ts) reads over the real socket
// at detail `dispatch`, at 1/5/10 handlers per type. 8 event types interleaved, some nested; dispatches
// are counted (not runs). Reported: the median of the per-process ratios with the p10–p90 spread, and
// the machine's load (other work shares it). Then end to end: the client applies every message to the
// extension's model; records/s into the model, and delivered + dropped = dispatched exactly. And the
// reader's side alone: a trace of the same workload (written by the probe in an app process) decoded
// into the model in this process — as record objects (the old path) and through the model's record
// sink (what the extension does) — dispatch records per second of CPU time, side by side.
// The recording cells are measured twice: with the real client, and with `busscope tail --detail
// dispatch` writing to a pipe.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The built bundles, as the extension ships them (bundled): the sources loaded through tsx pay a
// getter per cross-module access, which made the reader's side look 2–2.5× slower than it is.
import { FrameDecoder, StreamDecoder, TRACE_HEADER_BYTES, type Frame } from 'busscope-probe/protocol';
import { Model } from 'busscope-probe/analysis';
import { formatOps, formatRatio, markdownTable, median } from './lib/measure';
import { Child, spread } from './lib/child';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';
import type { AppCommand, AppReply } from './recording-app.child';
import type { ReaderCommand, ReaderCounts, ReaderReply } from './probe-reader.child';

const HANDLER_COUNTS = [1, 5, 10] as const;
const E2E_MS = 1000;
const here = path.dirname(fileURLToPath(import.meta.url));

/** BENCH_PROFILE_DIR=dir: every child writes a CPU profile there (where the recording cost goes). */
function profileArgs(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir === undefined || dir === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/**
 * `busscope tail <port> --token … --detail dispatch` in its own process, its stdout a pipe this
 * process reads as fast as it comes (nobody is slow to read it), counting dispatch records and the
 * dispatches that `drops` records say were lost.
 */
class Tail {
  private readonly child: ChildProcess;
  dispatchRecords = 0;
  droppedDispatches = 0;
  private rest = '';
  constructor(port: number, token: string) {
    const cli = path.resolve(here, '../runtime-probe/dist/cli.cjs');
    this.child = spawn(process.execPath, [cli, 'tail', String(port), '--token', token, '--detail', 'dispatch'], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.take(chunk));
  }
  private take(chunk: string): void {
    const text = this.rest + chunk;
    let at = 0;
    for (let nl = text.indexOf('\n', at); nl >= 0; nl = text.indexOf('\n', at)) {
      if (text.startsWith('{"kind":"dispatch"', at)) this.dispatchRecords++;
      else if (text.startsWith('{"kind":"drops"', at)) this.droppedDispatches += (JSON.parse(text.slice(at, nl)) as { dispatches: number }).dispatches;
      at = nl + 1;
    }
    this.rest = text.slice(at);
  }
  /** Waits until every one of `dispatched` is printed or counted as dropped (tail has no ping: polls). */
  async settle(dispatched: number, what: string): Promise<void> {
    const until = Date.now() + 20_000;
    while (this.dispatchRecords + this.droppedDispatches < dispatched && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50)); // nothing more arrives than was dispatched
    if (this.dispatchRecords + this.droppedDispatches !== dispatched) {
      throw new Error(`${what}: dispatched ${dispatched}, tail printed ${this.dispatchRecords} + ${this.droppedDispatches} dropped`);
    }
  }
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill();
  }
}

/**
 * Warm-up until steady: cells of `ms` until one costs (CPU per dispatch) within 15% of the one before
 * (at most 12). A fixed warm-up is not enough on a loaded machine: there the optimizing compiler's
 * background jobs (whose CPU time is charged to the process) take up to a second for the recording
 * path, and the first recorded cell measured that, not recording (the "first cell costs ~7 µs").
 * Returns the dispatches made (they are recorded, and counted for delivered + dropped = dispatched).
 */
async function warmUp(app: Child<AppCommand, AppReply>, handlers: number, ms: number): Promise<number> {
  let made = 0;
  let last = Infinity;
  for (let i = 0; i < 12; i++) {
    const r = await app.ask({ cmd: 'measure', handlers, ms }, 'measured');
    made += r.dispatches;
    if (Math.abs(r.cpuNsPerDispatch - last) <= 0.15 * last) break;
    last = r.cpuNsPerDispatch;
  }
  return made;
}

function exact(counts: ReaderCounts, dispatched: number, what: string): void {
  if (counts.dispatchRecords + counts.droppedDispatches !== dispatched) {
    throw new Error(`${what}: dispatched ${dispatched}, client got ${counts.dispatchRecords} + ${counts.droppedDispatches} dropped`);
  }
}

type IngestPath = 'objects' | 'sink';

/** Decodes every frame of a trace into a fresh model; dispatch records per second of CPU time and of wall time. */
function ingestOnce(frames: readonly Frame[], path: IngestPath, model: Model): { cpu: number; wall: number; dispatches: number } {
  const decoder = new StreamDecoder(1 << 26);
  let welcomed = false;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const f of frames) {
    const m = decoder.decodeFrame(f, path === 'sink' && welcomed ? model.recordSink : undefined);
    if (m.type === 'welcome') welcomed = true;
    model.apply(m);
  }
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  return { cpu: model.totalDispatches / cpu, wall: model.totalDispatches / wall, dispatches: model.totalDispatches };
}

/** The reader's side alone, on a real trace of the workload: both ingest paths, interleaved rounds. */
async function measureIngest(rounds: number): Promise<{ rows: string[][]; dispatches: number }> {
  const file = path.join(os.tmpdir(), `busscope-bench-ingest-${process.pid}.bustrace`);
  const app = new Child<AppCommand, AppReply>('recording-app.child.ts', profileArgs());
  let recorded: number;
  try {
    recorded = (await app.ask({ cmd: 'record-trace', file, dispatches: 250_000 }, 'recorded')).dispatches;
  } finally {
    await app.exit({ cmd: 'exit' });
  }
  const bytes = new Uint8Array(fs.readFileSync(file));
  fs.rmSync(file, { force: true });
  const fd = new FrameDecoder(1 << 26);
  fd.push(bytes.subarray(TRACE_HEADER_BYTES));
  const frames: Frame[] = [];
  for (let f = fd.next(); f !== undefined; f = fd.next()) frames.push(f);
  const results: Record<IngestPath, { cpu: number[]; wall: number[] }> = { objects: { cpu: [], wall: [] }, sink: { cpu: [], wall: [] } };
  const paths: IngestPath[] = ['objects', 'sink'];
  for (let r = 0; r < rounds + 1; r++) {
    for (const p of r % 2 === 0 ? paths : [...paths].reverse()) {
      const model = new Model(); // built outside the timed part: an app's model is made once
      const m = ingestOnce(frames, p, model);
      if (m.dispatches !== recorded) throw new Error(`ingest (${p}): the model got ${m.dispatches} of ${recorded} dispatches`);
      if (r === 0) continue; // warm-up
      results[p].cpu.push(m.cpu);
      results[p].wall.push(m.wall);
    }
  }
  const perSecond = (v: readonly number[]): string => spread(v, (x) => `${formatOps(x)}/s`);
  const ratio = formatRatio(median(results.sink.cpu) / median(results.objects.cpu));
  return {
    dispatches: recorded,
    rows: [
      ['record objects, then `model.apply` (the old path; same decoder)', perSecond(results.objects.cpu), perSecond(results.objects.wall), '1×'],
      ["decoded into the model's record sink (the extension)", perSecond(results.sink.cpu), perSecond(results.sink.wall), ratio],
    ],
  };
}

export async function run(): Promise<void> {
  const processes = Math.max(10, benchRounds(10));
  const ms = benchMs(200);
  const loadBefore = os.loadavg();
  const detached = new Map<number, number[]>();
  const recording = new Map<number, number[]>();
  const ratios = new Map<number, number[]>();
  const cpuRatios = new Map<number, number[]>();
  const tailRecording = new Map<number, number[]>();
  const tailRatios = new Map<number, number[]>();
  const tailCpuRatios = new Map<number, number[]>();
  let tailDispatched = 0;
  let tailDropped = 0;
  const push = (m: Map<number, number[]>, n: number, v: number): void => {
    m.set(n, [...(m.get(n) ?? []), v]);
  };
  let dispatched = 0;
  let dropped = 0;
  const e2e: { rate: number; dropped: number; dispatched: number; offered: number; readerCpu: number }[] = [];
  const reader = new Child<ReaderCommand, ReaderReply>('probe-reader.child.ts', profileArgs());
  try {
    for (let p = 0; p < processes; p++) {
      const app = new Child<AppCommand, AppReply>('recording-app.child.ts', profileArgs());
      try {
        // Every cell is warmed up until steady first (its bus's first dispatches compile its handlers'
        // code; the first recorded ones compile the recording path): steady cost is compared with steady cost.
        const det = new Map<number, number>();
        const detCpu = new Map<number, number>();
        for (const n of HANDLER_COUNTS) {
          await warmUp(app, n, ms / 2); // not reported
          const d = await app.ask({ cmd: 'measure', handlers: n, ms }, 'measured');
          det.set(n, d.nsPerDispatch);
          detCpu.set(n, d.cpuNsPerDispatch);
        }
        const info = await app.ask({ cmd: 'start-probe' }, 'probe');
        await reader.ask({ cmd: 'connect', port: info.port, token: info.token }, 'ready');
        await reader.ask({ cmd: 'configure', detail: 'dispatch' }, 'configured');
        await app.ask({ cmd: 'wait-recording', on: true }, 'recording');
        let made = 0;
        const rec = new Map<number, number>();
        for (const n of HANDLER_COUNTS) {
          // Warm-up of the recording path (JIT, first drains and definitions), not reported but counted.
          made += await warmUp(app, n, ms / 2);
          const r = await app.ask({ cmd: 'measure', handlers: n, ms }, 'measured');
          rec.set(n, r.nsPerDispatch);
          push(cpuRatios, n, r.cpuNsPerDispatch / (detCpu.get(n) as number));
          made += r.dispatches;
        }
        const counts = (await reader.ask({ cmd: 'sync' }, 'counts')).counts;
        exact(counts, made, `process ${p}`);
        dispatched += made;
        dropped += counts.droppedDispatches;
        await reader.ask({ cmd: 'close' }, 'closed');
        for (const n of HANDLER_COUNTS) {
          const d = det.get(n) as number;
          const r = rec.get(n) as number;
          detached.set(n, [...(detached.get(n) ?? []), d]);
          recording.set(n, [...(recording.get(n) ?? []), r]);
          ratios.set(n, [...(ratios.get(n) ?? []), r / d]);
        }
        // The same cells with `busscope tail --detail dispatch` writing to a pipe as the only client.
        await app.ask({ cmd: 'wait-recording', on: false }, 'recording');
        const tail = new Tail(info.port, info.token);
        try {
          await app.ask({ cmd: 'wait-recording', on: true }, 'recording');
          let tailMade = 0;
          for (const n of HANDLER_COUNTS) {
            tailMade += await warmUp(app, n, ms / 2); // counted
            const r = await app.ask({ cmd: 'measure', handlers: n, ms }, 'measured');
            tailMade += r.dispatches;
            push(tailRecording, n, r.nsPerDispatch);
            push(tailRatios, n, r.nsPerDispatch / (det.get(n) as number));
            push(tailCpuRatios, n, r.cpuNsPerDispatch / (detCpu.get(n) as number));
          }
          await tail.settle(tailMade, `tail, process ${p}`);
          tailDispatched += tailMade;
          tailDropped += tail.droppedDispatches;
        } finally {
          await tail.stop();
        }
        // End to end into the extension's model: one handler per type, flat out.
        if (p < 3) {
          await reader.ask({ cmd: 'connect', port: info.port, token: info.token, model: true }, 'ready');
          await reader.ask({ cmd: 'configure', detail: 'dispatch' }, 'configured');
          await app.ask({ cmd: 'wait-recording', on: true }, 'recording');
          const t0 = performance.timeOrigin + performance.now();
          const burst = await app.ask({ cmd: 'measure', handlers: 1, ms: E2E_MS }, 'measured');
          const c = (await reader.ask({ cmd: 'sync' }, 'counts')).counts;
          exact(c, burst.dispatches, `end to end, process ${p}`);
          const seconds = Math.max((c.lastDispatchAt - t0) / 1000, E2E_MS / 1000);
          e2e.push({
            rate: c.dispatchRecords / seconds,
            dropped: c.droppedDispatches,
            dispatched: burst.dispatches,
            // What the app offered: the cell cannot show more than this, however fast the reader.
            offered: 1e9 / burst.nsPerDispatch,
            // The reader's capacity: records into the model per second of its own CPU time (it got at
            // most one of the two cores; the app used the other, flat out).
            readerCpu: c.dispatchRecords / (c.cpuMs / 1000),
          });
          await reader.ask({ cmd: 'close' }, 'closed');
        }
      } finally {
        await app.exit({ cmd: 'exit' });
      }
    }
  } finally {
    await reader.exit({ cmd: 'exit' });
  }
  const ingestLoad = os.loadavg();
  const ingest = await measureIngest(Math.max(5, benchRounds(10)));
  const loadAfter = os.loadavg();
  const ns = (x: number): string => `${x.toFixed(1)} ns`;
  const rows = HANDLER_COUNTS.map((n) => [
    `${n} handler${n > 1 ? 's' : ''} per type`,
    spread(detached.get(n) ?? [], ns),
    spread(recording.get(n) ?? [], ns),
    spread(ratios.get(n) ?? [], formatRatio),
    spread(cpuRatios.get(n) ?? [], formatRatio),
    n === 1 ? '≤ 2×' : n === 10 ? '≤ 1.3×' : '—',
  ]);
  const tailRows = HANDLER_COUNTS.map((n) => [
    `${n} handler${n > 1 ? 's' : ''} per type`,
    spread(detached.get(n) ?? [], ns),
    spread(tailRecording.get(n) ?? [], ns),
    spread(tailRatios.get(n) ?? [], formatRatio),
    spread(tailCpuRatios.get(n) ?? [], formatRatio),
    n === 1 ? '≤ 2×' : n === 10 ? '≤ 1.3×' : '—',
  ]);
  const e2eRates = e2e.map((e) => e.rate);
  const perSec = (x: number): string => `${formatOps(x)}/s`;
  report(
    `## Recording at detail \`dispatch\`, mixed workload\n\n` +
      `${processes} app processes (one bus build each), ${ms} ms per cell; 8 event types interleaved, 1 in 32 collide dispatches nests a damage dispatch; ` +
      `dispatches counted (nested included). Client: a real ProbeClient in another process over the real socket. Ratio = recording ÷ detached per process; ` +
      `median with p10–p90. Load average ${loadBefore.map((l) => l.toFixed(1)).join(' / ')} before, ${loadAfter.map((l) => l.toFixed(1)).join(' / ')} after (2 cores, shared).\n\n` +
      `CPU ratio: the app process's CPU time (user + system) per dispatch, recording ÷ detached — less disturbed than wall time by other work on the machine; ` +
      `it includes the probe's encoding and socket writes, which run in the app.\n\n` +
      markdownTable(['workload', 'detached', 'recording', 'ratio', 'CPU ratio', 'target'], rows) +
      `\n\nDelivered + dropped = dispatched, exactly, in every process: ${formatOps(dispatched)} dispatched, ${formatOps(dropped)} dropped (counted).\n\n` +
      `### With \`busscope tail <port> --detail dispatch\` writing to a pipe\n\n` +
      `The same app processes and cells; the only client is the CLI in its own process, its stdout a pipe read as fast as it comes.\n\n` +
      markdownTable(['workload', 'detached', 'recording', 'ratio', 'CPU ratio', 'target'], tailRows) +
      `\n\nPrinted + dropped = dispatched, exactly, in every process: ${formatOps(tailDispatched)} dispatched, ${formatOps(tailDropped)} dropped (counted).\n\n` +
      `### End to end into the extension's model\n\n` +
      `The app dispatches flat out for ${E2E_MS} ms (1 handler per type) while the client applies every message to the model. ` +
      `Records/s into the model = delivered ÷ the time until the last one arrived (at least the burst): it can be no more than what the app offered ` +
      `(its dispatch rate while recording), so it measures the reader only when the app outruns it (then drops are counted). ` +
      `The reader's capacity, whatever share of the 2 shared cores it got: records per second of the reader process's own CPU time ` +
      `from connect until every record of the burst arrived (its socket reads, decoding, the model) — a lower bound: a fresh model, and a wake-up per ` +
      `small read when the app offers little, count in it too. The reader's decoding alone, without the socket: the next table.\n\n` +
      markdownTable(
        [
          'processes',
          'app offered (dispatches/s)',
          'records/s into the model',
          "reader's capacity (records/s of its CPU time)",
          'target',
          'dropped (counted)',
          'delivered + dropped = dispatched',
        ],
        [
          [
            String(e2e.length),
            spread(
              e2e.map((e) => e.offered),
              perSec,
            ),
            spread(e2eRates, perSec),
            spread(
              e2e.map((e) => e.readerCpu),
              perSec,
            ),
            '≥ 3 M/s',
            e2e.map((e) => `${formatOps(e.dropped)} of ${formatOps(e.dispatched)}`).join(', '),
            'exact',
          ],
        ],
      ) +
      `\n\n### The reader's side: a trace decoded into the model\n\n` +
      `${formatOps(ingest.dispatches)} dispatch records of the same workload (1 handler per type, written by the probe), decoded in this process ` +
      `by the built bundles (\`busscope-probe/protocol\`, \`busscope-probe/analysis\`, as the extension bundles them) ` +
      `into a fresh model per round (interleaved rounds; median with p10–p90). Load average ${ingestLoad.map((l) => l.toFixed(1)).join(' / ')}.\n\n` +
      markdownTable(['path', 'dispatch records/s (CPU time)', 'dispatch records/s (wall)', 'CPU-time ratio'], ingest.rows),
  );
}
