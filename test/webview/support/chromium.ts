// Shared by the Chromium tests and the benchmark: bundle the page harness, serve the BUILT webview
// (dist/webview) and the harness from a loopback HTTP server, and open pages in a headless
// Chrome/Chromium (Debian's, or whichever scripts/lib/test-env.mjs finds) through playwright-core. The page carries the same Content Security Policy the
// extension uses, so the bundle is proven to run under it.

import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { contentSecurityPolicy } from '../../../extension/src/inspector/html';
import { findChromium } from '../../../scripts/lib/test-env.mjs';
import { closeHttpServer } from './static-app';

export const ROOT = path.resolve(__dirname, '../../..');
export const OUT_DIR = path.join(ROOT, '.test-output', 'webview');
const lookup = findChromium();
/** The browser the tests run: the same one the test command's tier summary names; undefined when there is none. */
export const CHROMIUM: string | undefined = lookup.found ? lookup.path : undefined;
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Why Chromium tests cannot run here, or null when they can. Under CI=true a missing browser is a failure. */
export function chromiumUnavailable(): string | null {
  if (lookup.found) return null;
  const message = `${lookup.reason}: the Chromium tests need one (${lookup.fix})`;
  if (process.env.CI === 'true') throw new Error(`${message}. CI must run them.`);
  console.warn(`\n!!!!!!!! SKIPPING CHROMIUM TESTS: ${message} !!!!!!!!\n`);
  return message;
}

/** The browser's path, for a test that `chromiumUnavailable()` did not skip. */
export function chromiumExecutable(): string {
  if (!lookup.found) throw new Error(`${lookup.reason}; to fix: ${lookup.fix}`);
  return lookup.path;
}

export function builtBundle(): { js: string; css: string } {
  const js = path.join(ROOT, 'dist/webview/main.js');
  const css = path.join(ROOT, 'dist/webview/main.css');
  if (!existsSync(js) || !existsSync(css)) throw new Error('dist/webview/main.js or main.css is missing: run `npm run build` first');
  return { js, css };
}

async function bundleHarness(): Promise<string> {
  mkdirSync(OUT_DIR, { recursive: true });
  const out = path.join(OUT_DIR, 'harness.js');
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'test/webview/harness/harness.ts')],
    outfile: out,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome110'],
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return out;
}

export interface PageServer {
  readonly origin: string;
  url(query: Record<string, string>): string;
  close(): Promise<void>;
}

const NONCE = 'TestNonce0123456789abcdefABCDEF';

/** Serves the page, the harness and dist/webview only (nothing else of the repo). */
export async function servePage(): Promise<PageServer> {
  const bundle = builtBundle();
  const harness = await bundleHarness();
  const files: Record<string, { file: string; type: string }> = {
    '/dist/webview/main.js': { file: bundle.js, type: 'text/javascript' },
    '/dist/webview/main.css': { file: bundle.css, type: 'text/css' },
    '/harness.js': { file: harness, type: 'text/javascript' },
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/' || url.pathname === '/index.html') {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const csp = contentSecurityPolicy(origin, NONCE);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="stylesheet" href="/dist/webview/main.css" nonce="${NONCE}">
<script nonce="${NONCE}" src="/harness.js"></script>
<title>Busscope Inspector (test page)</title></head>
<body><div id="inspector-root"></div><script nonce="${NONCE}" src="/dist/webview/main.js"></script></body></html>`);
      return;
    }
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const f = files[url.pathname];
    if (!f) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': f.type, 'cache-control': 'no-store' });
    res.end(readFileSync(f.file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (query) => `${origin}/?${new URLSearchParams(query).toString()}`,
    close: () => closeHttpServer(server),
  };
}

/**
 * A Chromium test's teardown: each step in turn (the browser first, so that its pages' sockets are
 * gone before the servers close), each bounded by `stepMs`, every step tried whatever the others did.
 * A wedged browser or server then fails the file instead of holding it (and the test run) open.
 */
export async function tearDown(steps: readonly (() => unknown)[], stepMs = 20_000): Promise<void> {
  const failures: string[] = [];
  for (const [i, step] of steps.entries()) {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`teardown step ${i + 1} took over ${stepMs} ms`)), stepMs);
    });
    try {
      await Promise.race([Promise.resolve().then(step), bound]);
    } catch (e) {
      failures.push(e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
  }
  if (failures.length > 0) throw new Error(`teardown: ${failures.join('; ')}`);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
}

/** Opens the inspector page; resolves when the snapshot has been rendered. Collects console errors. */
export async function openInspector(
  browser: Browser,
  server: PageServer,
  query: Record<string, string>,
  size = { width: 1400, height: 900 },
  /** Script run before the page's own (e.g. a recorded session's messages for the `trace` scenario). */
  initScript?: string,
): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  // tsx compiles test code with esbuild's keepNames: functions passed to page.evaluate may call its
  // `__name` helper, which the page does not have.
  await page.addInitScript('globalThis.__name = (f) => f;');
  if (initScript !== undefined) await page.addInitScript(initScript);
  await page.goto(server.url(query));
  await page.waitForFunction(
    () => {
      const w = window as unknown as { busscopeInspector?: { metrics: { renders: number }; store: { hasSnapshot: boolean } } };
      return !!w.busscopeInspector && w.busscopeInspector.store.hasSnapshot && w.busscopeInspector.metrics.renders > 0;
    },
    undefined,
    { timeout: 60_000 },
  );
  // One more frame so the canvases have painted.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return { page, errors };
}
