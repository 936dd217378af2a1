// Dispatch throughput, subscribe+dispose cost and memory per subscription: busscope-probe's EventBus
// (the built package, as users run it) side by side with a hand-written loop and its peers.
//
// One contender per process: every measurement is a fresh child (bench/dispatch.child.ts) that loads
// and measures a single contender, because several bus builds (or a bus and its peers) in one process
// gave order-dependent figures. A round runs every contender once, each round starting at a different
// one; figures are medians over the rounds with the p10–p90 spread, and ratios to the hand-written loop
// are the median of per-round ratios (the two ran seconds apart, so a load swing hits both).
// The contenders and the fairness rules are in ./lib/emitters.ts.
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DispatchChildJob, DispatchChildResult } from './dispatch.child';
import { BUSSCOPE, dispatchCandidates, HAND, HANDLER_COUNTS, lifecycleCandidates } from './lib/emitters';
import { formatOps, formatRatio, machineLine, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';

const here = path.dirname(fileURLToPath(import.meta.url));

function runChild(job: DispatchChildJob): Promise<DispatchChildResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env };
    delete env.BUSSCOPE; // a probe would attach a tracer: this bench measures the detached bus
    delete env.BUSSCOPE_RECORD;
    const child = fork(path.join(here, 'dispatch.child.ts'), [JSON.stringify(job)], {
      cwd: path.resolve(here, '..'), // where `--import tsx` resolves
      env,
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result: DispatchChildResult | undefined;
    child.on('message', (m: DispatchChildResult) => (result = m));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (result === undefined) reject(new Error(`dispatch bench child for ${job.contender} exited (${code}) without a result`));
      else if (result.part === 'error') reject(new Error(`${job.contender}: ${result.message}`));
      else resolve(result);
    });
  });
}

/** Linear-interpolated quantile of `values` (q in 0..1). */
function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

const ns = (opsPerSecond: number): number => 1e9 / opsPerSecond;
const fmtNs = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));

/** `median (p10–p90)` of per-round ns figures. */
function nsCell(opsSamples: readonly number[]): string {
  const t = opsSamples.map(ns);
  return `${fmtNs(median(t))} (${fmtNs(quantile(t, 0.1))}–${fmtNs(quantile(t, 0.9))})`;
}

function rotated<T>(items: readonly T[], by: number): T[] {
  return items.map((_, i) => items[(i + by) % items.length]);
}

async function benchDispatch(rounds: number, ms: number): Promise<void> {
  // samples[name][round][handlerCountIndex]
  const samples = new Map<string, number[][]>(dispatchCandidates.map((c) => [c.name, []]));
  const loadBefore = machineLine();
  for (let round = 0; round < rounds; round++) {
    for (const c of rotated(dispatchCandidates, round)) {
      const r = await runChild({ part: 'dispatch', contender: c.name, ms });
      if (r.part !== 'dispatch') throw new Error('unexpected child result');
      samples.get(c.name)![round] = [...r.opsPerSecond];
    }
  }
  const perCount = (name: string, ni: number): number[] => samples.get(name)!.map((s) => s[ni]);
  /** Median over rounds of (candidate's time / hand loop's time) in the same round. */
  const vsHand = (name: string, ni: number): number => {
    const c = perCount(name, ni);
    const h = perCount(HAND, ni);
    return median(c.map((ops, r) => h[r] / ops));
  };
  const medNs = (name: string, ni: number): number => median(perCount(name, ni).map(ns));

  const header = ['ns per dispatch: median (p10–p90)'];
  for (const n of HANDLER_COUNTS) header.push(`${n} handler${n > 1 ? 's' : ''}`, '× hand loop');
  const rows = dispatchCandidates.map((c) => {
    const cells = [c.name === BUSSCOPE ? `**${c.name}**` : c.name];
    HANDLER_COUNTS.forEach((_, ni) => cells.push(nsCell(perCount(c.name, ni)), c.name === HAND ? '1.00×' : formatRatio(vsHand(c.name, ni))));
    return cells;
  });

  const ofHand = HANDLER_COUNTS.map((_, ni) => vsHand(BUSSCOPE, ni));
  const peers = ['mitt', 'eventemitter3', "Node's EventEmitter", 'nanoevents'];
  const behind = (peer: string): string[] => HANDLER_COUNTS.flatMap((n, ni) => (medNs(peer, ni) <= medNs(BUSSCOPE, ni) ? [`${n}`] : []));
  const peerLines = peers.map((p) => {
    const b = behind(p);
    const ratios = HANDLER_COUNTS.map((_, ni) => formatRatio(medNs(p, ni) / medNs(BUSSCOPE, ni))).join(' / ');
    return `- ${p} takes ${ratios} busscope's time at ${HANDLER_COUNTS.join(' / ')} handlers — busscope ${b.length === 0 ? 'ahead at every count' : `NOT ahead at ${b.join(', ')} handler(s)`}.`;
  });
  const nsPerHandler = HANDLER_COUNTS.map((n, ni) => `${(medNs(BUSSCOPE, ni) / n).toFixed(1)} ns`).join(' / ');

  report(
    [
      `## Dispatch throughput (one contender per process)`,
      ``,
      `${rounds} rounds; in each round every contender runs in a fresh child process (${dispatchCandidates.length} processes per round, each round starting at a different contender) that measures each handler count after a ~${ms / 2} ms warm-up as the fastest of 20 slices of ~${ms / 20} ms, timed in the process's CPU time (user + system), not wall time: on a shared machine with more runnable processes than cores most slices are preempted, and CPU time leaves out the waiting (other processes can still only make a slice slower). Every handler adds the payload's field into a global accumulator and counts its calls, and the counts are checked after each measurement. "× hand loop" is the median over rounds of the contender's time divided by the hand-written loop's time in the same round (below 1.5× is the target for busscope). EventTarget dispatches one reused Event object, so it measures dispatch rather than Event allocation.`,
      ``,
      `Load: before: ${loadBefore}; after: ${machineLine()}.`,
      ``,
      markdownTable(header, rows),
      ``,
      `- busscope / hand-written loop: ${ofHand.map((r) => formatRatio(r)).join(' / ')} at ${HANDLER_COUNTS.join(' / ')} handlers (target ≤ 1.50×) — ${ofHand.every((r) => r <= 1.5) ? 'met' : 'NOT met'}.`,
      ...peerLines,
      `- busscope cost per handler call: ${nsPerHandler} at ${HANDLER_COUNTS.join(' / ')} handlers.`,
    ].join('\n'),
  );
}

async function benchLifecycle(rounds: number, ms: number): Promise<void> {
  const pairs = new Map<string, number[]>(lifecycleCandidates.map((c) => [c.name, []]));
  const bytes = new Map<string, { bytes: number; count: number }>();
  const loadBefore = machineLine();
  for (let round = 0; round < rounds; round++) {
    for (const c of rotated(lifecycleCandidates, round)) {
      // Memory once per contender (median of 3 inside that child): it does not drift with load.
      const r = await runChild({ part: 'lifecycle', contender: c.name, ms, memory: round === 0 });
      if (r.part !== 'lifecycle') throw new Error('unexpected child result');
      pairs.get(c.name)!.push(r.pairsPerSecond);
      if (r.bytesPerSubscription !== null) bytes.set(c.name, { bytes: r.bytesPerSubscription, count: r.memoryCount });
    }
  }
  const busPairs = median(pairs.get(BUSSCOPE)!);
  const busBytes = bytes.get(BUSSCOPE)!.bytes;
  const rows = lifecycleCandidates.map((c) => {
    const p = pairs.get(c.name)!;
    const { bytes: m, count } = bytes.get(c.name)!;
    const name = c.name.startsWith(BUSSCOPE) ? `**${c.name}**` : c.name;
    const spread = `${formatOps(quantile(p, 0.1))}–${formatOps(quantile(p, 0.9))}`;
    const b = `${m.toFixed(0)} B${count === 100_000 ? '' : ` (of ${count.toLocaleString('en-US')})`}`;
    return [name, `${formatOps(median(p))} (${spread})`, formatRatio(median(p) / busPairs), b, formatRatio(m / busBytes)];
  });
  const owned = bytes.get(`${BUSSCOPE}, with owner`)!.bytes;
  report(
    [
      `## Subscribe + dispose, memory per subscription (one contender per process)`,
      ``,
      `Pairs: subscribe then unsubscribe one listener on an event that has one resident listener, the fastest of 20 slices of ~${ms / 20} ms of CPU time after a warm-up, in a fresh process per contender per round; median of ${rounds} rounds with the p10–p90 spread; afterwards one dispatch must reach the resident listener only. Memory (measured in the first round's processes): heapUsed after minus before subscribing 100,000 distinct handlers to one event (fewer where noted: Node's EventTarget checks for duplicates on every add, so filling it is quadratic), divided by their number, median of 3 (full GC before each reading; the owned variant has one distinct owner per subscription; handlers, owners and the array keeping returned handles are allocated before the baseline; the handle or unbind function the library returns is kept, as an app would).`,
      ``,
      `Load: before: ${loadBefore}; after: ${machineLine()}.`,
      ``,
      markdownTable(['candidate', 'subscribe+dispose pairs/s: median (p10–p90)', 'vs busscope', 'bytes / subscription', 'vs busscope'], rows),
      ``,
      `- busscope subscribe+dispose: ${formatOps(busPairs)} pairs/s (target ≥ 20 M) — ${busPairs >= 20e6 ? 'met' : 'NOT met'}.`,
      `- busscope bytes per subscription: ${busBytes.toFixed(0)} B without owner (target ≤ 100 B) — ${busBytes <= 100 ? 'met' : 'NOT met'}; ${owned.toFixed(0)} B with a distinct owner each.`,
    ].join('\n'),
  );
}

export async function run(): Promise<void> {
  const rounds = benchRounds(5);
  const ms = benchMs(100);
  await benchDispatch(rounds, ms);
  await benchLifecycle(rounds, ms);
}
