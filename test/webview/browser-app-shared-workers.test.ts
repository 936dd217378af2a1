// Shared workers (and a service worker) in real Chromium. A SharedWorker has no single page: it calls
// `connect()` itself (`busscope-probe/browser`, the BUILT entry) and is an app of its own, whose
// identity (no sessionStorage there) is its script URL and name, so that it is the same app when it
// starts again. The extension-side server, session manager and model run for real (as in
// browser-app.test.ts): the worker's bus and its leak show in its own session, two pages sharing the
// worker give one worker session, a page cannot make it a thread (a TypeError says what to do),
// garbage on the worker's socket closes that connection only, a restarted worker is a reload of the
// same app, not a second one (but the same worker live in two browser profiles is two apps), a
// backed-up socket drops batches and counts them, and a module service worker connects the same way.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BrowserAppServer } from '../../extension/src/browserApps/browserAppServer';
import type { Session } from '../../extension/src/sessions/session';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const BROWSER_ENTRY = path.join(ROOT, 'runtime-probe/dist/browser.mjs');
const WORKER_ENTRY = path.join(ROOT, 'runtime-probe/dist/browser-worker.mjs');

/** A page: opens the shared worker, tries to hand it to addWorker, and (connect=1) connects itself. */
const PAGE_JS = `
import { addWorker, connect, EventBus } from '/dist/browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__page = { msgs: [], state: 'starting' });
const shared = new SharedWorker('/shared.js?' + new URLSearchParams({ ws: q.get('ws'), token: q.get('token'), run: q.get('run'), cap: q.get('cap') ?? '', v: q.get('v') ?? '' }), { type: 'module', name: 'hub-worker' });
shared.port.onmessage = (e) => state.msgs.push(e.data);
shared.onerror = (e) => state.msgs.push({ t: 'error', message: String(e.message) });
for (const [key, w] of [['addShared', shared], ['addPort', shared.port]]) {
  try {
    addWorker(w);
    state[key] = 'added';
  } catch (e) {
    state[key] = e.name + ': ' + e.message;
  }
}
if (q.get('connect') === '1') {
  const ui = new EventBus({ name: 'ui-' + q.get('page') });
  const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'page-' + q.get('page'), retryMs: 0 });
  c.ready.then(() => { state.state = 'open'; for (let i = 0; i < 20; i++) ui.dispatch('click', { i }); });
}
window.__shared = shared;
`;

/**
 * The shared worker: loads the worker entry (which does nothing in a shared worker), finds that
 * connectToPage() is not for it, and connects as an app of its own. The WebSocket it opens is kept
 * (a subclass) so that the test can make it send garbage.
 */
const SHARED_JS = `
import { connect, connectToPage, EventBus } from '/dist/browser-worker.mjs';
const sockets = [];
const Native = WebSocket;
self.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    sockets.push(this);
  }
};
let notPage = null;
try {
  connectToPage();
} catch (e) {
  notPage = e.name + ': ' + e.message;
}
const q = new URL(location.href).searchParams;
const cap = q.get('cap') ? Number(q.get('cap')) : undefined;
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'shared-' + q.get('run'), retryMs: 200, maxBufferedBytes: cap });
const hub = new EventBus({ name: 'shared-hub-bus' });
hub.subscribe('sync', function onSync() {});
const instance = Math.random().toString(36).slice(2);
const ports = [];
const badge = { name: 'HubBadge' };
const info = () => ({ state: c.state, notPage, instance, pages: ports.length, sockets: sockets.length, storage: typeof sessionStorage });
self.onconnect = (e) => {
  const port = e.ports[0];
  ports.push(port);
  port.onmessage = (m) => {
    const d = m.data;
    if (d.t === 'go') {
      for (let i = 0; i < d.n; i++) hub.dispatch('sync', { i });
      port.postMessage({ t: 'done-' + d.id, n: d.n });
    } else if (d.t === 'leak') {
      // Every "render" subscribes again and nothing disposes the old subscription.
      let render = 0;
      const renderBadge = () => {
        hub.subscribe('badge.changed', function updateBadge() {}, { owner: badge, label: 'HubBadge' });
        if (++render < 5) setTimeout(renderBadge, 80);
      };
      renderBadge();
      let n = 0;
      const tick = setInterval(() => {
        hub.dispatch('badge.changed', { n });
        if (++n >= 40) clearInterval(tick);
      }, 10);
    } else if (d.t === 'garbage') {
      // A frame of an unknown kind on the probe's own socket.
      sockets[sockets.length - 1].send(new Uint8Array([2, 0, 0, 0, 0xee, 0]));
      port.postMessage({ t: 'garbage-sent' });
    } else if (d.t === 'flood') {
      // Chunks on timers (the recorder drains between them) until the socket is backed up to near its
      // cap, then a few more: the batches drained meanwhile are dropped and counted.
      const socket = sockets[sockets.length - 1];
      let n = 0;
      let over = 0;
      const chunk = () => {
        for (let i = 0; i < 50000; i++) hub.dispatch('flood.' + (i & 7), i);
        n += 50000;
        if (socket.bufferedAmount > cap / 2) over++; // the link never fills it past the cap
        if (over < 4 && n < 8000000) setTimeout(chunk, 0);
        else port.postMessage({ t: 'flood-' + d.id, n, buffered: socket.bufferedAmount });
      };
      chunk();
    } else if (d.t === 'info') {
      port.postMessage({ t: 'info-' + d.id, ...info() });
    }
  };
  c.ready.then(
    () => port.postMessage({ t: 'hello', ...info() }),
    (e) => port.postMessage({ t: 'refused', reason: String(e.message), ...info() }),
  );
};
`;

/** A page that registers a module service worker, which connects as an app of its own. */
const SW_PAGE_JS = `
const q = new URLSearchParams(location.search);
const state = (window.__page = { msgs: [], state: 'starting' });
navigator.serviceWorker.onmessage = (e) => state.msgs.push(e.data);
const params = new URLSearchParams({ ws: q.get('ws'), token: q.get('token'), run: q.get('run') });
navigator.serviceWorker.register('/sw.js?' + params, { type: 'module', scope: '/' }).then(
  (reg) => {
    window.__sw = reg.installing || reg.waiting || reg.active;
    state.state = 'registered';
  },
  (e) => state.msgs.push({ t: 'error', message: String(e && e.message) }),
);
`;

const SW_JS = `
import { connect, EventBus } from '/dist/browser.mjs';
const q = new URL(location.href).searchParams;
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'sw-' + q.get('run'), retryMs: 0 });
const bus = new EventBus({ name: 'sw-bus' });
bus.subscribe('fetch.seen', function onFetchSeen() {});
self.addEventListener('message', (e) => {
  const d = e.data;
  if (d.t === 'go') for (let i = 0; i < d.n; i++) bus.dispatch('fetch.seen', { i });
  const answer = () => e.source.postMessage({ t: 'done-' + d.id, state: c.state, refusal: c.refusal ?? null, storage: typeof sessionStorage });
  e.waitUntil(c.ready.then(answer, answer));
});
`;

function serveApp(): Promise<StaticServer> {
  return serveFiles({
    '/': modulePage('/page.js', { title: 'shared', body: 'shared' }),
    '/page.js': script(PAGE_JS),
    '/shared.js': script(SHARED_JS),
    '/sw-page': modulePage('/sw-page.js', { title: 'sw', body: 'sw' }),
    '/sw-page.js': script(SW_PAGE_JS),
    '/sw.js': script(SW_JS),
    // As the package ships them: the worker entry imports ./browser.mjs.
    '/dist/browser.mjs': script(readFileSync(BROWSER_ENTRY)),
    '/dist/browser-worker.mjs': script(readFileSync(WORKER_ENTRY)),
  });
}

type Msg = { t: string; [k: string]: unknown };
interface PageWindow {
  __page: { msgs: Msg[]; state: string; addShared?: string; addPort?: string };
  __shared: SharedWorker;
  __sw: ServiceWorker;
}

/** The first message `t` the shared worker sent this page (polled: the page has no event to await). */
async function fromShared(page: Page, t: string, ms = 15_000): Promise<Msg> {
  let got: Msg | null = null;
  await waitFor(
    async () => {
      got = await page.evaluate((want) => (window as unknown as PageWindow).__page?.msgs.find((m) => m.t === want || m.t === 'error') ?? null, t);
      return got !== null;
    },
    ms,
    `the shared worker's ${t}`,
    50,
  );
  const m = got as unknown as Msg;
  if (m.t === 'error') throw new Error(`the shared worker failed: ${String(m.message)}`);
  return m;
}

let asked = 0;
/** Asks the shared worker through this page's port; resolves with its answer. */
async function ask(page: Page, message: Msg, ms = 15_000): Promise<Msg> {
  const id = ++asked;
  await page.evaluate((m) => (window as unknown as PageWindow).__shared.port.postMessage(m), { ...message, id });
  return fromShared(page, `${message.t === 'go' ? 'done' : message.t}-${id}`, ms);
}

describe('shared workers in real Chromium', { skip: skip ?? undefined, timeout: 180_000 }, () => {
  let browser: Browser;
  let app: StaticServer;
  let server: BrowserAppServer;
  let manager: SessionManager;

  before(async () => {
    assert.ok(existsSync(BROWSER_ENTRY) && existsSync(WORKER_ENTRY), 'runtime-probe/dist/browser*.mjs is missing: run `npm run build` first');
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    app = await serveApp();
    manager = new SessionManager({ updateIntervalMs: 100 });
    server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(a).catch(() => undefined) });
  });
  after(() => tearDown([() => browser?.close(), () => manager?.dispose(), () => server?.close(), () => app?.close()]));

  const pageUrl = (query: Record<string, string>): string =>
    `http://127.0.0.1:${app.port}/?${new URLSearchParams({ ws: server.url, token: server.token, ...query }).toString()}`;
  const named = (title: string): Session[] => manager.sessions.filter((s) => s.title === title);
  const live = (title: string): Session | undefined => named(title).find((s) => s.isLive);
  const busNamed = (session: Session, name: string) => [...session.model.buses.values()].find((b) => b.name === name);

  /** A page of `context` that opened the shared worker (and, with `connect`, connected itself). */
  async function openPage(context: BrowserContext, query: Record<string, string>): Promise<{ page: Page; errors: string[]; hello: Msg }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pageUrl(query));
    const hello = await fromShared(page, 'hello');
    assert.equal(hello.state, 'open');
    return { page, errors, hello };
  }

  test("a shared worker that calls connect() is an app of its own: its bus, dispatches and leak; two pages sharing it make one worker session; it is no page's thread", async () => {
    const context = await browser.newContext();
    try {
      const a = await openPage(context, { run: '1', page: 'a', connect: '1' });
      const b = await openPage(context, { run: '1', page: 'b', connect: '1' });
      assert.equal(b.hello.instance, a.hello.instance, 'both pages talk to the one shared worker');
      assert.equal(a.hello.storage, 'undefined', 'no sessionStorage in a shared worker');
      await waitFor(() => live('page-a') !== undefined && live('page-b') !== undefined && live('shared-1') !== undefined, 10_000, 'three sessions');
      assert.equal(named('shared-1').length, 1, 'one session for the shared worker, whichever pages use it');
      const hub = live('shared-1')!;
      assert.equal(hub.source.kind === 'browser' && hub.source.origin, `http://127.0.0.1:${app.port}`);
      assert.match(hub.source.kind === 'browser' ? hub.source.tabId : '', /^[0-9a-f]{16}$/);
      assert.match(hub.app?.runtime ?? '', /^browser .*Chrome/);
      // The worker measured its own clock's step (Chromium's 100 µs outside cross-origin isolation).
      const step = hub.probeClient!.welcome.clockStep ?? 0;
      assert.ok(step >= 0.05 && step <= 1, `clock step ${step} ms`);

      // Dispatches from both pages' requests land on the worker's one bus, counted exactly.
      await ask(a.page, { t: 'go', n: 500 });
      await ask(b.page, { t: 'go', n: 250 });
      await waitFor(() => (busNamed(hub, 'shared-hub-bus')?.dispatches ?? 0) >= 750, 10_000, "the worker's dispatches");
      await new Promise((r) => setTimeout(r, 500));
      const bus = busNamed(hub, 'shared-hub-bus')!;
      assert.equal(bus.dispatches, 750);
      assert.equal(bus.thread, 0, "the worker's own main thread");
      assert.equal(hub.model.drops.records, 0);
      // The pages' sessions hold the pages' buses only.
      await waitFor(() => busNamed(live('page-a')!, 'ui-a')?.dispatches === 20, 10_000, "page a's dispatches");
      assert.deepEqual(
        [...live('page-a')!.model.buses.values()].map((x) => x.name),
        ['ui-a'],
      );

      // The worker's leak shows in the worker's session.
      await a.page.evaluate(() => (window as unknown as PageWindow).__shared.port.postMessage({ t: 'leak' }));
      await waitFor(
        () => {
          hub.update();
          return hub.warnings.some((w) => w.kind === 'listener-growth');
        },
        10_000,
        'the leak warning',
      );
      assert.match(JSON.stringify(hub.warnings.find((w) => w.kind === 'listener-growth')), /badge\.changed/);
      const leaked = () => [...hub.model.subscriptions.values()].filter((s) => s.type.name === 'badge.changed');
      await waitFor(() => leaked().length === 5 && bus.dispatches === 790, 10_000, 'the five leaked subscriptions and 40 more dispatches');
      const sites = [...hub.model.subscriptions.values()].filter((s) => s.type.name === 'badge.changed').map((s) => s.site?.file ?? '');
      assert.ok(sites.length >= 5 && sites.every((f) => f.includes('/shared.js')), sites.join(', '));
      assert.ok(!live('page-a')!.warnings.some((w) => w.kind === 'listener-growth'));

      // A page cannot make the shared worker (or its port) a thread; the worker cannot join a page.
      const notThread =
        "TypeError: addWorker: worker must be a dedicated Worker (new Worker(…)); a SharedWorker is no page's thread: it calls connect() itself, as an app of its own";
      const tries = await a.page.evaluate(() => {
        const p = (window as unknown as PageWindow).__page;
        return [p.addShared, p.addPort];
      });
      assert.deepEqual(tries, [notThread, notThread]);
      assert.equal(
        a.hello.notPage,
        'TypeError: connectToPage: call it in a dedicated Web Worker (new Worker(…)); a page, a shared worker or a service worker connects with connect()',
      );
      assert.deepEqual([...a.errors, ...b.errors], []);

      // The worker outlives one of its pages, and its session with it.
      await a.page.close();
      await waitFor(() => live('page-a') === undefined, 10_000, "page a's session to end");
      await ask(b.page, { t: 'go', n: 10 });
      await waitFor(() => bus.dispatches === 800, 10_000, 'the dispatches after page a left');
      assert.ok(hub.isLive);
      assert.equal(named('shared-1').length, 1);
    } finally {
      await context.close();
    }
    await waitFor(() => live('shared-1') === undefined, 10_000, "the worker's session to end with its last page");
  });

  test("garbage on the shared worker's socket closes that connection only; it comes back as the same app", async () => {
    const context = await browser.newContext();
    try {
      const before = new Set(manager.sessions);
      const a = await openPage(context, { run: '2', page: 'c', connect: '1' });
      await waitFor(() => live('page-c') !== undefined && live('shared-2') !== undefined && !before.has(live('shared-2')!), 10_000, 'both sessions');
      const hub = live('shared-2')!;
      const page = live('page-c')!;
      const tab = hub.source.kind === 'browser' ? hub.source.tabId : '';
      await ask(a.page, { t: 'go', n: 40 });
      await waitFor(() => busNamed(hub, 'shared-hub-bus')?.dispatches === 40, 10_000, "the worker's dispatches");

      await a.page.evaluate(() => (window as unknown as PageWindow).__shared.port.postMessage({ t: 'garbage' }));
      await fromShared(a.page, 'garbage-sent');
      await waitFor(() => !hub.isLive, 10_000, "the worker's session to end");
      assert.ok(page.isLive, "the page's session goes on");
      // The worker dials again (retryMs 200): the same app, one reload later, in the same place.
      await waitFor(() => live('shared-2') !== undefined, 10_000, 'the worker back');
      const again = live('shared-2')!;
      assert.equal(again.source.kind === 'browser' && again.source.reloads, (hub.source.kind === 'browser' ? hub.source.reloads : -1) + 1);
      assert.equal(again.source.kind === 'browser' && again.source.tabId, tab);
      assert.equal(named('shared-2').filter((s) => !before.has(s)).length, 1, 'the reconnect took the earlier session’s place');
      await ask(a.page, { t: 'go', n: 25 });
      await waitFor(() => (busNamed(again, 'shared-hub-bus')?.dispatches ?? 0) >= 25, 10_000, 'the dispatches after the reconnect');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(busNamed(again, 'shared-hub-bus')!.dispatches, 25);
      assert.ok(page.isLive);
      assert.deepEqual(a.errors, []);
    } finally {
      await context.close();
    }
  });

  test('a shared worker that starts again (its only page reloaded, its script URL with another query) is a reload of the same app, not a second app', async () => {
    const context = await browser.newContext();
    try {
      const before = new Set(manager.sessions);
      const fresh = (): Session[] => named('shared-3').filter((s) => !before.has(s));
      const first = await openPage(context, { run: '3', page: 'd' });
      await waitFor(() => fresh().some((s) => s.isLive), 10_000, "the worker's session");
      const hub = fresh()[0];
      const tab = hub.source.kind === 'browser' ? hub.source.tabId : '';
      // Its only page goes: the browser ends the shared worker; the next page starts a new one, its
      // script URL cache-busted (`?v=2`) as a new build would.
      await first.page.close();
      await waitFor(() => !hub.isLive, 10_000, "the worker's session to end with its page");
      const second = await openPage(context, { run: '3', page: 'd', v: '2' });
      assert.notEqual(second.hello.instance, first.hello.instance, 'a new shared worker');
      await waitFor(() => fresh().some((s) => s.isLive), 10_000, "the new worker's session");
      assert.equal(fresh().length, 1, 'one app in the list, not two');
      const again = fresh()[0];
      assert.notEqual(again, hub);
      assert.equal(again.source.kind === 'browser' && again.source.reloads, 1);
      assert.equal(again.source.kind === 'browser' && again.source.tabId, tab);

      // A page reload: whether Chromium keeps the worker across it or starts it again, still one app.
      await second.page.reload();
      await fromShared(second.page, 'hello');
      await waitFor(() => fresh().some((s) => s.isLive), 10_000, "the worker's session after the reload");
      assert.equal(fresh().length, 1);
      await ask(second.page, { t: 'go', n: 5 });
      const now = fresh()[0];
      await waitFor(() => busNamed(now, 'shared-hub-bus')?.dispatches === 5, 10_000, 'its dispatches');
      assert.deepEqual([...first.errors, ...second.errors], []);
    } finally {
      await context.close();
    }
  });
  test("the same shared worker in two browser profiles is two apps, both live (neither takes the other's place)", async () => {
    const one = await browser.newContext();
    const two = await browser.newContext();
    try {
      const before = new Set(manager.sessions);
      const fresh = (): Session[] => named('shared-4').filter((s) => !before.has(s));
      await openPage(one, { run: '4', page: 'e' });
      await waitFor(() => fresh().some((s) => s.isLive), 10_000, "the first profile's worker");
      await openPage(two, { run: '4', page: 'f' });
      await waitFor(() => fresh().filter((s) => s.isLive).length === 2, 10_000, "both profiles' workers");
      const [a, b] = fresh();
      assert.equal(a.source.kind === 'browser' && a.source.tabId, b.source.kind === 'browser' && b.source.tabId, 'the same script URL and name');
      // Neither pushes the other out (they would take turns, each retry ending the other's session).
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(
        fresh().map((s) => s.isLive),
        [true, true],
      );
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a module service worker connects as an app of its own', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${app.port}/sw-page?${new URLSearchParams({ ws: server.url, token: server.token, run: '5' }).toString()}`);
      await waitFor(async () => (await page.evaluate(() => (window as unknown as PageWindow).__page.state)) === 'registered', 15_000, 'the registration', 50);
      const id = ++asked;
      await page.evaluate((i) => (window as unknown as PageWindow).__sw.postMessage({ t: 'go', n: 120, id: i }), id);
      const done = await fromShared(page, `done-${id}`);
      assert.deepEqual([done.state, done.refusal, done.storage], ['open', null, 'undefined']);
      await waitFor(() => live('sw-5') !== undefined, 10_000, "the service worker's session");
      const sw = live('sw-5')!;
      assert.match(sw.source.kind === 'browser' ? sw.source.tabId : '', /^[0-9a-f]{16}$/);
      await waitFor(() => busNamed(sw, 'sw-bus')?.dispatches === 120, 10_000, "the service worker's dispatches");
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
  test("a shared worker's socket that backs up (Busscope stops reading) drops batches and counts them: recorded + dropped = dispatched", async () => {
    const context = await browser.newContext();
    try {
      const before = new Set(manager.sessions);
      const a = await openPage(context, { run: '6', page: 'g', cap: '65536' });
      await waitFor(() => named('shared-6').some((s) => !before.has(s) && s.isLive), 10_000, "the worker's session");
      const hub = named('shared-6').find((s) => !before.has(s))!;
      await waitFor(() => busNamed(hub, 'shared-hub-bus') !== undefined, 10_000, "the worker's bus");
      hub.probeClient!.pause();
      const flooded = await ask(a.page, { t: 'flood' }, 90_000);
      hub.probeClient!.resume();
      const n = flooded.n as number;
      const bus = busNamed(hub, 'shared-hub-bus')!;
      await waitFor(() => bus.dispatches + hub.model.drops.dispatches >= n, 60_000, 'every dispatch recorded or counted as dropped', 100);
      await new Promise((r) => setTimeout(r, 500));
      console.log(
        `shared worker flood: ${n} dispatched, ${bus.dispatches} recorded, ${hub.model.drops.dispatches} dropped (${JSON.stringify(hub.model.drops.byReason)})`,
      );
      assert.equal(bus.dispatches + hub.model.drops.dispatches, n);
      assert.ok(hub.model.drops.dispatches > 0, 'some were dropped');
      assert.ok(hub.isLive);
      assert.deepEqual(a.errors, []);
    } finally {
      await context.close();
    }
  });
});
