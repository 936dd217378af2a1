// Integration against code nobody here wrote: the `ws` package's WebSocketServer with real ws
// clients over real sockets (test/fixtures/apps/ws-app.cjs, the BUILT package), a deliberate
// per-connection listener leak on a shared EventEmitter. A real client attached over the probe's
// socket feeds the extension's model; the analyses report the leak at the app's own subscribe
// line, the per-connection WebSocket#n buses (one listener each) are not called a leak, and Node's
// own MaxListenersExceededWarning still reaches stderr — and, through the probe's 'warning'
// listener, the warning's evidence.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import net from 'node:net';
import {
  FrameDecoder,
  FrameKind,
  MAX_PROBE_FRAME_BYTES,
  SUPPORTED_PROTOCOL_VERSIONS,
  encodeControlFrame,
  parseProbeMessage,
  type BusRecord,
  type ProbeMessage,
  type SnapshotMessage,
  type StreamMessage,
} from '../../../runtime-probe/src/protocol/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { cleanup, connect, onCleanup, ROOT, spawnRunApp, waitFor, withTimeout, type ProbeInfoLike } from './helpers';

after(cleanup);

const FIXTURE = path.join(ROOT, 'test/fixtures/apps/ws-app.cjs');
const CLIENTS = 14;

interface RunResult {
  readonly leakLine: number;
  readonly echoed: number;
  readonly broadcastListeners: number;
  readonly caught: string | null;
}

/** Control messages a client without `hello.features` receives up to its first pong. */
function oldClientMessages(info: ProbeInfoLike): Promise<ProbeMessage[]> {
  return withTimeout(
    new Promise<ProbeMessage[]>((resolve, reject) => {
      const socket = net.connect({ host: info.host, port: info.port });
      onCleanup(() => {
        socket.destroy();
      });
      const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
      const out: ProbeMessage[] = [];
      socket.on('connect', () => {
        socket.write(encodeControlFrame({ type: 'hello', token: info.token, protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], clientName: 'old-client' }));
        socket.write(encodeControlFrame({ type: 'ping', requestId: 1 }));
      });
      socket.on('data', (chunk: Buffer) => {
        frames.push(chunk);
        for (let f = frames.next(); f; f = frames.next()) {
          if (f.kind !== FrameKind.Control) continue;
          const m = parseProbeMessage(f.body);
          out.push(m);
          if (m.type === 'pong') {
            socket.destroy();
            resolve(out);
          }
        }
      });
      socket.on('error', reject);
    }),
    5000,
    'an old client up to its pong',
  );
}

test('ws WebSocketServer with real clients: the per-connection leak on the shared hub is reported at the app’s line; one listener per WebSocket is not', async () => {
  const app = await spawnRunApp<{ clients: number; gapMs: number }, RunResult>(FIXTURE, 'ws app');
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
  assert.ok(snapshot);
  const names = snapshot.snapshot.buses.map((b) => b.name);
  assert.ok(names.includes('WebSocketServer#1'), `the ws server as ClassName#n: ${names.join(', ')}`);
  const hub = snapshot.snapshot.buses.find((b) => b.name === 'hub');
  assert.ok(hub);

  const result = await app.run({ clients: CLIENTS, gapMs: 25 });
  assert.equal(result.echoed, CLIENTS, 'every real client got its broadcast back');
  assert.equal(result.broadcastListeners, CLIENTS, 'the leak is real: one listener per connection');
  const records = (): BusRecord[] => messages.flatMap((m) => (m.type === 'records' ? m.records : []));
  await waitFor(
    () => records().filter((r) => r.kind === 'subscribe' && r.bus === hub.id && r.type === 'broadcast').length === CLIENTS,
    10_000,
    'every leaked subscribe to arrive',
  );
  for (const s of records()) {
    if (s.kind !== 'subscribe' || s.bus !== hub.id) continue;
    assert.equal(s.label, 'relay');
    assert.equal(s.site?.file, FIXTURE);
    assert.equal(s.site?.line, result.leakLine);
  }
  // The server's own emits, one 'headers' per real client's upgrade. (Its 'connection' goes through
  // `this.emit.bind(this, 'connection')`, bound in ws's constructor before the watch: a per-instance
  // watch cannot see a bound copy of the original `emit`; the process-wide instrumentation can.)
  const wssId = snapshot.snapshot.buses.find((b) => b.name === 'WebSocketServer#1')?.id;
  await waitFor(
    () => records().filter((r) => r.kind === 'dispatch' && r.bus === wssId && r.type === 'headers').length === CLIENTS,
    10_000,
    'the upgrade dispatches',
  );
  const sockets = [...model.buses.values()].filter((b) => /^WebSocket#\d+$/.test(b.name));
  assert.equal(sockets.length, CLIENTS, 'one bus per server-side WebSocket');

  // Node's own MaxListenersExceededWarning (hub has the default maxListeners, 10) reaches the model.
  await waitFor(() => messages.some((m) => m.type === 'emitter-warning'), 5000, 'the emitter-warning message');
  const nodeWarning = messages.find((m) => m.type === 'emitter-warning');
  assert.ok(nodeWarning?.type === 'emitter-warning');
  assert.deepEqual([nodeWarning.bus, nodeWarning.event, nodeWarning.count, nodeWarning.emitter], [hub.id, 'broadcast', 11, 'EventEmitter']);
  const warnings = new Analyzer(model).run().warnings;
  const growth = warnings.filter((w) => w.kind === 'listener-growth');
  assert.equal(growth.length, 1, `one listener-growth warning: ${growth.map((w) => w.title).join(' | ')}`);
  const leak = growth[0];
  assert.ok(leak.kind === 'listener-growth');
  assert.deepEqual(
    leak.subjects.types.map((t) => `${t.busName}/${t.type}`),
    ['hub/broadcast'],
  );
  assert.equal(leak.sites[0]?.file, FIXTURE);
  assert.equal(leak.sites[0]?.line, result.leakLine);
  assert.equal(leak.evidence.repeated?.sharedEmitter, true);
  assert.equal(leak.evidence.repeated?.count, CLIENTS);
  assert.equal(leak.evidence.nodeWarning?.count, 11, 'Node’s warning is part of the evidence');
  assert.match(leak.evidence.nodeWarning?.message ?? '', /11 broadcast listeners added/);
  assert.match(leak.explanation, /MaxListenersExceededWarning/);

  // Throwing and slow listeners, the typo'd event, meta-events and Symbol names, on emitters.
  assert.equal(result.caught, 'job failed', 'the app still gets its listener’s throw from emit');
  await waitFor(() => records().some((r) => r.kind === 'dispatch' && r.bus === hub.id && r.type === 'Symbol(flush)'), 5000, 'the Symbol dispatch');
  const all = new Analyzer(model, { thresholds: { neverDispatched: { graceMs: 0 } } }).run().warnings;
  const throwing = all.find((w) => w.kind === 'throwing-handler');
  assert.ok(throwing, `a throwing-handler warning: ${all.map((w) => w.title).join(' | ')}`);
  assert.match(throwing.title, /failingJob threw 1 time: Error: job failed/);
  assert.equal(throwing.sites[0]?.file, FIXTURE);
  const slow = all.find((w) => w.kind === 'slow-handler');
  assert.match(slow?.title ?? '', /slowStats/);
  const typo = all.find((w) => w.kind === 'unheard-dispatch');
  assert.ok(typo?.kind === 'unheard-dispatch');
  assert.deepEqual(
    [typo.subjects.types[0]?.busName, typo.subjects.types[0]?.type, typo.evidence.nearMisses[0]?.type],
    ['WebSocketServer#1', 'conection', 'connection'],
  );
  assert.deepEqual(
    all.filter((w) => w.subjects.types.some((t) => t.type === 'newListener' || t.type === 'removeListener')).map((w) => w.title),
    [],
    'meta-events are lifecycle',
  );
  assert.deepEqual(all.filter((w) => w.kind === 'unheard-dispatch').length, 1, 'only the typo is unheard');

  // A client attaching later gets the warning too (after its snapshot).
  const late = await connect(app.info);
  await waitFor(() => late.messages.some((m) => m.type === 'emitter-warning'), 5000, 'the stored warning for a late client');
  const firstSnapshot = late.messages.findIndex((m) => m.type === 'snapshot');
  assert.ok(firstSnapshot >= 0 && firstSnapshot < late.messages.findIndex((m) => m.type === 'emitter-warning'));

  // A client that predates the feature (no `features` in hello) never gets the message.
  const old = await oldClientMessages(app.info);
  assert.ok(old.some((m) => m.type === 'snapshot') && old.some((m) => m.type === 'pong'));
  assert.deepEqual(
    old.filter((m) => m.type === 'emitter-warning'),
    [],
  );

  // Node's own warning was not suppressed by the probe.
  await waitFor(() => app.stderr().includes('MaxListenersExceededWarning'), 5000, `Node's warning on stderr (stderr: ${app.stderr()})`);
});
