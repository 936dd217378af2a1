// A real page in Debian's Chromium: a small app served by a local static server loads the BUILT
// browser entry (runtime-probe/dist/browser.mjs), connects to the extension-side server (run here in
// plain Node with the real SessionManager, ProbeClient, Model and Analyzer), dispatches, and leaks a
// listener on purpose. The session shows the page's buses and the leak warning; a reload reconnects
// as the same app; a wrong token, a foreign Origin and a rebinding Host (a DNS name resolved to
// 127.0.0.1) are refused.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BrowserAppServer, type Refusal } from '../../extension/src/browserApps/browserAppServer';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const ENTRY = path.join(ROOT, 'runtime-probe/dist/browser.mjs');

/** The page's own code: a bus, a watched EventTarget, a listener leaked on every "render". */
const APP_JS = `
import { connect, EventBus, watch } from '/busscope-browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting', refusal: null });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'chromium-shop', retryMs: 0 });
const shop = new EventBus({ name: 'shop' });
const hub = new EventTarget();
watch(hub, { name: 'hub' });
watch(window, { name: 'window', types: ['resize'] });
window.addEventListener('resize', function onResize() {});
hub.addEventListener('ping', function onPing() {});
const badge = { name: 'CartBadge' };
let render = 0;
function renderBadge() {
  // The leak: every render subscribes again and nothing disposes the old subscription.
  shop.subscribe('cart.changed', function updateBadge() {}, { owner: badge, label: 'CartBadge' });
  if (++render < 5) setTimeout(renderBadge, 80);
}
c.ready.then(() => {
  state.state = 'open';
  renderBadge();
  let n = 0;
  const tick = setInterval(() => {
    shop.dispatch('cart.changed', { items: n });
    hub.dispatchEvent(new Event('ping'));
    if (++n >= 40) clearInterval(tick);
  }, 10);
}, (e) => { state.state = c.state; state.refusal = String(e && e.message); });
`;

/** Serves the page, its script and the built browser entry — nothing else. */
function serveApp(): Promise<StaticServer> {
  return serveFiles({
    '/': modulePage('/app.js', { title: 'shop', body: 'shop' }),
    '/app.js': script(APP_JS),
    '/busscope-browser.mjs': script(readFileSync(ENTRY)),
  });
}

async function pageState(page: Page, ms: number, want: (s: string) => boolean): Promise<{ state: string; refusal: string | null }> {
  const end = Date.now() + ms;
  for (;;) {
    const s = await page.evaluate(
      () => (window as unknown as { __busscope?: { state: string; refusal: string | null } }).__busscope ?? { state: 'loading', refusal: null },
    );
    if (want(s.state) || Date.now() > end) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a browser app in real Chromium', { skip: skip ?? undefined, timeout: 180_000 }, () => {
  let browser: Browser;
  let app: StaticServer;
  let server: BrowserAppServer;
  let manager: SessionManager;
  const refusals: Refusal[] = [];

  before(async () => {
    assert.ok(existsSync(ENTRY), 'runtime-probe/dist/browser.mjs is missing: run `npm run build` first');
    // rebind.test resolves to 127.0.0.1: a DNS-rebinding page reaching the loopback server by name.
    browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP rebind.test 127.0.0.1, MAP evil.test 127.0.0.1'],
      headless: true,
      timeout: 60_000,
    });
    app = await serveApp();
    manager = new SessionManager({ updateIntervalMs: 100 });
    server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(a).catch(() => undefined), onRefused: (r) => refusals.push(r) });
  });
  after(() => tearDown([() => browser?.close(), () => manager?.dispose(), () => server?.close(), () => app?.close()]));

  const pageUrl = (origin: string, ws: string, token: string): string => `${origin}/?${new URLSearchParams({ ws, token }).toString()}`;

  test('the page is a session with its buses and the leak; a reload reconnects as the same app', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pageUrl(`http://127.0.0.1:${app.port}`, server.url, server.token));
    assert.equal((await pageState(page, 15_000, (s) => s !== 'starting' && s !== 'loading')).state, 'open');
    await waitFor(() => manager.sessions.length === 1, 10_000, "the page's session");
    const session = manager.sessions[0];
    assert.equal(session.title, 'chromium-shop');
    assert.equal(session.source.kind === 'browser' && session.source.origin, `http://127.0.0.1:${app.port}`);
    assert.match(session.app?.runtime ?? '', /^browser .*Chrome/);
    const busNames = (): string[] => [...session.model.buses.values()].map((b) => b.name).sort();
    await waitFor(() => ['hub', 'shop', 'window'].every((n) => busNames().includes(n)), 10_000, "the page's buses");
    await waitFor(() => session.model.totalDispatches >= 80, 10_000, "the page's dispatches");
    await waitFor(
      () => {
        session.update();
        return session.warnings.some((w) => w.kind === 'listener-growth');
      },
      10_000,
      'the leak warning',
    );
    const leak = session.warnings.find((w) => w.kind === 'listener-growth')!;
    assert.match(JSON.stringify(leak), /cart\.changed/);
    // The leaked subscriptions' site is the page's own script, not the probe's.
    const sites = [...session.model.subscriptions.values()].filter((s) => s.type.name === 'cart.changed').map((s) => s.site?.file ?? '');
    assert.ok(sites.length >= 5 && sites.every((f) => f.endsWith('/app.js')), sites.join(', '));
    const tab = session.source.kind === 'browser' ? session.source.tabId : '';
    assert.match(tab, /^[0-9a-f]{16}$/);

    await page.reload();
    await waitFor(() => manager.sessions.length === 1 && manager.sessions[0] !== session && manager.sessions[0].isLive, 15_000, "the reloaded page's session");
    const reloaded = manager.sessions[0];
    assert.equal(reloaded.source.kind === 'browser' && reloaded.source.reloads, 1);
    assert.equal(reloaded.source.kind === 'browser' && reloaded.source.tabId, tab);
    await waitFor(() => [...reloaded.model.buses.values()].some((b) => b.name === 'shop'), 10_000, "the reloaded page's buses");
    assert.deepEqual(errors, []);
    await page.close();
    await waitFor(() => !reloaded.isLive, 10_000, 'the session to end with the page');
  });

  test('a wrong token, a foreign Origin and a rebinding Host are refused', async () => {
    const before = manager.sessions.length;
    const wrong = await browser.newPage();
    await wrong.goto(pageUrl(`http://127.0.0.1:${app.port}`, server.url, 'f'.repeat(32)));
    const w = await pageState(wrong, 15_000, (s) => s !== 'starting' && s !== 'loading');
    assert.equal(w.state, 'refused');
    assert.match(w.refusal ?? '', /bad-token/);

    // evil.test serves the same page (resolved to 127.0.0.1): its Origin is not on the allowlist.
    const foreign = await browser.newPage();
    await foreign.goto(pageUrl(`http://evil.test:${app.port}`, server.url, server.token));
    assert.notEqual((await pageState(foreign, 15_000, (s) => s !== 'starting' && s !== 'loading')).state, 'open');

    // An allowed page reaching the server by a name that resolves to 127.0.0.1: Host is not loopback.
    const rebinding = await browser.newPage();
    await rebinding.goto(pageUrl(`http://127.0.0.1:${app.port}`, `ws://rebind.test:${server.port}/`, server.token));
    assert.notEqual((await pageState(rebinding, 15_000, (s) => s !== 'starting' && s !== 'loading')).state, 'open');

    await waitFor(() => refusals.some((r) => r.reason === 'origin') && refusals.some((r) => r.reason === 'host'), 5000, 'both refusals');
    assert.ok(refusals.some((r) => r.reason === 'bad-token'));
    assert.match(refusals.find((r) => r.reason === 'origin')!.message, /evil\.test/);
    assert.match(refusals.find((r) => r.reason === 'host')!.message, /rebind\.test/);
    assert.equal(manager.sessions.length, before);
    for (const p of [wrong, foreign, rebinding]) await p.close();
  });
});
