// Debian's chromium driven by playwright-core, and a Workbench wrapper for what the tests do in the
// VS Code web workbench: open it, run a command through the palette (F1, type the title, Enter),
// pick a quick pick item, find and evaluate in webview frames, take screenshots.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Frame, type Locator, type Page } from 'playwright-core';
import type { E2eArtifacts } from './artifacts';
import type { VscodeServerInstall } from './install';

/** Flags that keep a headless chromium in a container from sandbox errors and network chatter. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * A chromium with its profile in `profileDir` (inside the run's temp dir, so a leftover process is
 * recognisable by its command line). Close it with `context.close()`.
 */
export function launchChromium(install: VscodeServerInstall, profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: install.chromium,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    timeout: 60_000,
  });
}

const normalize = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[:…]|\.\.\./g, '')
    .replace(/\s+/g, ' ')
    .trim();

export type ItemMatcher = string | RegExp;

function matches(label: string, m: ItemMatcher): boolean {
  return typeof m === 'string' ? normalize(label).startsWith(normalize(m)) : m.test(label);
}

/**
 * The row is the item itself, not a longer title that starts with it: "Debug: Start Debugging" is not
 * "Debug: Start Debugging and Stop on Entry" (js-debug's, listed alone until VS Code's debuggers are
 * registered: accepting it launched with stopOnEntry). The aria-label may go on after a comma (keybinding).
 */
function matchesWhole(label: string, m: ItemMatcher): boolean {
  if (typeof m !== 'string') return m.test(label);
  const l = normalize(label);
  const t = normalize(m);
  return l === t || l.startsWith(`${t},`);
}

/** How long a row that only starts with the title waits for the row that is the whole title. */
const PREFIX_FALLBACK_MS = 1500;

export class Workbench {
  private constructor(
    readonly page: Page,
    private readonly artifacts: E2eArtifacts,
  ) {}

  /** Opens `url` in a page of `context` and waits for the workbench to render. */
  static async open(context: BrowserContext, url: string, artifacts: E2eArtifacts, timeoutMs = 90_000): Promise<Workbench> {
    const page = context.pages()[0] ?? (await context.newPage());
    const consoleLog = artifacts.logPath('browser-console.log');
    page.on('console', (m) => appendFileSync(consoleLog, `[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => appendFileSync(consoleLog, `[pageerror] ${e.stack ?? e.message}\n`));
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: timeoutMs });
    await page.waitForSelector('.monaco-workbench', { timeout: timeoutMs });
    // The status bar is among the last parts laid out: a workbench that has it takes keyboard input.
    await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: timeoutMs });
    return new Workbench(page, artifacts);
  }

  /** A screenshot of the page, or of the first element matching `selector` (e.g. '.part.sidebar'). */
  async screenshot(name: string, selector?: string): Promise<string> {
    const file = this.artifacts.screenshotPath(name);
    if (selector) await this.page.locator(selector).first().screenshot({ path: file });
    else await this.page.screenshot({ path: file });
    this.artifacts.log(`screenshot ${path.basename(file)}`);
    return file;
  }

  private get quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  /** aria-labels of the rows the quick input shows now. */
  async quickPickLabels(): Promise<string[]> {
    return this.page.locator('.quick-input-list .monaco-list-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-label') ?? r.textContent ?? ''));
  }

  /**
   * Waits until a quick input row matches, then accepts it: Enter when it is the focused row, a click
   * otherwise. A string matches the row whose aria-label is it (case, colons and ellipses ignored), or,
   * when no row is, one whose aria-label starts with it.
   */
  private async accept(item: ItemMatcher, timeoutMs: number, prefixFallback = true): Promise<void> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    let labels: string[] = [];
    while (Date.now() < deadline) {
      labels = await this.quickPickLabels();
      // The whole title first; a row that merely starts with it only when no such row comes.
      const prefixOk = prefixFallback && Date.now() - started >= Math.min(PREFIX_FALLBACK_MS, timeoutMs / 2);
      let match = (l: string): boolean => matchesWhole(l, item);
      if (!labels.some(match) && prefixOk) match = (l) => matches(l, item);
      const index = labels.findIndex(match);
      if (index >= 0) {
        if (!matchesWhole(labels[index], item))
          this.artifacts.log(`no row is exactly ${String(item)}; accepting ${JSON.stringify(labels[index])} of ${JSON.stringify(labels.slice(0, 8))}`);
        const focused = await this.page
          .locator('.quick-input-list .monaco-list-row.focused')
          .first()
          .getAttribute('aria-label', { timeout: 500 })
          .catch(() => null);
        if (focused !== null && match(focused)) {
          await this.page.keyboard.press('Enter');
          return;
        }
        const row = this.page.locator('.quick-input-list .monaco-list-row').nth(index);
        if (
          await row.click({ timeout: 2000 }).then(
            () => true,
            () => false,
          )
        )
          return;
      }
      await this.page.waitForTimeout(100);
    }
    throw new Error(`no quick input row matches ${String(item)} within ${timeoutMs} ms; rows: ${JSON.stringify(labels)}`);
  }

  /** F1, type the command's title (as the palette shows it, e.g. "Busscope: Run Demo App"), Enter. */
  async runCommand(title: string, timeoutMs = 20_000): Promise<void> {
    this.artifacts.log(`command palette: ${title}`);
    await this.page
      .locator('.monaco-workbench')
      .focus()
      .catch(() => undefined);
    await this.page.keyboard.press('F1');
    const input = this.quickInput.locator('input');
    await input.first().waitFor({ state: 'visible', timeout: timeoutMs });
    await this.page.keyboard.type(title);
    await this.accept(title, timeoutMs);
  }

  /**
   * `runCommand` for a command that may not be listed yet: in code-server an extension's commands
   * reach the palette a few seconds after the workbench opens, and `when`-gated ones once their
   * context key is set. Each attempt opens the palette, types the title and waits up to `attemptMs`
   * for the row; without one it closes the palette (Escape) and tries again, until `timeoutMs`.
   */
  async runCommandWhenListed(title: string, timeoutMs = 45_000, attemptMs = 3_000): Promise<void> {
    this.artifacts.log(`command palette: ${title}`);
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const attemptTimeout = Math.max(1000, Math.min(attemptMs, deadline - Date.now()));
      try {
        await this.page
          .locator('.monaco-workbench')
          .focus()
          .catch(() => undefined);
        await this.page.keyboard.press('F1');
        await this.quickInput.locator('input').first().waitFor({ state: 'visible', timeout: attemptTimeout });
        // The title as one input (the palette filters ~2,000 commands per keystroke, slow on a busy
        // machine); typing it key by key is what runCommand does.
        await this.page.keyboard.insertText(title);
        // Only the command itself: until VS Code's debuggers are registered "Debug: Start Debugging" is
        // not listed while js-debug's "… and Stop on Entry" is — the row to wait for, not to take.
        await this.accept(title, attemptTimeout, false);
        if (attempt > 1) this.artifacts.log(`"${title}" was listed at attempt ${attempt}`);
        return;
      } catch (e) {
        if (Date.now() >= deadline) {
          throw new Error(`"${title}" did not appear in the command palette within ${timeoutMs} ms: ${e instanceof Error ? e.message : String(e)}`, {
            cause: e,
          });
        }
        await this.page.keyboard.press('Escape');
        await this.page.waitForTimeout(500);
      }
    }
  }

  /** Picks an item of the quick pick that is open (e.g. one a command showed), typing `filter` first if given. */
  async pickQuickPickItem(item: ItemMatcher, options: { filter?: string; timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 20_000;
    this.artifacts.log(`quick pick: ${String(item)}`);
    await this.quickInput.locator('input').first().waitFor({ state: 'visible', timeout: timeoutMs });
    if (options.filter) await this.page.keyboard.type(options.filter);
    await this.accept(item, timeoutMs);
  }

  async waitForQuickInputClosed(timeoutMs = 10_000): Promise<void> {
    await this.quickInput.waitFor({ state: 'hidden', timeout: timeoutMs });
  }

  /** The frames of webviews (their content is an iframe nested in the webview host iframe). */
  webviewFrames(): Frame[] {
    return this.page.frames().filter((f) => f !== this.page.mainFrame());
  }

  /** The first webview frame that has `selector`, waiting for it to appear. */
  async waitForWebviewFrame(selector: string, timeoutMs = 30_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      for (const frame of this.webviewFrames()) {
        // Runs in the page; the test project has no DOM types, hence the structural cast.
        const found = await frame
          .evaluate((s) => (globalThis as unknown as { document: { querySelector(q: string): unknown } }).document.querySelector(s) !== null, selector)
          .catch(() => false);
        if (found) return frame;
      }
      await this.page.waitForTimeout(200);
    }
    throw new Error(
      `no webview frame has ${selector} within ${timeoutMs} ms (frames: ${this.webviewFrames()
        .map((f) => f.url())
        .join(', ')})`,
    );
  }

  /** `textContent` (or attribute `attribute`) of each element matching `selector` in the webview frame that has one. */
  async webviewTexts(selector: string, attribute?: string, timeoutMs = 30_000): Promise<string[]> {
    const frame = await this.waitForWebviewFrame(selector, timeoutMs);
    return frame.locator(selector).evaluateAll((els, attr) => els.map((e) => (attr ? e.getAttribute(attr) : e.textContent) ?? ''), attribute);
  }

  /** Evaluates `fn(arg)` in the webview frame that has `selector` (arg must be JSON-serializable). */
  async evaluateInWebview<R, A = undefined>(selector: string, fn: (arg: A) => R | Promise<R>, arg?: A, timeoutMs = 30_000): Promise<R> {
    const frame = await this.waitForWebviewFrame(selector, timeoutMs);
    return frame.evaluate(fn as (arg: unknown) => R | Promise<R>, arg as unknown);
  }
}

/** The active editor: its tab label, the cursor's line and column (the status bar's "Ln 12, Col 5") and the text of that line. */
export async function activeEditor(page: Page): Promise<{ tab: string; line: number; column: number; lineText: string }> {
  const tab =
    (await page
      .locator('.part.editor .tab.active')
      .first()
      .getAttribute('aria-label', { timeout: 2000 })
      .catch(() => null)) ?? '';
  const status =
    (await page
      .locator('[id="status.editor.selection"]')
      .first()
      .textContent({ timeout: 2000 })
      .catch(() => null)) ?? '';
  const m = /Ln (\d+), Col (\d+)/.exec(status);
  // The text of the line the cursor is on: the editor's view-line at the cursor's vertical position.
  const lineText = await page
    .locator('.part.editor .editor-instance .monaco-editor.focused, .part.editor .editor-instance .monaco-editor')
    .first()
    .evaluate(
      (editor) => {
        const cursor = editor.querySelector('.cursors-layer .cursor');
        if (!cursor) return '';
        const top = cursor.getBoundingClientRect().top;
        for (const line of editor.querySelectorAll('.view-lines .view-line')) {
          const r = line.getBoundingClientRect();
          if (Math.abs(r.top - top) < r.height / 2) return (line.textContent ?? '').replace(/\u00a0/g, ' ');
        }
        return '';
      },
      undefined,
      { timeout: 2000 },
    )
    .catch(() => '');
  return { tab, line: m ? Number(m[1]) : NaN, column: m ? Number(m[2]) : NaN, lineText };
}

/**
 * In Busscope's event-breakpoint picker, once it is open (*Busscope: Toggle Event Breakpoint…*):
 * filters it to `type` and returns that type's row, listed.
 */
export async function eventBreakpointRow(page: Page, type: string, timeoutMs = 20_000): Promise<Locator> {
  const input = page.locator('.quick-input-widget input').first();
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(type);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: type }).first();
  await row.waitFor({ timeout: timeoutMs });
  return row;
}

/**
 * Clicks a picker row's checkbox until it shows `on`: a click that lands while the filtered list
 * re-renders toggles nothing, so a user looks before pressing OK, and so does this.
 */
export async function setEventBreakpointRow(page: Page, row: Locator, on: boolean, timeoutMs = 15_000): Promise<void> {
  const box = row.locator('.monaco-checkbox, input[type=checkbox]').first();
  const checked = (): Promise<boolean> =>
    box.evaluate((el) => ((el as HTMLInputElement).checked ?? false) || el.getAttribute('aria-checked') === 'true' || el.classList.contains('checked'));
  const deadline = Date.now() + timeoutMs;
  while ((await checked()) !== on) {
    if (Date.now() > deadline) throw new Error(`the event type row did not show ${on ? 'checked' : 'unchecked'} within ${timeoutMs} ms`);
    const b = await box.boundingBox();
    if (b === null) throw new Error('the event type row has no checkbox');
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    await page.waitForTimeout(500);
  }
}

/**
 * Accepts the picker (OK) and gives the breakpoint it added on `added` no condition: Enter in the
 * condition's own input box, not the picker's, which may still be on screen.
 */
export async function acceptEventBreakpoints(page: Page, added: string): Promise<void> {
  await page.locator('.quick-input-widget').getByRole('button', { name: 'OK' }).first().click({ timeout: 5000 });
  await page
    .locator('.quick-input-widget', { hasText: `Condition for ${added}` })
    .first()
    .waitFor({ state: 'visible', timeout: 60_000 });
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
}
