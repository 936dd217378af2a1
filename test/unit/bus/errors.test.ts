// Error isolation: one failing handler never stops the others, and the error reaches onError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import type { HandlerErrorInfo } from '../../../runtime-probe/src/bus/index';

interface Events {
  save: { file: string };
  tick: void;
}

/** Runs `fn` with console.error captured (restored afterwards). */
function captureConsoleError(fn: () => void): unknown[][] {
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args);
  };
  try {
    fn();
  } finally {
    console.error = original;
  }
  return lines;
}

test('a throwing handler does not stop the handlers after it', () => {
  const bus = new EventBus<Events>({ onError: () => {} });
  const calls: string[] = [];
  bus.subscribe('tick', () => calls.push('before'));
  bus.subscribe('tick', () => {
    throw new Error('boom');
  });
  bus.subscribe('tick', () => calls.push('after'));
  const result = bus.dispatch('tick');
  assert.deepEqual(calls, ['before', 'after']);
  assert.deepEqual(result, { delivered: 3, consumed: false });
});

test('onError receives the error with the bus name, event type and subscription id', () => {
  const reports: { error: unknown; info: HandlerErrorInfo }[] = [];
  const bus = new EventBus<Events>({ name: 'files', onError: (error, info) => reports.push({ error, info }) });
  const boom = new Error('disk full');
  const sub = bus.subscribe('save', () => {
    throw boom;
  });
  bus.dispatch('save', { file: 'a.txt' });
  assert.equal(reports.length, 1);
  assert.equal(reports[0].error, boom);
  assert.deepEqual(reports[0].info, { bus: 'files', type: 'save', subscriptionId: sub.id });
});

test("errors of '*' handlers are reported with the dispatched type", () => {
  const types: string[] = [];
  const bus = new EventBus<Events>({ onError: (_e, info) => types.push(info.type) });
  bus.subscribe('*', () => {
    throw new Error('star');
  });
  bus.dispatch('save', { file: 'x' });
  assert.deepEqual(types, ['save']);
});

test('non-Error values thrown by handlers are reported as they are', () => {
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({ onError: (e) => errors.push(e) });
  bus.subscribe('tick', () => {
    throw 'a string';
  });
  bus.dispatch('tick');
  assert.deepEqual(errors, ['a string']);
});

test('without onError, handler errors go to console.error naming the bus, type and subscription', () => {
  const bus = new EventBus<Events>({ name: 'ui' });
  const sub = bus.subscribe('tick', () => {
    throw new Error('render failed');
  });
  let later = 0;
  bus.subscribe('tick', () => {
    later++;
  });
  const lines = captureConsoleError(() => bus.dispatch('tick'));
  assert.equal(later, 1);
  assert.equal(lines.length, 1);
  const text = String(lines[0][0]);
  assert.match(text, /"tick"/);
  assert.match(text, /"ui"/);
  assert.match(text, new RegExp(`subscription ${sub.id}`));
  assert.equal((lines[0][1] as Error).message, 'render failed');
});

test('an onError that throws does not break the dispatch', () => {
  const bus = new EventBus<Events>({
    onError: () => {
      throw new Error('onError is broken too');
    },
  });
  const calls: string[] = [];
  bus.subscribe('tick', () => {
    throw new Error('first');
  });
  bus.subscribe('tick', () => calls.push('still called'));
  let result: ReturnType<typeof bus.dispatch> | undefined;
  const lines = captureConsoleError(() => {
    result = bus.dispatch('tick');
  });
  assert.deepEqual(calls, ['still called']);
  assert.equal(result?.delivered, 2);
  assert.equal(lines.length, 1, 'the failure of onError itself is reported on the console');
});

test('a handler that throws on every call keeps being called (errors do not unsubscribe)', () => {
  let n = 0;
  const bus = new EventBus<Events>({ onError: () => n++ });
  bus.subscribe('tick', () => {
    throw new Error('always');
  });
  bus.dispatch('tick');
  bus.dispatch('tick');
  assert.equal(n, 2);
  assert.equal(bus.listenerCount('tick'), 1);
});

test('errors thrown by a nested dispatch handler are reported once, by the bus that called it', () => {
  const outerErrors: number[] = [];
  const innerErrors: number[] = [];
  const outer = new EventBus<Events>({ name: 'outer', onError: (_e, i) => outerErrors.push(i.subscriptionId) });
  const inner = new EventBus<Events>({ name: 'inner', onError: (_e, i) => innerErrors.push(i.subscriptionId) });
  const failing = inner.subscribe('tick', () => {
    throw new Error('inner');
  });
  outer.subscribe('tick', () => {
    inner.dispatch('tick');
  });
  outer.dispatch('tick');
  assert.deepEqual(innerErrors, [failing.id]);
  assert.deepEqual(outerErrors, []);
});
