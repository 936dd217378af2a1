// `busscope-probe/otel` against the real OpenTelemetry trace SDK (in-memory exporter): span names,
// kinds and attributes per the messaging conventions, parent/child through handlers, nested
// dispatch and enqueue → flush, errors, sampling, watched emitters, and the probe recording beside it.
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { connectProducer, EventBus } from '../../../runtime-probe/src/bus/index';
import { probe } from '../../../runtime-probe/src/index';
import { currentDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { instrumentOpenTelemetry, type OpenTelemetryInstrumentation } from '../../../runtime-probe/src/otel/index';
import { AlwaysOffSampler, makeSdk, parentOf } from '../../support/otel/sdk';

interface Events {
  'order.placed': { id: number };
  'order.shipped': { id: number };
  tick: void;
}

let active: OpenTelemetryInstrumentation | undefined;
afterEach(() => {
  active?.dispose();
  active = undefined;
});

test('a dispatch is a PRODUCER span named by bus and operation, with the messaging attributes', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const bus = new EventBus<Events>({ name: 'orders' });
  const a = bus.subscribe('order.placed', () => undefined);
  const b = bus.subscribe('order.placed', () => true, { priority: -1, label: 'Billing' });
  bus.subscribe('order.placed', () => undefined, { priority: -2 });
  bus.dispatch('order.placed', { id: 1 });
  const span = sdk.only('send orders');
  assert.equal(span.kind, SpanKind.PRODUCER);
  assert.equal(span.attributes['messaging.system'], 'busscope');
  assert.equal(span.attributes['messaging.operation.type'], 'send');
  assert.equal(span.attributes['messaging.destination.name'], 'order.placed');
  assert.equal(span.attributes['busscope.bus.name'], 'orders');
  assert.equal(span.attributes['busscope.delivered'], 2);
  assert.equal(span.attributes['busscope.consumed_by'], b.id);
  assert.equal(parentOf(span), '');
  // Only dispatch spans in the default mode.
  assert.deepEqual(
    sdk.spans().map((s) => s.name),
    ['send orders'],
  );
  a.dispose();
  bus.dispose();
  await sdk.shutdown();
});

test('span names never carry the event type: many dynamic types, one span name', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const bus = new EventBus<Record<string, void>>({ name: 'users' });
  for (let i = 0; i < 50; i++) bus.dispatch(`user.${i}.updated`);
  const names = new Set(sdk.spans().map((s) => s.name));
  assert.deepEqual([...names], ['send users']);
  assert.equal(new Set(sdk.spans().map((s) => s.attributes['messaging.destination.name'])).size, 50);
  bus.dispose();
  await sdk.shutdown();
});

test("spans: 'handlers' makes a CONSUMER process span per handler call with its label and subscribe site", async () => {
  const sdk = makeSdk();
  await probe.start({ discovery: false }); // the probe captures subscribe sites
  try {
    active = instrumentOpenTelemetry({ tracerProvider: sdk.provider, spans: 'handlers' });
    const bus = new EventBus<Events>({ name: 'orders' });
    const sub = bus.subscribe('order.placed', () => true, { label: 'Billing' });
    bus.subscribe('order.placed', () => undefined, { priority: -1, label: 'NeverReached' });
    bus.dispatch('order.placed', { id: 1 });
    const send = sdk.only('send orders');
    const handler = sdk.only('process orders');
    assert.equal(handler.kind, SpanKind.CONSUMER);
    assert.equal(handler.attributes['messaging.operation.type'], 'process');
    assert.equal(handler.attributes['messaging.destination.name'], 'order.placed');
    assert.equal(handler.attributes['busscope.subscription.id'], sub.id);
    assert.equal(handler.attributes['busscope.subscription.label'], 'Billing');
    assert.equal(handler.attributes['busscope.consumed'], true);
    assert.match(String(handler.attributes['code.file.path']), /instrument\.test\.ts$/);
    assert.equal(typeof handler.attributes['code.line.number'], 'number');
    assert.equal(parentOf(handler), send.spanContext().spanId);
    assert.equal(handler.spanContext().traceId, send.spanContext().traceId);
    bus.dispose();
  } finally {
    await probe.stop();
  }
  await sdk.shutdown();
});

test('a throwing handler: recordException and status ERROR on its span; the other handlers still run', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider, spans: 'handlers' });
  const errors: unknown[] = [];
  const bus = new EventBus<Events>({ name: 'orders', onError: (e) => errors.push(e) });
  let after = 0;
  bus.subscribe(
    'order.placed',
    () => {
      throw new Error('card declined');
    },
    { label: 'Billing' },
  );
  bus.subscribe('order.placed', () => void after++, { priority: -1, label: 'Mailer' });
  const result = bus.dispatch('order.placed', { id: 1 });
  assert.equal(result.delivered, 2);
  assert.equal(after, 1);
  assert.equal(errors.length, 1);
  const failed = sdk.only('process orders', (s) => s.attributes['busscope.subscription.label'] === 'Billing');
  assert.equal(failed.status.code, SpanStatusCode.ERROR);
  assert.match(failed.status.message ?? '', /card declined/);
  const exception = failed.events.find((e) => e.name === 'exception');
  assert.equal(exception?.attributes?.['exception.message'], 'card declined');
  const ok = sdk.only('process orders', (s) => s.attributes['busscope.subscription.label'] === 'Mailer');
  assert.notEqual(ok.status.code, SpanStatusCode.ERROR);
  bus.dispose();
  await sdk.shutdown();
});

test("in 'dispatch' mode a handler's error is recorded on the dispatch span", async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const bus = new EventBus<Events>({ name: 'orders', onError: () => undefined });
  bus.subscribe('order.placed', () => {
    throw new Error('boom');
  });
  bus.dispatch('order.placed', { id: 1 });
  const span = sdk.only('send orders');
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.ok(span.events.some((e) => e.name === 'exception'));
  bus.dispose();
  await sdk.shutdown();
});

test('handlers run in the dispatch span context: a span a handler starts is its child', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders' });
  bus.subscribe('order.placed', () => {
    appTracer.startSpan('db insert').end();
  });
  bus.dispatch('order.placed', { id: 1 });
  const send = sdk.only('send orders');
  const db = sdk.only('db insert');
  assert.equal(parentOf(db), send.spanContext().spanId);
  assert.equal(db.spanContext().traceId, send.spanContext().traceId);
  // Outside the dispatch the context is what it was.
  assert.equal(trace.getActiveSpan(), undefined);
  bus.dispose();
  await sdk.shutdown();
});

test("with 'handlers', a handler's child span hangs under its process span; the dispatch under the caller's span", async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider, spans: 'handlers' });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders' });
  bus.subscribe('order.placed', () => {
    appTracer.startSpan('http call').end();
  });
  const request = appTracer.startSpan('POST /orders');
  context.with(trace.setSpan(context.active(), request), () => bus.dispatch('order.placed', { id: 1 }));
  request.end();
  const send = sdk.only('send orders');
  const handler = sdk.only('process orders');
  const call = sdk.only('http call');
  assert.equal(parentOf(send), request.spanContext().spanId);
  assert.equal(parentOf(handler), send.spanContext().spanId);
  assert.equal(parentOf(call), handler.spanContext().spanId);
  assert.equal(new Set([send, handler, call].map((s) => s.spanContext().traceId)).size, 1);
  bus.dispose();
  await sdk.shutdown();
});

test('a nested dispatch (a handler dispatches, on this bus or another) is a child span', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const orders = new EventBus<Events>({ name: 'orders' });
  const shipping = new EventBus<Events>({ name: 'shipping' });
  orders.subscribe('order.placed', (e) => void orders.dispatch('order.shipped', e));
  orders.subscribe('order.shipped', (e) => void shipping.dispatch('order.shipped', e));
  orders.dispatch('order.placed', { id: 1 });
  const outer = sdk.only('send orders', (s) => s.attributes['messaging.destination.name'] === 'order.placed');
  const inner = sdk.only('send orders', (s) => s.attributes['messaging.destination.name'] === 'order.shipped');
  const innermost = sdk.only('send shipping');
  assert.equal(parentOf(outer), '');
  assert.equal(parentOf(inner), outer.spanContext().spanId);
  assert.equal(parentOf(innermost), inner.spanContext().spanId);
  assert.equal(inner.attributes['busscope.depth'], 1);
  orders.dispose();
  shipping.dispose();
  await sdk.shutdown();
});

test('enqueue captures the active context and flush restores it, per event', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders' });
  const seenIn: (string | undefined)[] = [];
  bus.subscribe('order.placed', () => void seenIn.push(trace.getActiveSpan()?.spanContext().spanId));
  const first = appTracer.startSpan('request 1');
  const second = appTracer.startSpan('request 2');
  context.with(trace.setSpan(context.active(), first), () => bus.enqueue('order.placed', { id: 1 }));
  context.with(trace.setSpan(context.active(), second), () => bus.enqueue('order.placed', { id: 2 }));
  bus.enqueue('order.placed', { id: 3 }); // no active span: a root
  first.end();
  second.end();
  // Flushed later, from nowhere in particular.
  assert.equal(bus.flush(), 3);
  const sends = sdk.spans().filter((s) => s.name === 'send orders');
  assert.equal(sends.length, 3);
  assert.deepEqual(sends.map(parentOf), [first.spanContext().spanId, second.spanContext().spanId, '']);
  assert.equal(sends[0].spanContext().traceId, first.spanContext().traceId);
  assert.equal(sends[1].spanContext().traceId, second.spanContext().traceId);
  // The handlers ran inside their dispatch spans.
  assert.deepEqual(
    seenIn,
    sends.map((s) => s.spanContext().spanId),
  );
  assert.equal(trace.getActiveSpan(), undefined);
  bus.dispose();
  await sdk.shutdown();
});

test('autoFlush microtask keeps causality too', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders', autoFlush: 'microtask' });
  bus.subscribe('order.placed', () => undefined);
  const request = appTracer.startSpan('request');
  context.with(trace.setSpan(context.active(), request), () => bus.enqueue('order.placed', { id: 1 }));
  request.end();
  await new Promise((r) => setImmediate(r));
  assert.equal(parentOf(sdk.only('send orders')), request.spanContext().spanId);
  bus.dispose();
  await sdk.shutdown();
});

test("oldest-first drops at a producer queue's cap keep every queued event's context with it: a local enqueue still flushes under its caller's span, a producer's events under theirs", async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders', producerQueue: { cap: 10, drop: 'oldest' } });
  bus.subscribe('order.placed', () => undefined);
  bus.subscribe('order.shipped', () => undefined);
  // A producer port (same thread: the port is real either way) outruns a bus that never flushes:
  // 3,000 arrivals at a cap of 10 move the queue's head past where the queue compacts (1,024).
  const producer = connectProducer<Events>(bus.openProducerPort());
  const warn = console.warn;
  console.warn = () => undefined; // the cap's warning, said once
  try {
    for (let i = 0; i < 3000; i++) producer.enqueue('order.shipped', { id: i });
    producer.close();
    await bus.producersClosed();
  } finally {
    console.warn = warn;
  }
  assert.equal(bus.producerStats.dropped, 2990);
  const request = appTracer.startSpan('request');
  context.with(trace.setSpan(context.active(), request), () => bus.enqueue('order.placed', { id: 1 }));
  request.end();
  // Flushed inside another span: each event still runs in its own context, not the flush's.
  const tick = appTracer.startSpan('tick');
  assert.equal(
    context.with(trace.setSpan(context.active(), tick), () => bus.flush()),
    11,
  );
  tick.end();
  const placed = sdk.only('send orders', (s) => s.attributes['messaging.destination.name'] === 'order.placed');
  assert.equal(parentOf(placed), request.spanContext().spanId);
  // The producer's events arrived (a port's message) outside any span: roots.
  const shipped = sdk.spans().filter((s) => s.name === 'send orders' && s.attributes['messaging.destination.name'] === 'order.shipped');
  assert.deepEqual(
    shipped.map(parentOf),
    Array.from({ length: 10 }, () => ''),
  );
  bus.dispose();
  await sdk.shutdown();
});

test("a worker's events flush in the context they arrived in, not the flush's (their origin rides in the same queue slot)", async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<{ 'job.done': { i: number } }>({ name: 'jobs' });
  bus.subscribe('job.done', () => undefined);
  const port = bus.openProducerPort() as unknown as NodeMessagePort;
  const worker = new Worker(path.resolve(__dirname, '../../fixtures/workers/flow-producer-worker.cjs'), {
    workerData: { port, count: 3 },
    transferList: [port],
    execArgv: [],
  });
  await once(worker, 'message');
  await bus.producersClosed();
  const tick = appTracer.startSpan('tick');
  assert.equal(
    context.with(trace.setSpan(context.active(), tick), () => bus.flush()),
    3,
  );
  tick.end();
  const sends = sdk.spans().filter((s) => s.name === 'send jobs');
  assert.deepEqual(sends.map(parentOf), ['', '', ''], 'arrived outside any span: roots, not children of the flush');
  bus.dispose();
  await sdk.shutdown();
});

/** Wraps a real provider so a test can see which span methods Busscope calls (the SDK does the work). */
function countingProvider(inner: TracerProvider, calls: Map<string, number>): TracerProvider {
  const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
  return {
    getTracer(name, version, options): Tracer {
      const tracer = inner.getTracer(name, version, options);
      return {
        startSpan(spanName, opts, ctx): Span {
          count('startSpan');
          const span = tracer.startSpan(spanName, opts, ctx);
          return new Proxy(span, {
            get(target, key, receiver) {
              const value = Reflect.get(target, key, receiver);
              if (typeof value !== 'function') return value;
              return (...args: unknown[]) => {
                count(String(key));
                return Reflect.apply(value, target, args);
              };
            },
          });
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer['startActiveSpan'],
      };
    },
  };
}

test('unsampled: no spans exported, no attributes, no context of ours; handlers run in the caller context', async () => {
  const sdk = makeSdk(new AlwaysOffSampler());
  const calls = new Map<string, number>();
  active = instrumentOpenTelemetry({ tracerProvider: countingProvider(sdk.provider, calls), spans: 'handlers' });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders' });
  let activeInHandler: unknown = 'not run';
  bus.subscribe('order.placed', () => {
    activeInHandler = trace.getActiveSpan();
    appTracer.startSpan('child').end();
  });
  const withSpy = context.with;
  let contextSwitches = 0;
  const api = context as unknown as { with: typeof context.with };
  api.with = function (this: unknown, ...args: Parameters<typeof context.with>) {
    contextSwitches++;

    return Reflect.apply(withSpy, context, args);
  } as typeof context.with;
  try {
    for (let i = 0; i < 10; i++) bus.dispatch('order.placed', { id: i });
  } finally {
    api.with = withSpy;
  }
  assert.equal(sdk.spans().length, 0);
  // The sampler was asked once per dispatch; handler spans were not even started.
  assert.deepEqual(Object.fromEntries(calls), { startSpan: 10, isRecording: 10, end: 10 });
  assert.equal(contextSwitches, 0);
  assert.equal(activeInHandler, undefined);
  bus.dispose();
  await sdk.shutdown();
});

test('include filters dispatches; dispose stops the spans', async () => {
  const sdk = makeSdk();
  const instrumentation = instrumentOpenTelemetry({ tracerProvider: sdk.provider, include: (bus, type) => bus === 'orders' && type !== 'tick' });
  const orders = new EventBus<Events>({ name: 'orders' });
  const other = new EventBus<Events>({ name: 'other' });
  orders.dispatch('tick');
  other.dispatch('order.placed', { id: 1 });
  orders.dispatch('order.placed', { id: 1 });
  assert.deepEqual(
    sdk.spans().map((s) => s.attributes['messaging.destination.name']),
    ['order.placed'],
  );
  instrumentation.dispose();
  instrumentation.dispose();
  orders.dispatch('order.placed', { id: 2 });
  assert.equal(sdk.spans().length, 1);
  orders.dispose();
  other.dispose();
  await sdk.shutdown();
});

test('starting and stopping the probe while instrumented: disposing the instrumentation unhooks it entirely', async () => {
  const sdk = makeSdk();
  const instrumentation = instrumentOpenTelemetry({ tracerProvider: sdk.provider });
  await probe.start({ discovery: false });
  await probe.stop();
  instrumentation.dispose();
  // Before the fix, setBusTracer took the hooked consumer for the probe's own slot: it stayed installed.
  assert.equal(currentDispatchTracer(), undefined);
  const bus = new EventBus<Events>({ name: 'orders' });
  bus.dispatch('order.placed', { id: 1 });
  assert.equal(sdk.spans().length, 0);
  bus.dispose();
  await sdk.shutdown();
});

test('bad options are TypeErrors', () => {
  assert.throws(() => instrumentOpenTelemetry({ spans: 'all' as never }), { name: 'TypeError', message: /options\.spans must be 'dispatch' or 'handlers'/ });
  assert.throws(() => instrumentOpenTelemetry({ include: 'orders' as never }), { name: 'TypeError', message: /options\.include must be a function/ });
  assert.throws(() => instrumentOpenTelemetry({ tracerProvider: {} as never }), {
    name: 'TypeError',
    message: /options\.tracerProvider must be a TracerProvider/,
  });
  assert.throws(() => instrumentOpenTelemetry(42 as never), { name: 'TypeError', message: /options must be an object/ });
});

test('a watched EventEmitter (probe.watch) gets the same: send span per emit, listeners in its context', async () => {
  const sdk = makeSdk();
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider, spans: 'handlers' });
  const appTracer = sdk.provider.getTracer('app');
  class Door extends EventEmitter {}
  const door = new Door();
  const handle = probe.watch(door);
  try {
    let thisSeen: unknown;
    door.on('open', function (this: unknown, a: number, b: number) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the receiver the listener got is what the test checks
      thisSeen = this;
      assert.equal(a + b, 3);
      appTracer.startSpan('listener work').end();
    });
    assert.equal(door.emit('open', 1, 2), true);
    assert.equal(thisSeen, door);
    const send = sdk.only('send Door');
    assert.equal(send.attributes['messaging.destination.name'], 'open');
    assert.equal(send.attributes['busscope.delivered'], 1);
    const process = sdk.only('process Door');
    assert.equal(parentOf(process), send.spanContext().spanId);
    assert.equal(parentOf(sdk.only('listener work')), process.spanContext().spanId);
  } finally {
    handle.dispose();
  }
  await sdk.shutdown();
});

test('the probe recording and OpenTelemetry at once: both see every dispatch', async () => {
  const sdk = makeSdk();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-otel-')), 'run.bustrace');
  const recording = probe.record(file, { discovery: false });
  active = instrumentOpenTelemetry({ tracerProvider: sdk.provider, spans: 'handlers' });
  const appTracer = sdk.provider.getTracer('app');
  const bus = new EventBus<Events>({ name: 'orders' });
  bus.subscribe('order.placed', () => appTracer.startSpan('inner').end());
  bus.subscribe('order.placed', () => void bus.dispatch('order.shipped', { id: 1 }), { priority: -1 });
  bus.dispatch('order.placed', { id: 1 });
  await recording.stop();
  const messages = await readTraceFileMessages(file);
  const dispatches = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r) => r.kind === 'dispatch');
  assert.deepEqual(dispatches.map((d) => (d.kind === 'dispatch' ? d.type : '')).sort(), ['order.placed', 'order.shipped']);
  assert.equal(
    parentOf(sdk.only('inner')),
    sdk
      .only(
        'process orders',
        (s) => s.attributes['busscope.subscription.id'] !== undefined && sdk.spans().some((c) => c.name === 'inner' && parentOf(c) === s.spanContext().spanId),
      )
      .spanContext().spanId,
  );
  const shipped = sdk.only('send orders', (s) => s.attributes['messaging.destination.name'] === 'order.shipped');
  const placed = sdk.only('send orders', (s) => s.attributes['messaging.destination.name'] === 'order.placed');
  assert.equal(sdk.spans().find((s) => s.spanContext().spanId === parentOf(shipped))?.name, 'process orders');
  assert.equal(shipped.spanContext().traceId, placed.spanContext().traceId);
  bus.dispose();
  await sdk.shutdown();
});
