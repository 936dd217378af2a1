// A real app process with the probe, a real socket and the real client: a late-attaching client gets
// a snapshot equal to the app's own subscriptions(), then records that match exactly what the app did.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import type { BusRecord, ProbeSnapshot, SnapshotMessage } from '../../../runtime-probe/src/protocol/index';
import { PROTOCOL_VERSION } from '../../../runtime-probe/src/protocol/version';
import { FIXTURE_APP, cleanup, connect, spawnApp, waitFor, withTimeout } from './helpers';

after(cleanup);

interface AppSubscription {
  id: number;
  type: string;
  priority: number;
  label?: string;
  owner?: string;
  calls: number;
  createdAt: number;
  once: boolean;
  bus: string;
}

function normalizeSnapshot(s: ProbeSnapshot) {
  const busName = new Map(s.buses.map((b) => [b.id, b.name]));
  return s.subscriptions.map((x) => ({
    id: x.id,
    type: x.type,
    priority: x.priority,
    label: x.label ?? undefined,
    owner: x.owner ?? undefined,
    calls: x.calls,
    createdAt: x.createdAt,
    once: x.once,
    bus: busName.get(x.bus),
  }));
}

function normalizeApp(subs: AppSubscription[]) {
  return subs.map((x) => ({ ...x, label: x.label ?? undefined, owner: x.owner ?? undefined }));
}

test("late attach: welcome, then a snapshot equal to the app's subscriptions(), with sites", async () => {
  const app = await spawnApp();
  assert.ok(app.info && app.info.port > 0 && app.info.token.length === 32);
  await app.call('setupEarly');
  const expected = normalizeApp(await app.call<AppSubscription[]>('subscriptions'));
  const c = await connect(app.info);
  await withTimeout(c.client.ping(), 5000, 'ping');
  assert.equal(c.messages[0].type, 'welcome');
  const welcome = c.client.welcome;
  assert.equal(welcome.protocolVersion, PROTOCOL_VERSION);
  assert.equal(welcome.app.pid, app.pid);
  assert.equal(welcome.app.name, 'probe-app');
  const snap = c.messages.find((m): m is SnapshotMessage => m.type === 'snapshot');
  assert.ok(snap, 'a snapshot follows the welcome');
  assert.equal(snap.requestId, null);
  assert.deepEqual(normalizeSnapshot(snap.snapshot), expected);
  assert.deepEqual(
    snap.snapshot.buses.map((b) => [b.name, b.subscriptions]),
    [
      ['gameplay', 3],
      ['ui', 2],
    ],
  );
  // Subscribe sites point at the fixture's own subscribe calls (the probe started before setupEarly).
  const source = fs.readFileSync(FIXTURE_APP, 'utf8').split('\n');
  for (const s of snap.snapshot.subscriptions) {
    assert.ok(s.site, `subscription ${s.id} has a site`);
    assert.equal(s.site.file, FIXTURE_APP);
    assert.match(source[s.site.line - 1].slice(s.site.column - 1), /^subscribe\(/, `site ${s.site.line}:${s.site.column}`);
    assert.equal(s.site.functionName, 'setupEarly');
  }
  // Types with listener counts; the wildcard is listed as '*'.
  const types = snap.snapshot.types.filter((t) => t.bus === snap.snapshot.buses[0].id).map((t) => [t.type, t.listeners]);
  assert.deepEqual(types, [
    ['*', 1],
    ['health.changed', 2],
  ]);
  // A requested snapshot says the same, now with the stream recording.
  const again = await c.client.requestSnapshot();
  assert.equal(again.recording, true);
  assert.deepEqual(normalizeSnapshot(again), expected);
});

test('live records match exactly what the app did', async () => {
  const app = await spawnApp();
  assert.ok(app.info);
  const c = await connect(app.info);
  const report = await app.call<{
    dispatches: Record<string, number>;
    consumedBy: Record<string, number>;
    errors: number;
    unsubscribes: Record<string, number>;
    enqueued: number;
    flushed: number;
    depthLimits: number;
    delivered: number;
    collectedSkipped?: boolean;
  }>('scenario');
  await withTimeout(c.client.ping(), 5000, 'ping');
  const records = c.records();
  const created = records.find((r): r is Extract<BusRecord, { kind: 'bus-created' }> => r.kind === 'bus-created' && r.name === 'scenario');
  assert.ok(created, 'the scenario bus was announced');
  const bus = created.bus;
  const mine = new Set(records.filter((r) => r.kind === 'subscribe' && r.bus === bus).map((r) => (r as { subscriptionId: number }).subscriptionId));

  const dispatches: Record<string, number> = {};
  const consumedBy: Record<string, number> = {};
  let delivered = 0;
  const seqs = new Set<number>();
  for (const r of records) {
    if (r.kind !== 'dispatch' || r.bus !== bus) continue;
    dispatches[r.type] = (dispatches[r.type] ?? 0) + 1;
    if (r.consumedBy !== 0) consumedBy[r.consumedBy] = (consumedBy[r.consumedBy] ?? 0) + 1;
    delivered += r.delivered;
    seqs.add(r.seq);
  }
  assert.deepEqual(dispatches, report.dispatches);
  assert.deepEqual(consumedBy, report.consumedBy);
  assert.equal(delivered, report.delivered);
  assert.equal(records.filter((r) => r.kind === 'handler-error' && seqs.has(r.seq)).length, report.errors);
  const errors = records.filter((r) => r.kind === 'handler-error' && seqs.has(r.seq));
  assert.ok(errors.some((e) => e.kind === 'handler-error' && e.message === 'Error: bad hit' && e.stack !== null));
  assert.ok(errors.some((e) => e.kind === 'handler-error' && e.message.startsWith('DispatchDepthError:')));

  const reasons: Record<string, number> = {};
  for (const r of records) if (r.kind === 'unsubscribe' && mine.has(r.subscriptionId)) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
  assert.deepEqual(reasons, report.unsubscribes);
  if (!report.collectedSkipped) {
    assert.ok(records.some((r) => r.kind === 'owner-collected' && r.bus === bus && r.owner === 'Widget#w-gc' && r.removed === 1));
  }
  assert.equal(records.filter((r) => r.kind === 'enqueue' && r.bus === bus).length, report.enqueued);
  assert.equal(
    records.filter((r) => r.kind === 'flush' && r.bus === bus).reduce((n, r) => n + (r.kind === 'flush' ? r.dispatched : 0), 0),
    report.flushed,
  );
  const depth = records.filter((r) => r.kind === 'depth-limit' && r.bus === bus);
  assert.equal(depth.length, report.depthLimits);
  assert.ok(depth[0].kind === 'depth-limit' && depth[0].type === 'recurse' && depth[0].depth === 4 && depth[0].parentSeq > 0);

  // Nested dispatches: each one's parent is the dispatch one level up, recorded after it.
  const recurse = records.filter((r): r is Extract<BusRecord, { kind: 'dispatch' }> => r.kind === 'dispatch' && r.type === 'recurse');
  assert.deepEqual(
    recurse.map((r) => r.depth),
    [3, 2, 1, 0],
  );
  for (let i = 0; i < 3; i++) assert.equal(recurse[i].parentSeq, recurse[i + 1].seq);
  // Handler records: one per handler call, consumption marked on the consumer's.
  const handlerRecords = records.filter((r) => r.kind === 'handler' && seqs.has(r.seq));
  assert.equal(handlerRecords.length, report.delivered);
  const consumedHandlers = handlerRecords.filter((r) => r.kind === 'handler' && r.consumed).length;
  assert.equal(
    consumedHandlers,
    Object.values(report.consumedBy).reduce((a, b) => a + b, 0),
  );
  // No drops in a quiet run.
  assert.equal(records.filter((r) => r.kind === 'drops').length, 0);
  // Sequence numbers are unique and dense across the run.
  const allSeqs = records
    .filter((r) => r.kind === 'dispatch')
    .map((r) => (r as { seq: number }).seq)
    .sort((a, b) => a - b);
  assert.equal(new Set(allSeqs).size, allSeqs.length);
});

test('configure and break-on round-trip; detail "dispatch" drops handler records', async () => {
  const app = await spawnApp();
  assert.ok(app.info);
  const c = await connect(app.info);
  const other = await connect(app.info);
  const config = await c.client.configure({ detail: 'dispatch', dispatchSiteEvery: 1 });
  assert.equal(config.detail, 'dispatch');
  assert.equal(config.dispatchSiteEvery, 1);
  assert.deepEqual(await c.client.breakOn(['no.such.event', 'no.such.event']), ['no.such.event']);
  await app.call('scenario');
  await c.client.ping();
  await other.client.ping();
  // The other client was told about the new config.
  assert.ok(other.messages.some((m) => m.type === 'configured' && m.requestId === null && m.config.detail === 'dispatch'));
  const records = c.records();
  assert.equal(records.filter((r) => r.kind === 'handler').length, 0);
  const dispatches = records.filter((r) => r.kind === 'dispatch');
  assert.ok(dispatches.length > 10);
  assert.ok(
    dispatches.every((r) => r.kind === 'dispatch' && r.site !== null && /probe-app\.cjs$/.test(r.site.file)),
    'every dispatch sampled',
  );
  const snap = await c.client.requestSnapshot();
  assert.deepEqual(snap.breakOn, ['no.such.event']);
  c.client.close();
  await other.client.ping();
  const snap2 = await other.client.requestSnapshot();
  assert.deepEqual(snap2.breakOn, [], "a client's breakpoints go away with it");
});

test('detail: the highest any connected client asked for, falling back when that client leaves', async () => {
  const app = await spawnApp({ start: { discovery: false, detail: 'lifecycle' } });
  assert.ok(app.info);
  const high = await connect(app.info);
  const low = await connect(app.info);
  assert.equal(high.client.welcome.config.detail, 'lifecycle', "the app's own setting");
  assert.equal((await high.client.configure({ detail: 'handlers' })).detail, 'handlers');
  assert.equal((await low.client.configure({ detail: 'dispatch' })).detail, 'handlers', 'asking for less does not lower it for the other client');
  const mark = low.messages.length;
  high.client.close();
  // The one that asked for `handlers` left: `dispatch` (still asked for) is in force, and said so.
  await waitFor(
    () => low.messages.slice(mark).some((m) => m.type === 'configured' && m.requestId === null && m.config.detail === 'dispatch'),
    5000,
    'the remaining client told that detail fell back to dispatch',
  );
  const before = low.records().length;
  await app.call('scenario');
  await low.client.ping();
  const records = low.records().slice(before);
  assert.ok(
    records.some((r) => r.kind === 'dispatch'),
    'dispatches recorded',
  );
  assert.equal(records.filter((r) => r.kind === 'handler').length, 0, 'no handler records at detail dispatch');
  // A client that asks for nothing sees the current setting, then the app's own once nobody asks.
  const quiet = await connect(app.info);
  assert.equal(quiet.client.welcome.config.detail, 'dispatch');
  low.client.close();
  await waitFor(
    () => quiet.messages.some((m) => m.type === 'configured' && m.requestId === null && m.config.detail === 'lifecycle'),
    5000,
    "the app's own detail back once no client asks",
  );
});
