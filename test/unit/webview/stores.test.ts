// The webview never holds unbounded data: every store has a cap, and what a cap refuses is counted.
// Also: nested dispatches find their lane whatever order the records arrive in.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { emptyDispatchColumns, type DispatchColumns, type InspectorDelta } from '../../../runtime-probe/src/analysis/inspector-messages';
import { BoundedMap, BoundedQueue } from '../../../webview/src/store/boundedQueue';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import { TimelineStore } from '../../../webview/src/store/timelineStore';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';

function columns(rows: { seq: number; type: number; start: number; duration: number; depth: number; parent: number }[]): DispatchColumns {
  const c = emptyDispatchColumns() as unknown as Record<string, number[]> & { count: number };
  for (const r of rows) {
    c.seq.push(r.seq);
    c.bus.push(1);
    c.type.push(r.type);
    c.start.push(r.start);
    c.duration.push(r.duration);
    c.delivered.push(1);
    c.consumedBy.push(0);
    c.depth.push(r.depth);
    c.parentSeq.push(r.parent);
    c.site.push(-1);
    c.flags.push(0);
    c.count++;
  }
  return c as unknown as DispatchColumns;
}

describe('bounded stores', () => {
  test('BoundedQueue keeps the newest items and counts the dropped ones', () => {
    const q = new BoundedQueue<number>(3);
    for (let i = 1; i <= 10; i++) q.push(i);
    assert.deepEqual([...q], [8, 9, 10]);
    assert.equal(q.size, 3);
    assert.equal(q.dropped, 7);
    assert.throws(() => new BoundedQueue(0), TypeError);
  });

  test('BoundedMap forgets its oldest entries', () => {
    const m = new BoundedMap<number, string>(2);
    m.set(1, 'a');
    m.set(2, 'b');
    m.set(3, 'c');
    assert.equal(m.size, 2);
    assert.equal(m.has(1), false);
    assert.equal(m.evicted, 1);
  });

  test('the store stays within its limits however much the session sends', () => {
    const app = new FixtureApp({ dispatches: 200 });
    const store = new InspectorStore({ dispatches: 500, handlers: 800, markers: 4, endedSubscriptions: 10, warnings: 3 });
    store.applySnapshot(app.snapshot());
    for (let round = 0; round < 12; round++) {
      const ids = app.addLateSubscriptions(5);
      app.run(150, round % 4 === 0);
      app.dispose(ids);
      const d = app.feed.delta(app.analyzer.warnings, true);
      assert.ok(d);
      assert.equal(store.applyDelta(d), 'applied');
      assert.ok(store.timeline.size <= 500);
      assert.ok(store.timeline.handlers.size <= 800);
      assert.ok(store.timeline.markers.size <= 4);
      assert.ok(store.warnings.size <= 3);
      const ended = [...store.subscriptions.values()].filter((s) => !s.active).length;
      assert.ok(ended <= 10, `${ended} ended subscriptions kept`);
    }
    assert.equal(store.timeline.size, 500, 'the ring is full, not more');
    assert.ok(store.timeline.markers.dropped > 0, 'markers beyond the cap are counted');
    // The newest dispatch is the model's newest.
    const ring = store.timeline.dispatches;
    assert.equal(ring.seq[ring.physicalIndex(ring.size - 1)], app.model.timeline.seq[app.model.timeline.physicalIndex(app.model.timeline.size - 1)]);
  });

  test('live subscriptions beyond the cap are refused and counted, not silently lost', () => {
    const app = new FixtureApp({ dispatches: 10 });
    const store = new InspectorStore({ subscriptions: 100 });
    store.applySnapshot(app.snapshot());
    assert.equal([...store.activeSubscriptions()].length, 100);
    assert.equal(store.hiddenSubscriptions, app.model.subscriptions.size - [...app.model.subscriptions.values()].filter((s) => !s.active).length - 100);
  });

  test('deltas must follow each other: a gap is reported, an old one ignored', () => {
    const app = new FixtureApp({ dispatches: 10 });
    const store = new InspectorStore();
    const delta = (seq: number): InspectorDelta => ({ seq, now: 0 });
    assert.equal(store.applyDelta(delta(1)), 'stale', 'nothing before a snapshot');
    store.applySnapshot(app.snapshot());
    assert.equal(store.applyDelta(delta(1)), 'applied');
    assert.equal(store.applyDelta(delta(1)), 'stale');
    assert.equal(store.applyDelta(delta(3)), 'gap');
    assert.equal(store.applyDelta(delta(2)), 'applied');
  });
});

describe('timeline lanes', () => {
  test('children recorded before their parent (completion order) end up in the top-level lane', () => {
    const tl = new TimelineStore({ dispatches: 100, handlers: 10, markers: 4 });
    // seq 1 (type 7) contains seq 2 (type 8) which contains seq 3 (type 9): written 3, 2, 1.
    tl.appendDispatches(
      columns([
        { seq: 3, type: 9, start: 1.2, duration: 0.1, depth: 2, parent: 2 },
        { seq: 2, type: 8, start: 1.1, duration: 0.5, depth: 1, parent: 1 },
      ]),
    );
    const i3 = tl.indexOfSeq(3);
    assert.equal(tl.laneOf(i3), 9, 'own type while the ancestor is unknown');
    tl.appendDispatches(columns([{ seq: 1, type: 7, start: 1, duration: 1, depth: 0, parent: 0 }]));
    assert.equal(tl.laneOf(tl.indexOfSeq(1)), 7);
    assert.equal(tl.laneOf(tl.indexOfSeq(2)), 7);
    assert.equal(tl.laneOf(i3), 7);
    assert.equal(tl.laneDepth.get(7), 2);
  });

  test('a child whose parent is already known joins its lane at once', () => {
    const tl = new TimelineStore({ dispatches: 100, handlers: 10, markers: 4 });
    tl.appendDispatches(columns([{ seq: 10, type: 1, start: 0, duration: 5, depth: 0, parent: 0 }]));
    tl.appendDispatches(columns([{ seq: 11, type: 2, start: 1, duration: 1, depth: 1, parent: 10 }]));
    assert.equal(tl.laneOf(tl.indexOfSeq(11)), 1);
  });

  test('handler slices are found by time range even when recorded out of start order', () => {
    const tl = new TimelineStore({ dispatches: 10, handlers: 10, markers: 4 });
    tl.appendHandlers({ count: 3, seq: [2, 1, 3], subscription: [5, 6, 7], start: [2, 1, 10], duration: [0.5, 3, 1], flags: [0, 0, 0] });
    const seen: number[] = [];
    tl.forEachHandlerInRange(2.2, 3, (i) => void seen.push(tl.handlers.seq[i]));
    assert.deepEqual(seen.sort(), [1, 2]);
  });
});
