// The analyses on watched emitters (#10 item 4), over crafted streams shaped like the probe's
// emitter buses: listeners without owners, buses named `Class#n` for unnamed watches, Node's
// meta-events, Symbol event names as `Symbol(desc)`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { probe } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/trace/read-trace';
import { analyze } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const APP = '/srv/app/server.js';
const LEAK = site(APP, 42, 'onRequest');
const SOCKET_DATA = site('/srv/app/conn.js', 7, 'onConnection');

test('shared emitter: the same line adding a listener per request, over time, none removed, is a leak at that line', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'shutdown', 0);
  for (let i = 1; i <= 12; i++) s.subscribe({ id: i, bus: 1, type: 'close', label: 'releaseRequest', site: LEAK, time: i * 100 });
  s.into(model);
  const [w] = warningsOf(model, 'listener-growth');
  assert.ok(w, 'a per-request listener on a shared emitter is reported (below the 100-listener threshold)');
  assert.equal(w.evidence.repeated?.sharedEmitter, true);
  assert.equal(w.evidence.repeated?.count, 12);
  assert.equal(w.evidence.repeated?.owner, 'shutdown');
  assert.deepEqual(w.sites, [LEAK]);
  assert.match(w.title, /releaseRequest added 12× to "close" on shutdown/);
  assert.match(w.explanation, /server\.js:42/);
  assert.equal(w.subjects.subscriptions.length, 12);

  // Below Node's maxListeners (10 + 1), or all at once (a loop), or removed each time: no warning.
  const few = new Model();
  const f = new StreamBuilder().welcome().busCreated(1, 'shutdown', 0);
  for (let i = 1; i <= 10; i++) f.subscribe({ id: i, bus: 1, type: 'close', site: LEAK, time: i * 100 });
  assert.deepEqual(warningsOf(f.into(few) && few, 'listener-growth'), []);
  const loop = new Model();
  const l = new StreamBuilder().welcome().busCreated(1, 'shutdown', 0);
  for (let i = 1; i <= 30; i++) l.subscribe({ id: i, bus: 1, type: 'close', site: LEAK, time: 100 });
  assert.deepEqual(warningsOf(l.into(loop) && loop, 'listener-growth'), [], 'a loop adding listeners at once is not growth');
  const tidy = new Model();
  const t = new StreamBuilder().welcome().busCreated(1, 'shutdown', 0);
  for (let i = 1; i <= 30; i++) {
    t.subscribe({ id: i, bus: 1, type: 'close', site: LEAK, time: i * 100 });
    if (i > 1) t.unsubscribe(i - 1, 'dispose', 0, i * 100 + 50);
  }
  assert.deepEqual(warningsOf(t.into(tidy) && tidy, 'listener-growth'), [], 'removing the previous listener is correct');
});

test('per class: 500 sockets with one data listener each is a pattern, not a leak (never summed across instances)', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let i = 1; i <= 500; i++) {
    s.busCreated(i, `Socket#${i}`, i * 10);
    s.subscribe({ id: i, bus: i, type: 'data', label: 'onData', site: SOCKET_DATA, time: i * 10 });
  }
  // A socket that emits 'data' with no listener of its own: not a typo of its siblings' 'data'.
  s.busCreated(501, 'Socket#501', 6000);
  s.dispatch({ bus: 501, type: 'data', start: 6001 });
  s.into(model);
  const warnings = analyze(model);
  assert.deepEqual(
    warnings.filter((w) => w.kind === 'listener-growth' || w.kind === 'unheard-dispatch').map((w) => w.title),
    [],
  );
});

test('per class: instances leaking from the same line are one warning that counts them', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  for (let b = 1; b <= 3; b++) s.busCreated(b, `Socket#${b}`, 0);
  for (let i = 0; i < 12; i++) for (let b = 1; b <= 3; b++) s.subscribe({ id: i * 3 + b, bus: b, type: 'close', site: LEAK, time: 100 + i * 50 });
  s.into(model);
  const growth = warningsOf(model, 'listener-growth');
  assert.equal(growth.length, 1, growth.map((w) => w.title).join(' | '));
  assert.deepEqual(growth[0].evidence.instances, { className: 'Socket', count: 3 });
  assert.deepEqual([...growth[0].subjects.buses].sort(), [1, 2, 3]);
  assert.deepEqual(growth[0].sites, [LEAK]);
  assert.match(growth[0].title, /2 other Socket instances/);
});

test("an 'error' listener that never runs is a safety net, not a never-dispatched subscription", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'Server#1', 0);
  s.subscribe({ id: 1, bus: 1, type: 'error', label: 'onServerError', site: LEAK, time: 0 });
  s.subscribe({ id: 2, bus: 1, type: 'listening', label: 'onListening', site: LEAK, time: 0 });
  s.wait(10_000);
  s.dispatch({ bus: 1, type: 'request' }); // the clock moves on
  s.into(model);
  assert.deepEqual(
    warningsOf(model, 'never-dispatched').map((w) => w.subjects.types.map((t) => t.type)),
    [['listening']],
  );
});

test('meta-events: newListener / removeListener are lifecycle — never unheard, never "never dispatched"', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'EventEmitter#1', 0);
  s.subscribe({ id: 1, bus: 1, type: 'newListener', label: 'onNewListener', site: LEAK, time: 0 });
  s.subscribe({ id: 2, bus: 1, type: 'removeListeners', label: 'x', site: LEAK, time: 0 });
  s.dispatch({ bus: 1, type: 'removeListener', start: 10 }); // as an older probe or a trace might carry it
  s.wait(10_000);
  s.dispatch({ bus: 1, type: 'request' }); // the clock moves on
  s.into(model);
  const warnings = analyze(model, { kinds: ['unheard-dispatch', 'never-dispatched'] });
  assert.deepEqual(
    warnings.filter((w) => w.subjects.types.some((t) => t.type === 'newListener' || t.type === 'removeListener')).map((w) => w.title),
    [],
  );
});

test('near miss on an emitter: emit("conection") with no listener while "connection" has listeners; Symbol names as Symbol(desc)', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'Server#1', 0);
  s.subscribe({ id: 1, bus: 1, type: 'connection', label: 'onConnection', site: LEAK, time: 0 });
  s.dispatch({ bus: 1, type: 'conection', start: 5 });
  for (let i = 0; i < 12; i++) s.subscribe({ id: 10 + i, bus: 1, type: 'Symbol(kTick)', label: 'tick', site: LEAK, time: 10 + i * 40 });
  s.into(model);
  const [unheard] = warningsOf(model, 'unheard-dispatch');
  assert.ok(unheard);
  assert.match(unheard.title, /"conection" is dispatched but nobody listens — did you mean "connection"\?/);
  const [growth] = warningsOf(model, 'listener-growth');
  assert.match(growth?.title ?? '', /"Symbol\(kTick\)" on Server#1/);
});

test('throwing listener of an emitter: the wording says the error leaves emit', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'EventEmitter#4', 0);
  s.subscribe({ id: 1, bus: 1, type: 'job', label: 'runJob', site: LEAK, time: 0 });
  s.dispatch({ bus: 1, type: 'job', handlers: [{ sub: 1, throws: 'Error: boom' }] });
  s.into(model);
  const [w] = warningsOf(model, 'throwing-handler');
  assert.ok(w);
  assert.match(w.explanation, /the error leaves `emit`/);
});

test("Node's MaxListenersExceededWarning is evidence, and a trigger of its own while the listeners stay", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome().busCreated(1, 'bus-events', 0);
  // Eleven at once (a loop): not growth by Busscope's own triggers…
  for (let i = 1; i <= 11; i++) s.subscribe({ id: i, bus: 1, type: 'Symbol(tick)', label: 'onTick', site: LEAK, time: 100 });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'listener-growth'), []);
  // …but Node warned about this emitter and event.
  const message = 'Possible EventEmitter memory leak detected. 11 Symbol(tick) listeners added to [EventEmitter]. MaxListeners is 10.';
  model.apply({ type: 'emitter-warning', warning: 'max-listeners', time: 101, bus: 1, emitter: 'EventEmitter', event: 'Symbol(tick)', count: 11, message });
  const [w] = warningsOf(model, 'listener-growth');
  assert.ok(w);
  assert.deepEqual(w.evidence.nodeWarning, { count: 11, time: 101, message });
  assert.match(w.explanation, /MaxListenersExceededWarning, at 11 listeners/);
  assert.deepEqual(w.sites, [LEAK]);
  // Removed below the count Node warned at: the warning goes.
  for (let i = 1; i <= 6; i++) s.unsubscribe(i, 'dispose', 0, 200);
  s.into(model);
  assert.deepEqual(warningsOf(model, 'listener-growth'), []);
});

test('throwing listener of a named watch (probe.watch(hub, { name })): the bus kind on the wire says emitter, not "the bus caught it"', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-named-watch-'));
  try {
    const file = path.join(dir, 'named.bustrace');
    const recording = probe.record(file, { discovery: false, detail: 'handlers', captureStacks: false });
    class Hub extends EventEmitter {}
    const hub = new Hub();
    const watch = probe.watch(hub, { name: 'hub' });
    hub.on('job', function runJob() {
      throw new Error('boom');
    });
    assert.throws(() => hub.emit('job', 1), /boom/, 'the error leaves emit, as Node does');
    await recording.stop();
    watch.dispose();
    const model = new Model();
    for (const m of await readTraceFileMessages(file)) model.apply(m);
    const bus = [...model.buses.values()].find((b) => b.name === 'hub');
    assert.equal(bus?.kind, 'node-emitter');
    assert.equal(bus?.className, 'Hub');
    const [w] = warningsOf(model, 'throwing-handler');
    assert.ok(w);
    assert.match(w.explanation, /the error leaves `emit`/);
    assert.doesNotMatch(w.explanation, /The bus caught it/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a version-2 trace (no bus kinds) still reads: a named watch falls back to the name, an unnamed one to `Class#n`', async () => {
  const messages = await readTraceFileMessages(path.join(__dirname, '../../fixtures/traces/protocol-v2.bustrace'));
  const welcome = messages[0];
  assert.equal(welcome?.type === 'welcome' && welcome.protocolVersion, 2);
  const created = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r) => r.kind === 'bus-created');
  assert.deepEqual(
    created.map((r) => [r.name, 'busKind' in r, 'className' in r]),
    [
      ['fixture-bus', false, false],
      ['hub', false, false],
    ],
  );
  const model = new Model();
  for (const m of messages) model.apply(m);
  assert.equal([...model.buses.values()].find((b) => b.name === 'hub')?.kind, null, 'not said by a version-2 probe');
  const [w] = warningsOf(model, 'throwing-handler');
  assert.ok(w, "the hub's throwing listener is still reported");
});
