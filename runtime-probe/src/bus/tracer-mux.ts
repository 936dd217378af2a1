// Several consumers on the tracer seam at once (the recorder, an OpenTelemetry bridge, emitter
// adapters, tests). The bus keeps one slot per kind and never loops: with one consumer the slot
// holds that consumer itself (the detached and single-consumer paths are unchanged); only with two
// or more does it hold a multiplexer that fans each call out, in hook order.
//
// Dispatch sequence numbers are per consumer: each consumer's `dispatchStart` returns its own, and
// each later call for that dispatch gets that consumer's number back (parents too). The bus sees the
// multiplexer's own numbers. No allocation per dispatch: one Float64Array row per nesting level. A
// consumer that throws is skipped for that call only; the others still run.
// No Node built-ins here (the bus-only entry includes this file).

import type { BusTracer, DispatchTracer, HandlerCall, TracedBus, TracedSubscription, UnsubscribeReason } from './tracer';

/** Fans BusTracer calls out to every consumer, in hook order. */
export class BusTracerMux implements BusTracer {
  constructor(readonly consumers: readonly BusTracer[]) {}

  // Lifecycle calls only (never per dispatch), so one closure per call is fine here.
  private each(call: (consumer: BusTracer) => void): void {
    for (const c of this.consumers) {
      try {
        call(c);
      } catch {
        // one consumer's failure costs the others nothing
      }
    }
  }

  busCreated(bus: TracedBus): void {
    this.each((c) => c.busCreated(bus));
  }

  busDisposed(bus: TracedBus): void {
    this.each((c) => c.busDisposed(bus));
  }

  subscribed(bus: TracedBus, sub: TracedSubscription): void {
    this.each((c) => c.subscribed(bus, sub));
  }

  unsubscribed(bus: TracedBus, sub: TracedSubscription, reason: UnsubscribeReason): void {
    this.each((c) => c.unsubscribed(bus, sub, reason));
  }

  ownerCollected(bus: TracedBus, ownerDescription: string | undefined, removed: number, ownerId?: number): void {
    this.each((c) => c.ownerCollected(bus, ownerDescription, removed, ownerId));
  }

  enqueued(bus: TracedBus, type: string, queueLength: number): void {
    this.each((c) => c.enqueued(bus, type, queueLength));
  }

  flushed(bus: TracedBus, dispatched: number): void {
    this.each((c) => c.flushed(bus, dispatched));
  }

  depthLimitHit(bus: TracedBus, type: string, depth: number): void {
    this.each((c) => c.depthLimitHit(bus, type, depth));
  }
}

/** Fans DispatchTracer calls out to every consumer, each with its own sequence numbers. */
export class DispatchTracerMux implements DispatchTracer {
  /** Columns per row: the multiplexer's own sequence number, then each consumer's. */
  private readonly width: number;
  /** Row per open dispatch (innermost last). */
  private rows: Float64Array;
  private top = -1;
  private lastSeq = 0;

  /** Present only when a consumer runs handlers in a scope of its own (see `DispatchTracer.callHandler`). */
  readonly callHandler?: DispatchTracer['callHandler'];

  constructor(readonly consumers: readonly DispatchTracer[]) {
    this.width = consumers.length + 1;
    this.rows = new Float64Array(64 * this.width);
    const scoping: number[] = [];
    for (let i = 0; i < consumers.length; i++) if (consumers[i].callHandler !== undefined) scoping.push(i);
    if (scoping.length > 0) this.callHandler = (seq, sub, fn, thisArg, a, b) => this.callScoped(scoping, 0, seq, sub, fn, thisArg, a, b);
  }

  /**
   * The handler call inside the scopes of the consumers at `scoping[k..]`, outermost first. With one
   * scoping consumer (the usual case) no closure is made; each further one costs one per call.
   */
  private callScoped(
    scoping: readonly number[],
    k: number,
    seq: number,
    sub: TracedSubscription,
    fn: HandlerCall,
    thisArg: unknown,
    a: unknown,
    b: unknown,
  ): unknown {
    if (k === scoping.length) return (fn as (this: unknown, a: unknown, b: unknown) => unknown).call(thisArg, a, b);
    const i = scoping[k];
    const r = this.rowOf(seq);
    const own = r < 0 ? 0 : this.rows[r * this.width + 1 + i];
    const consumer = this.consumers[i];
    if (own === 0) return this.callScoped(scoping, k + 1, seq, sub, fn, thisArg, a, b);
    if (k === scoping.length - 1) return consumer.callHandler!(own, sub, fn, thisArg, a, b);
    const inner = (() => this.callScoped(scoping, k + 1, seq, sub, fn, thisArg, a, b)) as HandlerCall;
    return consumer.callHandler!(own, sub, inner, undefined, undefined, undefined);
  }

  /** Per-handler hooks are wanted when any consumer wants them. */
  get handlerHooks(): boolean {
    for (const c of this.consumers) if (c.handlerHooks !== false) return true;
    return false;
  }

  dispatchStart(bus: TracedBus, type: string, depth: number, parentSeq: number, payload: unknown): number {
    const w = this.width;
    const parentRow = parentSeq === 0 ? -1 : this.rowOf(parentSeq);
    const top = ++this.top;
    if ((top + 1) * w > this.rows.length) {
      const next = new Float64Array(this.rows.length * 2);
      next.set(this.rows);
      this.rows = next;
    }
    const rows = this.rows;
    const b = top * w;
    const seq = ++this.lastSeq;
    rows[b] = seq;
    const consumers = this.consumers;
    for (let i = 1; i < w; i++) {
      const parent = parentRow < 0 ? 0 : rows[parentRow * w + i];
      let own = 0;
      try {
        own = consumers[i - 1].dispatchStart(bus, type, depth, parent, payload);
      } catch {
        // this consumer misses this dispatch; the others still get it
      }
      rows[b + i] = own;
    }
    return seq;
  }

  /** The row of the open dispatch numbered `seq` (innermost first), -1 when none is. */
  private rowOf(seq: number): number {
    const w = this.width;
    const rows = this.rows;
    for (let r = this.top; r >= 0; r--) if (rows[r * w] === seq) return r;
    return -1;
  }

  handlerStart(seq: number, sub: TracedSubscription): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const b = r * this.width;
    for (let i = 1; i < this.width; i++) {
      const own = this.rows[b + i];
      if (own === 0) continue;
      try {
        this.consumers[i - 1].handlerStart(own, sub);
      } catch {
        // one consumer's failure costs the others nothing
      }
    }
  }

  handlerEnd(seq: number, sub: TracedSubscription, consumed: boolean): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const b = r * this.width;
    for (let i = 1; i < this.width; i++) {
      const own = this.rows[b + i];
      if (own === 0) continue;
      try {
        this.consumers[i - 1].handlerEnd(own, sub, consumed);
      } catch {
        // one consumer's failure costs the others nothing
      }
    }
  }

  handlerError(seq: number, bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const b = r * this.width;
    for (let i = 1; i < this.width; i++) {
      const own = this.rows[b + i];
      if (own === 0) continue;
      try {
        this.consumers[i - 1].handlerError(own, bus, sub, error);
      } catch {
        // one consumer's failure costs the others nothing
      }
    }
  }

  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const b = r * this.width;
    for (let i = 1; i < this.width; i++) {
      const own = this.rows[b + i];
      if (own === 0) continue;
      try {
        this.consumers[i - 1].dispatchEnd(own, delivered, consumedBy);
      } catch {
        // one consumer's failure costs the others nothing
      }
    }
    // Rows above it belong to dispatches that never ended (a throw past them): they end with it.
    this.top = r - 1;
  }

  shouldBreak(bus: TracedBus, type: string): boolean {
    let any = false;
    for (const c of this.consumers) {
      try {
        if (c.shouldBreak(bus, type)) any = true;
      } catch {
        // not this consumer's break
      }
    }
    return any;
  }
}
