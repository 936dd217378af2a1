// A browser app's cost in real Chromium: main-thread milliseconds per 100,000 dispatches (one
// handler) of a page that never connects (detached) against a page streaming to the extension-side
// server (attached: the real BrowserAppServer, SessionManager, ProbeClient and model in this process),
// at the recorder's default detail (`handlers`) and at `dispatch`. Two figures per page: the dispatch
// loop alone, and all main-thread task time (Chrome's TaskDuration over the loop plus 200 ms after
// it, so the recorder's batched encoding and sends are counted). Rounds interleave the two pages.
// Target (issue #14): attached ≤ 2× detached.
//
// Chromium is driven over a bare DevTools connection (Runtime and Performance only), not through
// Playwright: Playwright enables the Network domain on every page, and with it the renderer copies
// every WebSocket frame it sends into a DevTools event (base64) on the main thread — a cost of an
// open DevTools Network panel, not of the app, that more than doubled the attached figure. The last
// row measures it: the attached page at `dispatch` with the Network domain on. Each page has its own
// browser context, so the two never share a renderer's main thread.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket, type RawData } from 'ws';
import { BrowserAppServer, type BrowserApp } from '../extension/src/browserApps/browserAppServer';
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

/** A bare DevTools protocol connection to the browser; page commands go to a session (flattened). */
class Cdp {
  private lastId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: RawData) => {
      const m = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (p === undefined || m.id === undefined) return;
      this.pending.delete(m.id);
      if (m.error !== undefined) p.reject(new Error(`DevTools: ${m.error.message}`));
      else p.resolve(m.result);
    });
  }
  send<T>(method: string, params: object = {}, sessionId?: string): Promise<T> {
    const id = ++this.lastId;
    this.socket.send(JSON.stringify({ id, method, params, sessionId }));
    // A browser that stopped answering fails the bench instead of hanging it.
    const timer = setTimeout(() => this.pending.get(id)?.reject(new Error(`DevTools: no answer to ${method} in 60 s`)), 60_000);
    return new Promise<T>((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })).finally(() => clearTimeout(timer));
  }
}

interface BenchPage {
  evaluate<T>(expression: string): Promise<T>;
  taskSeconds(): Promise<number>;
  /** The DevTools Network domain on this page (what Playwright does to every page). */
  enableNetwork(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function launch(): Promise<{ cdp: Cdp; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'busscope-bench-chromium-'));
  const child = spawn(CHROMIUM as string, [...CHROMIUM_ARGS, '--headless=new', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m !== null) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`Chromium exited (${String(code)}) before listening: ${err.slice(-500)}`)));
    setTimeout(() => reject(new Error(`Chromium did not listen within 15 s: ${err.slice(-500)}`)), 15_000).unref();
  }).catch((error: unknown) => {
    child.kill();
    rmSync(profile, { recursive: true, force: true });
    throw error;
  });
  const socket = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    cdp: new Cdp(socket),
    close: async () => {
      socket.close();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function openPage(cdp: Cdp, url: string): Promise<BenchPage> {
  const { browserContextId } = await cdp.send<{ browserContextId: string }>('Target.createBrowserContext');
  const { targetId } = await cdp.send<{ targetId: string }>('Target.createTarget', { url, browserContextId });
  const { sessionId } = await cdp.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
  const evaluate = async <T>(expression: string): Promise<T> => {
    const r = await cdp.send<{ result: { value: T }; exceptionDetails?: { text: string } }>(
      'Runtime.evaluate',
      { expression, awaitPromise: true, returnByValue: true },
      sessionId,
    );
    if (r.exceptionDetails !== undefined) throw new Error(`page: ${r.exceptionDetails.text}`);
    return r.result.value;
  };
  const deadline = Date.now() + 10_000;
  while (!(await evaluate<boolean>('window.benchReady !== undefined'))) {
    if (Date.now() > deadline) throw new Error(`the bench page did not load: ${url}`);
    await sleep(20);
  }
  await evaluate('window.benchReady.then(() => true)');
  await cdp.send('Performance.enable', {}, sessionId);
  return {
    evaluate,
    taskSeconds: async () => {
      const { metrics } = await cdp.send<{ metrics: { name: string; value: number }[] }>('Performance.getMetrics', {}, sessionId);
      return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
    },
    enableNetwork: async () => {
      await cdp.send('Network.enable', {}, sessionId);
    },
  };
}

async function measure(page: BenchPage): Promise<Sample> {
  const before = await page.taskSeconds();
  const loopMs = await page.evaluate<number>(`dispatchMany(${DISPATCHES})`);
  await sleep(200);
  const after = await page.taskSeconds();
  return { loopMs, taskMs: (after - before) * 1000 };
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
  // What the page sends, counted as the extension receives it (bytes a dispatch: what the page's `send` costs).
  let received = 0;
  const counted = (a: BrowserApp): BrowserApp => ({
    ...a,
    wire: (events) =>
      a.wire({
        data(chunk) {
          received += chunk.length;
          events.data(chunk);
        },
        closed: () => events.closed(),
      }),
  });
  const server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(counted(a)).catch(() => undefined) });
  const browser = await launch();
  try {
    const origin = `http://127.0.0.1:${app.port}/`;
    const detached = await openPage(browser.cdp, origin);
    const attached = await openPage(browser.cdp, `${origin}?${new URLSearchParams({ ws: server.url, token: server.token })}`);
    const deadline = Date.now() + 10_000;
    while (manager.liveSessions.length === 0 && Date.now() < deadline) await sleep(20);
    const session = manager.liveSessions[0];
    if (session === undefined) throw new Error('the attached page did not become a session');
    // Warm-up (JIT) on both pages.
    await measure(detached);
    await measure(attached);

    const rows: string[][] = [];
    const ratios: string[] = [];
    for (const detail of ['handlers', 'dispatch', 'dispatch, DevTools Network on'] as const) {
      if (detail === 'dispatch, DevTools Network on') await attached.enableNetwork();
      else await session.probeClient?.configure({ detail });
      const d: Sample[] = [];
      const a: Sample[] = [];
      const bytesBefore = received;
      for (let r = 0; r < rounds; r++) {
        d.push(await measure(detached));
        a.push(await measure(attached));
      }
      // Every record of these rounds has been sent once the page answers a ping (it drains first).
      await session.probeClient?.ping();
      const perDispatch = (received - bytesBefore) / (rounds * DISPATCHES);
      const dl = median(d.map((s) => s.loopMs));
      const al = median(a.map((s) => s.loopMs));
      const dt = median(d.map((s) => s.taskMs));
      const at = median(a.map((s) => s.taskMs));
      rows.push([detail, dl.toFixed(2), al.toFixed(2), formatRatio(al / dl), dt.toFixed(2), at.toFixed(2), formatRatio(at / dt), perDispatch.toFixed(1)]);
      ratios.push(`${detail}: ${formatRatio(at / dt)}`);
    }
    await session.probeClient?.ping();
    const handled = await attached.evaluate<number>('handled()');
    if (handled < DISPATCHES) throw new Error('the handler did not run');
    const recorded = session.model.totalDispatches;
    const drops = session.model.drops.dispatches;
    // Every dispatch of the attached page was recorded (it connected before its first one).
    if (recorded + drops !== handled) throw new Error(`delivered ${recorded} + dropped ${drops} ≠ dispatched ${handled}`);
    report(
      `## Browser app (headless Chromium): main-thread ms per ${DISPATCHES.toLocaleString('en-US')} dispatches, 1 handler\n\n` +
        markdownTable(
          [
            'detail',
            'loop detached',
            'loop attached',
            'loop ratio',
            'main thread detached',
            'main thread attached',
            'main-thread ratio',
            'bytes sent a dispatch',
          ],
          rows,
        ) +
        `\n\nMedian of ${rounds} interleaved rounds; "main thread" is Chrome's TaskDuration over the loop and 200 ms after it ` +
        `(the recorder's batched encoding and sends included); "bytes sent a dispatch" is what the page's WebSocket carried over those rounds ÷ the attached page's dispatches; the last row is the attached page with DevTools' Network domain on. ` +
        `Target: attached ≤ 2× detached (${ratios.join(', ')}). The page dispatched ${handled.toLocaleString('en-US')}: the extension side ` +
        `received ${recorded.toLocaleString('en-US')} dispatch records and ${drops.toLocaleString('en-US')} counted as dropped (delivered + dropped = dispatched).`,
    );
  } finally {
    await browser.close();
    manager.dispose();
    await server.close();
    await app.close();
  }
}
