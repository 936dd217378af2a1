// One runtime per process, however many copies of the package are loaded: the ESM and the CJS build
// (an ESM app with a CJS dependency), the bus-only entry (`busscope-probe/bus`), or two installs in
// different node_modules. Without it each copy had its own bus registry, id counters, tracer slot
// and probe: two probes on two ports for one pid, colliding ids, buses the probe never saw.
//
// The first copy loaded publishes a versioned object at `globalThis[Symbol.for('busscope.runtime')]`;
// later copies with the same RUNTIME_VERSION use it. A copy that finds another version there warns
// (once per process) and runs apart from it: its buses and its probe are its own. The slot is read once, when this module loads;
// the dispatch hot path never touches it (each copy keeps its own tracer variables, which
// `setTracers` updates in every copy at once).
// No Node built-ins here: the bus-only (browser) entry includes this file.

import { PROBE_VERSION as THIS_COPY } from '../probe/version';
import type { ProducerConsumer, ProducerInbox } from './producer-inbox';
import type { ProducerDropReport } from './producer-inbox';
import type { BusTracer, ContextCarrier, DispatchLog, DispatchTracer, TraceIdSource, TracedBus } from './tracer';

/**
 * Bump when anything a copy relies on in another copy changes incompatibly: this object's shape, the
 * tracer interfaces and the TracedBus/TracedSubscription fields (tracer.ts), or the public API of the
 * probe object shared through `probe` (probe.ts).
 */
export const RUNTIME_VERSION = 3;

export const RUNTIME_GLOBAL_KEY = Symbol.for('busscope.runtime');

/** Sets one copy's own tracer variables (its hot-path slots). */
export type TracerSlots = (tracer: BusTracer | undefined, dispatchTracer: DispatchTracer | undefined) => void;

/**
 * @internal What every compatible copy in the process shares. Version 2: the probe gained `watch`; tracer
 * hooks. Version 3: subscription ids are reserved in blocks (`ID_BLOCK`).
 */
export interface SharedRuntime {
  readonly version: typeof RUNTIME_VERSION;
  /** Package version of the copy that created it (for messages). */
  readonly createdBy: string;
  /** What the buses call: undefined, the one consumer, or a multiplexer over several (tracer-mux.ts). */
  tracer: BusTracer | undefined;
  dispatchTracer: DispatchTracer | undefined;
  /** The probe's own slot (`setBusTracer` / `setDispatchTracer`), first in hook order. */
  primaryTracer: BusTracer | undefined;
  primaryDispatchTracer: DispatchTracer | undefined;
  /** Further consumers (`hookBusTracer` / `hookDispatchTracer`), in hook order. */
  readonly busHooks: BusTracer[];
  readonly dispatchHooks: DispatchTracer[];
  /**
   * Context carriers (`hookContextCarrier`), in hook order, and the acting one (the last). Optional:
   * a runtime created by an earlier copy of this runtime version has neither until one is hooked.
   */
  contextCarriers?: ContextCarrier[];
  contextCarrier?: ContextCarrier;
  /** Trace id sources (`hookTraceIdSource`), in hook order, and the acting one (the last). Optional as above. */
  traceIdSources?: TraceIdSource[];
  traceIdSource?: TraceIdSource;
  /**
   * The dispatch tracer whose records the buses may write themselves (the Node recorder, while installed:
   * DispatchLog in tracer.ts); a copy that loaded bus/fused-dispatch.ts uses it while it is the dispatch
   * tracer and fused. Optional as above.
   */
  dispatchLog?: DispatchLog;
  /** Every copy's slot setter; `setTracers` calls them all. */
  readonly copies: TracerSlots[];
  /** Every live bus of every copy, in creation order. */
  readonly buses: Set<WeakRef<TracedBus>>;
  nextBusId: number;
  /** Reserved ID_BLOCK at a time (see `takeSubscriptionId`). */
  nextSubscriptionId: number;
  nextOwnerId: number;
  /**
   * Set when the Node entry shared the id counters across the process's threads (worker_threads,
   * threads/environment.ts): the three `next…` fields above are then accessors over this shared
   * memory ([bus, subscription, owner]) whose read takes the next bus or owner id, or reserves the
   * next block of subscription ids, atomically; so ids are unique across threads while the bus code,
   * and the browser bundle, stay as they are.
   */
  sharedIds?: Uint32Array;
  readonly ownerIds: WeakMap<object, number>;
  /** The one probe (a `Probe` of the copy that first loaded the probe; the bus-only entry has none). */
  probe: object | undefined;
  /** BUSSCOPE / BUSSCOPE_RECORD were acted on (by whichever copy with a probe loaded first). */
  environmentRead: boolean;
  /** Probe failures and warnings already reported (each is reported once per process). */
  readonly reported: Set<string>;
  /**
   * Parts a page cannot use, registered by the entries that ship them (`busscope-probe`,
   * `busscope-probe/bus`; see bus/optional-parts.ts) so that `busscope-probe/browser` stays small.
   * Optional: a runtime created by an earlier copy of this runtime version has none until one registers.
   */
  optional?: OptionalParts;
  /**
   * The producer port's event `flush()` dispatches now (the bus sets it, the recorder takes it at
   * that dispatch's start): where it came from. Optional as above.
   */
  produced?: ProducedOrigin;
  /** This thread's `worker_threads.threadId`, set by the Node entry (0 or absent on a main thread and in pages). */
  threadId?: number;
  /**
   * A page's one open Busscope link (`busscope-probe/browser`) and the hub of its Web Workers, which
   * follows it (browser/threads/page-threads.ts). Here, not in a module, because the page may load the
   * browser entry and the worker entry as two bundles. Optional, as above.
   */
  pageThreads?: PageThreadsSlot;
}

/** @internal See `SharedRuntime.pageThreads`. */
export interface PageThreadsSlot {
  /** The page's link while Busscope receives its records (a PageLink). */
  link?: object;
  /** Called when the link opens, closes, or the extension reconfigures recording. */
  changed?: () => void;
  /** The workers' hub, made by the page's first `addWorker`. */
  hub?: object;
}

/**
 * @internal An event from a producer port: [the producer's thread id, when it enqueued (epoch ms,
 * `performance.timeOrigin + performance.now()` in its thread), the ambient context captured when it
 * arrived (as for any queued event)]. Plain data, as every copy of the package reads it; it rides in
 * the event's context slot of the bus's queue (a context carrier's contexts are never arrays).
 */
export type ProducedOrigin = readonly [thread: number, enqueuedAt: number, context: unknown];

/** @internal See `SharedRuntime.optional`. */
export interface OptionalParts {
  /**
   * Opens the cross-thread inbox of a bus (`EventBus.openProducerPort`), which applies the cap to
   * the bus's queue itself. (Earlier copies registered `producerInbox`, whose inbox called the bus's
   * `acceptProduced`: a new name, so a bus never gets an inbox that speaks the other contract.)
   */
  producerQueue?: (bus: ProducerConsumer) => ProducerInbox;
  /** Set by a running probe server (Node): told of events dropped at a producer queue's cap, one report per batch. */
  producerDrops?: (report: ProducerDropReport) => void;
  /** Set by a running probe server (Node): a producer connected to bus `busId` from `site` (its stack line, or ''). */
  producerConnected?: (busId: number, site: string) => void;
  /** Payload conditions and the current hit of event breakpoints (debug/event-breaks.ts). */
  eventBreakWanted?: (busId: number, bus: string, type: string, payload: unknown) => boolean;
  eventBreakDone?: () => void;
  /**
   * A page's (or Web Worker's) payload capture, registered by `busscope-probe/browser/payloads`; the
   * page's recorder reads it on each use (browser/page-recorder.ts). Node's recorder has its own.
   */
  pageCapture?: (
    payload: unknown,
    type: string,
    bus: string,
    sanitize: ((payload: unknown, type: string, bus: string) => unknown) | undefined,
    cap: number,
  ) => {
    json: string;
    truncated: boolean;
  };
  /**
   * Multiplexers over several tracers (tracer-mux.ts), registered by `hookBusTracer` /
   * `hookDispatchTracer` (tracer.ts): only a hooked consumer makes more than one.
   */
  busTracerMux?: (all: BusTracer[]) => BusTracer;
  dispatchTracerMux?: (all: DispatchTracer[]) => DispatchTracer;
}

function createRuntime(): SharedRuntime {
  return {
    version: RUNTIME_VERSION,
    createdBy: THIS_COPY,
    tracer: undefined,
    dispatchTracer: undefined,
    primaryTracer: undefined,
    primaryDispatchTracer: undefined,
    busHooks: [],
    dispatchHooks: [],
    copies: [],
    buses: new Set(),
    nextBusId: 1,
    nextSubscriptionId: 1,
    nextOwnerId: 1,
    ownerIds: new WeakMap(),
    probe: undefined,
    environmentRead: false,
    reported: new Set(),
  };
}

function describeForeign(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `a ${value === null ? 'null' : typeof value}`;
  const v = value as { version?: unknown; createdBy?: unknown };
  const by = typeof v.createdBy === 'string' ? ` from busscope-probe ${v.createdBy}` : '';
  return `runtime version ${String(v.version)}${by}`;
}

/** Reported through process.emitWarning where there is one (Node), else console.warn (browsers). */
function warnIncompatible(found: unknown): void {
  const message =
    `busscope-probe ${THIS_COPY} (runtime version ${RUNTIME_VERSION}) found ${describeForeign(found)} already loaded in this process; ` +
    "this version runs on its own: its buses are not seen by the other version's probe, and its probe (if started) is a second one. " +
    'Install one version of busscope-probe (npm ls busscope-probe lists them).';
  try {
    const p = (globalThis as { process?: { emitWarning?: (m: string, o: { type: string; code: string }) => void } }).process;
    if (typeof p?.emitWarning === 'function') p.emitWarning(message, { type: 'BusscopeWarning', code: 'BUSSCOPE_RUNTIME_MISMATCH' });
    else console.warn(`[busscope] ${message}`);
  } catch {
    // nothing left to tell
  }
}

/** Publishes `value` at `key` unless something is there; returns what is there afterwards. */
function publish(g: Record<symbol, unknown>, key: symbol, value: SharedRuntime): unknown {
  const existing = g[key];
  if (existing !== undefined) return existing;
  try {
    // Not enumerable, not writable: nothing replaces it by accident after copies started using it.
    Object.defineProperty(g, key, { value, configurable: true, enumerable: false, writable: false });
  } catch {
    // a frozen global: this copy works on its own
  }
  return value;
}

function isCompatible(value: unknown): value is SharedRuntime {
  return typeof value === 'object' && value !== null && (value as { version?: unknown }).version === RUNTIME_VERSION;
}

function claimRuntime(): SharedRuntime {
  const g = globalThis as unknown as Record<symbol, unknown>;
  try {
    const own = createRuntime();
    const main = publish(g, RUNTIME_GLOBAL_KEY, own);
    if (isCompatible(main)) return main;
    // Another version got there first. Copies of this version still share one runtime among
    // themselves (so the ESM and CJS builds of this version make one probe, not two), under a
    // versioned key; the first of them to get here warns, once for the process.
    const mine = publish(g, Symbol.for(`busscope.runtime@${RUNTIME_VERSION}`), own);
    if (mine === own) warnIncompatible(main);
    return isCompatible(mine) ? mine : own;
  } catch {
    // a hostile global (a throwing getter): work alone
    return createRuntime();
  }
}

/** @internal This process's runtime (or this copy's private one, see above). */
export const runtime: SharedRuntime = claimRuntime();

/** @internal Sets the probe's slot and installs the result in every copy sharing the runtime. */
export function setTracers(tracer: BusTracer | undefined, dispatchTracer: DispatchTracer | undefined): void {
  runtime.primaryTracer = tracer;
  runtime.primaryDispatchTracer = dispatchTracer;
  installTracers();
}

/**
 * None, the one consumer itself (no indirection), or a multiplexer over all of them. More than one
 * means something was hooked, and hooking registered the multiplexer (tracer.ts); the first consumer
 * alone stands in only if a copy of this runtime version without that registration did the hooking.
 */
function combine<T>(primary: T | undefined, hooks: readonly T[], mux: ((all: T[]) => T) | undefined): T | undefined {
  const all = primary === undefined ? [...hooks] : [primary, ...hooks];
  return all.length === 0 ? undefined : all.length === 1 || mux === undefined ? all[0] : mux(all);
}

/** @internal Recomputes what the buses call from the probe's slot and the hooks; applies it to every copy. */
export function installTracers(): void {
  const parts = runtime.optional;
  const tracer = combine(runtime.primaryTracer, runtime.busHooks, parts?.busTracerMux);
  const dispatchTracer = combine(runtime.primaryDispatchTracer, runtime.dispatchHooks, parts?.dispatchTracerMux);
  runtime.tracer = tracer;
  runtime.dispatchTracer = dispatchTracer;
  for (const set of runtime.copies) set(tracer, dispatchTracer);
}

/** Indices of `SharedRuntime.sharedIds`. */
export const SHARED_BUS_ID = 0;
export const SHARED_SUBSCRIPTION_ID = 1;
export const SHARED_OWNER_ID = 2;

/** @internal Process-wide (every thread, with shared ids), positive, never reused. */
export function takeBusId(): number {
  return runtime.nextBusId++;
}

/** Subscription ids a copy of the package reserves at once. */
export const ID_BLOCK = 1024;

let nextId = 0;
let idEnd = 0;

/**
 * @internal Process-wide (every copy of the package, every thread), positive, never reused. Handed
 * out from blocks this copy reserves (read the counter, write it back ID_BLOCK further): subscribing
 * must stay cheap, and with threads the read is an atomic add on shared memory behind an accessor
 * (~170 ns), paid once per block instead of once per id.
 */
export function takeSubscriptionId(): number {
  if (nextId === idEnd) {
    nextId = runtime.nextSubscriptionId;
    runtime.nextSubscriptionId = idEnd = nextId + ID_BLOCK;
  }
  return nextId++;
}
