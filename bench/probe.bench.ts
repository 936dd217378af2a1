// The probe's cost to the app, and what it carries. One run, side by side, medians over
// interleaved rounds, at 1/5/10 handlers, as ratios to the detached bus:
//   detached          the probe stopped: no tracer at all
//   started, idle     probe.start() listening, nobody attached (one branch per dispatch)
//   attached          a real ProbeClient in a child process reading over the real socket,
//                     detail `dispatch` (one record per dispatch) and `handlers` (plus one per call)
//   recording         probe.record(file), detail `dispatch`, no socket
// The dispatch loop yields to the event loop every BATCH dispatches in every mode, so the probe's
// off-hot-path work (encoding, socket and file writes) runs inside the measured time: this is the
// app's whole cost, not just the hot path's.
// Then end to end: the app dispatches flat out to a reading client in a child process; the client
// counts decoded dispatch records and reported drops, and delivered + dropped must equal dispatched.
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventBus, probe } from 'busscope-probe';
import { formatOps, formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';
import type { DetailLevel, ReaderCommand, ReaderCounts, ReaderReply } from './probe-reader.child';

interface Tick {
  readonly v: number;
}
interface Events {
  tick: Tick;
}

const HANDLER_COUNTS = [1, 5, 10] as const;
const BATCH = 16_384;
const PAYLOAD: Tick = { v: 1 };
const E2E_MS = 2000;
const TARGET_RECORDS_PER_SECOND = 1_000_000;

let accumulator = 0;

type Mode = 'detached' | 'idle' | 'attached-dispatch' | 'attached-handlers' | 'recording';
const MODES: readonly { mode: Mode; title: string }[] = [
  { mode: 'detached', title: 'detached (probe stopped)' },
  { mode: 'idle', title: 'probe started, nobody attached' },
  { mode: 'attached-dispatch', title: 'attached, client in a child process, detail `dispatch`' },
  { mode: 'attached-handlers', title: 'attached, client in a child process, detail `handlers`' },
  { mode: 'recording', title: 'recording to a trace file, detail `dispatch`' },
];

/** A bus with `n` handlers that add the payload's field into the accumulator and count their calls. */
function makeBus(n: number): { bus: EventBus<Events>; counts: Float64Array } {
  const counts = new Float64Array(n);
  const bus = new EventBus<Events>({ name: `bench-${n}` });
  for (let i = 0; i < n; i++) {
    bus.subscribe('tick', (e) => {
      accumulator += e.v;
      counts[i]++;
    });
  }
  return { bus, counts };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Dispatches in batches for at least `ms`, yielding between batches; returns dispatches and seconds. */
async function dispatchFor(bus: EventBus<Events>, ms: number): Promise<{ dispatches: number; seconds: number }> {
  let dispatches = 0;
  const start = process.hrtime.bigint();
  for (;;) {
    for (let i = 0; i < BATCH; i++) bus.dispatch('tick', PAYLOAD);
    dispatches += BATCH;
    await yieldToLoop();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (elapsed >= ms) return { dispatches, seconds: elapsed / 1000 };
  }
}

/** The child-process reader, driven over IPC. */
class Reader {
  private readonly child: ChildProcess;
  private waiting: ((reply: ReaderReply) => void)[] = [];

  constructor() {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const env = { ...process.env };
    delete env.BUSSCOPE; // the reader must not start a probe of its own
    delete env.BUSSCOPE_RECORD;
    this.child = fork(path.join(here, 'probe-reader.child.ts'), [], {
      cwd: path.resolve(here, '..'), // where `--import tsx` resolves
      env,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (reply: ReaderReply) => this.waiting.shift()?.(reply));
    this.child.on('exit', (code) => {
      for (const w of this.waiting) w({ type: 'error', message: `reader exited (${code})` });
      this.waiting = [];
    });
  }

  private ask(command: ReaderCommand): Promise<ReaderReply> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.child.send(command);
    });
  }

  private async expect<T extends ReaderReply['type']>(command: ReaderCommand, type: T): Promise<Extract<ReaderReply, { type: T }>> {
    const reply = await this.ask(command);
    if (reply.type === 'error') throw new Error(`bench reader: ${reply.message}`);
    if (reply.type !== type) throw new Error(`bench reader: expected ${type}, got ${reply.type}`);
    return reply as Extract<ReaderReply, { type: T }>;
  }

  async connect(port: number, token: string): Promise<void> {
    await this.expect({ cmd: 'connect', port, token }, 'ready');
  }
  async configure(detail: DetailLevel): Promise<void> {
    const r = await this.expect({ cmd: 'configure', detail }, 'configured');
    if (r.detail !== detail) throw new Error(`bench reader: detail is ${r.detail}, wanted ${detail}`);
  }
  async sync(): Promise<ReaderCounts> {
    return (await this.expect({ cmd: 'sync' }, 'counts')).counts;
  }
  async close(): Promise<void> {
    await this.expect({ cmd: 'close' }, 'closed');
  }
  async exit(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ cmd: 'exit' } satisfies ReaderCommand);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    if (this.child.exitCode === null) this.child.kill();
  }
}

/** Waits until the probe says whether it records (the dispatch tracer follows attach/detach). */
async function waitRecording(on: boolean): Promise<void> {
  for (let i = 0; i < 200 && probe.snapshot().recording !== on; i++) await new Promise((r) => setTimeout(r, 5));
  if (probe.snapshot().recording !== on) throw new Error(`probe recording is not ${on}`);
}

/** Checks that the reader got, or was told it missed, every dispatch made while it was attached. */
function checkExact(counts: ReaderCounts, dispatched: number, what: string): void {
  const accounted = counts.dispatchRecords + counts.droppedDispatches;
  if (accounted !== dispatched) {
    throw new Error(`${what}: dispatched ${dispatched}, client got ${counts.dispatchRecords} + ${counts.droppedDispatches} dropped = ${accounted}`);
  }
}

/**
 * Against the ≥ 1 M records/s target. When the app itself produced fewer than 1 M dispatches/s and
 * the client kept up with all of them, the transport was not the limit: say so instead of failing.
 */
function verdict(carried: number, produced: number, dropped: number): string {
  if (carried >= TARGET_RECORDS_PER_SECOND) return 'met';
  if (produced < TARGET_RECORDS_PER_SECOND && dropped === 0 && carried >= produced * 0.95) {
    return `not reached: the app produced only ${formatOps(produced)}/s, all carried`;
  }
  return 'NOT met';
}

export async function run(): Promise<void> {
  if (probe.info !== undefined || probe.snapshot().recording)
    throw new Error('the probe is already running in this process (unset BUSSCOPE / BUSSCOPE_RECORD)');
  const rounds = benchRounds(3);
  const ms = benchMs(200);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-bench-'));
  const reader = new Reader();
  const buses = HANDLER_COUNTS.map((n) => ({ n, ...makeBus(n) }));
  const nsPerDispatch = new Map<string, number[]>(); // `${mode}/${n}` → per-round ns
  const drops = new Map<Mode, { dispatched: number; dropped: number }>();
  let traceBytes = 0;

  const measureAll = async (mode: Mode, record: boolean): Promise<number> => {
    let dispatched = 0;
    for (const { n, bus, counts } of buses) {
      const before = counts.reduce((a, b) => a + b, 0);
      const r = await dispatchFor(bus, ms);
      const calls = counts.reduce((a, b) => a + b, 0) - before;
      if (calls !== r.dispatches * n) throw new Error(`${mode}/${n}: ${calls} handler calls for ${r.dispatches} dispatches`);
      dispatched += r.dispatches;
      if (record) {
        const key = `${mode}/${n}`;
        nsPerDispatch.set(key, [...(nsPerDispatch.get(key) ?? []), (r.seconds * 1e9) / r.dispatches]);
      }
    }
    return dispatched;
  };

  try {
    // Round 0 warms every path up and is not reported.
    for (let round = 0; round <= rounds; round++) {
      const keep = round > 0;
      await measureAll('detached', keep);

      const info = await probe.start({ discovery: false, detail: 'dispatch', captureStacks: false });
      if (info.port === 0) throw new Error('probe.start() could not listen');
      await measureAll('idle', keep);

      for (const detail of ['dispatch', 'handlers'] as const) {
        const mode: Mode = detail === 'dispatch' ? 'attached-dispatch' : 'attached-handlers';
        await reader.connect(info.port, info.token);
        await reader.configure(detail);
        await waitRecording(true);
        const dispatched = await measureAll(mode, keep);
        const counts = await reader.sync();
        checkExact(counts, dispatched, mode);
        if (keep) {
          const d = drops.get(mode) ?? { dispatched: 0, dropped: 0 };
          drops.set(mode, { dispatched: d.dispatched + dispatched, dropped: d.dropped + counts.droppedDispatches });
        }
        await reader.close();
        await waitRecording(false);
      }
      await probe.stop();

      const file = path.join(tmp, `round-${round}.bustrace`);
      const recording = probe.record(file, { discovery: false, detail: 'dispatch', captureStacks: false });
      await measureAll('recording', keep);
      await recording.stop();
      traceBytes = fs.statSync(file).size;
      fs.rmSync(file);
    }

    const rows = MODES.map(({ mode, title }) => {
      const cells = [title];
      for (const n of HANDLER_COUNTS) {
        const ns = median(nsPerDispatch.get(`${mode}/${n}`) ?? []);
        const base = median(nsPerDispatch.get(`detached/${n}`) ?? []);
        cells.push(`${ns.toFixed(1)} ns (${formatRatio(ns / base)})`);
      }
      const d = drops.get(mode);
      cells.push(d ? `${d.dropped} of ${formatOps(d.dispatched)}` : '—');
      return cells;
    });
    report(
      `## Probe overhead per dispatch\n\n` +
        `Median of ${rounds} interleaved rounds, ${ms} ms per cell, batches of ${BATCH} dispatches with a yield to the event loop between ` +
        `batches in every mode (so encoding and writes are inside the measured time). Ratios are to the detached bus at the same handler count. ` +
        `Target: attached ≤ 2× detached. Last trace file: ${(traceBytes / 1e6).toFixed(1)} MB.\n\n` +
        markdownTable(['mode', ...HANDLER_COUNTS.map((n) => `${n} handler${n > 1 ? 's' : ''}`), 'dispatch records dropped'], rows),
    );

    // End to end: flat out, one handler, detail `dispatch`, the reader in its own process.
    const info = await probe.start({ discovery: false, detail: 'dispatch', captureStacks: false });
    await reader.connect(info.port, info.token);
    await reader.configure('dispatch');
    await waitRecording(true);
    const { bus } = buses[0] ?? makeBus(1);
    const t0 = performance.timeOrigin + performance.now();
    const burst = await dispatchFor(bus, E2E_MS);
    const counts = await reader.sync();
    checkExact(counts, burst.dispatches, 'end to end');
    await reader.close();
    await probe.stop();
    const carriedSeconds = (counts.lastDispatchAt - t0) / 1000;
    const carried = counts.dispatchRecords / Math.max(carriedSeconds, burst.seconds);
    report(
      `## Probe end to end: app → socket → client (child process)\n\n` +
        markdownTable(
          [
            'dispatched',
            'app rate',
            'records decoded by the client',
            'dropped (counted)',
            'carried records/s',
            'target ≥ 1,000,000/s',
            'delivered + dropped = dispatched',
          ],
          [
            [
              formatOps(burst.dispatches),
              `${formatOps(burst.dispatches / burst.seconds)}/s`,
              formatOps(counts.dispatchRecords),
              `${formatOps(counts.droppedDispatches)} (${((100 * counts.droppedDispatches) / burst.dispatches).toFixed(1)} %)`,
              `${formatOps(carried)}/s`,
              verdict(carried, burst.dispatches / burst.seconds, counts.droppedDispatches),
              'exact',
            ],
          ],
        ) +
        `\n\nCarried rate = dispatch records decoded by the client ÷ time from the burst's start to the last one's arrival (${carriedSeconds.toFixed(2)} s; burst ${burst.seconds.toFixed(2)} s).`,
    );
  } finally {
    await probe.stop();
    await reader.exit();
    for (const { bus } of buses) bus.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  if (accumulator === 0) throw new Error('handlers never ran');
}
