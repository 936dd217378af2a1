// The contenders of bench/dispatch.bench.ts: busscope-probe's EventBus (the built package, as users
// run it), a hand-written loop and its peers. Only bench/dispatch.child.ts loads this module, and each
// child process sets up exactly one contender, so one library's code never shares a process (and the
// engine's feedback) with another's.
//
// Fairness rules:
//  - every candidate calls handlers made by the same factory, whose bodies have a side effect (add the
//    payload's field into a module-level accumulator and count their own calls); counts and the
//    accumulator are checked after every measurement, so nothing can be optimised away or skipped;
//  - a handler counts its calls in a variable of its own closure, which costs the same however it is
//    called. (It used to increment `counts[i]` of a Float64Array shared by all handlers: from one call
//    site cycling through the handlers — the hand-written loop, nanoevents, every library's loop —
//    that array access cannot be specialised and cost ~5 ns more per call than from a call site that
//    only ever sees one handler, as in busscope's unrolled code, where the engine folds the handler's
//    closure. Measured at 5 handlers: 36 ns from a loop vs 6 ns unrolled with the Float64Array count,
//    17 vs 9 ns with the closure count, 12 vs 5 ns with no count at all. So the loop looked 2× slower
//    than busscope at 5 and 10 handlers for a reason that is not dispatch.)
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

export interface Tick {
  readonly v: number;
}
export type Handler = (e: Tick) => void;

export const HANDLER_COUNTS = [1, 5, 10] as const;
export const PAYLOAD: Tick = { v: 1 };

/** Added to by every handler; read and reset through `takeAccumulator`. */
let accumulator = 0;

/** One per handler made: adds the handler's own call count to its `counts` slot and resets it. */
const countSyncs: (() => void)[] = [];

/** Brings every `counts` array passed to `makeHandlers` up to date (call before reading them). */
export function syncCounts(): void {
  for (const sync of countSyncs) sync();
}

export function takeAccumulator(): number {
  const a = accumulator;
  accumulator = 0;
  return a;
}

/**
 * Handlers `i = 0..n-1`: add the payload's field into the accumulator and count their own calls
 * (in their closure; `syncCounts()` adds them into `counts[i]`).
 */
export function makeHandlers(n: number, counts: Float64Array): Handler[] {
  const hs: Handler[] = [];
  for (let i = 0; i < n; i++) {
    let calls = 0;
    hs.push((e: Tick) => {
      accumulator += e.v;
      calls++;
    });
    countSyncs.push(() => {
      counts[i] += calls;
      calls = 0;
    });
  }
  return hs;
}

/** A copy of `makeHandlers` for EventTarget, so the Event shape stays out of the others' feedback. */
function makeEventHandlers(n: number, counts: Float64Array): ((e: Event) => void)[] {
  const hs: ((e: Event) => void)[] = [];
  for (let i = 0; i < n; i++) {
    let calls = 0;
    hs.push((e: Event) => {
      accumulator += (e as TickEvent).v;
      calls++;
    });
    countSyncs.push(() => {
      counts[i] += calls;
      calls = 0;
    });
  }
  return hs;
}

export class TickEvent extends Event {
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
export type Setup = (n: number, counts: Float64Array) => (iterations: number) => void;

export const BUSSCOPE = 'busscope-probe EventBus';
export const HAND = 'hand-written loop';

export const dispatchCandidates: readonly { name: string; setup: Setup }[] = [
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

export interface LifecycleCandidate {
  readonly name: string;
  /** Subscriptions for the memory measurement, when not MEMORY_SUBSCRIPTIONS (a library with O(n) add). */
  readonly memorySubscriptions?: number;
  /** A fresh emitter with one resident listener (so removal is not the trivial empty case); returns the pair loop and a dispatch. */
  pairs(resident: Handler, churn: Handler): { loop: (iterations: number) => void; dispatch: () => void };
  /** Subscribes every handler (keeping whatever the library returns for unsubscribing in `keep`); returns a dispatch. */
  subscribeAll(handlers: readonly Handler[], keep: unknown[], owners: readonly object[]): () => void;
}

export const lifecycleCandidates: readonly LifecycleCandidate[] = [
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
