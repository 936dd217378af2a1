// Worker threads in the inspector, the pure parts: a session with a main thread and two workers (a
// real Model and InspectorFeed, with the contract's thread fields) gives the node list a heading per
// thread with that thread's buses under it, the timeline a lane group per thread (a header band, then
// its lanes), and cross-thread dispatches their producer thread and enqueue time; the flow geometry
// finds a flow under the pointer. A one-thread session is laid out exactly as before.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildGraph, type GraphOptions } from '../../../webview/src/graph/graphModel';
import { fullLayout } from '../../../webview/src/graph/layout';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import { distanceToFlow, flowAt, flowPoint, FLOW_HIT_PX, type Flow } from '../../../webview/src/timeline/flows';
import { layoutLanes, THREAD_HEADER_HEIGHT } from '../../../webview/src/timeline/lanes';
import { ENQUEUE_LEAD_MS, threadSession } from '../../webview/fixtures/threadSession';

const options: GraphOptions = { filterText: '', busFilter: '', isCollapsed: () => false, maxGroupsPerType: 8, expandedMore: new Set() };

function storeOf(threads: boolean): InspectorStore {
  const store = new InspectorStore();
  store.applySnapshot(threadSession({ threads }).snapshot);
  return store;
}

describe('worker threads in the inspector (layout)', () => {
  test('the node list heads each thread (main first) with its buses under it', () => {
    const g = buildGraph(storeOf(true), options);
    fullLayout(g);
    const rows = g.outline
      .filter((n) => n.kind === 'thread' || n.kind === 'bus')
      .map((n) => (n.kind === 'thread' ? `# ${n.label} (${n.detail})` : `${n.label} @ ${n.thread}`));
    assert.deepEqual(rows, [
      '# main thread (2 buses)',
      'app @ main thread',
      'jobs @ main thread',
      '# worker hasher (1 bus)',
      'hasher-bus @ worker hasher',
      '# worker resizer (1 bus)',
      'resizer-bus @ worker resizer',
    ]);
    // Headings are outline rows only: the graph draws buses, not threads.
    assert.ok(g.nodes.every((n) => n.kind !== 'thread'));
    assert.ok(!g.byKey.has('th0'));
  });

  test('one thread: no headings, buses as before', () => {
    const g = buildGraph(storeOf(false), options);
    assert.deepEqual(
      g.outline.filter((n) => n.kind === 'thread' || n.kind === 'bus').map((n) => n.label),
      ['app', 'hasher-bus', 'jobs', 'resizer-bus'],
    );
    assert.ok(g.outline.every((n) => n.thread === undefined));
  });

  test("the timeline gets a lane group per thread: a header band, then that thread's lanes, bands not overlapping", () => {
    const layout = layoutLanes(storeOf(true), () => true);
    assert.deepEqual(
      layout.threads.map((b) => [b.label, b.lanes]),
      [
        ['main thread', 2],
        ['worker hasher', 1],
        ['worker resizer', 1],
      ],
    );
    let expectTop = 0;
    let lane = 0;
    for (const band of layout.threads) {
      assert.equal(band.top, expectTop, `${band.label} starts where the previous group ends`);
      let y = band.top + THREAD_HEADER_HEIGHT;
      for (let k = 0; k < band.lanes; k++, lane++) {
        const l = layout.lanes[lane];
        assert.equal(l.thread, band.id, `${l.busName} · ${l.name} in ${band.label}`);
        assert.equal(l.top, y, 'lanes follow the header');
        y += l.height;
      }
      assert.equal(band.height, y - band.top);
      expectTop = y;
    }
    assert.equal(layout.totalHeight, expectTop);
    assert.deepEqual(
      layout.lanes.map((l) => `${l.busName} · ${l.name}`),
      ['app · request', 'jobs · job.done', 'hasher-bus · hash.step', 'resizer-bus · resize.step'],
    );
  });

  test('one thread: no bands, lanes from the top as before', () => {
    const layout = layoutLanes(storeOf(false), () => true);
    assert.deepEqual(layout.threads, []);
    assert.equal(layout.lanes[0].top, 0);
    assert.deepEqual(
      layout.lanes.map((l) => l.busName),
      ['app', 'hasher-bus', 'jobs', 'resizer-bus'],
    );
  });

  test('a thread the session lists but with no lanes keeps its header (flows start there)', () => {
    const store = storeOf(true);
    const layout = layoutLanes(store, (type) => store.types.get(type)?.type !== 'resize.step');
    const resizer = layout.threads.find((b) => b.label === 'worker resizer');
    assert.ok(resizer);
    assert.equal(resizer.lanes, 0);
    assert.equal(resizer.height, THREAD_HEADER_HEIGHT);
  });

  test("the store keeps each dispatch's producer thread and enqueue time; others are -1", () => {
    const { snapshot, crossThread } = threadSession();
    const store = new InspectorStore();
    store.applySnapshot(snapshot);
    const tl = store.timeline;
    let cross = 0;
    for (let k = 0; k < tl.size; k++) {
      const i = tl.dispatches.physicalIndex(k);
      const producer = crossThread.get(tl.dispatches.seq[i]);
      if (producer === undefined) assert.equal(tl.fromThread[i], -1);
      else {
        cross++;
        assert.equal(tl.fromThread[i], producer);
        assert.equal(tl.enqueuedAt[i], tl.dispatches.start[i] - ENQUEUE_LEAD_MS);
      }
    }
    assert.equal(cross, crossThread.size);
    assert.ok(cross > 0);
  });

  test('new threads in a session update regroup (the graph and lanes are rebuilt)', () => {
    const store = storeOf(false);
    const before = store.structureVersion;
    store.setSession({ ...store.session });
    assert.equal(store.structureVersion, before, 'same threads: nothing to regroup');
    store.setSession({ ...store.session, threads: threadSession().snapshot.session.threads });
    assert.ok(store.structureVersion > before);
  });

  test('flow geometry: the curve runs from the enqueue to the dispatch and is found under the pointer', () => {
    const f: Flow = { index: 0, seq: 7, fromThread: 1, enqueuedAt: 10, x0: 100, y0: 200, x1: 300, y1: 40 };
    assert.deepEqual(flowPoint(f, 0), { x: 100, y: 200 });
    assert.deepEqual(flowPoint(f, 1), { x: 300, y: 40 });
    const mid = flowPoint(f, 0.5);
    assert.equal(distanceToFlow(f, mid.x, mid.y) < 0.5, true);
    assert.equal(flowAt([f], mid.x + 1, mid.y), f);
    assert.equal(flowAt([f], mid.x, mid.y + FLOW_HIT_PX * 3), null);
    assert.equal(flowAt([f], 50, 50), null);
    // The nearer of two flows wins.
    const g: Flow = { ...f, seq: 8, y0: 206, y1: 46 };
    assert.equal(flowAt([g, f], flowPoint(f, 0.1).x, flowPoint(f, 0.1).y)?.seq, 7);
  });
});
