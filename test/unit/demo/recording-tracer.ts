// Test helper: records what the bus reports through its tracer seam (the same calls the probe's
// recorder receives), in plain arrays, so demo tests can assert on the raw signals without a socket.
import {
  setBusTracer,
  setDispatchTracer,
  type BusTracer,
  type DispatchTracer,
  type TracedBus,
  type TracedSubscription,
  type UnsubscribeReason,
} from '../../../runtime-probe/src/bus/tracer';

export interface SubscribeEvent {
  readonly bus: string;
  readonly id: number;
  readonly type: string;
  readonly label: string | undefined;
  readonly owner: string | undefined;
  readonly priority: number;
  readonly once: boolean;
}
export interface UnsubscribeEvent {
  readonly bus: string;
  readonly id: number;
  readonly type: string;
  readonly label: string | undefined;
  readonly owner: string | undefined;
  readonly reason: UnsubscribeReason;
  readonly calls: number;
}
export interface DispatchEvent {
  readonly seq: number;
  readonly bus: string;
  readonly type: string;
  readonly depth: number;
  readonly parentSeq: number;
  readonly start: number;
  duration: number;
  delivered: number;
  consumedBy: number;
}
export interface HandlerCall {
  readonly seq: number;
  readonly id: number;
  readonly label: string | undefined;
  readonly duration: number;
  readonly consumed: boolean;
}
export interface HandlerErrorEvent {
  readonly seq: number;
  readonly bus: string;
  readonly id: number;
  readonly label: string | undefined;
  readonly error: unknown;
}

export class RecordingTracer implements BusTracer, DispatchTracer {
  readonly subscribes: SubscribeEvent[] = [];
  readonly unsubscribes: UnsubscribeEvent[] = [];
  readonly dispatches: DispatchEvent[] = [];
  readonly handlerCalls: HandlerCall[] = [];
  readonly handlerErrors: HandlerErrorEvent[] = [];
  readonly depthLimits: { bus: string; type: string; depth: number }[] = [];
  readonly enqueues: { bus: string; type: string; queueLength: number }[] = [];
  readonly flushes: { bus: string; dispatched: number }[] = [];
  readonly busesCreated: string[] = [];
  private readonly open = new Map<number, DispatchEvent>();
  /** Start times of the handler calls in progress, innermost last (handlerEnd follows every handlerStart). */
  private readonly handlerStarts: number[] = [];
  private nextSeq = 1;

  install(): this {
    setBusTracer(this);
    setDispatchTracer(this);
    return this;
  }
  uninstall(): void {
    setBusTracer(undefined);
    setDispatchTracer(undefined);
  }

  // BusTracer
  busCreated(bus: TracedBus): void {
    this.busesCreated.push(bus.name);
  }
  busDisposed(): void {}
  subscribed(bus: TracedBus, sub: TracedSubscription): void {
    this.subscribes.push({ bus: bus.name, id: sub.id, type: sub.type, label: sub.label, owner: sub.ownerDescription, priority: sub.priority, once: sub.once });
  }
  unsubscribed(bus: TracedBus, sub: TracedSubscription, reason: UnsubscribeReason): void {
    this.unsubscribes.push({ bus: bus.name, id: sub.id, type: sub.type, label: sub.label, owner: sub.ownerDescription, reason, calls: sub.calls });
  }
  ownerCollected(): void {}
  enqueued(bus: TracedBus, type: string, queueLength: number): void {
    this.enqueues.push({ bus: bus.name, type, queueLength });
  }
  flushed(bus: TracedBus, dispatched: number): void {
    this.flushes.push({ bus: bus.name, dispatched });
  }
  depthLimitHit(bus: TracedBus, type: string, depth: number): void {
    this.depthLimits.push({ bus: bus.name, type, depth });
  }

  // DispatchTracer
  dispatchStart(bus: TracedBus, type: string, depth: number, parentSeq: number): number {
    const seq = this.nextSeq++;
    const d: DispatchEvent = { seq, bus: bus.name, type, depth, parentSeq, start: performance.now(), duration: 0, delivered: 0, consumedBy: 0 };
    this.open.set(seq, d);
    this.dispatches.push(d);
    return seq;
  }
  handlerStart(): void {
    this.handlerStarts.push(performance.now());
  }
  handlerEnd(seq: number, sub: TracedSubscription, consumed: boolean): void {
    const start = this.handlerStarts.pop() ?? performance.now();
    this.handlerCalls.push({ seq, id: sub.id, label: sub.label, duration: performance.now() - start, consumed });
  }
  handlerError(seq: number, bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    this.handlerErrors.push({ seq, bus: bus.name, id: sub.id, label: sub.label, error });
  }
  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    const d = this.open.get(seq);
    if (!d) return;
    this.open.delete(seq);
    d.duration = performance.now() - d.start;
    d.delivered = delivered;
    d.consumedBy = consumedBy;
  }
  shouldBreak(): boolean {
    return false;
  }

  /** The label of subscription `id`, from its subscribe record. */
  labelOf(id: number): string | undefined {
    return this.subscribes.find((s) => s.id === id)?.label;
  }
}
