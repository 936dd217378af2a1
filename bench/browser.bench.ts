// A browser app's cost in real Chromium: main-thread milliseconds per 100,000 dispatches (one
// handler) of a page that never connects (detached) against a page streaming to the extension-side
// server (attached: the real BrowserAppServer, SessionManager, ProbeClient and model in this process),
// at the recorder's default detail (`handlers`) and at `dispatch`. Two figures per page: the dispatch
// loop alone, and all main-thread task time (Chrome's TaskDuration over the loop plus 200 ms after
// it, so the recorder's batched encoding and sends are counted). Rounds interleave the two pages.
// Target (issue #14): attached ≤ 2× detached.
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { BrowserAppServer } from '../extension/src/browserApps/browserAppServer';
import { SessionManager } from '../extension/src/sessions/sessionManager';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/webview/support/chromium';
import { formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchRounds } from './lib/settings';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DISPATCHES = 100_000;

const PAGE_JS = `
import { connect, EventBus } from '/busscope-browser.mjs';
const q = new URLSearchParams(location.search);
const bus = new EventBus({ name: 'bench' });
let sum = 0;
bus.subscribe('tick', (e) => { sum += e.n; });
const payload = { n: 1 };
window.dispatchMany = (n) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) bus.dispatch('tick', payload);
  return performance.now() - t0;
};
window.handled = () => sum;
window.benchReady = q.get('ws') === null ? Promise.resolve() : connect({ url: q.get('ws'), token: q.get('token'), name: 'bench-page' }).ready;
`;

async function serve(entry: Buffer): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const body =
      url.pathname === '/'
        ? '<!DOCTYPE html><title>bench</title><script type="module" src="/page.js"></script>'
        : url.pathname === '/page.js'
          ? PAGE_JS
          : url.pathname === '/busscope-browser.mjs'
            ? entry
            : undefined;
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': url.pathname === '/' ? 'text/html' : 'text/javascript' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface Sample {
  readonly loopMs: number;
  readonly taskMs: number;
}

async function measure(page: Page, taskDuration: () => Promise<number>): Promise<Sample> {
  const before = await taskDuration();
  const loopMs = await page.evaluate((n) => (window as unknown as { dispatchMany(n: number): number }).dispatchMany(n), DISPATCHES);
  await page.waitForTimeout(200);
  const after = await taskDuration();
  return { loopMs, taskMs: (after - before) * 1000 };
}

async function openPage(browser: import('playwright-core').Browser, url: string): Promise<{ page: Page; taskDuration: () => Promise<number> }> {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { benchReady?: Promise<void> }).benchReady !== undefined);
  await page.evaluate(() => (window as unknown as { benchReady: Promise<void> }).benchReady);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskDuration = async (): Promise<number> => {
    const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: { name: string; value: number }[] };
    return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
  };
  return { page, taskDuration };
}

export async function run(): Promise<void> {
  const entryFile = path.join(ROOT, 'runtime-probe/dist/browser.mjs');
  if (!CHROMIUM || !existsSync(entryFile)) {
    report(
      `## Browser app (headless Chromium)\n\nSkipped: ${CHROMIUM ? 'runtime-probe/dist/browser.mjs is missing (build first)' : 'no Chrome/Chromium found'}.`,
    );
    return;
  }
  const rounds = benchRounds(5);
  const app = await serve(readFileSync(entryFile));
  const manager = new SessionManager({ updateIntervalMs: 250 });
  const server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(a).catch(() => undefined) });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  try {
    const origin = `http://127.0.0.1:${app.port}/`;
    const detached = await openPage(browser, origin);
    const attached = await openPage(browser, `${origin}?${new URLSearchParams({ ws: server.url, token: server.token })}`);
    const deadline = Date.now() + 10_000;
    while (manager.liveSessions.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const session = manager.liveSessions[0];
    if (session === undefined) throw new Error('the attached page did not become a session');
    // Warm-up (JIT) on both pages.
    await measure(detached.page, detached.taskDuration);
    await measure(attached.page, attached.taskDuration);

    const rows: string[][] = [];
    const ratios: string[] = [];
    for (const detail of ['handlers', 'dispatch'] as const) {
      await session.probeClient?.configure({ detail });
      const d: Sample[] = [];
      const a: Sample[] = [];
      for (let r = 0; r < rounds; r++) {
        d.push(await measure(detached.page, detached.taskDuration));
        a.push(await measure(attached.page, attached.taskDuration));
      }
      const dl = median(d.map((s) => s.loopMs));
      const al = median(a.map((s) => s.loopMs));
      const dt = median(d.map((s) => s.taskMs));
      const at = median(a.map((s) => s.taskMs));
      rows.push([detail, dl.toFixed(2), al.toFixed(2), formatRatio(al / dl), dt.toFixed(2), at.toFixed(2), formatRatio(at / dt)]);
      ratios.push(`${detail}: ${formatRatio(at / dt)}`);
    }
    await session.probeClient?.ping();
    const handled = await attached.page.evaluate(() => (window as unknown as { handled(): number }).handled());
    if (handled < DISPATCHES) throw new Error('the handler did not run');
    const received = session.model.totalDispatches;
    const drops = session.model.drops.dispatches;
    report(
      `## Browser app (headless Chromium): main-thread ms per ${DISPATCHES.toLocaleString('en-US')} dispatches, 1 handler\n\n` +
        markdownTable(['detail', 'loop detached', 'loop attached', 'loop ratio', 'main thread detached', 'main thread attached', 'main-thread ratio'], rows) +
        `\n\nMedian of ${rounds} interleaved rounds; "main thread" is Chrome's TaskDuration over the loop and 200 ms after it ` +
        `(the recorder's batched encoding and sends included). Target: attached ≤ 2× detached (${ratios.join(', ')}). ` +
        `The extension side received ${received.toLocaleString('en-US')} dispatch records, ${drops.toLocaleString('en-US')} counted as dropped.`,
    );
  } finally {
    await browser.close();
    manager.dispose();
    await server.close();
    await app.close();
  }
}
