// A page in real Chromium writes its dispatches as protocol-version-6 dispatch columns (record code
// 18: a few bytes a dispatch), not the 40-byte version-4 block entries: the page's `send` of ~40 B
// per dispatch was most of what attaching Busscope cost the page's main thread. The extension-side
// server and session run for real (as in browser-app.test.ts); the test taps the page's bytes as the
// extension receives them and reads them with the real stream decoder: the batches' dispatch runs are
// columns, a dispatch takes a few bytes, and every dispatch decodes exactly — type, bus, parent,
// depth, delivered, consumedBy — with delivered + dropped = dispatched.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { BrowserAppServer, type BrowserApp } from '../../extension/src/browserApps/browserAppServer';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import { FrameDecoder, MAX_PROBE_FRAME_BYTES, RecordCode, type DispatchRecord } from '../../runtime-probe/src/protocol/index';
import { StreamDecoder } from '../../runtime-probe/src/protocol/stream';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const ENTRY = path.join(ROOT, 'runtime-probe/dist/browser.mjs');
const DISPATCHES = 20_000;

/**
 * Five types in turn: `two` has two listeners, `one` one, `outer` dispatches `one` from its listener
 * (depth 1, its parent the `outer`), `none` has no listener, `taken` one that consumes it.
 */
const APP_JS = `
import { connect, EventBus } from '/busscope-browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting' });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'chromium-columns', retryMs: 0 });
const bus = new EventBus({ name: 'columns' });
bus.subscribe('two', function a() {});
bus.subscribe('two', function b() {});
bus.subscribe('one', function c() {});
bus.subscribe('outer', function nest() { bus.dispatch('one', 0); });
const taker = bus.subscribe('taken', function take() { return true; });
const TYPES = ['two', 'one', 'outer', 'none', 'taken'];
state.bus = bus.busId;
state.taker = taker.id;
// Chunks on timers, as an app's events come: the recorder drains between them.
window.__run = (n) => new Promise((resolve) => {
  let i = 0;
  const chunk = () => {
    for (const end = Math.min(n, i + 500); i < end; i++) bus.dispatch(TYPES[i % TYPES.length], i);
    if (i < n) setTimeout(chunk, 0);
    else resolve();
  };
  chunk();
});
c.ready.then(() => { state.state = 'open'; }, (e) => { state.state = c.state; state.refusal = String(e && e.message); });
`;

function serveApp(): Promise<StaticServer> {
  return serveFiles({ '/': modulePage('/app.js'), '/app.js': script(APP_JS), '/busscope-browser.mjs': script(readFileSync(ENTRY)) });
}

/** The page's connection as the session sees it, with every chunk the page sent kept too. */
function tapped(app: BrowserApp, chunks: Uint8Array[]): BrowserApp {
  return {
    ...app,
    wire(events) {
      app.wire({
        data(chunk) {
          chunks.push(chunk.slice());
          events.data(chunk);
        },
        closed: () => events.closed(),
      });
    },
  };
}

/** The code of the first record of a batch (inside a `thread-records` wrapper: the thread's first). */
function firstCode(body: Uint8Array): number {
  if (body[0] !== RecordCode.ThreadRecords) return body[0];
  let p = 1;
  while (body[p] & 0x80) p++;
  return body[p + 1];
}

describe("a page's dispatches in real Chromium", { skip: skip ?? undefined, timeout: 180_000 }, () => {
  let browser: Browser;
  let app: { port: number; close(): Promise<void> };
  let server: BrowserAppServer;
  let manager: SessionManager;
  const chunks: Uint8Array[] = [];

  before(async () => {
    assert.ok(existsSync(ENTRY), 'runtime-probe/dist/browser.mjs is missing: run `npm run build` first');
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    app = await serveApp();
    manager = new SessionManager({ updateIntervalMs: 100 });
    server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(tapped(a, chunks)).catch(() => undefined) });
  });
  after(() => tearDown([() => browser?.close(), () => manager?.dispose(), () => server?.close(), () => app?.close()]));

  test('travel as version-6 dispatch columns of a few bytes each, and decode exactly', async (t) => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${app.port}/?${new URLSearchParams({ ws: server.url, token: server.token }).toString()}`);
    await waitFor(
      async () => (await page.evaluate(() => (window as unknown as { __busscope?: { state: string } }).__busscope?.state)) === 'open',
      15_000,
      'the page to connect',
      50,
    );
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].probeClient !== undefined, 10_000, "the page's session");
    const session = manager.sessions[0];
    const { bus, taker } = await page.evaluate(() => (window as unknown as { __busscope: { bus: number; taker: number } }).__busscope);
    // Detail `dispatch`: every dispatch's times are ticks, resolved at the drain (handler detail times a sample exactly).
    assert.equal((await session.probeClient!.configure({ detail: 'dispatch', captureStacks: false })).detail, 'dispatch');
    const from = chunks.length;
    await page.evaluate((n) => (window as unknown as { __run(n: number): Promise<void> }).__run(n), DISPATCHES);
    // The page flushes its recorder before it answers a ping: every dispatch has been sent.
    await session.probeClient!.ping();

    // Read what the page sent, from its welcome on, as the extension does.
    const stream = new StreamDecoder();
    const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
    const dispatches: DispatchRecord[] = [];
    let version = 0;
    let droppedDispatches = 0;
    let runBytes = 0;
    const runCodes = new Set<number>();
    for (let i = 0; i < chunks.length; i++) {
      frames.push(chunks[i]);
      for (let f = frames.next(); f !== undefined; f = frames.next()) {
        const m = stream.decodeFrame(f);
        if (m.type === 'welcome') version = m.protocolVersion;
        if (m.type !== 'records') continue;
        let mine = 0;
        for (const r of m.records) {
          if (r.kind === 'drops') droppedDispatches += r.dispatches;
          if (r.kind === 'dispatch' && r.bus === bus) {
            dispatches.push(r);
            mine++;
          }
        }
        if (i >= from && mine > 0) {
          runBytes += f.body.length;
          runCodes.add(firstCode(f.body));
        }
      }
    }
    assert.equal(version, 6, 'the page speaks version 6');
    // Runs of dispatches are columns: no version-4 block, and a few bytes a dispatch (a block entry is 40).
    assert.ok(runCodes.has(RecordCode.DispatchColumns), `dispatch columns among the batches' records (first codes: ${[...runCodes].join(', ')})`);
    assert.ok(!runCodes.has(RecordCode.DispatchBlock), `no dispatch blocks (first codes: ${[...runCodes].join(', ')})`);
    const perDispatch = runBytes / dispatches.length;
    t.diagnostic(`${perDispatch.toFixed(2)} B a dispatch in the page's record batches`);
    assert.ok(perDispatch < 12, `${perDispatch.toFixed(1)} B a dispatch`);

    // Exactly what ran: each top-level dispatch once, in order, its fields as the bus saw them.
    const nested = DISPATCHES / 5;
    assert.equal(dispatches.length + droppedDispatches, DISPATCHES + nested, 'delivered + dropped = dispatched');
    assert.equal(droppedDispatches, 0, 'nothing dropped (the socket kept up)');
    const bySeq = new Map(dispatches.map((d) => [d.seq, d]));
    const top = dispatches.filter((d) => d.depth === 0).sort((a, b) => a.seq - b.seq);
    assert.equal(top.length, DISPATCHES);
    const delivered: Record<string, number> = { two: 2, one: 1, outer: 1, none: 0, taken: 1 };
    const types = ['two', 'one', 'outer', 'none', 'taken'];
    for (let i = 0; i < top.length; i++) {
      const d = top[i];
      assert.equal(d.type, types[i % 5], `dispatch ${i}'s type`);
      assert.equal(d.parentSeq, 0);
      assert.equal(d.delivered, delivered[d.type], `${d.type}'s delivered`);
      assert.equal(d.consumedBy, d.type === 'taken' ? taker : 0, `${d.type}'s consumedBy`);
      assert.ok(d.duration >= 0 && (d.startBound ?? 0) > 0, `${d.type}'s times come with a bound`);
    }
    const inner = dispatches.filter((d) => d.depth !== 0);
    assert.equal(inner.length, nested);
    for (const d of inner) {
      assert.equal(d.type, 'one');
      assert.equal(d.depth, 1);
      assert.equal(d.delivered, 1);
      const parent = bySeq.get(d.parentSeq)!;
      assert.equal(parent?.type, 'outer', 'a nested dispatch names its outer one');
      assert.ok(d.start >= parent.start - (parent.startBound ?? 0) - (d.startBound ?? 0), 'the nested one starts within its parent');
    }
    // The session read the same stream.
    assert.equal(session.model.buses.get(bus)?.name, 'columns');
    await waitFor(() => session.model.totalDispatches === DISPATCHES + nested, 10_000, "the session's count of the dispatches");
    assert.deepEqual(errors, []);
    await page.close();
  });
});
