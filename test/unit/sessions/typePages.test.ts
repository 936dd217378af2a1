// The *Subscriptions* tree's children of a bus (the part without `vscode`): a bus of 100,000 event
// types lists one page — the most active types — and a "N more types…" node; paging through the
// "more" nodes reaches every type exactly once. A small bus still lists every type by name.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { rankTypes, typePage, TYPE_PAGE_SIZE } from '../../../extension/src/views/typePages';
import type { BusRecord } from '../../../runtime-probe/src/protocol/records';

const TYPES = 100_000;

function model(types: number): Model {
  const m = new Model();
  const records: BusRecord[] = [{ kind: 'bus-created', time: 0, bus: 1, name: 'users' }];
  let seq = 0;
  let sub = 0;
  for (let i = 0; i < types; i++) {
    const type = `user.${i}.updated`;
    records.push({
      kind: 'dispatch',
      seq: ++seq,
      bus: 1,
      type,
      start: i * 0.0001,
      duration: 0.001,
      delivered: 0,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  // A few busy types with listeners, named so that they sort last by name.
  for (const type of ['zz.tick', 'zz.score']) {
    records.push({ kind: 'subscribe', time: 20, subscriptionId: ++sub, bus: 1, type, priority: 0, label: null, owner: null, once: false, site: null });
    for (let k = 0; k < 100; k++)
      records.push({
        kind: 'dispatch',
        seq: ++seq,
        bus: 1,
        type,
        start: 20 + k,
        duration: 0.001,
        delivered: 1,
        consumedBy: 0,
        depth: 0,
        parentSeq: 0,
        site: null,
      });
  }
  m.applyRecords(records);
  return m;
}

describe('Subscriptions tree: types of a bus', () => {
  test('100,000 types: one page of the most active, then "N more types…", never every type at once', () => {
    const m = model(TYPES);
    const bus = m.buses.get(1)!;
    let rankings = 0;
    const ranked = (count: number) => {
      rankings++;
      return rankTypes(bus, m.now, count);
    };
    const first = typePage(bus, 0, ranked);
    assert.equal(first.types.length, TYPE_PAGE_SIZE);
    assert.equal(first.rest, TYPES + 2 - TYPE_PAGE_SIZE);
    assert.equal(first.next, TYPE_PAGE_SIZE);
    const names = first.types.map((t) => t.name);
    assert.ok(names.includes('zz.tick') && names.includes('zz.score'), 'the types with listeners come first');
    assert.deepEqual(names, [...names].sort(), 'a page lists its types by name');
    assert.equal(rankings, 1);

    // The bounded ranking agrees with the full one.
    const ranking = rankTypes(bus, m.now);
    assert.deepEqual(
      rankTypes(bus, m.now, 1234).map((t) => t.name),
      ranking.slice(0, 1234).map((t) => t.name),
    );
    assert.deepEqual(
      ranking
        .slice(0, 2)
        .map((t) => t.name)
        .sort(),
      ['zz.score', 'zz.tick'],
    );
    // Paging through the "more" nodes reaches every type once.
    const seen = new Set<string>(names);
    let page = first;
    let pages = 1;
    while (page.rest > 0) {
      page = typePage(bus, page.next, () => ranking);
      assert.ok(page.types.length <= TYPE_PAGE_SIZE);
      for (const t of page.types) {
        assert.ok(!seen.has(t.name), `${t.name} listed once`);
        seen.add(t.name);
      }
      pages++;
    }
    assert.equal(seen.size, TYPES + 2);
    assert.equal(pages, Math.ceil((TYPES + 2) / TYPE_PAGE_SIZE));
  });

  test('a bus within one page lists all its types by name, without ranking them', () => {
    const m = model(300);
    const bus = m.buses.get(1)!;
    const page = typePage(bus, 0, () => assert.fail('no ranking needed'));
    assert.equal(page.types.length, 302);
    assert.equal(page.rest, 0);
    const names = page.types.map((t) => t.name);
    assert.deepEqual(names, [...names].sort());
  });

  test('bad paging arguments are TypeErrors', () => {
    const m = model(3);
    const bus = m.buses.get(1)!;
    assert.throws(() => typePage(bus, -1, () => []), TypeError);
    assert.throws(() => typePage(bus, 0.5, () => []), TypeError);
    assert.throws(() => typePage(bus, 0, () => [], 0), TypeError);
  });
});
