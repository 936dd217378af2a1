// Deferred events: enqueue, flush, autoFlush.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../../runtime-probe/src/bus/index';

interface Events {
  log: { line: string };
  tick: void;
}

test('enqueue defers: nothing is delivered until flush', () => {
  const bus = new EventBus<Events>();
  const lines: string[] = [];
  bus.subscribe('log', (e) => lines.push(e.line));
  bus.enqueue('log', { line: 'one' });
  assert.deepEqual(lines, []);
  assert.equal(bus.queueLength, 1);
  assert.equal(bus.flush(), 1);
  assert.deepEqual(lines, ['one']);
  assert.equal(bus.queueLength, 0);
});

test('flush dispatches queued events in FIFO order and returns how many', () => {
  const bus = new EventBus<Events>();
  const seen: string[] = [];
  bus.subscribe('log', (e) => seen.push(e.line));
  bus.subscribe('tick', () => seen.push('tick'));
  bus.enqueue('log', { line: 'a' });
  bus.enqueue('tick');
  bus.enqueue('log', { line: 'b' });
  assert.equal(bus.flush(), 3);
  assert.deepEqual(seen, ['a', 'tick', 'b']);
  assert.equal(bus.flush(), 0);
});

test('events enqueued while flushing are dispatched by the same flush, after the ones before them', () => {
  const bus = new EventBus<Events>();
  const seen: string[] = [];
  bus.subscribe('log', (e) => {
    seen.push(e.line);
    if (e.line === 'a') bus.enqueue('log', { line: 'from a' });
  });
  bus.enqueue('log', { line: 'a' });
  bus.enqueue('log', { line: 'b' });
  assert.equal(bus.flush(), 3);
  assert.deepEqual(seen, ['a', 'b', 'from a']);
});

test('flush called from inside a flush does nothing and returns 0', () => {
  const bus = new EventBus<Events>();
  const inner: number[] = [];
  const seen: string[] = [];
  bus.subscribe('log', (e) => {
    seen.push(e.line);
    inner.push(bus.flush());
  });
  bus.enqueue('log', { line: 'a' });
  bus.enqueue('log', { line: 'b' });
  assert.equal(bus.flush(), 2);
  assert.deepEqual(inner, [0, 0]);
  assert.deepEqual(seen, ['a', 'b']);
});

test('queued events reach handlers subscribed after they were enqueued', () => {
  const bus = new EventBus<Events>();
  bus.enqueue('tick');
  let calls = 0;
  bus.subscribe('tick', () => {
    calls++;
  });
  bus.flush();
  assert.equal(calls, 1);
});

test('a throwing handler does not stop the flush', () => {
  const bus = new EventBus<Events>({ onError: () => {} });
  const seen: string[] = [];
  bus.subscribe('log', (e) => {
    if (e.line === 'bad') throw new Error('bad line');
    seen.push(e.line);
  });
  bus.enqueue('log', { line: 'bad' });
  bus.enqueue('log', { line: 'good' });
  assert.equal(bus.flush(), 2);
  assert.deepEqual(seen, ['good']);
});

test("with autoFlush: 'microtask' the queue flushes on its own, once per batch", async () => {
  const bus = new EventBus<Events>({ autoFlush: 'microtask' });
  const seen: string[] = [];
  bus.subscribe('log', (e) => seen.push(e.line));
  bus.enqueue('log', { line: 'a' });
  bus.enqueue('log', { line: 'b' });
  assert.deepEqual(seen, []);
  await Promise.resolve();
  assert.deepEqual(seen, ['a', 'b']);
  bus.enqueue('log', { line: 'c' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('a manual flush before the microtask leaves nothing for it to do', async () => {
  const bus = new EventBus<Events>({ autoFlush: 'microtask' });
  const seen: string[] = [];
  bus.subscribe('log', (e) => seen.push(e.line));
  bus.enqueue('log', { line: 'a' });
  assert.equal(bus.flush(), 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, ['a']);
});

test('without autoFlush nothing is dispatched until flush is called', async () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  bus.subscribe('tick', () => {
    calls++;
  });
  bus.enqueue('tick');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(calls, 0);
  bus.flush();
  assert.equal(calls, 1);
});

test('a handler that disposes the bus during a flush ends the flush', () => {
  const bus = new EventBus<Events>();
  let calls = 0;
  bus.subscribe('tick', () => {
    calls++;
    bus.dispose();
  });
  bus.enqueue('tick');
  bus.enqueue('tick');
  assert.equal(bus.flush(), 1);
  assert.equal(calls, 1);
  assert.equal(bus.queueLength, 0);
});

test('disposing a bus drops its queue', () => {
  const bus = new EventBus<Events>();
  bus.enqueue('tick');
  bus.dispose();
  assert.equal(bus.queueLength, 0);
  assert.equal(bus.flush(), 0);
});

test('a flush from a handler nested beyond maxDepth throws and keeps the events queued', () => {
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({ maxDepth: 1, onError: (e) => errors.push(e) });
  const outer = new EventBus<Events>({ maxDepth: 10 });
  let flushed = 0;
  bus.subscribe('log', () => {
    flushed++;
  });
  bus.enqueue('log', { line: 'a' });
  bus.enqueue('log', { line: 'b' });
  // At depth 2 the bus refuses to dispatch: the flush throws on its first event.
  outer.subscribe('tick', (_p, ctx) => {
    if (ctx.depth < 2) outer.dispatch('tick');
    else assert.throws(() => bus.flush(), { name: 'DispatchDepthError' });
  });
  outer.dispatch('tick');
  assert.equal(flushed, 0);
  assert.equal(bus.queueLength, 2, 'nothing was delivered, nothing is lost');
  assert.equal(bus.flush(), 2);
  assert.equal(flushed, 2);
});
