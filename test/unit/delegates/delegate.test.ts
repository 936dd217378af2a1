// Delegate: one bindable slot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Delegate } from '../../../runtime-probe/src/bus/index';

test('execute calls the bound function with the arguments and returns its result', () => {
  const d = new Delegate<[number, number], number>();
  d.bind((a, b) => a + b);
  assert.equal(d.execute(2, 3), 5);
});

test('bind overwrites the previous function', () => {
  const d = new Delegate<[], string>();
  d.bind(() => 'first');
  d.bind(() => 'second');
  assert.equal(d.execute(), 'second');
});

test('isBound tells whether a function is bound', () => {
  const d = new Delegate();
  assert.equal(d.isBound(), false);
  d.bind(() => {});
  assert.equal(d.isBound(), true);
  d.unbind();
  assert.equal(d.isBound(), false);
});

test('execute on an unbound delegate throws a clear Error', () => {
  const d = new Delegate<[string], void>();
  assert.throws(
    () => d.execute('x'),
    (e: unknown) => e instanceof Error && /no function is bound/.test(e.message),
  );
});

test('executeIfBound returns undefined when unbound and the result when bound', () => {
  const d = new Delegate<[number], number>();
  let calls = 0;
  assert.equal(d.executeIfBound(1), undefined);
  d.bind((n) => {
    calls++;
    return n * 2;
  });
  assert.equal(d.executeIfBound(21), 42);
  assert.equal(calls, 1);
});

test('errors thrown by the bound function reach the caller of execute', () => {
  const d = new Delegate();
  d.bind(() => {
    throw new Error('inside');
  });
  assert.throws(() => d.execute(), /inside/);
});

test('bind rejects a non-function with a TypeError and keeps the old binding', () => {
  const d = new Delegate<[], number>();
  d.bind(() => 1);
  assert.throws(
    () => d.bind('nope' as unknown as () => number),
    (e: unknown) => e instanceof TypeError && /Delegate\.bind: fn must be a function/.test(e.message),
  );
  assert.equal(d.execute(), 1);
});
