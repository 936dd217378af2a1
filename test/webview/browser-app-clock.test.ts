// A page's clock step in real Chromium: `performance.now()` moves in 100 µs steps unless the page is
// cross-origin isolated (then 5 µs). The page measures its step when it connects and sends it in
// `welcome.clockStep`; the reader widens every dispatch's start bound by it, so the inspector's
// "±… µs" is honest on a coarse clock and narrow on a fine one. Real page, real BrowserAppServer,
// SessionManager and Model.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { BrowserAppServer } from '../../extension/src/browserApps/browserAppServer';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import type { Session } from '../../extension/src/sessions/session';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const ENTRY = path.join(ROOT, 'runtime-probe/dist/browser.mjs');
const DISPATCHES = 2_000;

/** Dense dispatches in short bursts: the workload the timeline's bounds are stated for. */
const APP_JS = `
import { connect, EventBus } from '/busscope-browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting', isolated: self.crossOriginIsolated, dispatched: 0 });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: q.get('name'), retryMs: 0 });
const bus = new EventBus({ name: 'clock' });
let acc = 0;
bus.subscribe('tick', (p) => { for (let i = 0; i < p.spin; i++) acc += i; });
c.ready.then(() => {
  state.state = 'open';
  let n = 0;
  const burst = () => {
    for (let i = 0; i < 100; i++) bus.dispatch('tick', { spin: (n + i) % 7 === 0 ? 2000 : 20 });
    n += 100;
    state.dispatched = n;
    if (n < ${DISPATCHES}) setTimeout(burst, 5);
  };
  burst();
});
`;

/** Serves the page, its script and the built browser entry; `isolated=1` adds the COOP/COEP headers. */
function serveApp(): Promise<StaticServer> {
  const files = {
    '/': modulePage('/app.js', { body: 'clock' }),
    '/app.js': script(APP_JS),
    '/busscope-browser.mjs': script(readFileSync(ENTRY)),
  };
  return serveFiles(files, (url, req): Record<string, string> =>
    url.searchParams.get('isolated') === '1' || req.headers.referer?.includes('isolated=1') === true
      ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' }
      : {},
  );
}

/** Every dispatch's start bound in the session's model, in µs. */
function startBoundsUs(session: Session): number[] {
  const t = session.model.timeline;
  const out: number[] = [];
  for (let k = 0; k < t.size; k++) out.push(t.row(k).startBound * 1000);
  return out.sort((a, b) => a - b);
}

describe("a page's clock step in real Chromium", { skip: skip ?? undefined, timeout: 120_000 }, () => {
  let browser: Browser;
  let app: StaticServer;
  let server: BrowserAppServer;
  let manager: SessionManager;

  before(async () => {
    assert.ok(existsSync(ENTRY), 'runtime-probe/dist/browser.mjs is missing: run `npm run build` first');
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    app = await serveApp();
    manager = new SessionManager({ updateIntervalMs: 100 });
    server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(a).catch(() => undefined) });
  });
  after(() => tearDown([() => browser?.close(), () => manager?.dispose(), () => server?.close(), () => app?.close()]));

  async function run(name: string, isolated: boolean): Promise<{ bounds: number[]; pageIsolated: boolean }> {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const query = new URLSearchParams({ ws: server.url, token: server.token, name, ...(isolated ? { isolated: '1' } : {}) });
      await page.goto(`http://127.0.0.1:${app.port}/?${query.toString()}`);
      await waitFor(() => manager.sessions.some((s) => s.title === name), 15_000, `the ${name} session`);
      const session = manager.sessions.find((s) => s.title === name)!;
      await waitFor(() => session.model.totalDispatches >= DISPATCHES, 20_000, `${name}: the page's dispatches`);
      const pageIsolated = await page.evaluate(() => (window as unknown as { __busscope: { isolated: boolean } }).__busscope.isolated);
      return { bounds: startBoundsUs(session), pageIsolated };
    } finally {
      await context.close();
    }
  }

  test('on the 100 µs clock of a page that is not cross-origin isolated, every start bound covers a clock step', async () => {
    const { bounds, pageIsolated } = await run('coarse-clock', false);
    assert.equal(pageIsolated, false);
    assert.equal(bounds.length, DISPATCHES);
    // float32 in the model: a hair under 100 µs is still the step.
    assert.ok(bounds[0] >= 99.9, `smallest start bound ${bounds[0].toFixed(1)} µs: less than Chromium's 100 µs clock step`);
  });

  test('a cross-origin isolated page (5 µs clock) gets narrower bounds', async () => {
    const { bounds, pageIsolated } = await run('fine-clock', true);
    assert.equal(pageIsolated, true, 'COOP/COEP made the page cross-origin isolated');
    assert.equal(bounds.length, DISPATCHES);
    const median = bounds[bounds.length >> 1];
    assert.ok(median < 100, `median start bound ${median.toFixed(1)} µs on a 5 µs clock`);
  });
});
