// probe.watch end to end: a real app process (test/fixtures/apps/emitters-app.cjs, the BUILT package)
// watches a Node http server, a shared EventEmitter with a per-request 'close' listener leak, a mitt
// and a nanoevents instance. The real client attached over the real socket sees the buses by name,
// their listeners as subscriptions with the fixture's lines as sites and the functions' names as
// labels, and the emits as dispatches with per-listener timings; the extension's model, fed the same
// stream, reports the listener growth on the shared emitter at the app's own subscribe line, with
// Node's own MaxListenersExceededWarning (still printed) in its evidence.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { BusRecord, SnapshotMessage, StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { cleanup, connect, ROOT, spawnRunApp, waitFor } from './helpers';

after(cleanup);

const FIXTURE = path.join(ROOT, 'test/fixtures/apps/emitters-app.cjs');
const REQUESTS = 120;

interface RunResult {
  leakLine: number;
  handled: number;
  closeListeners: number;
}

test('watched http server, shared emitter, mitt and nanoevents: buses, sites, labels, dispatches with timings, and the leak reported at the app’s line', async () => {
  const app = await spawnRunApp<{ requests: number }, RunResult>(FIXTURE, 'emitters app');
  const model = new Model();
  const messages: StreamMessage[] = [];
  await connect(app.info, {
    onMessage: (m: StreamMessage) => {
      messages.push(m);
      model.apply(m);
    },
  });
  await waitFor(() => messages.some((m) => m.type === 'snapshot'), 5000, 'the snapshot after welcome');
  const snapshot = messages.find((m): m is SnapshotMessage => m.type === 'snapshot');
  assert.ok(snapshot, 'a snapshot after welcome');
  const busId = (name: string): number => {
    const b = snapshot.snapshot.buses.find((x) => x.name === name);
    assert.ok(b, `bus ${name} in the snapshot: ${snapshot.snapshot.buses.map((x) => x.name).join(', ')}`);
    return b.id;
  };
  const server = busId('http-server');
  const shutdown = busId('shutdown');
  const cart = busId('cart');
  const ticks = busId('ticks');

  // Listeners made before the client attached: in the snapshot, with the fixture's lines and labels.
  const requestSub = snapshot.snapshot.subscriptions.find((s) => s.bus === server && s.type === 'request');
  assert.ok(requestSub, 'the request listener');
  assert.equal(requestSub.label, 'handleRequest');
  assert.equal(requestSub.site?.file, FIXTURE);
  const cartSub = snapshot.snapshot.subscriptions.find((s) => s.bus === cart && s.type === 'item.added');
  assert.equal(cartSub?.label, 'updateTotal');
  assert.equal(cartSub?.site?.file, FIXTURE);
  const tickSub = snapshot.snapshot.subscriptions.find((s) => s.bus === ticks && s.type === 'tick');
  assert.equal(tickSub?.label, 'onTick');

  const result = await app.run({ requests: REQUESTS });
  assert.equal(result.handled, REQUESTS);
  const records = (): BusRecord[] => messages.flatMap((m) => (m.type === 'records' ? m.records : []));
  const dispatchesOf = (bus: number, type: string) => records().filter((r) => r.kind === 'dispatch' && r.bus === bus && r.type === type);
  await waitFor(() => dispatchesOf(ticks, 'tick').length === 1, 10_000, 'the nanoevents dispatch to arrive');

  // Every request is a dispatch of the server's 'request', one listener timed per dispatch.
  const requests = dispatchesOf(server, 'request');
  assert.equal(requests.length, REQUESTS);
  for (const d of requests) assert.ok(d.kind === 'dispatch' && d.delivered === 1);
  const handlerRecords = records().filter((r) => r.kind === 'handler' && r.subscriptionId === requestSub.id);
  assert.equal(handlerRecords.length, REQUESTS, 'per-listener timings');
  assert.ok(handlerRecords.every((h) => h.kind === 'handler' && h.duration >= 0));
  assert.equal(dispatchesOf(cart, 'item.added').length, 1);
  assert.ok(records().some((r) => r.kind === 'handler' && r.subscriptionId === cartSub?.id));

  // The leak: one subscribe per request on the shared emitter, each at the app's own line.
  const leaks = records().filter((r) => r.kind === 'subscribe' && r.bus === shutdown && r.type === 'close');
  assert.equal(leaks.length, REQUESTS);
  for (const s of leaks) {
    assert.ok(s.kind === 'subscribe');
    assert.equal(s.label, 'releaseRequest');
    assert.equal(s.site?.file, FIXTURE);
    assert.equal(s.site?.line, result.leakLine);
  }

  // Node's own MaxListenersExceededWarning for the shared emitter: still printed, and sent to the client.
  await waitFor(() => app.stderr().includes('MaxListenersExceededWarning'), 5000, 'Node’s warning on stderr');
  await waitFor(() => messages.some((m) => m.type === 'emitter-warning' && m.bus === shutdown), 5000, 'the emitter-warning message');

  // The extension's analyses on the same stream.
  const warnings = new Analyzer(model).run().warnings;
  const growth = warnings.find((w) => w.kind === 'listener-growth' && w.subjects.types.some((t) => t.busName === 'shutdown' && t.type === 'close'));
  assert.ok(growth, `listener growth on shutdown/close; warnings: ${warnings.map((w) => `${w.kind} ${w.title}`).join(' | ')}`);
  assert.equal(growth.sites[0]?.file, FIXTURE);
  assert.equal(growth.sites[0]?.line, result.leakLine);
  assert.ok(growth.kind === 'listener-growth');
  assert.equal(
    growth.evidence.repeated?.sharedEmitter,
    true,
    'the per-request leak is recognised as such, not only by count: ' + JSON.stringify(growth.evidence),
  );
  assert.equal(growth.evidence.repeated?.count, REQUESTS);
  assert.equal(growth.evidence.nodeWarning?.count, 11);
  assert.match(growth.evidence.nodeWarning?.message ?? '', /11 close listeners added/);
  // The server's own per-request pattern is not a leak.
  assert.equal(warnings.filter((w) => w.kind === 'listener-growth' && w.subjects.types.some((t) => t.busName === 'http-server')).length, 0);
});
