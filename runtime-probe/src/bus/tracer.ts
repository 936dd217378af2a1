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
   * detail `dispatch`): the bus may then skip them, which saves two calls per handler. Read once
   * per dispatch; absent means true. `handlerError` is called regardless.
   */
  readonly handlerHooks?: boolean;
  /**
   * True when a client asked to break on this type (event breakpoints). `dispatch` then runs a
   * `debugger` statement itself, so the debugger stops one frame below the dispatching code.
   */
  shouldBreak(bus: TracedBus, type: string): boolean;
}

// This copy's hot-path slots. They mirror the process-wide runtime (runtime.ts): a probe in any copy
// of the package installs its tracer in every copy, and every copy's buses are in one registry.
let tracer: BusTracer | undefined = runtime.tracer;
let dispatchTracer: DispatchTracer | undefined = runtime.dispatchTracer;
runtime.copies.push((t, d) => {
  tracer = t;
  dispatchTracer = d;
});
const liveBuses = runtime.buses;

/** @internal Installed by the probe; `undefined` detaches. Applies to every copy of the package. */
export function setBusTracer(t: BusTracer | undefined): void {
  setTracers(t, runtime.dispatchTracer);
}
/** @internal Installed by the probe while a client or trace file records. Applies to every copy. */
export function setDispatchTracer(t: DispatchTracer | undefined): void {
  setTracers(runtime.tracer, t);
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
