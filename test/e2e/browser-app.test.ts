// #14, "the real VS Code E2E walks it", the way a user lives it in a real VS Code (code-server +
// chromium) with the PACKAGED extension: *Busscope: Accept Browser Apps* from the command palette;
// the URL and token read from the notification it shows, and the snippet taken with its *Copy
// Snippet* button and pasted, as it is, into the page's code (a small shop served from the workspace
// folder by a static server in this test, loading the built `busscope-probe/browser` through an
// import map, with a deliberate listener leak); the page opened in a second Chromium tab. Then what
// the user sees: the status bar says Busscope is listening; the page appears in the Apps view with
// its origin; the inspector opened from the page's row shows its buses and the leak as a warning
// whose source link opens the page's own file (a dev-server URL mapped to the workspace) at the
// subscribe line; *Stop Accepting Browser Apps* takes the status bar item away and ends the page's
// session.
//
// Screenshots and logs: .test-output/e2e/browser-app/. Needs the VS Code server `npm test` provisions
// (`node scripts/provision.mjs`); without it this test skips loudly (with CI=true it fails).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { activeEditor, repoRoot, vscodeServerTestOptions, withVscodeSession, type E2eArtifacts } from '../support/vscode-server';
import { waitFor } from '../support/wait';

/** The page's title: the snippet names the app `document.title || location.host`. */
const APP_TITLE = 'Corner Shop';
const LEAK_TYPE = 'cart.changed';
const BROWSER_ENTRY = path.join(repoRoot, 'runtime-probe/dist/browser.mjs');
/** Where the page's import map says `busscope-probe/browser` is (as a bundler-less project would have it). */
const ENTRY_URL = '/node_modules/busscope-probe/dist/browser.mjs';

const INDEX_HTML = `<!DOCTYPE html>
<html>
  <head>
    <title>${APP_TITLE}</title>
    <script type="importmap">{ "imports": { "busscope-probe/browser": "${ENTRY_URL}" } }</script>
    <script type="module" src="/src/main.js"></script>
  </head>
  <body><h1>${APP_TITLE}</h1><p id="status">loading</p></body>
</html>
`;

/** The page's entry: the pasted snippet first (it records from the moment connect is called), then the app. */
const MAIN_JS = `import './busscope.js';
import { startShop } from './shop.js';
startShop();
document.getElementById('status').textContent = 'running';
`;

/** The app: a cart bus, a watched router (an EventTarget), and a badge that subscribes again on every render. */
const SHOP_JS = `import { EventBus, watch } from 'busscope-probe/browser';

export function startShop() {
  const cart = new EventBus({ name: 'cart' });
  const router = new EventTarget();
  watch(router, { name: 'router' });
  router.addEventListener('navigate', function onNavigate() {});
  const badge = { name: 'CartBadge' };
  let renders = 0;
  function renderBadge() {
    cart.subscribe('${LEAK_TYPE}', function updateBadge() {}, { owner: badge, label: 'CartBadge' }); // LEAK: never disposed
    if (++renders < 12) setTimeout(renderBadge, 150);
  }
  renderBadge();
  let items = 0;
  setInterval(() => {
    cart.dispatch('${LEAK_TYPE}', { items: ++items });
    router.dispatchEvent(new Event('navigate'));
  }, 100);
}
`;

const LEAK_LINE = SHOP_JS.split('\n').findIndex((l) => l.includes('// LEAK')) + 1;

/** Polls every 250 ms: these checks read pages. */
const waitUntil = (what: string, timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<void> => waitFor(check, timeoutMs, what, 250);

const CONTENT_TYPES: Readonly<Record<string, string>> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript' };

interface StaticServer {
  readonly origin: string;
  close(): Promise<void>;
}

/** A static server for the workspace folder (the page's files) and the built browser entry. */
async function serveWorkspace(workspace: string): Promise<StaticServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
    const file = url.pathname === ENTRY_URL ? BROWSER_ENTRY : path.resolve(workspace, rel);
    if (file !== BROWSER_ENTRY && !file.startsWith(workspace + path.sep)) return void res.writeHead(403).end();
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The visible notification toast whose message contains `text` (its message and button labels). */
async function notificationToast(page: Page, text: string, timeoutMs: number): Promise<{ toast: Locator; message: string; buttons: string[] }> {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  const message = (await toast.locator('.notification-list-item-message').first().textContent()) ?? '';
  const buttons = await toast.locator('.notification-list-item-buttons-container .monaco-button').allTextContents();
  return { toast, message, buttons };
}

/** The status bar's text, item by item. */
function statusBarItems(page: Page): Promise<string[]> {
  return page.locator('.part.statusbar .statusbar-item').evaluateAll((items) => items.map((i) => (i.textContent ?? '').trim()).filter((t) => t !== ''));
}

/** Bus rows of the inspector's graph (the node list is virtualised: scrolls through it). */
function graphBuses(frame: Frame): Promise<string[]> {
  return frame.locator('[data-testid="node-list"]').evaluate(async (list) => {
    const seen = new Set<string>();
    list.scrollTop = 0;
    for (let guard = 0; guard < 100; guard++) {
      await new Promise((r) => setTimeout(r, 80)); // the list renders its rows on the scroll event
      for (const row of list.querySelectorAll('[data-key][data-kind="bus"]')) seen.add(row.getAttribute('data-bus') ?? '');
      if (list.scrollTop + list.clientHeight >= list.scrollHeight - 1) break;
      list.scrollTop += Math.max(20, list.clientHeight - 44);
    }
    list.scrollTop = 0;
    return [...seen].sort();
  });
}

interface WarningView {
  readonly kind: string;
  readonly title: string;
  readonly subjects: string;
  readonly links: { file: string; line: number; text: string }[];
}

function inspectorWarnings(frame: Frame): Promise<WarningView[]> {
  return frame.locator('[data-testid="warnings"] article.warning').evaluateAll((items) =>
    items.map((w) => ({
      kind: w.getAttribute('data-kind') ?? '',
      title: w.querySelector('.warning-title')?.textContent ?? '',
      subjects: w.querySelector('.subjects')?.textContent ?? '',
      links: [...w.querySelectorAll('button.link[data-file]')].map((b) => ({
        file: b.getAttribute('data-file') ?? '',
        line: Number(b.getAttribute('data-line')),
        text: b.textContent ?? '',
      })),
    })),
  );
}

/**
 * Clicks `target` (in a webview frame) with the mouse at its centre until `done()` holds: the live
 * inspector rebuilds its lists several times a second, so Playwright's stable-element wait may never
 * be met (see the same in first-run.test.ts).
 */
async function clickInWebviewUntil(run: E2eArtifacts, what: string, frame: Frame, target: Locator, done: () => Promise<boolean>): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const rect = await target.evaluate(
        (el) => {
          el.scrollIntoView({ block: 'center' });
          const r = el.getBoundingClientRect();
          return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
        },
        undefined,
        { timeout: 5000 },
      );
      const box = await (await frame.frameElement()).boundingBox();
      if (!box) throw new Error('the webview frame is not visible');
      await frame.page().mouse.click(box.x + rect.x, box.y + rect.y);
    } catch (e) {
      run.log(`click on ${what} (attempt ${attempt}) failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    // Opening an editor can take seconds on a busy machine: an early second click would land elsewhere.
    if (
      await waitUntil(what, 15_000, done).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw new Error(`${what}: not done after 3 clicks`);
}

test(
  'browser apps: accept from the palette, paste the copied snippet into a page, see the page in Apps and its buses and leak in the inspector, stop accepting',
  vscodeServerTestOptions(300_000),
  async () => {
    assert.ok(existsSync(BROWSER_ENTRY), `${BROWSER_ENTRY} is missing: run the build first (npm test does)`);
    const discoveryDir = mkdtempSync(path.join(os.tmpdir(), 'busscope-e2e-browser-app-discovery-'));
    let app: StaticServer | undefined;
    try {
      await withVscodeSession(
        'browser-app',
        {
          harness: false,
          settings: { 'busscope.discoveryDirectory': discoveryDir },
          prepareWorkspace: (dir) => {
            mkdirSync(path.join(dir, 'src'), { recursive: true });
            writeFileSync(path.join(dir, 'index.html'), INDEX_HTML);
            writeFileSync(path.join(dir, 'src', 'main.js'), MAIN_JS);
            writeFileSync(path.join(dir, 'src', 'shop.js'), SHOP_JS);
          },
        },
        async ({ workbench, run, workspace, server }) => {
          const page = workbench.page;
          app = await serveWorkspace(workspace);
          run.log(`the shop is served on ${app.origin}`);
          // Copy Snippet writes the clipboard through the browser (navigator.clipboard); a user's
          // browser asks once, this one is told yes up front.
          await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });

          // ── 1. Accept Browser Apps: a notification with the URL and token, and Copy Snippet.
          await workbench.runCommandWhenListed('Notifications: Clear All Notifications', 15_000);
          await workbench.runCommandWhenListed('Busscope: Accept Browser Apps');
          const shown = await notificationToast(page, 'Busscope accepts browser apps on', 20_000);
          run.log(`notification: ${shown.message} [${shown.buttons.join(' | ')}]`);
          const m = /on (ws:\/\/127\.0\.0\.1:(\d+)\/) \(token ([0-9a-f]+)\)/.exec(shown.message);
          assert.ok(m, `the notification does not show a ws:// URL and a token: ${shown.message}`);
          const [, url, port, token] = m;
          assert.deepEqual(shown.buttons, ['Copy Snippet', 'Stop']);
          await workbench.screenshot('accepting');
          await shown.toast.getByRole('button', { name: 'Copy Snippet' }).click({ timeout: 10_000 });
          await notificationToast(page, 'the connect snippet is on the clipboard', 15_000);
          const snippet = await page.evaluate(() => navigator.clipboard.readText());
          run.log(`clipboard:\n${snippet}`);
          assert.match(snippet, /import \{ connect \} from 'busscope-probe\/browser';/);
          assert.ok(snippet.includes(JSON.stringify(url)) && snippet.includes(JSON.stringify(token)), `the snippet does not carry ${url} and the token`);
          // A dev server (busscope-probe/vite) finds the same URL and token in the discovery folder.
          assert.deepEqual(JSON.parse(readFileSync(path.join(discoveryDir, 'browser-apps.json'), 'utf8')), { url, token });
          // The status bar says Busscope is listening, on the port the notification named.
          await waitUntil('the browser apps status bar item', 10_000, async () =>
            (await statusBarItems(page)).some((t) => t.includes(`Browser apps :${port}`)),
          );

          // ── 2. The snippet pasted into the page's code; the page opened in a second tab.
          writeFileSync(path.join(workspace, 'src', 'busscope.js'), `${snippet}\n`);
          const shop = await page.context().newPage();
          const pageErrors: string[] = [];
          shop.on('pageerror', (e) => pageErrors.push(e.message));
          await shop.goto(`${app.origin}/`, { waitUntil: 'domcontentloaded', timeout: 30_000 });
          await shop.locator('#status', { hasText: 'running' }).waitFor({ timeout: 20_000 });
          await shop.screenshot({ path: run.screenshotPath('shop-page') });
          await page.bringToFront();

          // ── 3. Apps: the page, live, with its origin.
          await workbench.runCommandWhenListed('Notifications: Clear All Notifications', 10_000);
          await workbench.runCommandWhenListed('View: Show Busscope', 15_000);
          const sidebar = page.locator('.part.sidebar');
          const appRow = sidebar.locator(`.monaco-list-row[aria-label*="${APP_TITLE}"]`).first();
          await appRow.waitFor({ timeout: 20_000 });
          await waitUntil('the page row to count a warning', 20_000, async () => /\d+ warnings?/.test((await appRow.textContent()) ?? ''));
          run.log(`Apps row: ${await appRow.textContent()}`);
          assert.doesNotMatch((await appRow.textContent()) ?? '', /ended|pid/);
          await appRow.locator('.monaco-tl-twistie').click({ timeout: 10_000 });
          await sidebar.locator('.monaco-list-row', { hasText: 'page' }).filter({ hasText: app.origin }).first().waitFor({ timeout: 10_000 });
          await workbench.screenshot('apps', '.part.sidebar');

          // ── 4. The inspector, from the page's row (its inline Open Inspector action).
          await appRow.hover();
          await appRow.locator('.action-label[aria-label*="Open Inspector"]').click({ timeout: 10_000 });
          const frame = await workbench.waitForWebviewFrame('[data-testid="inspector"]', 30_000);
          await frame.locator('[data-testid="session-banner"][data-phase="attached"]').waitFor({ timeout: 20_000 });
          const banner = (await frame.locator('[data-testid="session-banner"]').textContent()) ?? '';
          run.log(`banner: ${banner}`);
          assert.match(banner, new RegExp(`Attached to ${APP_TITLE}`));
          let buses: string[] = [];
          await waitUntil("the page's buses in the graph", 20_000, async () => {
            buses = await graphBuses(frame);
            return ['cart', 'router'].every((b) => buses.includes(b));
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; graph buses: ${buses.join(', ')}`);
          });
          run.log(`graph buses: ${buses.join(', ')}`);

          let warnings: WarningView[] = [];
          const leakOf = (ws: WarningView[]): WarningView | undefined =>
            ws.find((w) => w.kind === 'listener-growth' && w.subjects.includes(LEAK_TYPE) && w.links.length > 0);
          await waitUntil('the leak warning', 20_000, async () => leakOf((warnings = await inspectorWarnings(frame))) !== undefined).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; warnings: ${JSON.stringify(warnings)}`);
          });
          const leak = leakOf(warnings)!;
          run.log(`warning: ${leak.title} [${leak.subjects}] → ${leak.links.map((l) => `${l.text} (${l.file}:${l.line})`).join(', ')}`);
          const link = leak.links.find((l) => l.text === `shop.js:${LEAK_LINE}`);
          assert.ok(link, `the leak's source links do not name shop.js:${LEAK_LINE}: ${JSON.stringify(leak.links)}`);
          await workbench.screenshot('inspector');

          // ── 5. The warning's source link opens the page's own file (in the workspace) at the subscribe line.
          const linkButton = frame.locator(`[data-testid="warnings"] article.warning[data-kind="listener-growth"] button.link`, { hasText: link.text }).first();
          let editor = { tab: '', line: NaN };
          await clickInWebviewUntil(run, `the ${link.text} link → an editor on shop.js at line ${LEAK_LINE}`, frame, linkButton, async () => {
            editor = await activeEditor(page);
            return editor.tab.startsWith('shop.js') && editor.line === LEAK_LINE;
          }).catch((e: unknown) => {
            throw new Error(`${e instanceof Error ? e.message : String(e)}; active editor: ${JSON.stringify(editor)}`);
          });
          await workbench.screenshot('source-opened');

          // ── 6. Busscope: Detach — the page's session ends and stays ended (the page is told not to
          // dial again, unlike when Busscope goes away); reloading the page brings it back as the same app.
          const rowText = async (): Promise<string> => (await appRow.textContent()) ?? '';
          await workbench.runCommandWhenListed('Busscope: Detach');
          await waitUntil("the page's row to say it was detached", 15_000, async () => /ended: detached/.test(await rowText()));
          run.log(`Apps row after detaching: ${await rowText()}`);
          await shop.reload({ waitUntil: 'domcontentloaded', timeout: 30_000 });
          await shop.locator('#status', { hasText: 'running' }).waitFor({ timeout: 20_000 });
          await waitUntil('the reloaded page to be live in Apps', 20_000, async () => /warning|\/s/.test(await rowText()) && !/ended/.test(await rowText()));
          // The reloaded page is a new session: its row starts collapsed.
          if ((await appRow.getAttribute('aria-expanded')) !== 'true') await appRow.locator('.monaco-tl-twistie').click({ timeout: 10_000 });
          // One reload: the one the user made (a detached page that came back by itself would be a second).
          const reloads = sidebar.locator('.monaco-list-row', { hasText: 'reloads' }).first();
          await reloads.waitFor({ timeout: 10_000 });
          assert.match((await reloads.textContent()) ?? '', /reloads\s*1$/);
          await workbench.screenshot('reloaded', '.part.sidebar');

          // ── 7. Stop Accepting Browser Apps: the status bar item goes, the page's session ends saying why.
          await workbench.runCommandWhenListed('Busscope: Stop Accepting Browser Apps');
          await waitUntil('the browser apps status bar item to go', 10_000, async () => !(await statusBarItems(page)).some((t) => t.includes('Browser apps')));
          await waitUntil("the page's row to say it ended", 15_000, async () => /ended/.test(await rowText()));
          run.log(`Apps row after stopping: ${await rowText()}`);
          // The page is still open: its session ended because Busscope stopped accepting, not because it closed.
          assert.match(await rowText(), /ended: stopped accepting browser apps/);
          assert.ok(!existsSync(path.join(discoveryDir, 'browser-apps.json')), 'the browser apps file is left behind for dev servers');
          await workbench.runCommandWhenListed('Busscope: Open Inspector');
          const after = await workbench.waitForWebviewFrame('[data-testid="inspector"]', 20_000);
          const detached = after.locator('[data-testid="session-banner"][data-phase="detached"]');
          await detached.waitFor({ timeout: 15_000 });
          assert.match((await detached.textContent()) ?? '', new RegExp(`Detached from ${APP_TITLE}.*Stopped accepting browser apps\\.`));
          // The way back for a page is a reload while Busscope accepts browser apps, not the app list.
          assert.deepEqual(await detached.locator('button').allTextContents(), ['Accept Browser Apps']);
          await workbench.screenshot('stopped');
          assert.deepEqual(pageErrors, [], 'the page threw');
          await shop.close();
        },
      );
    } finally {
      await app?.close();
      rmSync(discoveryDir, { recursive: true, force: true });
    }
  },
);
