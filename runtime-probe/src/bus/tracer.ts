// The seam between the bus and the probe. The bus knows nothing about sockets or records: it calls
// the installed tracer, if any. Two slots keep the detached cost at one predictable branch:
//  - `tracer` is installed while the probe is started (subscribe sites, lifecycle, snapshots);
//  - `dispatchTracer` is installed only while someone records (a client or a trace file), and it is
//    the only thing `dispatch` looks at.
// Several consumers may hook the seam at once (`hookBusTracer` / `hookDispatchTracer`, besides the
// probe's own slot): with one, the slot holds it directly; with more, a multiplexer (tracer-mux.ts).
// Every tracer call receives primitives or objects that already exist, so a recording tracer can
// write into a preallocated buffer without allocating per dispatch.
// Every copy of the package in a process shares these (runtime.ts): bump RUNTIME_VERSION when an
// interface here changes incompatibly.

import type { SiteOrigin } from '../protocol/site-origin';
import { installTracers, runtime, setTracers } from './runtime';
import { BusTracerMux, DispatchTracerMux } from './tracer-mux';
import type { BusKind } from '../protocol/records';

/** Why a subscription ended. `clear` also covers `bus.dispose()`. */
export type UnsubscribeReason = 'dispose' | 'once' | 'signal' | 'owner' | 'dead-owner' | 'collected' | 'clear';

/** Where a subscription was made, captured from the stack when the probe is started. */
export interface SourceSite {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly functionName: string | undefined;
}

/** What the tracer may read of a bus. Implemented by `EventBus`. */
export interface TracedBus {
  /** Unique per process, never reused. */
  readonly busId: number;
  readonly name: string;
  readonly createdAt: number;
  /** What the bus is (absent: an EventBus). */
  readonly busKind?: BusKind;
  /** The instance's class name, when it is an emitter. */
  readonly className?: string;
  /**
   * False while the bus is not flushing its queue, so no producer port's origin can be pending for
   * its dispatch (the recorder then skips reading `runtime.produced`); absent: not said.
   */
  readonly flushing?: boolean;
  /** Live subscriptions, for snapshots. */
  tracedSubscriptions(): Iterable<TracedSubscription>;
}

/** What the tracer may read of a subscription. Implemented by the bus's subscription record. */
export interface TracedSubscription {
  readonly id: number;
  readonly type: string;
  readonly priority: number;
  readonly label: string | undefined;
  readonly once: boolean;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Owner description (constructor name and id/name when present), computed once at subscribe. */
  readonly ownerDescription: string | undefined;
  /**
   * Per-process id of the owner object (positive; the same object has the same id on every bus,
   * and ids are never reused); undefined without an owner. Descriptions can repeat, ids do not.
   */
  readonly ownerId?: number;
  readonly calls: number;
  /** Set by the tracer at subscribe time (it owns site capture); undefined when no probe ran. */
  site: SourceSite | undefined;
  /**
   * Whose code subscribed, when the bus read it (process-wide emitters); sent with the subscription
   * so the views judge library buses as the probe does (protocol/site-origin.ts).
   */
  readonly origin?: SiteOrigin;
}

export interface BusTracer {
  busCreated(bus: TracedBus): void;
  busDisposed(bus: TracedBus): void;
  subscribed(bus: TracedBus, sub: TracedSubscription): void;
  unsubscribed(bus: TracedBus, sub: TracedSubscription, reason: UnsubscribeReason): void;
  /**
   * An owner was garbage-collected; `removed` subscriptions of it were dropped (each also reported
   * unsubscribed/collected). `ownerId` as in `TracedSubscription.ownerId`.
   */
  ownerCollected(bus: TracedBus, ownerDescription: string | undefined, removed: number, ownerId?: number): void;
  enqueued(bus: TracedBus, type: string, queueLength: number): void;
  flushed(bus: TracedBus, dispatched: number): void;
  depthLimitHit(bus: TracedBus, type: string, depth: number): void;
}

/** Called from inside `dispatch`, only while something records. */
export interface DispatchTracer {
  /** Returns the dispatch's sequence number (positive). `parentSeq` is 0 for a top-level dispatch. */
  dispatchStart(bus: TracedBus, type: string, depth: number, parentSeq: number, payload: unknown): number;
  handlerStart(seq: number, sub: TracedSubscription): void;
  handlerEnd(seq: number, sub: TracedSubscription, consumed: boolean): void;
  handlerError(seq: number, bus: TracedBus, sub: TracedSubscription, error: unknown): void;
  dispatchEnd(seq: number, delivered: number, consumedBy: number): void;
  /**
   * False when this tracer needs no `handlerStart`/`handlerEnd` calls right now (e.g. recording at
   * detail `dispatch`): the bus may then skip them, which saves two calls per handler. Read before
   * `dispatchStart` and again after it, so a tracer may want the hooks for one dispatch only (detail
   * `handlers` times a sample of dispatches); absent means true. `handlerError` is called regardless.
   */
  readonly handlerHooks?: boolean;
  /**
   * True when a client asked to break on this type (event breakpoints). `dispatch` then runs a
   * `debugger` statement itself, so the debugger stops one frame below the dispatching code.
   */
  shouldBreak(bus: TracedBus, type: string): boolean;
  /**
   * Optional: calls `fn.call(thisArg, a, b)` (one handler call of dispatch `seq`, between its
   * `handlerStart` and `handlerEnd`) and returns its result, inside whatever scope this consumer keeps
   * for it (the OpenTelemetry bridge: the dispatch's or handler's span context, so spans a handler
   * starts are its children). It must call `fn` exactly once and let its exception through.
   */
  callHandler?(seq: number, sub: TracedSubscription, fn: HandlerCall, thisArg: unknown, a: unknown, b: unknown): unknown;
}

/**
 * @internal What a list of the bus keeps for a dispatch log (`DispatchLog.resolveList` makes it): the
 * key of the log state it was resolved against, its type's id there, and how many of its dispatches
 * may take the fused path before one must go through the tracer again (a dispatch site is due, or at
 * detail `handlers` a dispatch whose handlers are timed).
 */
export interface LogCache {
  readonly key: object;
  readonly type: number;
  left: number;
}

/**
 * @internal A dispatch tracer whose dispatch records the bus may write itself (the Node recorder,
 * recorder/recorder.ts): while it is the one dispatch tracer, `fused` and no trace id source is hooked,
 * the buses of every copy that loaded bus/fused-dispatch.ts call `startLogged`/`endLogged` around the
 * untraced loops instead of the tracer's hooks. Its stack, sequence numbers, clock and ring are those
 * its hooks use, so fused and traced dispatches (an emitter's, a flushed event's, one whose site is due)
 * interleave as one stream. Every copy of the package calls it: bump RUNTIME_VERSION when this changes
 * incompatibly.
 */
export interface DispatchLog extends DispatchTracer {
  /** True while a dispatch needs nothing but its record (no payloads, breakpoints or debugger tracking; at detail `handlers`, one whose handlers are not timed). */
  readonly fused: boolean;
  /** Changes whenever what a list resolved may be stale (a new recording or site sampler). */
  readonly logKey: object;
  /**
   * The cache for a list of `type` (a subscribed one), refreshed (`stale`: what the list had); null when
   * its next dispatch cannot be fused (its site is due, its handlers are to be timed, or the type is not interned yet).
   */
  resolveList(stale: LogCache | null, type: string): LogCache | null;
  /** A dispatch starts: returns its stack position (for `endLogged`). `depth`: the bus's own count. */
  startLogged(busId: number, typeId: number, depth: number): number;
  /** The dispatch at stack position `top` ended. */
  endLogged(top: number, delivered: number, consumedBy: number): void;
}

/** A handler call as the bus makes it: `handler(payload, ctx)`, or an emitter's `listener.apply(target, args)`. */
export type HandlerCall = (this: unknown, a: never, b: never) => unknown;

/**
 * Carries an ambient context (OpenTelemetry's active context) across the deferred queue: `enqueue`
 * captures it and `flush` dispatches that event inside it again. One carrier acts at a time (the
 * latest hooked): an ambient context is process-wide, so two carriers would carry the same thing.
 */
export interface ContextCarrier {
  /** The context active now; undefined when there is none worth keeping. Never an array (the queue keeps a producer port's origin in the same slot). */
  capture(): unknown;
  /** Calls `fn.call(thisArg, a, b)` inside `captured` and returns its result. */
  run<T, A, B, R>(captured: unknown, fn: (this: T, a: A, b: B) => R, thisArg: T, a: A, b: B): R;
}

// This copy's hot-path slots. They mirror the process-wide runtime (runtime.ts): a probe in any copy
// of the package installs its tracer in every copy, and every copy's buses are in one registry.
let tracer: BusTracer | undefined = runtime.tracer;
let dispatchTracer: DispatchTracer | undefined = runtime.dispatchTracer;
// The acting trace id source, as this copy last heard: the recorder asks for it per dispatch, and the
// shared runtime object is in dictionary mode (the threads' id counters are accessors), where every
// read is a hash lookup. Refreshed with the tracer slots: hooking a source re-installs them.
let traceIdSource: TraceIdSource | undefined = runtime.traceIdSource;
runtime.copies.push((t, d) => {
  tracer = t;
  dispatchTracer = d;
  traceIdSource = runtime.traceIdSource;
});
const liveBuses = runtime.buses;

/** @internal Installed by the probe; `undefined` detaches. Applies to every copy of the package. */
export function setBusTracer(t: BusTracer | undefined): void {
  // The probe's own slots, never what is installed (that may be a hooked consumer or a multiplexer).
  setTracers(t, runtime.primaryDispatchTracer);
}
/** @internal Installed by the probe while a client or trace file records. Applies to every copy. */
export function setDispatchTracer(t: DispatchTracer | undefined): void {
  setTracers(runtime.primaryTracer, t);
}
/** @internal The probe's slot (what `setBusTracer` set), whatever else is hooked. */
export function primaryBusTracer(): BusTracer | undefined {
  return runtime.primaryTracer;
}
/** @internal The probe's slot (what `setDispatchTracer` set), whatever else is hooked. */
export function primaryDispatchTracer(): DispatchTracer | undefined {
  return runtime.primaryDispatchTracer;
}

/** Removes a hooked consumer. Calling it again does nothing. */
export type Unhook = () => void;

function hook<T>(list: T[], consumer: T): Unhook {
  // The multiplexers come with hooking: a page that never hooks a consumer does not ship them.
  const parts = (runtime.optional ??= {});
  parts.busTracerMux ??= (all) => new BusTracerMux(all);
  parts.dispatchTracerMux ??= (all) => new DispatchTracerMux(all);
  list.push(consumer);
  installTracers();
  let hooked = true;
  return () => {
    if (!hooked) return;
    hooked = false;
    const i = list.indexOf(consumer);
    if (i >= 0) list.splice(i, 1);
    installTracers();
  };
}

/**
 * Hooks a lifecycle consumer (an OpenTelemetry bridge, an emitter adapter, a test) beside the probe
 * and any others; every copy of the package in the process calls it. Returns its unhook.
 */
export function hookBusTracer(consumer: BusTracer): Unhook {
  return hook(runtime.busHooks, consumer);
}
/**
 * Hooks a dispatch consumer beside the probe and any others. While it is hooked, every dispatch
 * takes the traced path (a hooked consumer should be hooked only while it is wanted).
 */
export function hookDispatchTracer(consumer: DispatchTracer): Unhook {
  return hook(runtime.dispatchHooks, consumer);
}

/** Hooks a context carrier (see `ContextCarrier`); the latest hooked acts. Returns its unhook. */
export function hookContextCarrier(carrier: ContextCarrier): Unhook {
  const list = contextCarriers();
  list.push(carrier);
  runtime.contextCarrier = carrier;
  let hooked = true;
  return () => {
    if (!hooked) return;
    hooked = false;
    const i = list.lastIndexOf(carrier);
    if (i >= 0) list.splice(i, 1);
    runtime.contextCarrier = list.length === 0 ? undefined : list[list.length - 1];
  };
}

/** The runtime's carrier list (a runtime made by an older copy of this version lacks it until now). */
function contextCarriers(): ContextCarrier[] {
  return (runtime.contextCarriers ??= []);
}

/**
 * The distributed-tracing trace id of the innermost dispatch running now (OpenTelemetry's, while a
 * sampled span is open for it), or undefined. The recorder asks it when a dispatch ends, before the
 * consumers hooked after it end theirs, and puts the id in the dispatch record.
 */
export type TraceIdSource = () => string | undefined;

/** Hooks a trace id source; the latest hooked acts. Returns its unhook. */
export function hookTraceIdSource(source: TraceIdSource): Unhook {
  const list = (runtime.traceIdSources ??= []);
  list.push(source);
  runtime.traceIdSource = source;
  installTracers(); // tells every copy
  let hooked = true;
  return () => {
    if (!hooked) return;
    hooked = false;
    const i = list.lastIndexOf(source);
    if (i >= 0) list.splice(i, 1);
    runtime.traceIdSource = list.length === 0 ? undefined : list[list.length - 1];
    installTracers();
  };
}

/** @internal The acting trace id source, if any (read by the recorder once per recorded dispatch). */
export function currentTraceIdSource(): TraceIdSource | undefined {
  return traceIdSource;
}

/** @internal The acting context carrier, if any (read by `enqueue` and `flush`, never by `dispatch`). */
export function currentContextCarrier(): ContextCarrier | undefined {
  return runtime.contextCarrier;
}

/** @internal What the buses call now (the consumer itself, or a multiplexer). */
export function currentBusTracer(): BusTracer | undefined {
  return tracer;
}
/** @internal Read by `dispatch` once per call. */
export function currentDispatchTracer(): DispatchTracer | undefined {
  return dispatchTracer;
}
/** @internal Every bus registers itself so a probe started later can snapshot it. */
export function registerBus(bus: TracedBus): WeakRef<TracedBus> {
  const ref = new WeakRef(bus);
  liveBuses.add(ref);
  tracer?.busCreated(bus);
  return ref;
}
/** @internal */
export function unregisterBus(ref: WeakRef<TracedBus>): void {
  liveBuses.delete(ref);
}
/** @internal Buses alive now (of every copy of the package), in creation order. */
export function* allBuses(): IterableIterator<TracedBus> {
  for (const ref of liveBuses) {
    const bus = ref.deref();
    if (bus === undefined) liveBuses.delete(ref);
    else yield bus;
  }
}
