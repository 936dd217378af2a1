// The model, fed crafted probe streams (real protocol encoding → decoding): what it holds after
// live records, a late-attach snapshot, session end and clear; its bounded timeline; its queries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Model,
  buildSnapshot,
  dispatchesInRange,
  handlerSlicesOf,
  rangeStatistics,
  subscriptionsOf,
  timelineColumns,
} from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, TIME_ORIGIN, site } from './streamBuilder';

function liveApp(model: Model): StreamBuilder {
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'gameplay', 0).busCreated(2, 'ui', 0);
  s.subscribe({ id: 1, type: 'health.changed', priority: 10, label: 'HealthBar', owner: 'HealthBar#1', site: site('/app/hud.ts', 12, 'bind'), time: 1 });
  s.subscribe({ id: 2, type: 'health.changed', label: 'Log', time: 2 });
  s.subscribe({ id: 3, type: 'input.key', bus: 2, label: 'Keys', time: 3 });
  s.into(model);
  return s;
}

test('live records: buses, types, subscriptions with owner, label and site', () => {
  const model = new Model();
  liveApp(model);
  assert.equal(model.sessionInfo.state, 'live');
  assert.equal(model.sessionInfo.app?.name, 'crafted');
  assert.equal(model.sessionInfo.timeOrigin, TIME_ORIGIN);
  assert.deepEqual(
    [...model.buses.values()].map((b) => b.name),
    ['gameplay', 'ui'],
  );
  const subs = subscriptionsOf(model, { bus: 1, type: 'health.changed' });
  assert.deepEqual(
    subs.map((s) => [s.id, s.priority, s.label, s.owner]),
    [
      [1, 10, 'HealthBar', 'HealthBar#1'],
      [2, 0, 'Log', null],
    ],
  );
  assert.deepEqual(subs[0].site, { file: '/app/hud.ts', line: 12, column: 5, functionName: 'bind' });
  assert.equal(subs[0].createdAt, 1);
  assert.equal(model.owners.get('HealthBar#1')?.live.size, 1);
});

test('dispatches: counts, unheard, consumption, per-subscription calls, time, errors and p95', () => {
  const model = new Model();
  const s = liveApp(model);
  for (let i = 0; i < 20; i++) {
    s.dispatch({
      type: 'health.changed',
      handlers: [
        { sub: 1, duration: i === 19 ? 5 : 0.5 },
        { sub: 2, duration: 0.1 },
      ],
    });
    s.wait(10);
  }
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1, duration: 0.2, consumed: true }] });
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1, throws: 'TypeError: boom' }, { sub: 2 }] });
  s.dispatch({ type: 'nobody.listens' });
  s.into(model);
  const t = model.findType(1, 'health.changed');
  assert.ok(t);
  assert.equal(t.dispatches, 22);
  assert.equal(t.consumed, 1);
  assert.equal(model.findType(1, 'nobody.listens')?.unheard, 1);
  const [hb, log] = subscriptionsOf(model, { bus: 1, type: 'health.changed' });
  assert.equal(hb.calls, 22);
  assert.equal(log.calls, 21);
  assert.equal(hb.consumed, 1);
  assert.equal(hb.errors, 1);
  assert.equal(hb.lastError?.message, 'TypeError: boom');
  assert.ok(hb.timing);
  assert.ok(Math.abs(hb.timing.maxMs - 5) < 1e-6);
  assert.ok(hb.timing.p95Ms >= 0.4 && hb.timing.p95Ms <= 0.6, String(hb.timing.p95Ms));
  assert.equal(model.totalDispatches, 23);
  assert.equal(model.totalHandlerErrors, 1);
  // Rate over the sliding window: 22 dispatches in ~0.2 s of record time.
  assert.ok(t.rate.ratePerSecond(model.now) > 20);
});

test('handler time excludes nested dispatches (self time)', () => {
  const model = new Model();
  const s = liveApp(model);
  s.dispatch({
    type: 'health.changed',
    handlers: [{ sub: 1, duration: 1, nested: [{ type: 'input.key', bus: 2, handlers: [{ sub: 3, duration: 30 }] }] }],
  });
  s.into(model);
  const hb = subscriptionsOf(model, { type: 'health.changed' })[0];
  assert.ok(hb.timing && Math.abs(hb.timing.maxMs - 1) < 0.01, `self time ${hb.timing?.maxMs}`);
  const keys = subscriptionsOf(model, { type: 'input.key' })[0];
  assert.ok(keys.timing && Math.abs(keys.timing.maxMs - 30) < 0.01);
  // The nested dispatch is in the timeline at depth 1 with its parent's seq.
  const rows = dispatchesInRange(model, 0, 1000);
  assert.deepEqual(
    rows.map((r) => [r.type, r.depth, r.parentSeq]),
    [
      ['input.key', 1, rows[1].seq],
      ['health.changed', 0, 0],
    ],
  );
});

test('late attach: a snapshot first, then live records', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.clock = 5000;
  s.snapshot({
    buses: [{ id: 1, name: 'gameplay', createdAt: TIME_ORIGIN + 10, subscriptions: 2 }],
    types: [
      { bus: 1, type: 'tick', listeners: 1, dispatches: 300 },
      { bus: 1, type: 'boss.defeated', listeners: 1, dispatches: 0 },
    ],
    subscriptions: [
      {
        id: 7,
        bus: 1,
        type: 'tick',
        priority: 0,
        label: 'Ticker',
        owner: 'World#1',
        once: false,
        site: site('/app/w.ts', 3),
        calls: 300,
        createdAt: TIME_ORIGIN + 20,
      },
      { id: 8, bus: 1, type: 'boss.defeated', priority: 0, label: 'Boss', owner: null, once: false, site: null, calls: 0, createdAt: TIME_ORIGIN + 30 },
    ],
  });
  s.dispatch({ type: 'tick', handlers: [{ sub: 7 }] });
  s.subscribe({ id: 9, type: 'tick', label: 'Late' });
  s.dispatch({ type: 'tick', handlers: [{ sub: 7 }, { sub: 9 }] });
  s.into(model);
  assert.equal(model.sessionInfo.attachedAt, 5000);
  const tick = model.findType(1, 'tick');
  assert.equal(tick?.dispatches, 302);
  assert.equal(tick?.dispatchesBeforeAttach, 300);
  const [ticker, late] = subscriptionsOf(model, { type: 'tick' });
  assert.equal(ticker.calls, 302);
  assert.equal(ticker.fromSnapshot, true);
  assert.equal(ticker.createdAt, 20); // epoch → record time
  assert.equal(ticker.observedFrom, 5000);
  assert.equal(late.calls, 1);
  assert.equal(late.fromSnapshot, false);
  assert.equal(model.buses.get(1)?.createdAt, 10);

  // A refresh snapshot (e.g. after drops) lacking #8 ends it; a truncated one would not.
  s.snapshot({ truncated: true, subscriptions: [] }, 1).into(model);
  assert.equal(model.subscriptions.get(8)?.active, true);
  s.snapshot(
    {
      subscriptions: [
        { id: 7, bus: 1, type: 'tick', priority: 0, label: 'Ticker', owner: 'World#1', once: false, site: null, calls: 310, createdAt: TIME_ORIGIN + 20 },
        { id: 9, bus: 1, type: 'tick', priority: 0, label: 'Late', owner: null, once: false, site: null, calls: 1, createdAt: TIME_ORIGIN + 5000 },
      ],
      types: [{ bus: 1, type: 'tick', listeners: 2, dispatches: 302 }],
    },
    2,
  ).into(model);
  assert.equal(model.subscriptions.get(8)?.active, false);
  assert.equal(model.subscriptions.get(8)?.endReason, 'missing-from-snapshot');
  assert.equal(model.subscriptions.get(7)?.calls, 310);
  assert.equal(tick?.dispatches, 302, 'a refresh adds no dispatches already counted');
});

test('unsubscribe: reason, lifetime calls, and bounded retention of ended subscriptions', () => {
  const model = new Model({ maxEndedSubscriptions: 3 });
  const s = new StreamBuilder().welcome();
  for (let id = 1; id <= 10; id++) s.subscribe({ id, type: 'x', owner: `W#${id}` }).unsubscribe(id, id % 2 ? 'dispose' : 'dead-owner', id);
  s.subscribe({ id: 11, type: 'x' });
  s.into(model);
  assert.equal(model.subscriptions.size, 4); // 1 live + the 3 most recently ended
  assert.deepEqual(
    [...model.subscriptions.keys()].sort((a, b) => a - b),
    [8, 9, 10, 11],
  );
  const ten = model.subscriptions.get(10);
  assert.equal(ten?.endReason, 'dead-owner');
  assert.equal(ten?.calls, 10);
  // Aggregates survive eviction.
  const t = model.findType(1, 'x');
  assert.equal(
    [...(t?.ownerRemovals.values() ?? [])].reduce((n, g) => n + g.count, 0),
    5,
  );
  assert.equal(t?.subscribedEver, 11);
  assert.equal(model.owners.size, 0, 'owners without live subscriptions are forgotten');
});

test('session end: the probe stopping or endSession keeps the state inspectable; clear() empties it', () => {
  const model = new Model();
  const s = liveApp(model);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }] });
  s.error('probe-stopping', 'the app is exiting').into(model);
  assert.equal(model.sessionInfo.state, 'ended');
  assert.equal(model.sessionInfo.error?.code, 'probe-stopping');
  assert.equal(model.subscriptions.size, 3);
  assert.equal(model.timeline.size, 1);
  model.endSession('detached'); // already ended: no change
  assert.equal(model.sessionInfo.endReason, 'the app is exiting');
  model.clear();
  assert.equal(model.sessionInfo.state, 'waiting');
  assert.equal(model.subscriptions.size, 0);
  assert.equal(model.timeline.size, 0);
  assert.equal(model.buses.size, 0);
});

test('clear() while live keeps the live subscriptions with zeroed statistics', () => {
  const model = new Model();
  const s = liveApp(model);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }, { sub: 2 }] });
  s.subscribe({ id: 4, type: 'gone' }).unsubscribe(4, 'dispose');
  s.into(model);
  model.clear();
  assert.equal(model.sessionInfo.state, 'live');
  assert.deepEqual([...model.subscriptions.keys()].sort(), [1, 2, 3]);
  assert.equal(model.subscriptions.get(1)?.calls, 0);
  assert.equal(model.timeline.size, 0);
  // Records that follow still land on the kept subscriptions.
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }] }).valueOf();
  s.into(model);
  assert.equal(model.subscriptions.get(1)?.calls, 1);
  assert.equal(model.integrity.unknownSubscriptions, 0);
});

test('change notification: once per applied message that changed something', () => {
  const model = new Model();
  let calls = 0;
  const off = model.onDidChange(() => calls++);
  model.onDidChange(() => {
    throw new Error('a broken view');
  });
  const s = liveApp(model); // welcome + one records message
  assert.equal(calls, 2);
  const v = model.version;
  model.apply({ type: 'pong', requestId: 1 });
  assert.equal(calls, 2);
  assert.equal(model.version, v);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }] });
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }] });
  s.into(model);
  assert.equal(calls, 3);
  assert.ok(model.version > v);
  off();
  s.dispatch({ type: 'health.changed' }).valueOf();
  s.into(model);
  assert.equal(calls, 3);
  assert.throws(() => model.onDidChange(42 as never), TypeError);
});

test('drops and records about unknown subscriptions are counted, not fatal', () => {
  const model = new Model();
  const s = liveApp(model);
  s.drops(120, 100);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 99 }] });
  s.unsubscribe(98, 'dispose');
  s.into(model);
  assert.equal(model.drops.records, 120);
  assert.equal(model.drops.dispatches, 100);
  assert.equal(model.drops.byReason['slow-client'], 120);
  assert.equal(model.integrity.unknownSubscriptions, 2);
});

test('timeline: wraps at its capacity; range queries, columns and statistics read it', () => {
  const model = new Model({ timelineCapacity: 50, handlerSliceCapacity: 40 });
  const s = liveApp(model);
  for (let i = 0; i < 120; i++) {
    s.dispatch({
      type: i % 3 === 0 ? 'input.key' : 'health.changed',
      bus: i % 3 === 0 ? 2 : 1,
      start: i * 10,
      handlers: [{ sub: i % 3 === 0 ? 3 : 1, duration: i % 10 === 0 ? 4 : 1 }],
    });
  }
  s.into(model);
  assert.equal(model.timeline.size, 50);
  assert.equal(model.timeline.overwritten, 70);
  const rows = dispatchesInRange(model, 0, 100_000);
  assert.equal(rows.length, 50);
  assert.equal(rows[0].start, 700);
  assert.deepEqual(
    dispatchesInRange(model, 1000, 1020).map((r) => r.start),
    [1000, 1010, 1020],
  );
  const cols = timelineColumns(model, 900, 1190, 10);
  assert.equal(cols.count, 10);
  assert.ok(cols.omitted > 0);
  assert.equal(cols.types[cols.typeIndex[0]].type, 'input.key'); // start 900 is i = 90
  const stats = rangeStatistics(model, 1000, 1199.5);
  assert.equal(stats.dispatches, 20);
  assert.equal(stats.byType.find((b) => b.type === 'health.changed')?.count, 14); // i = 100…119 without the 6 multiples of 3
  assert.equal(stats.slowestDispatches[0].duration > 4, true);
  assert.equal(stats.complete, true);
  assert.equal(rangeStatistics(model, 0, 1199).complete, false);
  assert.equal(stats.slowestHandlers[0].label, 'HealthBar');
  const last = rows[rows.length - 1];
  assert.deepEqual(
    handlerSlicesOf(model, last.seq).map((h) => h.subscription),
    [1],
  );
  assert.throws(() => dispatchesInRange(model, NaN, 1), TypeError);
});

test('memory stays bounded by the ring whatever the number of dispatches', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const model = new Model({ timelineCapacity: 10_000, handlerSliceCapacity: 10_000 });
  const s = liveApp(model);
  s.into(model);
  const records = [];
  for (let i = 0; i < 50_000; i++) {
    records.push({
      kind: 'dispatch' as const,
      seq: i + 1,
      bus: 1,
      type: 'health.changed',
      start: i,
      duration: 0.01,
      delivered: 1,
      consumedBy: 0,
      depth: 0,
      parentSeq: 0,
      site: null,
    });
  }
  model.applyRecords(records); // warm up: every structure at its steady size
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let round = 1; round <= 6; round++) {
    for (let i = 0; i < records.length; i++) records[i] = { ...records[i], seq: round * 50_000 + i + 1, start: round * 50_000 + i };
    model.applyRecords(records);
  }
  gc?.();
  const grown = process.memoryUsage().heapUsed - before;
  assert.equal(model.timeline.size, 10_000);
  assert.equal(model.totalDispatches, 350_000);
  // 300,000 more dispatches applied; the model holds the same 10,000 rows.
  assert.ok(grown < 2_000_000, `heap grew by ${grown} bytes`);
});

test('ModelSnapshot is JSON-safe and complete', () => {
  const model = new Model();
  const s = liveApp(model);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }, { sub: 2 }] });
  s.subscribe({ id: 5, type: 'x' }).unsubscribe(5, 'once');
  s.into(model);
  const snap = buildSnapshot(model);
  assert.deepEqual(JSON.parse(JSON.stringify(snap)), snap);
  assert.equal(snap.totals.liveSubscriptions, 3);
  assert.equal(snap.totals.retainedEndedSubscriptions, 1);
  assert.equal(snap.subscriptions.length, 4);
  assert.equal(buildSnapshot(model, { includeEnded: false }).subscriptions.length, 3);
  assert.deepEqual(
    snap.buses.map((b) => [b.name, b.types]),
    [
      ['gameplay', ['health.changed', 'x']],
      ['ui', ['input.key']],
    ],
  );
  assert.equal(snap.types.find((t) => t.type === 'health.changed')?.dispatches, 1);
});

test('bad options throw TypeError', () => {
  assert.throws(() => new Model({ timelineCapacity: 0 }), TypeError);
  assert.throws(() => new Model({ maxEndedSubscriptions: -1 }), TypeError);
  assert.throws(() => new Model().advanceTime(NaN), TypeError);
  assert.doesNotThrow(() => new Model({ timelineCapacity: undefined }));
});

test('bus disposal: subscriptions it still held stay judgeable ("retired"); a plain clear() does not', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'gameplay', 0).busCreated(2, 'ui', 0);
  s.subscribe({ id: 1, type: 'a', owner: 'W#1' }).subscribe({ id: 2, type: 'a', owner: 'W#2' }).subscribe({ id: 3, type: 'k', bus: 2, owner: 'K#1' });
  // ui: clear() mid-run, then life goes on (a dispatch on that bus).
  s.unsubscribe(3, 'clear').dispatch({ type: 'k', bus: 2 });
  // gameplay: dispose() = clear, then bus-disposed.
  s.wait(10).unsubscribe(1, 'clear').unsubscribe(2, 'clear');
  s.record({ kind: 'bus-disposed', time: s.clock, bus: 1 });
  s.into(model);
  const a = model.findType(1, 'a');
  assert.ok(a);
  assert.equal(a.live.size, 0);
  assert.deepEqual(
    [...a.retired].map((x) => x.id),
    [1, 2],
  );
  assert.equal(model.subscriptions.get(1)?.endedWithBus, true);
  assert.equal(model.subscriptions.get(3)?.endedWithBus, false);
  assert.equal(model.findType(2, 'k')?.retired.size, 0);
  assert.deepEqual([...model.owners.keys()].sort(), ['W#1', 'W#2'], 'owners of retired subscriptions are kept; K#1 is forgotten');
  assert.equal(buildSnapshot(model).types.find((t) => t.type === 'a')?.retiredSubscriptions, 2);
  // Retired subscriptions are ended ones: eviction bounds them too.
  const small = new Model({ maxEndedSubscriptions: 1 });
  const b = new StreamBuilder().welcome();
  b.subscribe({ id: 1, type: 'a', owner: 'W#1' }).subscribe({ id: 2, type: 'a' }).unsubscribe(1, 'clear').unsubscribe(2, 'clear');
  b.record({ kind: 'bus-disposed', time: b.clock, bus: 1 });
  b.into(small);
  assert.deepEqual(
    [...(small.findType(1, 'a')?.retired ?? [])].map((x) => x.id),
    [2],
  );
  assert.equal(small.owners.size, 0);
});

test('a welcome from another process (the app restarted) starts the model over; the same process does not', () => {
  const model = new Model();
  const s = liveApp(model);
  s.dispatch({ type: 'health.changed', handlers: [{ sub: 1 }] }).valueOf();
  s.into(model);
  model.endSession('app exited');
  // Reconnect to the same process (e.g. after a network hiccup): data stays.
  model.apply(new StreamBuilder().welcome().take()[0]);
  assert.equal(model.subscriptions.size, 3);
  assert.equal(model.sessionInfo.state, 'live');
  const [welcome] = new StreamBuilder().welcome().take();
  assert.ok(welcome.type === 'welcome');
  model.apply({ ...welcome, app: { ...welcome.app, pid: 999 } });
  assert.equal(model.subscriptions.size, 0);
  assert.equal(model.totalDispatches, 0);
  assert.equal(model.sessionInfo.app?.pid, 999);
  assert.equal(model.sessionInfo.state, 'live');
});
