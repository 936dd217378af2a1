// Several consumers on the tracer seam at once (tracer.ts hookBusTracer / hookDispatchTracer,
// tracer-mux.ts): each sees every call with its own sequence numbers, one failing consumer costs the
// others nothing, and with a single consumer the bus calls it directly (no multiplexer in between).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import {
  currentBusTracer,
  currentDispatchTracer,
  hookBusTracer,
  hookDispatchTracer,
  setDispatchTracer,
  type BusTracer,
  type DispatchTracer,
  type TracedBus,
  type TracedSubscription,
} from '../../../runtime-probe/src/bus/tracer';

interface Events {
  outer: number;
  inner: number;
}

/** Writes its own view of the dispatch tree: `type#seq<parent` per start, plus handler calls. */
class Consumer implements BusTracer, DispatchTracer {
  readonly log: string[] = [];
  readonly subscribedTypes: string[] = [];
  handlerHooks: boolean | undefined = undefined;
  private seq: number;
  constructor(
    readonly name: string,
    firstSeq: number,
    private readonly fail = false,
  ) {
    this.seq = firstSeq;
  }
  busCreated(): void {}
  busDisposed(): void {}
  subscribed(_bus: TracedBus, sub: TracedSubscription): void {
    if (this.fail) throw new Error(`${this.name} fails`);
    this.subscribedTypes.push(sub.type);
  }
  unsubscribed(): void {}
  ownerCollected(): void {}
  enqueued(): void {}
  flushed(): void {}
  depthLimitHit(): void {}
  dispatchStart(_bus: TracedBus, type: string, depth: number, parentSeq: number): number {
    const seq = ++this.seq;
    this.log.push(`${type}#${seq}<${parentSeq}@${depth}`);
    if (this.fail) throw new Error(`${this.name} fails`);
    return seq;
  }
  handlerStart(seq: number, sub: TracedSubscription): void {
    this.log.push(`h:${sub.type}#${seq}`);
  }
  handlerEnd(seq: number): void {
    this.log.push(`/h#${seq}`);
  }
  handlerError(seq: number, _bus: TracedBus, _sub: TracedSubscription, error: unknown): void {
    this.log.push(`err#${seq}:${(error as Error).message}`);
  }
  dispatchEnd(seq: number, delivered: number): void {
    this.log.push(`end#${seq}:${delivered}`);
  }
  shouldBreak(): boolean {
    return false;
  }
}

function nestedWorkload(bus: EventBus<Events>): void {
  bus.dispatch('outer', 1);
}

test('two hooked dispatch consumers each see every dispatch, with their own sequence numbers and parents', () => {
  const a = new Consumer('a', 0);
  const b = new Consumer('b', 500);
  const bus = new EventBus<Events>({ name: 'hooks' });
  bus.subscribe('outer', () => void bus.dispatch('inner', 2));
  bus.subscribe('inner', () => undefined);
  const unhookA = hookDispatchTracer(a);
  const unhookB = hookDispatchTracer(b);
  try {
    nestedWorkload(bus);
  } finally {
    unhookB();
    unhookA();
    bus.dispose();
  }
  assert.deepEqual(a.log, ['outer#1<0@0', 'h:outer#1', 'inner#2<1@1', 'h:inner#2', '/h#2', 'end#2:1', '/h#1', 'end#1:1']);
  assert.deepEqual(b.log, ['outer#501<0@0', 'h:outer#501', 'inner#502<501@1', 'h:inner#502', '/h#502', 'end#502:1', '/h#501', 'end#501:1']);
  assert.equal(currentDispatchTracer(), undefined, 'nothing left installed');
});

test('one consumer is called directly; a second brings the multiplexer, unhooking it takes it away', () => {
  const probeSlot = new Consumer('probe', 0);
  const extra = new Consumer('extra', 0);
  setDispatchTracer(probeSlot);
  try {
    assert.equal(currentDispatchTracer(), probeSlot, 'single consumer: no indirection');
    const unhook = hookDispatchTracer(extra);
    assert.notEqual(currentDispatchTracer(), probeSlot);
    assert.notEqual(currentDispatchTracer(), undefined);
    unhook();
    unhook(); // twice is harmless
    assert.equal(currentDispatchTracer(), probeSlot);
  } finally {
    setDispatchTracer(undefined);
  }
  assert.equal(currentDispatchTracer(), undefined);
});

test('a failing consumer costs the others nothing (lifecycle and dispatch)', () => {
  const bad = new Consumer('bad', 0, true);
  const good = new Consumer('good', 0);
  const unhooks = [hookBusTracer(bad), hookBusTracer(good), hookDispatchTracer(bad), hookDispatchTracer(good)];
  const bus = new EventBus<Events>({ name: 'failing' });
  let calls = 0;
  try {
    bus.subscribe('inner', () => void calls++);
    assert.equal(bus.dispatch('inner', 1).delivered, 1);
  } finally {
    for (const u of unhooks) u();
    bus.dispose();
  }
  assert.equal(calls, 1);
  assert.deepEqual(good.subscribedTypes, ['inner']);
  assert.deepEqual(good.log, ['inner#1<0@0', 'h:inner#1', '/h#1', 'end#1:1']);
  assert.equal(currentBusTracer(), undefined);
});

test('handlerHooks false: the bus skips handlerStart/handlerEnd, still reports errors and counts deliveries', () => {
  const c = new Consumer('dispatch-only', 0);
  c.handlerHooks = false;
  const bus = new EventBus<Events>({ name: 'no-handler-hooks' });
  bus.subscribe('inner', () => undefined);
  bus.subscribe('inner', () => {
    throw new Error('boom');
  });
  const origError = console.error;
  console.error = () => undefined;
  const unhook = hookDispatchTracer(c);
  try {
    bus.dispatch('inner', 1);
  } finally {
    unhook();
    console.error = origError;
    bus.dispose();
  }
  assert.deepEqual(c.log, ['inner#1<0@0', 'err#1:boom', 'end#1:2']);
});
