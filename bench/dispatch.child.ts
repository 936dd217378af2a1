// One contender of bench/dispatch.bench.ts, measured alone in this process (forked by the bench with
// `--expose-gc --import tsx`). Several bus builds, or a bus and its peers, in one process gave
// order-dependent figures (the same code measured 9 or 15 ns): the engine's shared inline caches and
// the order in which code got optimised leaked from one contender into the next. Never run by
// bench/index.ts itself (not a *.bench.ts file).
//
// Sends one DispatchChildResult over IPC, then exits.
import {
  dispatchCandidates,
  HANDLER_COUNTS,
  lifecycleCandidates,
  makeHandlers,
  PAYLOAD,
  syncCounts,
  takeAccumulator,
  type Handler,
  type LifecycleCandidate,
  type Tick,
  type TickEvent,
} from './lib/emitters';
import { collectGarbage, median, timeLoop } from './lib/measure';

/**
 * `timeLoop`, but `seconds` is the process's CPU time (user + system) over the slice rather than wall
 * time: on a machine shared by more runnable processes than cores, most slices of a few ms are
 * preempted and wall time measures the queue, while CPU time does not count the time the process
 * waited. (Linux accounts it exactly; what remains is other processes' effect on caches.)
 */
function timeSlice(body: (iterations: number) => void, minMs: number): { iterations: number; seconds: number } {
  const before = process.cpuUsage();
  const { iterations } = timeLoop(body, minMs);
  const used = process.cpuUsage(before);
  return { iterations, seconds: (used.user + used.system) / 1e6 };
}

export type DispatchChildJob =
  /** Dispatches/s at each of HANDLER_COUNTS (one ~ms measurement each, after a warm-up). */
  | { readonly part: 'dispatch'; readonly contender: string; readonly ms: number }
  /** Subscribe+dispose pairs/s (one ~ms measurement after a warm-up), and bytes per subscription when `memory`. */
  | { readonly part: 'lifecycle'; readonly contender: string; readonly ms: number; readonly memory: boolean };

export type DispatchChildResult =
  | { readonly part: 'dispatch'; readonly opsPerSecond: readonly number[] }
  | { readonly part: 'lifecycle'; readonly pairsPerSecond: number; readonly bytesPerSubscription: number | null; readonly memoryCount: number }
  | { readonly part: 'error'; readonly message: string };

/** Throws unless each of the `n` handlers ran exactly `iterations` times and the accumulator agrees. */
function checkCalls(name: string, n: number, counts: Float64Array, iterations: number): void {
  syncCounts();
  for (let i = 0; i < n; i++) {
    if (counts[i] !== iterations) throw new Error(`${name}: handler ${i} of ${n} ran ${counts[i]} times, expected ${iterations}`);
  }
  const acc = takeAccumulator();
  if (acc !== iterations * n * PAYLOAD.v) throw new Error(`${name}: accumulator ${acc}, expected ${iterations * n}`);
  counts.fill(0);
}

function measureDispatch(contender: string, ms: number): number[] {
  const c = dispatchCandidates.find((x) => x.name === contender);
  if (c === undefined) throw new Error(`no dispatch contender named ${contender}`);
  return HANDLER_COUNTS.map((n) => {
    const counts = new Float64Array(n);
    const loop = c.setup(n, counts);
    // Warm-up (JIT), not recorded.
    checkCalls(c.name, n, counts, timeLoop(loop, ms / 2).iterations);
    return fastestSlice(ms, () => {
      const { iterations, seconds } = timeSlice(loop, ms / SLICES);
      checkCalls(c.name, n, counts, iterations);
      return iterations / seconds;
    });
  });
}

/**
 * The machine is shared: another process taking the core only ever makes a slice slower. So a
 * measurement is the fastest of SLICES short slices, which filters out preemption; the spread across
 * processes (rounds) is reported separately.
 */
const SLICES = 20;
function fastestSlice(ms: number, slice: () => number): number {
  let best = 0;
  for (let i = 0; i < SLICES; i++) best = Math.max(best, slice());
  return best;
}

function measurePairs(c: LifecycleCandidate, ms: number): number {
  const counts = new Float64Array(2);
  const [resident, churn] = makeHandlers(2, counts);
  const s = c.pairs(resident, churn);
  const check = (): void => {
    // Every pair really unsubscribed: one dispatch reaches the resident listener only.
    s.dispatch();
    syncCounts();
    if (counts[0] !== 1 || counts[1] !== 0)
      throw new Error(`${c.name}: after subscribe+dispose pairs a dispatch called resident ${counts[0]}×, churn ${counts[1]}×`);
    counts.fill(0);
    takeAccumulator();
  };
  timeLoop(s.loop, ms / 2);
  check();
  return fastestSlice(ms, () => {
    const { iterations, seconds } = timeSlice(s.loop, ms / SLICES);
    check();
    return iterations / seconds;
  });
}

const MEMORY_SUBSCRIPTIONS = 100_000;

/**
 * Memory per subscription of one candidate. A function of its own, so that when it returns nothing
 * of this measurement stays reachable from a suspended frame while the next one takes its baseline.
 */
async function memoryPerSubscription(c: LifecycleCandidate, count: number): Promise<number> {
  let calls = 0;
  // Handlers, owners and the array that keeps returned handles exist before the baseline is taken,
  // so the difference is what the library allocates per subscription (plus the handle it returns).
  const handlers: Handler[] = [];
  for (let i = 0; i < count; i++) handlers.push((e: Tick) => void (calls += e.v));
  const owners: object[] = [];
  for (let i = 0; i < count; i++) owners.push({ id: i });
  const keep: unknown[] = new Array<unknown>(count).fill(undefined);
  if (c.name === 'EventTarget') for (let i = 0; i < count; i++) keep[i] = (e: Event) => handlers[i](e as TickEvent);
  await collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const dispatch = c.subscribeAll(handlers, keep, owners);
  await collectGarbage();
  const after = process.memoryUsage().heapUsed;
  dispatch();
  if (calls !== count) throw new Error(`${c.name}: one dispatch over ${count} subscriptions made ${calls} calls`);
  // Owners are held weakly by the bus: they must stay reachable until here.
  if (owners.length !== count || keep.length !== count) throw new Error('unreachable');
  return (after - before) / count;
}

async function runJob(job: DispatchChildJob): Promise<DispatchChildResult> {
  if (job.part === 'dispatch') return { part: 'dispatch', opsPerSecond: measureDispatch(job.contender, job.ms) };
  const c = lifecycleCandidates.find((x) => x.name === job.contender);
  if (c === undefined) throw new Error(`no lifecycle contender named ${job.contender}`);
  const pairsPerSecond = measurePairs(c, job.ms);
  const memoryCount = c.memorySubscriptions ?? MEMORY_SUBSCRIPTIONS;
  let bytesPerSubscription: number | null = null;
  if (job.memory) {
    const samples: number[] = [];
    for (let i = 0; i < 3; i++) samples.push(await memoryPerSubscription(c, memoryCount));
    bytesPerSubscription = median(samples);
  }
  return { part: 'lifecycle', pairsPerSecond, bytesPerSubscription, memoryCount };
}

function send(result: DispatchChildResult): void {
  if (process.send === undefined) {
    console.log(JSON.stringify(result));
    return;
  }
  process.send(result, () => process.disconnect());
}

// `node --expose-gc --import tsx bench/dispatch.child.ts '<job json>'`
const raw = process.argv[2];
if (raw !== undefined) {
  runJob(JSON.parse(raw) as DispatchChildJob).then(send, (error: unknown) =>
    send({ part: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
}
