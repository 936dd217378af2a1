// #14 item 4, "each page is a session like any other", while the user debugs the page in VS Code — the
// way a user lives it in a real VS Code (code-server + chromium) with the PACKAGED extension: *Busscope:
// Accept Browser Apps*, the connect call pasted into a small shop page (served from the workspace
// folder, `busscope-probe` in its node_modules as an install would put it), then the page launched by
// VS Code's built-in JavaScript debugger from a launch.json of type `pwa-chrome` (Debian's chromium,
// headless). The page's session in Apps says it is being debugged in that launch; an event breakpoint
// on the shop's `cart.changed` (picked from the page's own types) stops the debugger in the page, the
// editor moves by itself to the page's dispatch line, and while the page is paused the Subscriptions
// view and the inspector show what the paused page reported (the event break, its payload and bus, the
// listener counts), read through the page's debug session. The page's Web Worker (a thread of its
// session) then gets the breakpoint instead: the debugger stops in the worker at its dispatch line,
// and Busscope shows that as the page's app paused, with the worker's event break.
//
// Screenshots and logs: .test-output/e2e/debug-browser-app/. Needs the VS Code server `npm test`
// provisions (`node scripts/provision.mjs`); without it this test skips loudly (with CI=true it fails).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import {
  acceptEventBreakpoints,
  activeEditor,
  eventBreakpointRow,
  setEventBreakpointRow,
  CHROMIUM_ARGS,
  findVscodeServerInstall,
  processesMentioning,
  repoRoot,
  vscodeServerTestOptions,
  withVscodeSession,
} from '../support/vscode-server';
import { waitFor } from '../support/wait';

const APP_TITLE = 'Corner Shop';
const LAUNCH = 'Debug Corner Shop';
const BREAK_TYPE = 'cart.changed';
const WORKER_BREAK_TYPE = 'price.changed';
const BROWSER_ENTRY = path.join(repoRoot, 'runtime-probe/dist/browser.mjs');
const WORKER_ENTRY = path.join(repoRoot, 'runtime-probe/dist/browser-worker.mjs');

const INDEX_HTML = `<!DOCTYPE html>
<html>
  <head>
    <title>${APP_TITLE}</title>
    <script type="importmap">{ "imports": { "busscope-probe/browser": "/node_modules/busscope-probe/dist/browser.mjs" } }</script>
    <script type="module" src="/src/main.js"></script>
  </head>
  <body><h1>${APP_TITLE}</h1></body>
</html>
`;

const MAIN_JS = `import './busscope.js';
import { startShop } from './shop.js';
startShop();
`;

/** The app: a cart bus with two listeners on the type the test breaks on, dispatched every 200 ms. */
const SHOP_JS = `import { addWorker, EventBus } from 'busscope-probe/browser';

export function startShop() {
  addWorker(new Worker('/src/prices.worker.js', { type: 'module' }));
  const cart = new EventBus({ name: 'cart' });
  cart.subscribe('${BREAK_TYPE}', function updateBadge() {}, { label: 'CartBadge' });
  cart.subscribe('${BREAK_TYPE}', function saveCart() {}, { label: 'CartStore' });
  cart.subscribe('cart.cleared', function resetBadge() {});
  let items = 0;
  setInterval(() => {
    items++;
    cart.dispatch('${BREAK_TYPE}', { items }); // DISPATCH
  }, 200);
}
`;

const DISPATCH_LINE = SHOP_JS.split('\n').findIndex((l) => l.includes('// DISPATCH')) + 1;

/** The page's Web Worker (a thread of the page's session): a prices bus, dispatched every 200 ms. Import maps do not reach workers. */
const PRICES_WORKER_JS = `import { connectToPage, EventBus } from '/node_modules/busscope-probe/dist/browser-worker.mjs';

connectToPage({ name: 'prices' });
const prices = new EventBus({ name: 'prices' });
prices.subscribe('${WORKER_BREAK_TYPE}', function repriceCart() {}, { label: 'Repricer' });
let n = 0;
setInterval(() => {
  n++;
  prices.dispatch('${WORKER_BREAK_TYPE}', { n }); // WORKER DISPATCH
}, 200);
`;

const WORKER_DISPATCH_LINE = PRICES_WORKER_JS.split('\n').findIndex((l) => l.includes('// WORKER DISPATCH')) + 1;

/** Polls every 250 ms: these checks read pages. */
const waitUntil = (what: string, timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<void> => waitFor(check, timeoutMs, what, 250);

const CONTENT_TYPES: Readonly<Record<string, string>> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript' };

/** Serves the workspace folder (the page and its node_modules) on 127.0.0.1, uncached. */
async function serveFolder(folder: string): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const file = path.resolve(folder, url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, ''));
    if (!file.startsWith(folder + path.sep) || !existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Rows of the Busscope side bar's views: their text (label and description) and aria-label. */
function sidebarRows(page: Page): Promise<string[]> {
  return page
    .locator('.part.sidebar .monaco-list-row')
    .evaluateAll((rows) => rows.map((r) => `${(r.textContent ?? '').trim()} | ${r.getAttribute('aria-label') ?? ''}`));
}

test(
  "a page debugged in VS Code (pwa-chrome): its session is linked to the debug session, an event breakpoint stops in the page at its dispatch line, and the paused page shows in the Subscriptions view and the inspector; a stop in the page's Web Worker is the page's pause",
  vscodeServerTestOptions(360_000),
  async () => {
    assert.ok(existsSync(BROWSER_ENTRY), `${BROWSER_ENTRY} is missing: run the build first (npm test does)`);
    const discoveryDir = mkdtempSync(path.join(os.tmpdir(), 'busscope-e2e-debug-browser-discovery-'));
    const lookup = findVscodeServerInstall();
    let shop: { origin: string; close(): Promise<void> } | undefined;
    let chromiumProfile = '';
    try {
      await withVscodeSession(
        'debug-browser-app',
        {
          harness: false,
          settings: { 'busscope.discoveryDirectory': discoveryDir },
          prepareWorkspace: async (dir) => {
            mkdirSync(path.join(dir, 'src'), { recursive: true });
            mkdirSync(path.join(dir, '.vscode'), { recursive: true });
            mkdirSync(path.join(dir, 'node_modules', 'busscope-probe', 'dist'), { recursive: true });
            writeFileSync(path.join(dir, 'node_modules', 'busscope-probe', 'dist', 'browser.mjs'), readFileSync(BROWSER_ENTRY));
            writeFileSync(path.join(dir, 'node_modules', 'busscope-probe', 'dist', 'browser-worker.mjs'), readFileSync(WORKER_ENTRY));
            writeFileSync(path.join(dir, 'index.html'), INDEX_HTML);
            writeFileSync(path.join(dir, 'src', 'main.js'), MAIN_JS);
            writeFileSync(path.join(dir, 'src', 'shop.js'), SHOP_JS);
            writeFileSync(path.join(dir, 'src', 'prices.worker.js'), PRICES_WORKER_JS);
            // Until the snippet is pasted the page runs without Busscope.
            writeFileSync(path.join(dir, 'src', 'busscope.js'), '');
            shop = await serveFolder(dir);
            // The chromium js-debug launches keeps its profile in the run's folder: a leftover is found by it.
            chromiumProfile = path.join(path.dirname(dir), 'debugged-chromium');
            writeFileSync(
              path.join(dir, '.vscode', 'launch.json'),
              JSON.stringify(
                {
                  version: '0.2.0',
                  configurations: [
                    {
                      type: 'pwa-chrome',
                      request: 'launch',
                      name: LAUNCH,
                      url: `${shop.origin}/`,
                      webRoot: '${workspaceFolder}',
                      runtimeExecutable: lookup.found ? lookup.install.chromium : '/usr/bin/chromium',
                      runtimeArgs: ['--headless=new', ...CHROMIUM_ARGS],
                      userDataDir: chromiumProfile,
                      // code-server is a remote window to js-debug: by default it would ask the UI side's
                      // companion extension to start the browser, which a web workbench does not have
                      // (seen: "Unable to launch browser: Timed out waiting for browser connection").
                      browserLaunchLocation: 'workspace',
                      trace: true,
                    },
                  ],
                },
                null,
                2,
              ),
            );
          },
        },
        async ({ workbench, run, workspace }) => {
          const page = workbench.page;
          assert.ok(shop !== undefined);
          run.log(`the shop is served on ${shop.origin}`);

          // ── 1. Accept Browser Apps; the connect call (URL and token from the notification) pasted into the page's code.
          await workbench.runCommandWhenListed('Notifications: Clear All Notifications', 15_000);
          await workbench.runCommandWhenListed('Busscope: Accept Browser Apps');
          const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'Busscope accepts browser apps on' }).first();
          await toast.waitFor({ state: 'visible', timeout: 20_000 });
          const message = (await toast.locator('.notification-list-item-message').first().textContent()) ?? '';
          const m = /on (ws:\/\/127\.0\.0\.1:\d+\/) \(token ([0-9a-f]+)\)/.exec(message);
          assert.ok(m, `the notification does not show a ws:// URL and a token: ${message}`);
          writeFileSync(
            path.join(workspace, 'src', 'busscope.js'),
            `import { connect } from 'busscope-probe/browser';\nconnect({ url: ${JSON.stringify(m[1])}, token: ${JSON.stringify(m[2])} });\n`,
          );
          await workbench.runCommandWhenListed('Notifications: Clear All Notifications', 10_000);

          // ── 2. Debug the page: the launch configuration from the palette (no F5: the browser may take it as a reload).
          await workbench.runCommandWhenListed('Debug: Start Debugging', 60_000);
          const pickerRow = page.locator('.quick-input-list .monaco-list-row', { hasText: LAUNCH }).first();
          if (
            await pickerRow.waitFor({ state: 'visible', timeout: 3000 }).then(
              () => true,
              () => false,
            )
          )
            await page.keyboard.press('Enter');
          await page.locator('.codicon-debug-pause:visible, .codicon-debug-stop:visible').first().waitFor({ state: 'visible', timeout: 60_000 });
          run.log('debugging started');

          // ── 3. Apps: the page, live, debugged in the launch.
          await workbench.runCommandWhenListed('View: Show Busscope', 15_000);
          const appRow = page.locator(`.part.sidebar .monaco-list-row[aria-label*="${APP_TITLE}"]`).first();
          await appRow.waitFor({ timeout: 60_000 });
          let rowText = '';
          await waitUntil(`the page's row to say it is debugged in “${LAUNCH}”`, 60_000, async () => {
            rowText = (await appRow.textContent()) ?? '';
            return rowText.includes(`debugging in “${LAUNCH}”`);
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; Apps row: ${rowText}`);
          });
          run.log(`Apps row: ${rowText}`);
          await workbench.screenshot('apps-debugging', '.part.sidebar');

          // ── 4. An event breakpoint on the page's type, from the picker (the page's types are listed).
          /** Opens the picker, sets each type's row as `rows` says, accepts, and gives `added` no condition. */
          const pickBreakpoints = async (rows: Readonly<Record<string, boolean>>, added: string): Promise<void> => {
            await workbench.runCommandWhenListed('Busscope: Toggle Event Breakpoint…');
            await page.locator('.quick-input-widget', { hasText: 'Event Breakpoints' }).first().waitFor({ state: 'visible', timeout: 60_000 });
            for (const [type, on] of Object.entries(rows)) {
              const row = await eventBreakpointRow(page, type);
              run.log(`picker row: ${(await row.getAttribute('aria-label')) ?? ''}`);
              await setEventBreakpointRow(page, row, on);
            }
            await acceptEventBreakpoints(page, added);
          };
          await pickBreakpoints({ [BREAK_TYPE]: true }, BREAK_TYPE);

          // ── 5. The page stops; the editor moves by itself to the page's dispatch line.
          await page.locator('.codicon-debug-continue:visible').first().waitFor({ state: 'visible', timeout: 60_000 });
          run.log('paused');
          let editor = { tab: '', line: NaN };
          await waitUntil(`the editor to show shop.js at line ${DISPATCH_LINE} by itself`, 30_000, async () => {
            editor = await activeEditor(page);
            return editor.tab.startsWith('shop.js') && editor.line === DISPATCH_LINE;
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; active editor: ${JSON.stringify(editor)}`);
          });
          await workbench.screenshot('stopped-at-dispatch');

          // ── 6. The paused page in Busscope: the Apps row, the Subscriptions view (read through the debug session).
          await workbench.runCommandWhenListed('View: Show Busscope', 30_000);
          let rows: string[] = [];
          await waitUntil("the Subscriptions view to show the paused page's event break", 30_000, async () => {
            rows = await sidebarRows(page);
            return rows.some((r) => r.includes('Paused in the debugger')) && rows.some((r) => r.includes('about to dispatch'));
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; side bar rows: ${JSON.stringify(rows)}`);
          });
          run.log(`side bar while paused:\n  ${rows.join('\n  ')}`);
          assert.ok(
            rows.some((r) => r.includes(`paused in “${LAUNCH}”`)),
            `the Apps row does not say paused: ${JSON.stringify(rows)}`,
          );
          const pausedRow = rows.find((r) => r.includes('Paused in the debugger')) ?? '';
          assert.ok(pausedRow.includes(`at the event breakpoint on ${BREAK_TYPE}`), pausedRow);
          const breakRow = rows.find((r) => r.includes('about to dispatch')) ?? '';
          assert.ok(breakRow.includes(BREAK_TYPE) && breakRow.includes('cart') && /\{"items":\d+\}/.test(breakRow), breakRow);
          await workbench.screenshot('paused-subscriptions', '.part.sidebar');

          // ── 7. The inspector says the same in its banner.
          await workbench.runCommandWhenListed('Busscope: Open Inspector');
          const frame = await workbench.waitForWebviewFrame('[data-testid="inspector"]', 30_000);
          const banner = frame.locator('[data-testid="session-banner"][data-phase="paused"]');
          let bannerText = '';
          await waitUntil("the inspector's paused banner with the event break", 30_000, async () => {
            bannerText = (await banner.textContent({ timeout: 2000 }).catch(() => null)) ?? '';
            return bannerText.includes(`Event breakpoint on ${BREAK_TYPE} (bus cart)`);
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; banner: ${bannerText}`);
          });
          run.log(`inspector banner: ${bannerText}`);
          assert.match(bannerText, new RegExp(`${BREAK_TYPE.replace('.', '\\.')} 2`), 'the listener count of the break type');
          await workbench.screenshot('paused-inspector');

          // ── 8. The page's Web Worker: the breakpoint moves from the page's type to the worker's, the page
          //       runs on, the worker stops at its dispatch line, and that is the page's app paused.
          await pickBreakpoints({ [BREAK_TYPE]: false, [WORKER_BREAK_TYPE]: true }, WORKER_BREAK_TYPE);
          await page.locator('.codicon-debug-continue:visible').first().click({ timeout: 10_000 });
          await waitUntil(`the editor to show prices.worker.js at line ${WORKER_DISPATCH_LINE} by itself`, 60_000, async () => {
            editor = await activeEditor(page);
            return editor.tab.startsWith('prices.worker.js') && editor.line === WORKER_DISPATCH_LINE;
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; active editor: ${JSON.stringify(editor)}`);
          });
          run.log('paused in the worker');
          await workbench.runCommandWhenListed('View: Show Busscope', 30_000);
          await waitUntil("the Subscriptions view to show the worker's event break as the page's pause", 30_000, async () => {
            rows = await sidebarRows(page);
            return rows.some((r) => r.includes('about to dispatch') && r.includes(WORKER_BREAK_TYPE));
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; side bar rows: ${JSON.stringify(rows)}`);
          });
          run.log(`side bar while the worker is paused:\n  ${rows.join('\n  ')}`);
          assert.ok(
            rows.some((r) => r.includes(`paused in “${LAUNCH}”`)),
            `the Apps row does not say paused: ${JSON.stringify(rows)}`,
          );
          const workerBreak = rows.find((r) => r.includes('about to dispatch') && r.includes(WORKER_BREAK_TYPE)) ?? '';
          assert.ok(workerBreak.includes('prices') && /\{"n":\d+\}/.test(workerBreak), workerBreak);
          await workbench.screenshot('paused-in-worker', '.part.sidebar');

          // ── 9. Stop debugging: js-debug closes the browser, the page's session ends.
          await page.locator('.codicon-debug-stop:visible, .codicon-debug-disconnect:visible').first().click({ timeout: 10_000 });
          await workbench.runCommandWhenListed('View: Show Busscope', 30_000);
          await waitUntil("the page's session to end", 30_000, async () => /ended/.test((await appRow.textContent()) ?? ''));
          run.log(`Apps row after stopping: ${(await appRow.textContent()) ?? ''}`);
        },
      );
    } finally {
      await shop?.close();
      // Whatever js-debug's chromium left behind (it is ours: its profile is in the run's folder).
      if (chromiumProfile !== '')
        for (const p of processesMentioning(chromiumProfile)) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      rmSync(discoveryDir, { recursive: true, force: true });
    }
  },
);
