// The optional `callHandler` of a dispatch consumer (what the OpenTelemetry bridge uses to run
// handlers in a span's context): the handler runs inside it exactly once, with its arguments and
// return value, and a consumer that fails to call it cannot lose the call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import { probe } from '../../../runtime-probe/src/index';
import { hookDispatchTracer, type DispatchTracer, type HandlerCall } from '../../../runtime-probe/src/bus/tracer';

interface Events {
  tick: number;
}

function consumer(callHandler: DispatchTracer['callHandler']): DispatchTracer {
  let seq = 0;
  return {
    dispatchStart: () => ++seq,
    handlerStart: () => undefined,
    handlerEnd: () => undefined,
    handlerError: () => undefined,
    dispatchEnd: () => undefined,
    shouldBreak: () => false,
    callHandler,
  };
}

test('handlers run inside callHandler, once each, with payload, ctx and the consume result', () => {
  const inside: string[] = [];
  let depth = 0;
  const unhook = hookDispatchTracer(
    consumer((_seq, sub, fn, thisArg, a, b) => {
      depth++;
      try {
        inside.push(`${sub.label}@${depth}`);
        return (fn as (this: unknown, a: unknown, b: unknown) => unknown).call(thisArg, a, b);
      } finally {
        depth--;
      }
    }),
  );
  try {
    const bus = new EventBus<Events>({ name: 'scoped' });
    const seen: number[] = [];
    bus.subscribe(
      'tick',
      (n, ctx) => {
        seen.push(n, depth);
        assert.equal(ctx.type, 'tick');
        return n === 2; // consumes the second dispatch
      },
      { label: 'A', priority: 1 },
    );
    bus.subscribe('tick', (n) => void seen.push(-n), { label: 'B' });
    assert.equal(bus.dispatch('tick', 1).delivered, 2);
    const r = bus.dispatch('tick', 2);
    assert.equal(r.consumed, true);
    assert.deepEqual(seen, [1, 1, -1, 2, 1]);
    assert.deepEqual(inside, ['A@1', 'B@1', 'A@1']);
    bus.dispose();
  } finally {
    unhook();
  }
});

test('a callHandler that throws or returns without calling the handler cannot lose the call', () => {
  const original = console.error;
  console.error = () => undefined;
  for (const broken of [
    () => {
      throw new Error('tracer bug');
    },
    () => undefined,
  ] as NonNullable<DispatchTracer['callHandler']>[]) {
    const unhook = hookDispatchTracer(consumer(broken));
    try {
      const bus = new EventBus<Events>({ name: 'robust', onError: (e) => assert.fail(String(e)) });
      let calls = 0;
      bus.subscribe('tick', () => {
        calls++;
        // A nested dispatch inside: its own fallback must not make the outer call run twice.
        if (calls === 1) bus.dispatch('tick', 2);
      });
      assert.equal(bus.dispatch('tick', 1).delivered, 1);
      assert.equal(calls, 2);
      bus.dispose();
    } finally {
      unhook();
    }
  }
  console.error = original;
});

test('a throwing handler inside callHandler is an ordinary handler error', () => {
  const unhook = hookDispatchTracer(consumer((_s, _sub, fn: HandlerCall, t, a, b) => (fn as (this: unknown, a: unknown, b: unknown) => unknown).call(t, a, b)));
  try {
    const errors: unknown[] = [];
    const bus = new EventBus<Events>({ name: 'throws', onError: (e) => errors.push(e) });
    let after = 0;
    bus.subscribe(
      'tick',
      () => {
        throw new Error('handler bug');
      },
      { priority: 1 },
    );
    bus.subscribe('tick', () => void after++);
    assert.equal(bus.dispatch('tick', 1).delivered, 2);
    assert.equal(after, 1);
    assert.equal((errors[0] as Error).message, 'handler bug');
    bus.dispose();
  } finally {
    unhook();
  }
});

test('watched emitter listeners run inside callHandler too, with their this and arguments', () => {
  let scoped = 0;
  const unhook = hookDispatchTracer(
    consumer((_s, _sub, fn, t, a, b) => {
      scoped++;
      return (fn as (this: unknown, a: unknown, b: unknown) => unknown).call(t, a, b);
    }),
  );
  const ee = new EventEmitter();
  const handle = probe.watch(ee);
  try {
    let got: unknown[] = [];
    ee.on('x', function (this: unknown, ...args: unknown[]) {
      got = [this === ee, ...args];
    });
    assert.equal(ee.emit('x', 1, 2, 3), true);
    assert.deepEqual(got, [true, 1, 2, 3]);
    assert.equal(scoped, 1);
  } finally {
    handle.dispose();
    unhook();
  }
});
