// A page's Web Workers in real Chromium: a page with a bus connects and hands its dedicated module
// worker to `addWorker` (`busscope-probe/browser`, the BUILT entry); the worker loads
// `busscope-probe/browser/worker` (BUILT, over dist/browser.mjs as the package ships it) first, makes
// a bus of its own and calls `connectToPage()`. The extension-side server, session manager and model run for real
// (as in browser-app.test.ts): one session, two threads, the worker's bus under the worker's thread,
// its dispatches counted exactly, the inspector feed's snapshot groups the buses by thread and the
// built inspector shows them so; a terminated worker's thread ends; a worker that buries the page in
// records while the page is busy loses some, counted exactly.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BrowserAppServer, type BrowserApp } from '../../extension/src/browserApps/browserAppServer';
import { InspectorFeed } from '../../extension/src/inspector/feed';
import type { Session } from '../../extension/src/sessions/session';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import type { SessionView } from '../../runtime-probe/src/analysis/inspector-messages';
import { StreamDecoder, type RecordSink } from '../../runtime-probe/src/protocol/index';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, openInspector, servePage, type PageServer, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const BROWSER_ENTRY = path.join(ROOT, 'runtime-probe/dist/browser.mjs');
const WORKER_ENTRY = path.join(ROOT, 'runtime-probe/dist/browser-worker.mjs');

/** The page: a bus of its own, one worker handed to addWorker before the connection is open. */
const APP_JS = `
import { addWorker, connect, EventBus } from '/dist/browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting', fromWorker: [] });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'chromium-workers', retryMs: Number(q.get('retry') ?? 0) });
const ui = new EventBus({ name: 'page-ui' });
ui.subscribe('click', function onClick() {});
const worker = new Worker('/worker.js', { type: 'module', name: 'cruncher' });
addWorker(worker);
// The app's own channel to its worker: the probe's port must never show up here.
worker.onmessage = (e) => state.fromWorker.push(e.data);
window.__app = { worker, ui };
c.ready.then(() => {
  state.state = 'open';
  for (let i = 0; i < 30; i++) ui.dispatch('click', { i });
}, (e) => { state.state = c.state; state.refusal = String(e && e.message); });
`;

/** The worker: imports the worker entry first, then makes its bus; dispatches when the page says so. */
const WORKER_JS = `
import { connectToPage, EventBus } from '/dist/browser-worker.mjs';
const seen = [];
const jobs = new EventBus({ name: 'worker-jobs' });
jobs.subscribe('job.done', function onJobDone() {});
const link = connectToPage();
link.ready.then(() => postMessage({ t: 'joined', state: link.state }), (e) => postMessage({ t: 'refused', reason: String(e.message) }));
self.onmessage = (e) => {
  seen.push(JSON.stringify(e.data));
  const m = e.data;
  if (m.t === 'go') {
    for (let i = 0; i < m.n; i++) jobs.dispatch('job.done', { i });
    postMessage({ t: 'done', n: m.n, seen, busId: jobs.busId });
  } else if (m.t === 'close') {
    link.close();
    let again = null;
    try {
      connectToPage();
    } catch (e) {
      again = e.name + ': ' + e.message;
    }
    postMessage({ t: 'closed', state: link.state, again });
  } else if (m.t === 'flood') {
    // Chunks on timers, so the worker's recorder drains and posts while the page is too busy to take them.
    let left = m.n;
    const chunk = () => {
      const k = Math.min(left, m.chunk);
      for (let i = 0; i < k; i++) jobs.dispatch('job.done', { i });
      left -= k;
      if (left > 0) setTimeout(chunk, 0);
      else postMessage({ t: 'flooded-' + m.round, n: m.n });
    };
    chunk();
  }
};
`;

/**
 * A page with two workers that are not threads of it: 'loner' (never handed to addWorker) and
 * 'early' (handed over, but it made a bus before importing the worker entry: its ids could collide).
 */
const EXTRA_JS = `
import { addWorker, connect, EventBus } from '/dist/browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting', fromWorker: [] });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'chromium-extra', retryMs: 0 });
new EventBus({ name: 'extra-ui' });
const loner = new Worker('/worker.js', { type: 'module', name: 'loner' });
const early = new Worker('/early-worker.js', { type: 'module', name: 'early' });
addWorker(early);
loner.onmessage = (e) => state.fromWorker.push({ ...e.data, from: 'loner' });
early.onmessage = (e) => state.fromWorker.push({ ...e.data, from: 'early' });
window.__app = { worker: loner, early };
c.ready.then(() => { state.state = 'open'; });
`;

const EARLY_WORKER_JS = `
import { EventBus } from '/dist/browser.mjs';
const first = new EventBus({ name: 'early-bus' });
const { connectToPage } = await import('/dist/browser-worker.mjs');
const link = connectToPage();
first.subscribe('tick', () => undefined);
first.dispatch('tick', {});
postMessage({ t: 'early', state: link.state, refusal: link.refusal, dispatched: true });
`;

function serveApp(): Promise<StaticServer> {
  return serveFiles({
    '/': modulePage('/app.js', { title: 'workers', body: 'workers' }),
    '/extra': modulePage('/extra.js', { title: 'extra', body: 'extra' }),
    '/app.js': script(APP_JS),
    '/extra.js': script(EXTRA_JS),
    '/early-worker.js': script(EARLY_WORKER_JS),
    '/worker.js': script(WORKER_JS),
    // As the package ships them: the worker entry imports ./browser.mjs.
    '/dist/browser.mjs': script(readFileSync(BROWSER_ENTRY)),
    '/dist/browser-worker.mjs': script(readFileSync(WORKER_ENTRY)),
  });
}

interface AppWindow {
  __busscope?: { state: string; refusal?: string; fromWorker: { t: string; [k: string]: unknown }[] };
  __app: { worker: Worker };
}

async function fromWorker(page: Page, t: string, ms: number): Promise<Record<string, unknown>> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await page.evaluate((want) => (window as unknown as AppWindow).__busscope?.fromWorker.find((m) => m.t === want) ?? null, t);
    if (got !== null) return got;
    if (Date.now() > end) throw new Error(`the worker never said ${t}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a page's Web Workers in real Chromium", { skip: skip ?? undefined, timeout: 180_000 }, () => {
  let browser: Browser;
  let app: StaticServer;
  let inspector: PageServer;
  let server: BrowserAppServer;
  /** The newest page connection (a test cuts it to simulate a dropped line). */
  let lastApp: BrowserApp | undefined;
  let manager: SessionManager;
  /** Set by a test: sees every byte the next pages send, as the session reads them. */
  let tap: ((chunk: Uint8Array) => void) | undefined;

  before(async () => {
    for (const f of [BROWSER_ENTRY, WORKER_ENTRY]) assert.ok(existsSync(f), `${f} is missing: run \`npm run build\` first`);
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    app = await serveApp();
    inspector = await servePage();
    manager = new SessionManager({ updateIntervalMs: 100 });
    server = await BrowserAppServer.listen({
      onApp: (a) => {
        lastApp = a;
        const wire = a.wire.bind(a);
        a.wire = (events) =>
          wire({
            data: (chunk) => {
              tap?.(chunk);
              events.data(chunk);
            },
            closed: () => events.closed(),
          });
        void manager.attachBrowserApp(a).catch(() => undefined);
      },
      onRefused: () => undefined,
    });
  });
  after(() => tearDown([() => browser?.close(), () => manager?.dispose(), () => server?.close(), () => app?.close(), () => inspector?.close()]));

  const openApp = async (retry = 0): Promise<{ page: Page; session: Session; errors: string[] }> => {
    const before = new Set(manager.sessions);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${app.port}/?${new URLSearchParams({ ws: server.url, token: server.token, retry: String(retry) }).toString()}`);
    assert.equal((await fromWorker(page, 'joined', 15_000)).state, 'open');
    await waitFor(() => manager.sessions.some((s) => !before.has(s) && s.isLive), 10_000, "the page's session");
    return { page, session: manager.sessions.find((s) => !before.has(s))!, errors };
  };

  const busNamed = (session: Session, name: string) => [...session.model.buses.values()].find((b) => b.name === name);

  test('one session, two threads: the worker bus under the worker thread, its dispatches counted exactly, grouped by thread in the inspector', async () => {
    const { page, session, errors } = await openApp();
    assert.equal(manager.sessions.filter((s) => s.isLive).length, 1, 'the worker is not an app of its own');
    await waitFor(() => busNamed(session, 'page-ui') !== undefined && busNamed(session, 'worker-jobs') !== undefined, 10_000, 'both buses');
    const ui = busNamed(session, 'page-ui')!;
    const jobs = busNamed(session, 'worker-jobs')!;
    assert.equal(ui.thread, 0);
    assert.ok(jobs.thread >= 1, `the worker bus is on a worker thread (got ${jobs.thread})`);
    // Ids unique across the page and its worker: the worker's come from its own block.
    assert.ok(jobs.id > 2 ** 32 && ui.id < 2 ** 32, `bus ids ${ui.id} and ${jobs.id}`);
    const threads = session.model.threadViews();
    assert.deepEqual(
      threads?.map((t) => [t.id, t.name, t.exitedAt]),
      [
        [0, 'main', null],
        [jobs.thread, 'cruncher', null],
      ],
    );

    const N = 2500;
    await page.evaluate((n) => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n }), N);
    const done = await fromWorker(page, 'done', 10_000);
    assert.equal(done.busId, jobs.id, "the model's id is the worker's own");
    await waitFor(() => jobs.dispatches >= N, 10_000, "the worker's dispatches");
    // A ping round trip: everything the page had queued has arrived; nothing more comes.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(jobs.dispatches, N);
    assert.equal(session.model.drops.records, 0);
    await waitFor(() => ui.dispatches === 30, 5000, "the page's own dispatches");
    // The probe's port never reached the app's own listeners, on either side.
    assert.ok(!(done.seen as string[]).some((s) => s.includes('busscope')), (done.seen as string[]).join(', '));
    const fromApp = await page.evaluate(() => (window as unknown as AppWindow).__busscope!.fromWorker.map((m) => m.t));
    assert.deepEqual(fromApp, ['joined', 'done']);

    // The inspector feed: the page's buses and the worker's, each with its thread.
    const view: SessionView = {
      phase: 'attached',
      sessionId: 'workers-1',
      label: 'chromium-workers',
      detail: '',
      droppedRecords: 0,
      offline: false,
      sessions: [{ id: 'workers-1', label: 'chromium-workers', phase: 'attached' }],
      threads: threads!,
    };
    const snapshot = new InspectorFeed(session.model).snapshot(view, []);
    const byName = new Map(snapshot.buses.map((b) => [b.name, b.thread ?? 0]));
    assert.equal(byName.get('page-ui'), 0);
    assert.equal(byName.get('worker-jobs'), jobs.thread);
    const shown = await openInspector(browser, inspector, { scenario: 'empty', theme: 'dark' });
    await shown.page.evaluate((s) => window.postMessage({ type: 'snapshot', snapshot: s }, '*'), snapshot);
    await shown.page.waitForSelector('[data-testid=node-list] [data-kind=thread]');
    const rows = await shown.page
      .locator('[data-testid=node-list] [data-kind=thread], [data-testid=node-list] [data-kind=bus]')
      .evaluateAll((els) =>
        els
          .sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')))
          .map((e) =>
            e.getAttribute('data-kind') === 'thread'
              ? `# ${e.getAttribute('data-thread')}`
              : `${e.getAttribute('data-bus')} @ ${e.getAttribute('data-thread')}`,
          ),
      );
    assert.deepEqual(rows, ['# main thread', 'page-ui @ main thread', '# worker cruncher', 'worker-jobs @ worker cruncher']);
    assert.deepEqual(shown.errors, []);
    await shown.page.close();

    // terminate() ends the worker's thread in the session; the page's session goes on.
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.terminate());
    await waitFor(() => session.model.threads.get(jobs.thread)?.exitedAt != null, 10_000, "the worker thread's end");
    assert.ok(session.isLive);
    assert.deepEqual(errors, []);
    await page.close();
    await waitFor(() => !session.isLive, 10_000, 'the session to end with the page');
  });

  test("a worker's dispatches reach the extension as dispatch columns (version 6) in its thread frames, their bus ids beyond 2^32 exact", async () => {
    const chunks: Uint8Array[] = [];
    tap = (chunk) => chunks.push(chunk.slice());
    try {
      const { page, session, errors } = await openApp();
      await waitFor(() => busNamed(session, 'worker-jobs') !== undefined, 10_000, "the worker's bus");
      const jobs = busNamed(session, 'worker-jobs')!;
      assert.ok(jobs.id > 2 ** 32);
      await session.probeClient!.configure({ detail: 'dispatch' });
      const N = 2500;
      await page.evaluate((n) => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n }), N);
      await fromWorker(page, 'done', 10_000);
      await waitFor(() => jobs.dispatches >= N, 10_000, "the worker's dispatches");
      assert.equal(jobs.dispatches + session.model.drops.dispatches, N);

      // The page's bytes again, through a decoder that tells runs from plain dispatch records.
      const decoder = new StreamDecoder();
      let inRuns = 0;
      let plain = 0;
      let threadBytes = 0;
      const wrong: string[] = [];
      const sink: RecordSink = {
        dispatch: (_seq, bus) => {
          if (bus === jobs.id) plain++;
        },
        record: () => undefined,
        dispatchRun: (c) => {
          for (let i = 0; i < c.count; i++) {
            if (c.bus[i] !== jobs.id) continue;
            inRuns++;
            const got = [c.type[i], c.delivered[i], c.depth[i], c.parentSeq[i]];
            if (got.join() !== ['job.done', 1, 0, 0].join()) wrong.push(got.join());
          }
        },
      };
      for (const chunk of chunks) decoder.feed(chunk);
      for (let before = decoder.bufferedBytes, m = decoder.next(sink); m !== undefined; before = decoder.bufferedBytes, m = decoder.next(sink)) {
        if (m.type === 'records' && m.thread !== undefined) threadBytes += before - decoder.bufferedBytes;
      }
      console.log(`page worker: ${(threadBytes / N).toFixed(2)} B per dispatch in thread frames (${inRuns} in runs, ${plain} plain)`);
      assert.equal(plain, 0, 'no plain dispatch records');
      assert.equal(inRuns, jobs.dispatches, 'every recorded dispatch in a run');
      assert.deepEqual(wrong, []);
      // Plain dispatch records take 40 B and more; columns a few.
      assert.ok(threadBytes / N < 12, `${threadBytes / N} B per dispatch`);
      assert.deepEqual(errors, []);
      await page.close();
      await waitFor(() => !session.isLive, 10_000, 'the session to end with the page');
    } finally {
      tap = undefined;
    }
  });

  test('a worker that outruns a busy page loses records, counted exactly: recorded + dropped = dispatched', async () => {
    const { page, session, errors } = await openApp();
    await waitFor(() => busNamed(session, 'worker-jobs') !== undefined, 10_000, 'the worker bus');
    const jobs = busNamed(session, 'worker-jobs')!;
    // Enough to pass the worker's in-flight cap in dispatch columns too (about 2 B per dispatch here).
    const N = 3_000_000;
    // The page's main thread is busy while the worker dispatches: its frames pile up unread until the
    // worker's in-flight cap (4 MiB) makes it drop batches, and count them. On a loaded machine the
    // worker may not outrun 3 s of a busy page: then again, busier for longer (the count stays exact).
    let dispatched = 0;
    for (const [round, busyMs] of [3000, 6000, 12000].entries()) {
      await page.evaluate(
        ({ n, ms, r }) => {
          (window as unknown as AppWindow).__app.worker.postMessage({ t: 'flood', n, chunk: 20_000, round: r });
          const end = Date.now() + ms;
          while (Date.now() < end);
        },
        { n: N, ms: busyMs, r: round },
      );
      await fromWorker(page, `flooded-${round}`, 60_000);
      dispatched += N;
      await waitFor(() => jobs.dispatches + session.model.drops.dispatches >= dispatched, 30_000, 'every dispatch recorded or counted as dropped');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(jobs.dispatches + session.model.drops.dispatches, dispatched);
      console.log(`flood ${round}: ${jobs.dispatches} recorded, ${session.model.drops.dispatches} dropped (${JSON.stringify(session.model.drops.byReason)})`);
      if (session.model.drops.dispatches > 0) break;
    }
    assert.ok(session.model.drops.dispatches > 0, 'some were dropped');
    assert.ok(jobs.dispatches > 0, 'some were recorded');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("after the page's link drops and it reconnects, its worker joins the new session and counts from there", async () => {
    const { page, session } = await openApp(200);
    await waitFor(() => busNamed(session, 'worker-jobs') !== undefined, 10_000, 'the worker bus');
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 100 }));
    await waitFor(() => busNamed(session, 'worker-jobs')!.dispatches === 100, 10_000, 'the first dispatches');
    const before = new Set(manager.sessions);
    // The line drops (not a Detach: a detached page stays away until it is reloaded).
    lastApp!.transport.destroy();
    await waitFor(() => manager.sessions.some((s) => !before.has(s) && s.isLive), 15_000, 'the reconnected session');
    const again = manager.sessions.find((s) => !before.has(s))!;
    await waitFor(() => busNamed(again, 'worker-jobs') !== undefined, 10_000, 'the worker bus in the new session');
    const jobs = busNamed(again, 'worker-jobs')!;
    assert.equal(again.model.threadViews()?.[1]?.name, 'cruncher');
    assert.equal(jobs.thread, again.model.threadViews()?.[1]?.id);
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 250 }));
    await waitFor(() => jobs.dispatches >= 250, 10_000, 'the dispatches after the reconnect');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(jobs.dispatches, 250);
    assert.equal(again.model.drops.records, 0);
    await page.close();
  });

  test('a worker the page never added works on its own; one that made a bus before importing the worker entry is refused, and works on', async () => {
    const before = new Set(manager.sessions);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${app.port}/extra?${new URLSearchParams({ ws: server.url, token: server.token }).toString()}`);
    const early = await fromWorker(page, 'early', 15_000);
    assert.equal(early.state, 'refused');
    assert.match(String(early.refusal), /before it imported busscope-probe\/browser\/worker: import it first/);
    assert.equal(early.dispatched, true);
    // The loner's connectToPage() waits for a port that never comes; its bus works regardless.
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 10 }));
    const done = await fromWorker(page, 'done', 10_000);
    assert.equal(done.n, 10);
    await waitFor(() => manager.sessions.some((s) => !before.has(s) && s.isLive), 10_000, "the page's session");
    const session = manager.sessions.find((s) => !before.has(s))!;
    await waitFor(() => busNamed(session, 'extra-ui') !== undefined, 10_000, "the page's bus");
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(
      [...session.model.buses.values()].map((b) => b.name),
      ['extra-ui'],
    );
    assert.equal(session.model.threadViews(), undefined);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the extension's recording settings reach the worker (at detail 'dispatch' its handler calls are no longer recorded); close() in the worker ends its thread", async () => {
    const { page, session } = await openApp();
    await waitFor(() => busNamed(session, 'worker-jobs') !== undefined, 10_000, 'the worker bus');
    const jobs = busNamed(session, 'worker-jobs')!;
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 50 }));
    await waitFor(() => jobs.dispatches === 50 && session.model.totalHandlerCalls >= 50, 10_000, 'dispatches with their handler calls');
    const calls = session.model.totalHandlerCalls;
    const config = await session.probeClient!.configure({ detail: 'dispatch' });
    assert.equal(config.detail, 'dispatch');
    // The page passes the settings on to its worker over their port (another channel than the app's 'go').
    await new Promise((r) => setTimeout(r, 300));
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 80 }));
    await waitFor(() => jobs.dispatches >= 130, 10_000, 'the dispatches at the new detail');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(jobs.dispatches, 130);
    assert.equal(session.model.totalHandlerCalls, calls, 'no handler calls recorded at detail dispatch');

    // close() in the worker: what it recorded arrives, then its thread ends; the page's session goes on.
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'go', n: 7 }));
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'close' }));
    const closed = await fromWorker(page, 'closed', 10_000);
    assert.equal(closed.state, 'closed');
    assert.equal(closed.again, 'TypeError: connectToPage: this worker called it already (that connection is closed)');
    await waitFor(() => session.model.threads.get(jobs.thread)?.exitedAt != null, 10_000, "the worker thread's end");
    assert.equal(jobs.dispatches, 137);
    assert.ok(session.isLive);
    await page.close();
  });
});
