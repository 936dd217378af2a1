// The browser apps' server (extension/src/browserApps, no vscode) with real `ws` clients: a page is
// the real busscope-probe/browser `connect` (over the `ws` package's WebSocket, which has the DOM's
// onopen/onmessage/bufferedAmount API), the session, the ProbeClient, the model and the analyses run
// for real. Proves: a page becomes a session with its buses and its leak; a wrong token, a foreign
// Origin, a rebinding Host and a silent peer are refused; garbage closes only that page; a reload
// (same tab id) takes the earlier session's place.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { WebSocket as WsWebSocket } from 'ws';
import { BrowserAppServer, type BrowserApp, type Refusal } from '../../../extension/src/browserApps/browserAppServer';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import type { Session } from '../../../extension/src/sessions/session';
import { connect, EventBus, watch, type BrowserConnection } from '../../../runtime-probe/src/browser/index';
import { FrameDecoder, FrameKind, SUPPORTED_PROTOCOL_VERSIONS, encodeControlFrame } from '../../../runtime-probe/src/protocol/index';
import { waitFor } from '../extension/demo';

const PAGE_ORIGIN = 'http://localhost:5173';

/** The page's WebSocket: `ws`'s client with the Origin a browser would send (and the page's location). */
function installPageWebSocket(origin: string): void {
  (globalThis as { location?: unknown }).location = { origin, href: `${origin}/` };
  (globalThis as { WebSocket?: unknown }).WebSocket = class PageWebSocket extends WsWebSocket {
    constructor(url: string) {
      super(url, { origin });
    }
  };
}

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
  delete (globalThis as { WebSocket?: unknown }).WebSocket;
  delete (globalThis as { location?: unknown }).location;
});

/** One page per process at a time (as in a browser tab): each test starts with none. */
const pages: BrowserConnection[] = [];

async function setup(handshakeTimeoutMs?: number): Promise<{ server: BrowserAppServer; manager: SessionManager; refusals: Refusal[]; apps: BrowserApp[] }> {
  for (const p of pages.splice(0)) p.close();
  const manager = new SessionManager({ updateIntervalMs: 50 });
  const refusals: Refusal[] = [];
  const apps: BrowserApp[] = [];
  const server = await BrowserAppServer.listen({
    handshakeTimeoutMs,
    onApp: (app) => {
      apps.push(app);
      manager.attachBrowserApp(app).catch(() => undefined);
    },
    onRefused: (r) => refusals.push(r),
  });
  cleanups.push(
    () => manager.dispose(),
    () => server.close(),
  );
  return { server, manager, refusals, apps };
}

function pageConnect(server: BrowserAppServer, name: string, token = server.token): BrowserConnection {
  const c = connect({ url: server.url, token, name, retryMs: 0 });
  pages.push(c);
  cleanups.push(() => c.close());
  return c;
}

/** Opens a raw ws client; resolves with the HTTP status when the upgrade is refused, 101 when accepted. */
function upgradeStatus(url: string, options: { origin?: string; headers?: Record<string, string> }): Promise<{ status: number; socket: WsWebSocket }> {
  return new Promise((resolve) => {
    const socket = new WsWebSocket(url, options);
    socket.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, socket }));
    socket.on('open', () => resolve({ status: 101, socket }));
    socket.on('error', () => undefined);
  });
}

function closed(socket: WsWebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (socket.readyState === 3) return resolve(1006);
    socket.on('close', (code) => resolve(code));
  });
}

describe('browser apps over a loopback WebSocket', { timeout: 60_000 }, () => {
  it('a page connects with the token: its buses, dispatches and leak show in a session like any other', async () => {
    const { server, manager } = await setup();
    assert.match(server.url, /^ws:\/\/127\.0\.0\.1:\d+\/$/);
    installPageWebSocket(PAGE_ORIGIN);
    const bus = new EventBus<{ 'cart.changed': { items: number }; 'route.changed': string }>({ name: 'shop' });
    const page = pageConnect(server, 'shop-page');
    await page.ready;
    assert.equal(page.state, 'open');
    await waitFor(() => manager.sessions.length === 1, 5000, 'the session');
    const session = manager.sessions[0];
    assert.equal(session.source.kind, 'browser');
    assert.equal(session.title, 'shop-page');
    assert.equal(session.description, `shop-page (${PAGE_ORIGIN})`);
    assert.equal(session.app?.cwd, PAGE_ORIGIN);

    // A deliberate leak: one widget re-subscribes on every render (80 ms apart) without disposing.
    const widget = { name: 'CartBadge' };
    for (let render = 0; render < 5; render++) {
      bus.subscribe('cart.changed', () => undefined, { owner: widget, label: 'CartBadge' });
      await new Promise((r) => setTimeout(r, 80));
    }
    for (let i = 0; i < 50; i++) bus.dispatch('cart.changed', { items: i });
    bus.dispatch('route.changed', '/checkout');

    await waitFor(() => [...session.model.buses.values()].some((b) => b.name === 'shop'), 5000, 'the shop bus in the model');
    await waitFor(() => session.model.totalDispatches >= 51, 5000, 'the dispatches');
    session.update();
    await waitFor(
      () => {
        session.update();
        return session.warnings.some((w) => w.kind === 'listener-growth');
      },
      5000,
      'the listener-growth warning',
    );
    assert.equal(session.isLive, true);

    page.close();
    await waitFor(() => !session.isLive, 5000, 'the session to end when the page closes');
    assert.equal(session.ended?.cause, 'connection-lost');
    bus.dispose();
  });

  it('refuses a wrong token, a foreign Origin, a rebinding Host and a silent peer', async () => {
    const { server, manager, refusals } = await setup(300);
    installPageWebSocket(PAGE_ORIGIN);
    const wrong = pageConnect(server, 'intruder', 'f'.repeat(32));
    await assert.rejects(wrong.ready, /bad-token/);
    assert.equal(wrong.state, 'refused');

    const foreign = await upgradeStatus(server.url, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    const rebinding = await upgradeStatus(server.url, { origin: PAGE_ORIGIN, headers: { Host: `evil.example:${server.port}` } });
    assert.equal(rebinding.status, 403);
    const wrongPort = await upgradeStatus(server.url, { origin: PAGE_ORIGIN, headers: { Host: `localhost:${server.port + 1}` } });
    assert.equal(wrongPort.status, 403);
    const noOrigin = await upgradeStatus(server.url, {});
    assert.equal(noOrigin.status, 403);

    // Accepted upgrade, but no hello: closed after the handshake timeout.
    const silent = await upgradeStatus(server.url, { origin: 'http://127.0.0.1:8080' });
    assert.equal(silent.status, 101);
    assert.equal(await closed(silent.socket), 1008);

    assert.deepEqual(refusals.map((r) => r.reason).sort(), ['bad-token', 'handshake-timeout', 'host', 'host', 'origin', 'origin']);
    assert.equal(manager.sessions.length, 0);
  });

  it('garbage closes only the page that sent it', async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    const good = pageConnect(server, 'good-page');
    await good.ready;

    // A second peer proves the token, answers the extension's hello like a page, then sends garbage.
    const bad = new WsWebSocket(server.url, { origin: PAGE_ORIGIN });
    cleanups.push(() => bad.terminate());
    await new Promise<void>((resolve) => bad.on('open', () => resolve()));
    bad.send(encodeControlFrame({ type: 'hello', token: server.token, protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS], clientName: 'bad-page' }));
    const decoder = new FrameDecoder(1 << 20);
    await new Promise<void>((resolve) =>
      bad.on('message', (data) => {
        decoder.push(data as Buffer); // binaryType 'nodebuffer' (the default): one Buffer per message
        const f = decoder.next();
        if (f !== undefined && f.kind === FrameKind.Control && JSON.parse(Buffer.from(f.body).toString()).type === 'hello') resolve();
      }),
    );
    // …and a welcome, so it is a session…
    bad.send(
      encodeControlFrame({
        type: 'welcome',
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS[SUPPORTED_PROTOCOL_VERSIONS.length - 1],
        probeVersion: '0.1.0',
        app: { pid: 0, name: 'bad-page', cwd: PAGE_ORIGIN, startTime: Date.now(), runtime: 'browser test' },
        timeOrigin: Date.now(),
        config: { detail: 'dispatch', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 1000 },
      }),
    );
    await waitFor(() => manager.sessions.some((s) => s.title === 'bad-page' && s.isLive), 5000, 'the bad page as a session');
    // …then garbage (a frame header announcing 2 GiB).
    bad.send(Buffer.from([0xff, 0xff, 0xff, 0x7f, 9, 1, 2, 3]));
    await closed(bad);

    await waitFor(() => manager.sessions.some((s) => s.title === 'bad-page' && !s.isLive), 5000, 'the bad page to end');
    const badSession = manager.sessions.find((s) => s.title === 'bad-page')!;
    assert.equal(badSession.ended?.cause, 'error');
    const goodSession = manager.sessions.find((s) => s.title === 'good-page')!;
    assert.equal(goodSession.isLive, true);
    assert.equal(good.state, 'open');
  });

  it("a reload (same name, origin and tab id) takes the earlier session's place", async () => {
    const { server, manager } = await setup();
    // A tab's sessionStorage, kept across the "reload".
    const store = new Map<string, string>();
    (globalThis as { sessionStorage?: unknown }).sessionStorage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    cleanups.push(() => delete (globalThis as { sessionStorage?: unknown }).sessionStorage);
    installPageWebSocket(PAGE_ORIGIN);
    const first = pageConnect(server, 'tabbed');
    await first.ready;
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].isLive, 5000, 'the first session');
    const before: Session = manager.sessions[0];
    first.close();
    await waitFor(() => !before.isLive, 5000, 'the first session to end');
    const second = pageConnect(server, 'tabbed');
    await second.ready;
    await waitFor(() => manager.sessions[0] !== before && manager.sessions[0]?.isLive === true, 5000, 'the reloaded session');
    assert.equal(manager.sessions.length, 1);
    const after = manager.sessions[0];
    assert.equal(after.source.kind === 'browser' && after.source.reloads, 1);
    assert.equal(after.source.kind === 'browser' && after.source.tabId, before.source.kind === 'browser' ? before.source.tabId : '?');
    assert.match(store.get('busscope.tabId') ?? '', /^[0-9a-f]{16}$/);
  });

  it('a shared worker (no sessionStorage; `onconnect`) that starts again is a reload of the same app: its id is its script URL and name, hashed', async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    const scope = globalThis as { location?: { href: string }; name?: string; onconnect?: unknown; sessionStorage?: unknown };
    // A shared worker has no sessionStorage (an earlier test may have left a tab's in place).
    const storage = scope.sessionStorage;
    delete scope.sessionStorage;
    scope.location = { ...scope.location, href: `${PAGE_ORIGIN}/src/hub.worker.js` };
    scope.name = 'hub';
    scope.onconnect = null;
    try {
      const first = pageConnect(server, 'shared-hub');
      await first.ready;
      await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].isLive, 5000, 'the first session');
      const before: Session = manager.sessions[0];
      first.close();
      await waitFor(() => !before.isLive, 5000, 'the first session to end');
      // The worker starts again (its last page reloaded): a new module instance would connect the same way.
      const second = pageConnect(server, 'shared-hub');
      await second.ready;
      await waitFor(() => manager.sessions[0] !== before && manager.sessions[0]?.isLive === true, 5000, "the restarted worker's session");
      assert.equal(manager.sessions.length, 1);
      const after = manager.sessions[0];
      assert.equal(after.source.kind === 'browser' && after.source.reloads, 1);
      const tab = after.source.kind === 'browser' ? after.source.tabId : '';
      assert.match(tab, /^[0-9a-f]{16}$/);
      assert.equal(tab, before.source.kind === 'browser' ? before.source.tabId : '?');
      // The script URL with another query (a dev server's ?t=, a bundler's ?v=) is still the same worker.
      second.close();
      await waitFor(() => !after.isLive, 5000, 'the second session to end');
      scope.location = { ...scope.location, href: `${PAGE_ORIGIN}/src/hub.worker.js?t=1733140000000#top` };
      const busted = pageConnect(server, 'shared-hub');
      await busted.ready;
      await waitFor(() => manager.sessions[0] !== after && manager.sessions[0]?.isLive === true, 5000, 'the worker loaded with a query');
      assert.equal(manager.sessions.length, 1);
      assert.equal(manager.sessions[0].source.kind === 'browser' && manager.sessions[0].source.reloads, 2);
      assert.equal(manager.sessions[0].source.kind === 'browser' && manager.sessions[0].source.tabId, tab);
      // Another script URL (or worker name) is another app.
      busted.close();
      scope.location = { ...scope.location, href: `${PAGE_ORIGIN}/src/other.worker.js` };
      const other = pageConnect(server, 'shared-hub');
      await other.ready;
      await waitFor(() => manager.sessions.length === 2 && manager.sessions[1].isLive, 5000, "the other worker's session");
      assert.notEqual(manager.sessions[1].source.kind === 'browser' && manager.sessions[1].source.tabId, tab);
      other.close();
    } finally {
      // The later tests are pages again.
      delete scope.onconnect;
      delete scope.name;
      if (storage !== undefined) scope.sessionStorage = storage;
    }
  });

  it('a page the user detaches stays detached (it does not come back as a "reload"); a real reload connects again', async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    // Retrying soon, as a page does while Busscope is away: a detach must not count as "away".
    const page = connect({ url: server.url, token: server.token, name: 'detached-page', retryMs: 50 });
    pages.push(page);
    cleanups.push(() => page.close());
    await page.ready;
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].isLive, 5000, 'the session');
    const session = manager.sessions[0];
    manager.detach(session);
    assert.equal(session.ended?.reason, 'detached');
    // The page learns it was detached (and so never dials again) rather than that the line dropped.
    await waitFor(() => page.state !== 'open', 5000, 'the page to see its connection close');
    assert.equal(page.state, 'refused');
    assert.match(page.refusal ?? '', /^detached: .*reload the page/);
    assert.deepEqual(
      manager.sessions.map((s) => [s.title, s.isLive]),
      [['detached-page', false]],
    );
    // A reload is a new connect: it is accepted, as the same app.
    page.close();
    const reloaded = connect({ url: server.url, token: server.token, name: 'detached-page', retryMs: 50 });
    pages.push(reloaded);
    cleanups.push(() => reloaded.close());
    await reloaded.ready;
    await waitFor(() => manager.sessions.some((s) => s.isLive), 5000, 'the reloaded page');
  });

  it("stopping accepting ends each page's session saying so (the page is still open and tries again)", async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    const page = connect({ url: server.url, token: server.token, name: 'open-page', retryMs: 60_000 });
    pages.push(page);
    cleanups.push(() => page.close());
    await page.ready;
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].isLive, 5000, 'the session');
    const session = manager.sessions[0];
    // What *Stop Accepting Browser Apps* does (extension/src/browserApps/commands.ts).
    manager.endBrowserApps('stopped accepting browser apps');
    await server.close();
    assert.equal(session.ended?.reason, 'stopped accepting browser apps');
    await waitFor(() => page.state !== 'open', 5000, 'the page to see its connection close');
    assert.equal(page.state, 'retrying');
  });

  it('watch(EventTarget): listeners are subscriptions, dispatchEvent a dispatch with each listener timed; the target behaves as before and is restored', async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    const page = pageConnect(server, 'events-page');
    await page.ready;
    await waitFor(() => manager.sessions.length === 1, 5000, 'the session');
    const session = manager.sessions[0];

    const target = new EventTarget();
    const ownNames = Object.getOwnPropertyNames(target);
    const handle = watch(target, { name: 'hub' });
    const calls: string[] = [];
    const onPing = function onPing(this: unknown, e: Event): void {
      calls.push(`fn:${e.type}:${this === target}`);
    };
    class PingCounter {
      handleEvent(e: Event): void {
        calls.push(`obj:${e.type}`);
      }
    }
    const counter = new PingCounter();
    const abort = new AbortController();
    target.addEventListener('ping', onPing);
    target.addEventListener('ping', onPing); // a duplicate: ignored, as the browser does
    target.addEventListener('ping', counter);
    target.addEventListener('ping', () => calls.push('once'), { once: true });
    target.addEventListener('ping', () => calls.push('signal'), { signal: abort.signal });
    assert.equal(handle.name, 'hub');
    await waitFor(() => [...session.model.subscriptions.values()].filter((s) => s.type.name === 'ping').length === 4, 5000, 'four ping subscriptions');

    target.dispatchEvent(new Event('ping'));
    abort.abort();
    target.dispatchEvent(new Event('ping'));
    target.removeEventListener('ping', counter);
    target.dispatchEvent(new Event('ping'));
    assert.deepEqual(calls, ['fn:ping:true', 'obj:ping', 'once', 'signal', 'fn:ping:true', 'obj:ping', 'fn:ping:true']);

    const hub = () => [...session.model.buses.values()].find((b) => b.name === 'hub');
    await waitFor(() => hub()?.dispatches === 3, 5000, 'three dispatches of the hub');
    const live = () => [...session.model.subscriptions.values()].filter((s) => s.type.name === 'ping' && s.endReason === null);
    await waitFor(() => live().length === 1, 5000, 'only onPing left');
    assert.equal(live()[0].label, 'onPing');
    const pingSubs = [...session.model.subscriptions.values()].filter((s) => s.type.name === 'ping');
    assert.deepEqual(pingSubs.map((s) => s.endReason).sort(), ['dispose', 'once', 'signal', null].sort());

    // Disposed: the own properties are as before, and the listener added while watched is still
    // called and can be removed by the app as itself.
    handle.dispose();
    assert.deepEqual(Object.getOwnPropertyNames(target), ownNames);
    calls.length = 0;
    target.dispatchEvent(new Event('ping'));
    target.removeEventListener('ping', onPing);
    target.dispatchEvent(new Event('ping'));
    assert.deepEqual(calls, ['fn:ping:true']);
  });

  it('watch refuses what it cannot watch with a TypeError, and connect refuses bad options', () => {
    assert.throws(() => watch({} as object), { name: 'TypeError', message: /watch: target must be an EventTarget, a mitt or a nanoevents emitter/ });
    assert.throws(() => watch(new EventTarget(), { types: [] }), { name: 'TypeError', message: /options\.types must be a non-empty array/ });
    assert.throws(() => connect({ url: 'http://127.0.0.1:1/', token: 't' }), { name: 'TypeError', message: /url must be a ws:\/\/ or wss:\/\/ URL/ });
    assert.throws(() => connect({ url: 'ws://127.0.0.1:1/', token: '' }), { name: 'TypeError', message: /token/ });
  });

  it('a page whose socket backs up drops record batches and counts them: every dispatch is received or counted', async () => {
    const { server, manager } = await setup();
    installPageWebSocket(PAGE_ORIGIN);
    // Eight types in a scrambled order: dispatch columns take a few bytes a dispatch, so the flood
    // must pass what the loopback socket's kernel buffers hold (MBs) for the page's cap to matter.
    const TYPES = ['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7'] as const;
    const bus = new EventBus<Record<(typeof TYPES)[number], number>>({ name: 'flood' });
    for (const t of TYPES) bus.subscribe(t, () => undefined);
    const page = connect({ url: server.url, token: server.token, name: 'flood-page', retryMs: 0, maxBufferedBytes: 64 * 1024 });
    pages.push(page);
    cleanups.push(() => page.close());
    await page.ready;
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0].probeClient !== undefined, 5000, 'the session');
    const session = manager.sessions[0];
    await session.probeClient!.configure({ detail: 'dispatch' });
    // The extension stops reading: the page's socket backs up past its 64 KiB cap.
    session.probeClient!.pause();
    const total = 3_000_000;
    let seed = 7;
    for (let sent = 0; sent < total; sent += 100_000) {
      for (let i = 0; i < 100_000; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        bus.dispatch(TYPES[seed >>> 29], i);
      }
      await new Promise((r) => setTimeout(r, 15)); // the recorder's drain runs between bursts
    }
    session.probeClient!.resume();
    await session.probeClient!.ping();
    const model = session.model;
    const typeDispatches = [...model.buses.values()].find((b) => b.name === 'flood')!.dispatches;
    assert.ok(model.drops.dispatches > 0, 'some dispatches were dropped while the socket was backed up');
    assert.ok(model.drops.byReason['slow-client'] > 0);
    assert.equal(typeDispatches + model.drops.dispatches, total, `${typeDispatches} received + ${model.drops.dispatches} dropped`);
    bus.dispose();
  });
});
