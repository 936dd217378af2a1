// Every thread's buses in one session (issue 16): the probe runs in this (main) thread; real
// worker_threads load the built package and create buses; a real ProbeClient over the real socket
// feeds the real model. Workers forward through the main thread's probe (no socket of their own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import fs from 'node:fs';
import os from 'node:os';
import { EventBus, ProbeClient, probe, readTraceFileMessages } from '../../../runtime-probe/src/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { Session } from '../../../extension/src/sessions/session';
import { inspectorSessionInfo } from '../../../extension/src/sessions/inspectorSource';
import type { InspectorSource } from '../../../extension/src/inspector/source';
import { loopback } from '../webview/loopback';

const workerFile = path.resolve(__dirname, '../../fixtures/workers/bus-worker.cjs');

interface Ready {
  ready: true;
  busId: number;
  subscriptionId: number;
}

function spawn(label: string, data: Record<string, unknown> = {}): { worker: Worker; ready: Promise<Ready> } {
  const worker = new Worker(workerFile, { workerData: { label, ...data }, execArgv: [] });
  const ready = new Promise<Ready>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', resolve);
  });
  return { worker, ready };
}

function reply(worker: Worker, command: string): Promise<unknown> {
  const answer = new Promise((resolve) => worker.once('message', resolve));
  worker.postMessage(command);
  return answer;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function exited(worker: Worker): Promise<void> {
  return new Promise((resolve) => worker.once('exit', () => resolve()));
}

test('two workers each with a bus: one session shows three threads, each bus under its thread, ids unique, dispatches counted', async () => {
  const mainBus = new EventBus<{ tick: number }>({ name: 'main-bus' });
  const mainSub = mainBus.subscribe('tick', () => undefined);
  // One worker before the probe starts, one after: both join.
  const alpha = spawn('alpha', { dispatches: 40 });
  const alphaReady = await alpha.ready;
  const info = await probe.start({ discovery: false, name: 'threads-test' });
  const beta = spawn('beta', { dispatches: 25 });
  const betaReady = await beta.ready;
  const model = new Model();
  const messages: StreamMessage[] = [];
  const client = await ProbeClient.connect({
    port: info.port,
    token: info.token,
    timeoutMs: 5000,
    onMessage: (m) => {
      messages.push(m);
      model.apply(m);
    },
  });
  try {
    assert.equal(client.welcome.protocolVersion, 6);
    await until('both workers in the session', () => model.threads.size === 2);
    await reply(alpha.worker, 'dispatch');
    await reply(beta.worker, 'dispatch');
    mainBus.dispatch('tick', 1);
    const busNamed = (name: string) => [...model.buses.values()].find((b) => b.name === name);
    await until("the workers' dispatches", () => (busNamed('work-alpha')?.dispatches ?? 0) >= 40 && (busNamed('work-beta')?.dispatches ?? 0) >= 25);

    const threads = model.threadViews();
    assert.ok(threads !== undefined);
    assert.deepEqual(
      threads.map((t) => t.id),
      [0, alpha.worker.threadId, beta.worker.threadId].sort((a, b) => a - b),
    );
    assert.equal(threads[0].name, 'main');
    for (const t of threads.slice(1)) {
      assert.equal(t.name, 'bus-worker.cjs', 'a worker without a name (Node 20) is named by its script');
      assert.equal(t.exitedAt, null);
    }
    // Each bus under the thread that created it.
    assert.equal(busNamed('main-bus')?.thread, 0);
    assert.equal(busNamed('work-alpha')?.thread, alpha.worker.threadId);
    assert.equal(busNamed('work-beta')?.thread, beta.worker.threadId);
    assert.equal(busNamed('work-alpha')?.dispatches, 40);
    assert.equal(busNamed('work-beta')?.dispatches, 25);
    // Ids unique across threads: the three buses and three subscriptions have distinct ids.
    const busIds = [mainBus.busId, alphaReady.busId, betaReady.busId];
    assert.equal(new Set(busIds).size, 3, `bus ids ${busIds.join(', ')}`);
    const subIds = [mainSub.id, alphaReady.subscriptionId, betaReady.subscriptionId];
    assert.equal(new Set(subIds).size, 3, `subscription ids ${subIds.join(', ')}`);
    assert.equal(busNamed('work-alpha')?.id, alphaReady.busId);
    // The subscriptions the workers made are in the model, on their buses.
    assert.equal(model.subscriptions.get(alphaReady.subscriptionId)?.type.busState.name, 'work-alpha');
    assert.equal(model.subscriptions.get(betaReady.subscriptionId)?.type.busState.name, 'work-beta');
    // A main-thread snapshot later does not end the workers' subscriptions.
    model.apply({ type: 'snapshot', requestId: null, snapshot: await client.requestSnapshot() });
    assert.equal(model.subscriptions.get(alphaReady.subscriptionId)?.active, true);
    // Seqs of different threads do not collide.
    const seqs = new Set<number>();
    const rows = model.timeline;
    for (let i = 0; i < rows.size; i++) seqs.add(rows.row(i).seq);
    assert.equal(seqs.size, rows.size, 'every dispatch row has its own seq');

    // A worker that ends: its thread is marked exited, its subscription ended.
    const alphaThread = alpha.worker.threadId;
    const gone = exited(alpha.worker);
    alpha.worker.postMessage('exit');
    await gone;
    await until('alpha exited', () => model.threadViews()?.find((t) => t.id === alphaThread)?.exitedAt != null);
    assert.equal(model.subscriptions.get(alphaReady.subscriptionId)?.active, false);
    assert.ok(messages.some((m) => m.type === 'records' && m.thread === beta.worker.threadId));

    // The inspector feed: the extension's Session over the same stream, and what its connection sends the webview.
    const session = new Session({ id: 'threads', source: { kind: 'trace', file: '/tmp/threads.trace' }, updateIntervalMs: 0 });
    for (const m of messages) session.ingest(m);
    session.update();
    const source: InspectorSource = {
      sessions: () => [inspectorSessionInfo(session)],
      onDidChangeSessions: () => ({ dispose() {} }),
      onDidUpdateSession: (listener) => session.onDidUpdate(() => listener(session.id)),
    };
    const lb = loopback(source);
    lb.port.postMessage({ type: 'ready', version: 1, state: null });
    const snapshot = lb.hostOf('snapshot').at(-1)?.snapshot;
    assert.ok(snapshot !== undefined, 'the webview got a snapshot');
    assert.deepEqual(
      snapshot.session.threads?.map((t) => [t.id, t.name, t.exitedAt === null]),
      [
        [0, 'main', true],
        [alphaThread, 'bus-worker.cjs', false],
        [beta.worker.threadId, 'bus-worker.cjs', true],
      ],
    );
    const sent = new Map(snapshot.buses.map((b) => [b.name, b.thread ?? 0]));
    assert.equal(sent.get('main-bus'), 0);
    assert.equal(sent.get('work-beta'), beta.worker.threadId);
  } finally {
    client.close();
    await beta.worker.terminate();
    await alpha.worker.terminate();
    await probe.stop();
    mainBus.dispose();
  }
});

test('a client that speaks only version 4 sees the main thread only', async () => {
  const w = spawn('gamma');
  await w.ready;
  const info = await probe.start({ discovery: false });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, protocolVersions: [4], onMessage: (m) => model.apply(m) });
  try {
    assert.equal(client.welcome.protocolVersion, 4);
    await client.ping();
    await new Promise((r) => setTimeout(r, 200));
    await client.ping();
    assert.equal(model.threads.size, 0);
    assert.ok(![...model.buses.values()].some((b) => b.name === 'work-gamma'));
  } finally {
    client.close();
    await w.worker.terminate();
    await probe.stop();
  }
});

test('a worker that floods records: what crosses to the main thread is bounded, the rest counted as drops', async () => {
  // Enough to pass the 4 MiB in flight in dispatch columns too (about 2 B per dispatch here).
  const FLOOD = 3_000_000;
  const w = spawn('flood', { flood: FLOOD });
  await w.ready;
  const info = await probe.start({ discovery: false });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, onMessage: (m) => model.apply(m) });
  try {
    await client.configure({ detail: 'dispatch' });
    await until('the flooding worker joined', () => model.threads.size === 1);
    // The main thread is busy (synchronously) while the worker floods: it takes nothing meanwhile.
    const done = reply(w.worker, 'flood');
    const busyUntil = Date.now() + 3000;
    let spins = 0;
    while (Date.now() < busyUntil) spins++;
    await done;
    const bus = () => [...model.buses.values()].find((b) => b.name === 'work-flood');
    await until('the flood accounted for', () => (bus()?.dispatches ?? 0) + model.drops.dispatches >= FLOOD, 20_000);
    const received = bus()?.dispatches ?? 0;
    assert.ok(spins > 0);
    assert.ok(model.drops.dispatches > 0, 'the worker outran the main thread: some dispatches were dropped');
    assert.equal(received + model.drops.dispatches, FLOOD, 'exact: received + dropped = dispatched');
  } finally {
    client.close();
    await w.worker.terminate();
    await probe.stop();
  }
});

test("a trace recorded in the main thread holds the workers' buses too, and reads back into the same model", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-threads-'));
  const file = path.join(dir, 'threads.bustrace');
  const w = spawn('traced', { dispatches: 12 });
  const ready = await w.ready;
  const recording = probe.record(file);
  try {
    // The worker joins the trace's stream asynchronously: its snapshot, then its records.
    await new Promise((r) => setTimeout(r, 300));
    await reply(w.worker, 'dispatch');
    const gone = exited(w.worker);
    w.worker.postMessage('exit');
    await gone;
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    await recording.stop();
  }
  const model = new Model();
  for (const m of await readTraceFileMessages(file)) model.apply(m);
  const bus = model.buses.get(ready.busId);
  assert.equal(bus?.name, 'work-traced');
  assert.ok((bus?.thread ?? 0) > 0, 'the bus is under its worker thread');
  assert.equal(bus?.dispatches, 12);
  const thread = model.threadViews()?.find((t) => t.id === bus?.thread);
  assert.equal(thread?.name, 'bus-worker.cjs');
  assert.ok(thread?.exitedAt !== null && thread?.exitedAt !== undefined, 'the trace says the worker exited');
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a client's configure reaches the workers: at detail lifecycle a worker records no dispatches, at dispatch it does", async () => {
  const w = spawn('configured', { dispatches: 10 });
  const ready = await w.ready;
  const info = await probe.start({ discovery: false });
  const model = new Model();
  const client = await ProbeClient.connect({ port: info.port, token: info.token, onMessage: (m) => model.apply(m) });
  try {
    await client.configure({ detail: 'lifecycle' });
    await until('the worker joined', () => model.buses.get(ready.busId) !== undefined);
    // The settings reach the worker over the probe's channel, which nothing orders with the test's
    // parentPort message: give the channel time to deliver first.
    await new Promise((r) => setTimeout(r, 300));
    await reply(w.worker, 'dispatch');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(model.buses.get(ready.busId)?.dispatches, 0, 'lifecycle: no dispatch records from the worker');
    await client.configure({ detail: 'dispatch' });
    await new Promise((r) => setTimeout(r, 300));
    await reply(w.worker, 'dispatch');
    await until("the worker's dispatches at detail dispatch", () => model.buses.get(ready.busId)?.dispatches === 10);
  } finally {
    client.close();
    await w.worker.terminate();
    await probe.stop();
  }
});
