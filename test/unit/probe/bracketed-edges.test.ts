// Detail `dispatch` at its edges. The bracketed path (bus: dispatchBracketed; recorder: a tick at
// each end, the slot written at the end) keeps as little as it can per dispatch, so these pin down
// what it must still get right: nesting across copies of the package, errors that escape every
// handler's error path, dispatches the depth limit refuses, and drains while dispatches are open.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DecodingSink } from '../../support/decoding-sink';

function recording(): { rec: Recorder; sink: DecodingSink; stop: () => void } {
  const rec = new Recorder({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new DecodingSink();
  rec.attach(sink, [], () => undefined);
  assert.equal(rec.handlerHooks, false, 'detail dispatch: the bracketed path');
  return {
    rec,
    sink,
    stop: () => {
      setBusTracer(undefined);
      rec.shutdown();
    },
  };
}

test('detail "dispatch": a dispatch nested across two copies of the package names its true parent and depth', () => {
  // The built CommonJS copy: a second copy of the package in this process (its buses share the tracer).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const other = require(path.resolve(__dirname, '../../../runtime-probe/dist/index.cjs')) as { EventBus: typeof EventBus };
  assert.notEqual(other.EventBus, EventBus, 'two copies');
  const { rec, sink, stop } = recording();
  try {
    const outer = new EventBus<{ outer: number; inner: number }>({ name: 'this-copy' });
    const middle = new other.EventBus<{ middle: number }>({ name: 'other-copy' });
    outer.subscribe('outer', (n) => {
      middle.dispatch('middle', n);
    });
    middle.subscribe('middle', (n) => {
      outer.dispatch('inner', n);
    });
    outer.subscribe('inner', () => undefined);
    outer.dispatch('outer', 1);
    outer.dispatch('inner', 2);
    rec.flushTo(sink);
    const byType = new Map(sink.of('dispatch').map((d) => [`${d.type}@${d.depth}`, d]));
    const o = byType.get('outer@0');
    const m = byType.get('middle@1');
    const i = byType.get('inner@2');
    assert.ok(o && m && i, `nesting outer@0 → middle@1 → inner@2; got ${[...byType.keys()].join(', ')}`);
    assert.equal(o.parentSeq, 0);
    assert.equal(m.parentSeq, o.seq, 'the other copy sees no parent of its own: the recorder knows it');
    assert.equal(i.parentSeq, m.seq, "this copy's outer dispatch is not the parent: the other copy's dispatch in between is");
    const after = byType.get('inner@0');
    assert.equal(after?.parentSeq, 0, 'a top-level dispatch afterwards has no parent');
  } finally {
    stop();
  }
});

test('detail "dispatch": a stack overflow that escapes the handlers still ends every dispatch it unwinds through', () => {
  const { rec, sink, stop } = recording();
  const reported: unknown[] = [];
  try {
    const bus = new EventBus<{ deeper: number; after: number }>({ name: 'overflow', maxDepth: 1e9, onError: (e) => reported.push(e) });
    bus.subscribe('deeper', (n) => {
      bus.dispatch('deeper', n + 1);
    });
    bus.subscribe('after', () => {
      assert.deepEqual(
        rec.dispatching().map((d) => d.depth),
        [0],
        'the recorder stack holds this dispatch only',
      );
    });
    bus.dispatch('deeper', 0);
    assert.equal(reported.length, 1, 'the overflow is reported once, by the outermost dispatch');
    assert.equal(rec.dispatching().length, 0, 'nothing left open');
    bus.dispatch('after', 0);
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    assert.equal(dispatches.length, rec.lastSequence, 'every dispatch started was recorded');
    const bySeq = new Map(dispatches.map((d) => [d.seq, d]));
    const deeper = dispatches.filter((d) => d.type === 'deeper');
    assert.ok(deeper.length > 100, `it went deep (${deeper.length})`);
    for (const d of deeper) {
      if (d.depth === 0) continue;
      assert.equal(bySeq.get(d.parentSeq)?.depth, d.depth - 1, 'each level names the level around it');
    }
    const after = dispatches.find((d) => d.type === 'after');
    assert.equal(after?.depth, 0);
    assert.equal(after?.parentSeq, 0);
    assert.equal(after?.delivered, 1);
  } finally {
    stop();
  }
});

test('detail "dispatch": a dispatch refused by the depth limit records nothing but the limit, and takes no sequence number', () => {
  const { rec, sink, stop } = recording();
  const reported: unknown[] = [];
  try {
    const bus = new EventBus<{ deeper: number; after: number }>({ name: 'limited', maxDepth: 2, onError: (e) => reported.push(e) });
    bus.subscribe('deeper', (n) => {
      bus.dispatch('deeper', n + 1);
    });
    bus.subscribe('after', () => undefined);
    bus.dispatch('deeper', 0);
    assert.equal(reported.length, 1, 'the refused dispatch throws into the handler that made it');
    bus.dispatch('after', 0);
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    assert.deepEqual(
      dispatches.filter((d) => d.type === 'deeper').map((d) => d.depth),
      [2, 1, 0],
      'depths 0 … maxDepth, innermost recorded first',
    );
    assert.equal(dispatches.length, rec.lastSequence, 'no sequence number went to the refused dispatch');
    const limit = sink.of('depth-limit');
    assert.equal(limit.length, 1);
    assert.equal(limit[0].depth, 3);
    assert.equal(limit[0].parentSeq, dispatches.find((d) => d.depth === 2)?.seq, 'the limit names the dispatch that tried');
    const after = dispatches.find((d) => d.type === 'after');
    assert.equal(after?.depth, 0);
    assert.equal(after?.parentSeq, 0);
  } finally {
    stop();
  }
});

test('detail "dispatch": a drain while dispatches are open resolves their starts, and a later dispatch in the same stack row starts afresh', () => {
  const { rec, sink, stop } = recording();
  try {
    const bus = new EventBus<{ outer: number; inner: number; later: number }>({ name: 'drained' });
    let openStart = NaN;
    bus.subscribe('outer', (n) => {
      rec.flushTo(sink); // a drain with this dispatch open
      bus.dispatch('inner', n);
    });
    bus.subscribe('inner', () => undefined);
    bus.subscribe('later', () => {
      openStart = rec.dispatching()[0].start;
    });
    bus.dispatch('outer', 1);
    const before = performance.now(); // the recorder's clock (Node's host)
    bus.dispatch('later', 1);
    rec.flushTo(sink);
    const d = new Map(sink.of('dispatch').map((r) => [r.type, r]));
    const outer = d.get('outer');
    const inner = d.get('inner');
    assert.ok(outer && inner);
    assert.ok(Number.isFinite(outer.start) && (outer.startBound ?? 0) > 0, 'the open start was resolved, with its bound');
    assert.ok(outer.start <= inner.start + (outer.startBound ?? 0) + (inner.startBound ?? 0), 'the outer dispatch starts before the one it ran');
    assert.ok(outer.start + outer.duration >= inner.start + inner.duration - 1, 'and ends after it');
    assert.equal(inner.parentSeq, outer.seq);
    assert.ok(openStart >= before, `a snapshot of a later dispatch in the same row reports its own start, not the drained one's (${openStart} < ${before})`);
  } finally {
    stop();
  }
});
