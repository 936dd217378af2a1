// The subscription graph's model and layout: readable at 500 types / 5,000 subscriptions (buses
// collapse, same-site subscriptions aggregate, long subscriber lists fold), no two nodes on one row
// of a column, subscribers beside their type, and live updates that never move existing nodes.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildGraph, type GraphModel, type GraphOptions } from '../../../webview/src/graph/graphModel';
import { fullLayout, incrementalLayout } from '../../../webview/src/graph/layout';
import { InspectorStore } from '../../../webview/src/store/inspectorStore';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';

function options(over: Partial<GraphOptions> = {}): GraphOptions {
  return { filterText: '', busFilter: '', isCollapsed: () => false, maxGroupsPerType: 12, expandedMore: new Set(), ...over };
}

function assertNoOverlap(model: GraphModel): void {
  const seen = new Set<string>();
  for (const n of model.nodes) {
    const slot = `${n.column}:${n.row}`;
    assert.ok(!seen.has(slot), `two nodes on column ${n.column} row ${n.row}`);
    seen.add(slot);
  }
}

describe('graph at scale', () => {
  const app = new FixtureApp({ types: 500, subscriptions: 5000, extraBuses: 6, dispatches: 1500, intervalMs: 20 });
  const store = new InspectorStore();
  store.applySnapshot(app.snapshot());

  test('the fixture is the size of the target', () => {
    assert.equal(store.types.size, 500);
    assert.ok([...store.activeSubscriptions()].length >= 5000);
  });

  test('fully expanded: every type and subscription is represented, subscribers beside their type, no overlaps', () => {
    const model = buildGraph(store, options());
    fullLayout(model);
    assert.equal(model.typeCount, 500);
    assert.equal(model.subscriptionCount, [...store.activeSubscriptions()].length);
    assertNoOverlap(model);
    for (const e of model.edges) {
      if (e.to.column !== 2) continue;
      assert.ok(e.to.row >= e.from.row, 'a subscriber is never above its type');
    }
    // Same-site subscriptions are one node; each type shows at most 12 subscriber nodes + "more".
    const perType = new Map<string, number>();
    for (const e of model.edges) if (e.to.column === 2) perType.set(e.from.key, (perType.get(e.from.key) ?? 0) + 1);
    assert.ok(Math.max(...perType.values()) <= 13);
    const nodes = model.nodes.filter((n) => n.column === 2);
    assert.ok(nodes.length < model.subscriptionCount / 2, `${nodes.length} subscriber nodes for ${model.subscriptionCount} subscriptions`);
  });

  test('collapsed buses give an overview of a few hundred nodes at most', () => {
    const model = buildGraph(store, options({ isCollapsed: () => true }));
    fullLayout(model);
    assertNoOverlap(model);
    assert.equal(model.nodes.filter((n) => n.kind === 'bus').length, 8);
    assert.ok(model.nodes.length < 400, `${model.nodes.length} nodes`);
    assert.equal(model.subscriptionCount, [...store.activeSubscriptions()].length, 'nothing lost by collapsing');
  });

  test('when subscriber nodes are folded, the warned ones (the leak) stay visible', () => {
    const model = buildGraph(store, options({ isCollapsed: () => true, maxGroupsPerType: 3 }));
    const ui = model.nodes.find((n) => n.kind === 'bus' && n.label === 'ui')!;
    const shown = model.edges.filter((e) => e.from === ui && e.to.column === 2).map((e) => e.to);
    assert.ok(
      shown.some((n) => n.label === 'Tooltip' && n.count === 120 && n.tone === 'warning'),
      'the leak is one of the 3 shown',
    );
    assert.ok(shown.some((n) => n.kind === 'more'));
  });

  test('a text filter keeps matching types and their bus, and opens collapsed buses', () => {
    const model = buildGraph(store, options({ isCollapsed: () => true, filterText: 'tooltip' }));
    assert.deepEqual(
      model.nodes.filter((n) => n.kind === 'type').map((n) => n.label),
      ['tooltip.show'],
    );
    assert.ok(model.filteredOut > 400);
  });
});

describe('stable positions', () => {
  test('new subscriptions and types take free rows; existing nodes never move', () => {
    const app = new FixtureApp({ dispatches: 100 });
    const store = new InspectorStore();
    store.applySnapshot(app.snapshot());
    const first = buildGraph(store, options());
    const memory = fullLayout(first);
    const before = new Map(first.nodes.map((n) => [n.key, n.row]));
    app.addLateSubscriptions(4);
    app.run(50);
    const d = app.feed.delta(app.analyzer.warnings, true)!;
    store.applyDelta(d);
    const next = buildGraph(store, options());
    incrementalLayout(next, memory);
    assertNoOverlap(next);
    let added = 0;
    for (const n of next.nodes) {
      if (before.has(n.key)) assert.equal(n.row, before.get(n.key), `${n.key} moved`);
      else added++;
    }
    assert.ok(added >= 1);
    const late = next.nodes.find((n) => n.label === 'LateListener')!;
    const itemType = next.byKey.get(`t${store.typeIndexOf(1, 'item.picked')}`)!;
    assert.ok(Math.abs(late.row - itemType.row) <= 20, 'placed near its type');
  });
});
