// Detail `dispatch` runs the handlers in the bus's untraced loops, bracketed by the tracer's start and
// end (no per-handler tracer calls): the records must still say what happened — nesting, handler
// errors with the dispatch that ran them, consumption, delivered counts — and the drain's per-type
// dispatch counts must match the records.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

type Events = { outer: number; inner: number; take: number };

test('detail "dispatch": nested dispatches, handler errors and consumers are recorded without per-handler tracer calls', () => {
  const rec = new Recorder({
    maxBufferedRecords: 4096,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new DecodingSink();
  const errors: unknown[] = [];
  try {
    rec.attach(sink, [], () => undefined);
    assert.equal(rec.handlerHooks, false, 'detail dispatch asks for no per-handler calls');
    const bus = new EventBus<Events>({ name: 'bracketed', onError: (e) => errors.push(e) });
    bus.subscribe('outer', (n) => {
      bus.dispatch('inner', n);
    });
    bus.subscribe('outer', () => {
      throw new Error('second outer handler fails');
    });
    bus.subscribe('inner', () => undefined);
    const taker = bus.subscribe('take', () => true);
    bus.subscribe('take', () => assert.fail('runs after the consumer'));
    for (let i = 0; i < 3; i++) bus.dispatch('outer', i);
    const taken = bus.dispatch('take', 1);
    assert.equal(taken.consumedBy, taker.id);
    rec.flushTo(sink);

    assert.equal(errors.length, 3, 'the app still hears of every handler error');
    const dispatches = sink.of('dispatch');
    const outer = dispatches.filter((d) => d.type === 'outer');
    const inner = dispatches.filter((d) => d.type === 'inner');
    assert.equal(outer.length, 3);
    assert.equal(inner.length, 3);
    for (const d of outer) {
      assert.equal(d.delivered, 2);
      assert.equal(d.depth, 0);
    }
    for (const [i, d] of inner.entries()) {
      assert.equal(d.depth, 1);
      assert.equal(d.parentSeq, outer[i].seq, 'a nested dispatch names the dispatch whose handler made it');
    }
    const failures = sink.of('handler-error');
    assert.deepEqual(
      failures.map((f) => f.seq),
      outer.map((d) => d.seq),
      'each handler error names the dispatch that ran the handler',
    );
    const take = dispatches.find((d) => d.type === 'take');
    assert.equal(take?.delivered, 1);
    assert.equal(take?.consumedBy, taker.id);
    for (const d of dispatches) assert.ok((d.startBound ?? 0) > 0, 'every start carries its error bound');
    // The drain's per-type counts agree with the records.
    const busId = outer[0].bus;
    assert.equal(rec.dispatchCount(busId, 'outer'), 3);
    assert.equal(rec.dispatchCount(busId, 'inner'), 3);
    assert.equal(rec.dispatchCount(busId, 'take'), 1);
    assert.deepEqual([...(rec.recordedTypes().get(busId) ?? [])].sort(), ['inner', 'outer', 'take']);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
});
