// Dispatch throughput, subscribe+dispose cost and memory per subscription: busscope-probe's EventBus
// (the built package, as users run it) side by side with a hand-written loop and its peers, in one
// process, candidates interleaved over several rounds, medians reported.
//
// Fairness rules:
//  - every candidate calls handlers made by the same factory, whose bodies have a side effect (add the
//    payload's field into a module-level accumulator and count their own calls); counts and the
//    accumulator are checked after every measurement, so nothing can be optimised away or skipped;
//  - the payload is one preallocated object; EventTarget dispatches one reused Event subclass instance
//    carrying the same field (so it measures dispatch, not `new Event()`), with handlers from a
//    separate copy of the factory so its Event shape does not make the others' handlers polymorphic;
//  - each candidate's hot loop is its own function, set up once per handler count.
import { EventEmitter as NodeEventEmitter, setMaxListeners } from 'node:events';
import mitt from 'mitt';
import EventEmitter3 from 'eventemitter3';
import { createNanoEvents } from 'nanoevents';
import { EventEmitter as TseepEventEmitter } from 'tseep';
import { EventBus } from 'busscope-probe';
import { collectGarbage, formatOps, formatRatio, markdownTable, median, timeLoop } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';

interface Tick {
  readonly v: number;
}
type Handler = (e: Tick) => void;

const HANDLER_COUNTS = [1, 5, 10] as const;
const PAYLOAD: Tick = { v: 1 };

let accumulator = 0;

/** Handlers `i = 0..n-1`: add the payload's field into the accumulator and count their own calls. */
function makeHandlers(n: number, counts: Float64Array): Handler[] {
  const hs: Handler[] = [];
  for (let i = 0; i < n; i++) {
    hs.push((e: Tick) => {
      accumulator += e.v;
      counts[i]++;
    });
  }
  return hs;
}

/** A copy of `makeHandlers` for EventTarget, so the Event shape stays out of the others' feedback. */
function makeEventHandlers(n: number, counts: Float64Array): ((e: Event) => void)[] {
  const hs: ((e: Event) => void)[] = [];
  for (let i = 0; i < n; i++) {
    hs.push((e: Event) => {
      accumulator += (e as TickEvent).v;
      counts[i]++;
    });
  }
  return hs;
}

class TickEvent extends Event {
  readonly v = 1;
  constructor() {
    super('tick');
  }
}

// A type alias, not an interface: mitt's constraint wants an index signature.
type Events = {
  tick: Tick;
};

/** Sets up a candidate with `n` handlers and returns its hot loop. */
type Setup = (n: number, counts: Float64Array) => (iterations: number) => void;

const BUSSCOPE = 'busscope-probe EventBus';
const HAND = 'hand-written loop';

const dispatchCandidates: readonly { name: string; setup: Setup }[] = [
  {
    name: HAND,
    setup: (n, counts) => {
      const hs = makeHandlers(n, counts);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) {
          for (let i = 0; i < hs.length; i++) hs[i](p);
        }
      };
    },
  },
  {
    name: BUSSCOPE,
    setup: (n, counts) => {
      const bus = new EventBus<Events>({ name: 'bench' });
      for (const h of makeHandlers(n, counts)) bus.subscribe('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) bus.dispatch('tick', p);
      };
    },
  },
  {
    name: 'mitt',
    setup: (n, counts) => {
      const m = mitt<Events>();
      for (const h of makeHandlers(n, counts)) m.on('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) m.emit('tick', p);
      };
    },
  },
  {
    name: 'eventemitter3',
    setup: (n, counts) => {
      const ee = new EventEmitter3();
      for (const h of makeHandlers(n, counts)) ee.on('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) ee.emit('tick', p);
      };
    },
  },
  {
    name: 'nanoevents',
    setup: (n, counts) => {
      const ne = createNanoEvents<{ tick: (e: Tick) => void }>();
      for (const h of makeHandlers(n, counts)) ne.on('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) ne.emit('tick', p);
      };
    },
  },
  {
    name: 'tseep',
    setup: (n, counts) => {
      const te = new TseepEventEmitter<{ tick: (e: Tick) => void }>();
      for (const h of makeHandlers(n, counts)) te.on('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) te.emit('tick', p);
      };
    },
  },
  {
    name: "Node's EventEmitter",
    setup: (n, counts) => {
      const ee = new NodeEventEmitter();
      for (const h of makeHandlers(n, counts)) ee.on('tick', h);
      return (iterations) => {
        const p = PAYLOAD;
        for (let k = 0; k < iterations; k++) ee.emit('tick', p);
      };
    },
  },
  {
    name: 'EventTarget (reused Event)',
    setup: (n, counts) => {
      const et = new EventTarget();
      for (const h of makeEventHandlers(n, counts)) et.addEventListener('tick', h);
      const event = new TickEvent();
      return (iterations) => {
        for (let k = 0; k < iterations; k++) et.dispatchEvent(event);
      };
    },
  },
];

/** Throws unless each of the `n` handlers ran exactly `iterations` times and the accumulator agrees. */
function checkCalls(name: string, n: number, counts: Float64Array, iterations: number): void {
  for (let i = 0; i < n; i++) {
    if (counts[i] !== iterations) throw new Error(`${name}: handler ${i} of ${n} ran ${counts[i]} times, expected ${iterations}`);
  }
  if (accumulator !== iterations * n * PAYLOAD.v) throw new Error(`${name}: accumulator ${accumulator}, expected ${iterations * n}`);
  counts.fill(0);
  accumulator = 0;
}

function benchDispatch(rounds: number, ms: number): void {
  // ops[name][handlerCountIndex] = per-round samples
  const samples = new Map<string, number[][]>(dispatchCandidates.map((c) => [c.name, HANDLER_COUNTS.map(() => [])]));
  HANDLER_COUNTS.forEach((n, ni) => {
    const loops = dispatchCandidates.map((c) => {
      const counts = new Float64Array(n);
      return { name: c.name, counts, loop: c.setup(n, counts) };
    });
    // Round 0 is warm-up (JIT), not recorded. Each round starts at a different candidate.
    for (let round = 0; round <= rounds; round++) {
      for (let j = 0; j < loops.length; j++) {
        const c = loops[(j + round) % loops.length];
        const { iterations, seconds } = timeLoop(c.loop, round === 0 ? ms / 2 : ms);
        checkCalls(c.name, n, c.counts, iterations);
        if (round > 0) samples.get(c.name)![ni].push(iterations / seconds);
      }
    }
  });

  const med = (name: string, ni: number): number => median(samples.get(name)![ni]);
  const rows = dispatchCandidates.map((c) => {
    const cells = [c.name === BUSSCOPE ? `**${c.name}**` : c.name];
    HANDLER_COUNTS.forEach((_, ni) => {
      cells.push(formatOps(med(c.name, ni)), c.name === BUSSCOPE ? '1.00×' : formatRatio(med(c.name, ni) / med(BUSSCOPE, ni)));
    });
    return cells;
  });
  const header = ['dispatches/s (median)'];
  for (const n of HANDLER_COUNTS) header.push(`${n} handler${n > 1 ? 's' : ''}`, 'vs busscope');

  const ofLimit = HANDLER_COUNTS.map((_, ni) => med(BUSSCOPE, ni) / med(HAND, ni));
  const peers = ['mitt', 'eventemitter3', 'nanoevents', "Node's EventEmitter"];
  const behind = peers.flatMap((p) =>
    HANDLER_COUNTS.flatMap((n, ni) => (med(p, ni) >= med(BUSSCOPE, ni) ? [`${p} at ${n}`] : [])),
  );
  const nsPerHandler = HANDLER_COUNTS.map((n, ni) => `${((1e9 / med(BUSSCOPE, ni)) / n).toFixed(1)} ns`).join(' / ');

  report(
    [
      `## Dispatch throughput`,
      ``,
      `Median of ${rounds} interleaved rounds of ~${ms} ms per candidate (after one warm-up round); every handler adds the payload's field into a global accumulator and counts its calls, and the counts are checked after each measurement. "vs busscope" is the candidate's ops/s divided by busscope's (above 1 = faster than busscope). EventTarget dispatches one reused Event object, so it measures dispatch rather than Event allocation.`,
      ``,
      markdownTable(header, rows),
      ``,
      `- busscope / hand-written loop: ${ofLimit.map((r) => formatRatio(r)).join(' / ')} at ${HANDLER_COUNTS.join(' / ')} handlers (target: ≥ 0.67×, i.e. within 1.5× of the loop) — ${ofLimit.every((r) => r >= 1 / 1.5) ? 'met' : 'NOT met'}.`,
      `- Ahead of mitt, eventemitter3, nanoevents and Node's EventEmitter at every handler count: ${behind.length === 0 ? 'yes' : `NO (not ahead of ${behind.join(', ')})`}.`,
      `- busscope cost per handler call: ${nsPerHandler} at ${HANDLER_COUNTS.join(' / ')} handlers.`,
    ].join('\n'),
  );
}

// ------------------------------------------------------------------------------------------------
// Subscribe + dispose pairs, and memory per subscription

interface LifecycleCandidate {
  readonly name: string;
  /** Subscriptions for the memory measurement, when not MEMORY_SUBSCRIPTIONS (a library with O(n) add). */
  readonly memorySubscriptions?: number;
  /** A fresh emitter with one resident listener (so removal is not the trivial empty case); returns the pair loop and a dispatch. */
  pairs(resident: Handler, churn: Handler): { loop: (iterations: number) => void; dispatch: () => void };
  /** Subscribes every handler (keeping whatever the library returns for unsubscribing in `keep`); returns a dispatch. */
  subscribeAll(handlers: readonly Handler[], keep: unknown[], owners: readonly object[]): () => void;
}

const lifecycleCandidates: readonly LifecycleCandidate[] = [
  {
    name: 'array of handlers (push + splice)',
    pairs(resident, churn) {
      const hs: Handler[] = [resident];
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            hs.push(churn);
            const i = hs.lastIndexOf(churn);
            if (i >= 0) hs.splice(i, 1);
          }
        },
        dispatch: () => hs.forEach((h) => h(PAYLOAD)),
      };
    },
    subscribeAll(handlers) {
      const hs: Handler[] = [];
      for (const h of handlers) hs.push(h);
      return () => hs.forEach((h) => h(PAYLOAD));
    },
  },
  {
    name: BUSSCOPE,
    pairs(resident, churn) {
      const bus = new EventBus<Events>({ name: 'bench' });
      bus.subscribe('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) bus.subscribe('tick', churn).dispose();
        },
        dispatch: () => void bus.dispatch('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers, keep) {
      const bus = new EventBus<Events>({ name: 'bench' });
      for (let i = 0; i < handlers.length; i++) keep[i] = bus.subscribe('tick', handlers[i]);
      return () => void bus.dispatch('tick', PAYLOAD);
    },
  },
  {
    name: `${BUSSCOPE}, with owner`,
    pairs(resident, churn) {
      const bus = new EventBus<Events>({ name: 'bench' });
      const owner = { name: 'widget' };
      bus.subscribe('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) bus.subscribe('tick', churn, { owner }).dispose();
        },
        dispatch: () => void bus.dispatch('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers, keep, owners) {
      const bus = new EventBus<Events>({ name: 'bench' });
      for (let i = 0; i < handlers.length; i++) keep[i] = bus.subscribe('tick', handlers[i], { owner: owners[i] });
      return () => void bus.dispatch('tick', PAYLOAD);
    },
  },
  {
    name: 'mitt',
    pairs(resident, churn) {
      const m = mitt<Events>();
      m.on('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            m.on('tick', churn);
            m.off('tick', churn);
          }
        },
        dispatch: () => m.emit('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers) {
      const m = mitt<Events>();
      for (const h of handlers) m.on('tick', h);
      return () => m.emit('tick', PAYLOAD);
    },
  },
  {
    name: 'eventemitter3',
    pairs(resident, churn) {
      const ee = new EventEmitter3();
      ee.on('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            ee.on('tick', churn);
            ee.off('tick', churn);
          }
        },
        dispatch: () => void ee.emit('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers) {
      const ee = new EventEmitter3();
      for (const h of handlers) ee.on('tick', h);
      return () => void ee.emit('tick', PAYLOAD);
    },
  },
  {
    name: 'nanoevents',
    pairs(resident, churn) {
      const ne = createNanoEvents<{ tick: (e: Tick) => void }>();
      ne.on('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) ne.on('tick', churn)();
        },
        dispatch: () => ne.emit('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers, keep) {
      const ne = createNanoEvents<{ tick: (e: Tick) => void }>();
      for (let i = 0; i < handlers.length; i++) keep[i] = ne.on('tick', handlers[i]);
      return () => ne.emit('tick', PAYLOAD);
    },
  },
  {
    name: 'tseep',
    pairs(resident, churn) {
      const te = new TseepEventEmitter<{ tick: (e: Tick) => void }>();
      te.on('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            te.on('tick', churn);
            te.off('tick', churn);
          }
        },
        dispatch: () => void te.emit('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers) {
      const te = new TseepEventEmitter<{ tick: (e: Tick) => void }>();
      for (const h of handlers) te.on('tick', h);
      return () => void te.emit('tick', PAYLOAD);
    },
  },
  {
    name: "Node's EventEmitter",
    pairs(resident, churn) {
      const ee = new NodeEventEmitter();
      ee.on('tick', resident);
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            ee.on('tick', churn);
            ee.off('tick', churn);
          }
        },
        dispatch: () => void ee.emit('tick', PAYLOAD),
      };
    },
    subscribeAll(handlers) {
      const ee = new NodeEventEmitter();
      ee.setMaxListeners(0); // no leak warning for the 100,000 listeners measured on purpose
      for (const h of handlers) ee.on('tick', h);
      return () => void ee.emit('tick', PAYLOAD);
    },
  },
  {
    name: 'EventTarget',
    // Node's EventTarget scans its listeners on every add (duplicate check): 100,000 would take minutes.
    memorySubscriptions: 10_000,
    pairs(resident, churn) {
      // Listeners take the payload's place in the Event; wrapping once here keeps the pair loop honest.
      const et = new EventTarget();
      const wrap = (h: Handler) => (e: Event) => h(e as TickEvent);
      const r = wrap(resident);
      const c = wrap(churn);
      et.addEventListener('tick', r);
      const event = new TickEvent();
      return {
        loop: (iterations) => {
          for (let k = 0; k < iterations; k++) {
            et.addEventListener('tick', c);
            et.removeEventListener('tick', c);
          }
        },
        dispatch: () => void et.dispatchEvent(event),
      };
    },
    subscribeAll(handlers, keep) {
      // EventTarget needs an (e: Event) listener; the wrappers are made before the baseline is taken
      // (in `keep`), so only the registrations are measured.
      const et = new EventTarget();
      setMaxListeners(0, et); // no leak warning for the listeners measured on purpose
      for (let i = 0; i < handlers.length; i++) et.addEventListener('tick', keep[i] as (e: Event) => void);
      const event = new TickEvent();
      return () => void et.dispatchEvent(event);
    },
  },
];

function benchSubscribeDispose(rounds: number, ms: number): { name: string; ops: number }[] {
  const counts = new Float64Array(2);
  const [resident, churn] = makeHandlers(2, counts);
  const setups = lifecycleCandidates.map((c) => ({ name: c.name, ...c.pairs(resident, churn) }));
  const samples = new Map<string, number[]>(setups.map((s) => [s.name, []]));
  for (let round = 0; round <= rounds; round++) {
    for (let j = 0; j < setups.length; j++) {
      const s = setups[(j + round) % setups.length];
      const { iterations, seconds } = timeLoop(s.loop, round === 0 ? ms / 2 : ms);
      // Every pair really unsubscribed: one dispatch reaches the resident listener only.
      s.dispatch();
      if (counts[0] !== 1 || counts[1] !== 0) throw new Error(`${s.name}: after subscribe+dispose pairs a dispatch called resident ${counts[0]}×, churn ${counts[1]}×`);
      counts.fill(0);
      accumulator = 0;
      if (round > 0) samples.get(s.name)!.push(iterations / seconds);
    }
  }
  return setups.map((s) => ({ name: s.name, ops: median(samples.get(s.name)!) }));
}

const MEMORY_SUBSCRIPTIONS = 100_000;

/**
 * Memory per subscription of one candidate. A function of its own, so that when it returns nothing
 * of this candidate stays reachable from a suspended frame while the next one takes its baseline.
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

/** Median of three measurements per candidate, candidates interleaved. */
async function benchMemory(): Promise<{ name: string; bytes: number; count: number }[]> {
  const samples = new Map<string, number[]>(lifecycleCandidates.map((c) => [c.name, []]));
  for (let round = 0; round < 3; round++) {
    for (const c of lifecycleCandidates) {
      samples.get(c.name)!.push(await memoryPerSubscription(c, c.memorySubscriptions ?? MEMORY_SUBSCRIPTIONS));
    }
  }
  await collectGarbage();
  return lifecycleCandidates.map((c) => ({ name: c.name, bytes: median(samples.get(c.name)!), count: c.memorySubscriptions ?? MEMORY_SUBSCRIPTIONS }));
}

function reportLifecycle(pairs: { name: string; ops: number }[], memory: { name: string; bytes: number; count: number }[], rounds: number, ms: number): void {
  const busPairs = pairs.find((p) => p.name === BUSSCOPE)!.ops;
  const busBytes = memory.find((m) => m.name === BUSSCOPE)!.bytes;
  const rows = lifecycleCandidates.map((c) => {
    const p = pairs.find((x) => x.name === c.name)!.ops;
    const { bytes: m, count } = memory.find((x) => x.name === c.name)!;
    const name = c.name.startsWith(BUSSCOPE) ? `**${c.name}**` : c.name;
    const bytes = `${m.toFixed(0)} B${count === MEMORY_SUBSCRIPTIONS ? '' : ` (of ${count.toLocaleString('en-US')})`}`;
    return [name, formatOps(p), formatRatio(p / busPairs), bytes, formatRatio(m / busBytes)];
  });
  report(
    [
      `## Subscribe + dispose, memory per subscription`,
      ``,
      `Pairs: subscribe then unsubscribe one listener on an event that has one resident listener; median of ${rounds} interleaved rounds of ~${ms} ms; afterwards one dispatch must reach the resident listener only. Memory: heapUsed after minus before subscribing ${MEMORY_SUBSCRIPTIONS.toLocaleString('en-US')} distinct handlers to one event (fewer where noted: Node's EventTarget checks for duplicates on every add, so filling it is quadratic), divided by their number, median of 3 (full GC before each reading; the owned variant has one distinct owner per subscription; handlers, owners and the array keeping returned handles are allocated before the baseline; the handle or unbind function the library returns is kept, as an app would).`,
      ``,
      markdownTable(['candidate', 'subscribe+dispose pairs/s', 'vs busscope', 'bytes / subscription', 'vs busscope'], rows),
    ].join('\n'),
  );
}

export async function run(): Promise<void> {
  const rounds = benchRounds(9);
  const ms = benchMs(60);
  benchDispatch(rounds, ms);
  const pairRounds = Math.max(1, Math.ceil(rounds / 2));
  const pairs = benchSubscribeDispose(pairRounds, ms);
  const memory = await benchMemory();
  reportLifecycle(pairs, memory, pairRounds, ms);
}
