// A handler chain that runs out of JavaScript stack is reported once, by the outermost dispatch,
// after the stack has unwound (each nested level used to swallow it, and reporting at the deepest
// level itself overflowed, so nothing was ever printed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DispatchStackOverflowError, EventBus } from '../../../runtime-probe/src/bus/index';
import type { HandlerErrorInfo } from '../../../runtime-probe/src/bus/index';
import { setDispatchTracer, type DispatchTracer } from '../../../runtime-probe/src/bus/tracer';

interface Events {
  down: number;
  other: void;
}

function recursingBus(reports: { error: unknown; info: HandlerErrorInfo }[]): { bus: EventBus<Events>; deepest: () => number; firstId: number } {
  const bus = new EventBus<Events>({ name: 'deep', maxDepth: 100_000, onError: (error, info) => reports.push({ error, info }) });
  let deepest = 0;
  const first = bus.subscribe('down', (n) => {
    if (n > deepest) deepest = n;
    bus.dispatch('down', n + 1);
  });
  return { bus, deepest: () => deepest, firstId: first.id };
}

test('a stack overflow in nested dispatches reaches onError exactly once, with the depth it reached', () => {
  const reports: { error: unknown; info: HandlerErrorInfo }[] = [];
  const { bus, deepest, firstId } = recursingBus(reports);
  const after: number[] = [];
  // A second handler at every level: before the fix each level went on with it after the overflow.
  bus.subscribe('down', (n) => {
    after.push(n);
  });
  const result = bus.dispatch('down', 0);
  assert.ok(deepest() > 100, `recursed to ${deepest()}`);
  assert.equal(reports.length, 1, `reports: ${reports.length}`);
  const { error, info } = reports[0];
  assert.ok(error instanceof DispatchStackOverflowError, String(error));
  assert.equal(error.type, 'down');
  assert.equal(error.busName, 'deep');
  assert.ok(error.depth > 100 && error.depth <= deepest() + 1, `depth ${error.depth}, deepest ${deepest()}`);
  assert.match(error.message, /stack/);
  assert.match(error.message, new RegExp(`depth ${error.depth}\\b`));
  assert.ok(error.cause instanceof RangeError);
  assert.deepEqual(info, { bus: 'deep', type: 'down', subscriptionId: firstId });
  // The outermost dispatch goes on as with any handler error; the abandoned levels did not.
  assert.deepEqual(after, [0]);
  assert.deepEqual(result, { delivered: 2, consumed: false });
  // The bus is fine afterwards.
  let ok = false;
  bus.subscribe('other', () => {
    ok = true;
  });
  bus.dispatch('other');
  assert.ok(ok);
});

test('the default onError prints the overflow once', () => {
  const bus = new EventBus<Events>({ name: 'deep-default', maxDepth: 100_000 });
  bus.subscribe('down', (n) => {
    bus.dispatch('down', n + 1);
  });
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args);
  };
  try {
    bus.dispatch('down', 0);
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 1);
  assert.ok(lines[0].some((a) => a instanceof DispatchStackOverflowError));
});

test('a handler that recurses on its own (no nested dispatch) is reported by its own dispatch', () => {
  const reports: { error: unknown; info: HandlerErrorInfo }[] = [];
  const bus = new EventBus<Events>({ name: 'self', onError: (error, info) => reports.push({ error, info }) });
  const recurse = (n: number): number => recurse(n + 1) + 1;
  bus.subscribe('other', () => {
    recurse(0);
  });
  bus.dispatch('other');
  assert.equal(reports.length, 1);
  assert.ok(reports[0].error instanceof DispatchStackOverflowError);
  assert.equal((reports[0].error as DispatchStackOverflowError).depth, 0);
});

test('while recording, the overflow is recorded once, at the outermost dispatch', () => {
  const errors: { seq: number; error: unknown }[] = [];
  let nextSeq = 1;
  const tracer: DispatchTracer = {
    dispatchStart: () => nextSeq++,
    handlerStart: () => undefined,
    handlerEnd: () => undefined,
    handlerError: (seq, _bus, _sub, error) => {
      errors.push({ seq, error });
    },
    dispatchEnd: () => undefined,
    shouldBreak: () => false,
  };
  const reports: { error: unknown; info: HandlerErrorInfo }[] = [];
  const { bus } = recursingBus(reports);
  setDispatchTracer(tracer);
  try {
    bus.dispatch('down', 0);
  } finally {
    setDispatchTracer(undefined);
  }
  assert.equal(reports.length, 1);
  assert.equal(errors.length, 1);
  assert.equal(errors[0].seq, 1, 'recorded on the outermost dispatch');
  assert.equal(errors[0].error, reports[0].error);
});
