// The BUILT inspector bundle (dist/webview) in real headless Chromium, under the extension's CSP,
// fed by the real host connection over a fixture app's real Model: it draws (canvas pixels, graph
// nodes, lanes), responds to zoom, pan, brush, click, double-click and hover, takes live deltas,
// and leaves screenshots in light, dark and high-contrast themes in .test-output/webview/.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Inspector } from '../../webview/src/inspector';
import { chromiumUnavailable, launchChromium, OUT_DIR, openInspector, servePage, type PageServer, tearDown } from './support/chromium';

const skip = chromiumUnavailable();

interface PageWindow {
  busscopeInspector: Inspector;
  harness: { opened: { file: string; line: number }[]; run(n: number): void; fromWebview: { type: string }[]; focused: (readonly number[])[] };
}

/** Share of the canvas's pixels that differ from its background colour. */
async function inkRatio(page: Page, testId: string): Promise<number> {
  return page.evaluate((id) => {
    const c = document.querySelector<HTMLCanvasElement>(`[data-testid=${id}]`)!;
    const ctx = c.getContext('2d')!;
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    // The bottom-right pixel is background in both views.
    const o = (c.width * c.height - 1) * 4;
    const [r, g, b] = [d[o], d[o + 1], d[o + 2]];
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) + Math.abs(d[i + 1] - g) + Math.abs(d[i + 2] - b) > 30) ink++;
    return ink / (c.width * c.height);
  }, testId);
}

async function box(page: Page, testId: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await page.locator(`[data-testid=${testId}]`).boundingBox();
  assert.ok(b, `${testId} is laid out`);
  return b;
}

describe('inspector in Chromium', { skip: skip ?? false }, () => {
  let browser: Browser;
  let server: PageServer;
  const figures: Record<string, number> = {};

  before(async () => {
    server = await servePage();
    browser = await launchChromium();
  });

  after(async () => {
    await tearDown([() => browser?.close(), () => server?.close()]);
    writeFileSync(path.join(OUT_DIR, 'chromium-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  });

  test('draws the graph and the timeline (dark theme) and exposes buses and types in the DOM', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const buses = await page.locator('[data-testid=node-list] [data-kind=bus]').evaluateAll((els) => els.map((e) => e.getAttribute('data-bus')));
      assert.deepEqual(buses, ['gameplay', 'ui']);
      assert.equal(await page.locator('[data-testid=node-list] [data-type="health.changed"]').count(), 1);
      assert.ok((await page.locator('[data-testid=timeline-lanes] .lane-label[data-type="tick"]').count()) === 1);
      const graphInk = await inkRatio(page, 'graph-canvas');
      const timelineInk = await inkRatio(page, 'timeline-canvas');
      assert.ok(graphInk > 0.02, `graph canvas has drawing (${(graphInk * 100).toFixed(1)}% ink)`);
      assert.ok(timelineInk > 0.01, `timeline canvas has drawing (${(timelineInk * 100).toFixed(1)}% ink)`);
      const inView = Number(await page.locator('[data-testid=timeline-summary]').getAttribute('data-in-view'));
      assert.ok(inView > 0, 'dispatches in view');
      assert.ok((await page.locator('article.warning').count()) >= 9);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-dark.png') });
      assert.deepEqual(errors, [], 'no console errors (CSP included)');
    } finally {
      await page.close();
    }
  });

  test('light and high-contrast themes come from the VS Code variables (screenshots)', async () => {
    for (const theme of ['light', 'hc'] as const) {
      const { page, errors } = await openInspector(browser, server, { scenario: 'small', theme });
      try {
        const corner = await page.evaluate(() => {
          const c = document.querySelector<HTMLCanvasElement>('[data-testid=graph-canvas]')!;
          const d = c.getContext('2d')!.getImageData(c.width - 2, c.height - 2, 1, 1).data;
          return [d[0], d[1], d[2]];
        });
        assert.deepEqual(corner, theme === 'light' ? [255, 255, 255] : [0, 0, 0], `${theme} canvas background`);
        assert.ok((await inkRatio(page, 'graph-canvas')) > 0.02);
        await page.screenshot({ path: path.join(OUT_DIR, `inspector-${theme === 'hc' ? 'high-contrast' : theme}.png`) });
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }
  });

  test('a theme switch while open recolours the canvases (VS Code changes the variables and the body class)', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const corner = (): Promise<number[]> =>
        page.evaluate(() => {
          const c = document.querySelector<HTMLCanvasElement>('[data-testid=timeline-canvas]')!;
          const d = c.getContext('2d')!.getImageData(c.width - 2, c.height - 2, 1, 1).data;
          return [d[0], d[1], d[2]];
        });
      assert.deepEqual(await corner(), [30, 30, 30]);
      await page.evaluate(() => {
        document.documentElement.style.setProperty('--vscode-editor-background', '#ffffff');
        document.body.classList.replace('vscode-dark', 'vscode-light');
      });
      await page.waitForFunction(() => {
        const c = document.querySelector<HTMLCanvasElement>('[data-testid=timeline-canvas]')!;
        return c.getContext('2d')!.getImageData(c.width - 2, c.height - 2, 1, 1).data[0] === 255;
      });
    } finally {
      await page.close();
    }
  });

  test('the empty state says what to do (screenshot)', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'empty', theme: 'light' });
    try {
      await page.waitForSelector('[data-testid=session-banner][data-phase=empty]');
      assert.match((await page.locator('[data-testid=session-banner]').textContent())!, /No app attached/);
      assert.equal(await page.locator('[data-command=attach]').count(), 1);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-empty-light.png') });
    } finally {
      await page.close();
    }
  });

  test('timeline: wheel zooms, dragging pans and pauses follow, dragging on the axis brushes a range', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const span = (): Promise<number> => page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.span);
      const b = await box(page, 'timeline-canvas');
      const before = await span();
      await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
      await page.mouse.wheel(0, -600);
      await page.waitForFunction((s) => (window as unknown as PageWindow).busscopeInspector.timeline.span < s, before);
      assert.ok((await span()) < before / 2, 'zoomed in');
      assert.equal(await page.locator('[data-testid=follow]').getAttribute('aria-pressed'), 'true', 'zooming keeps following');
      const from0 = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.view.from);
      await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
      await page.mouse.down();
      await page.mouse.move(b.x + b.width / 2 + 250, b.y + b.height / 2, { steps: 8 });
      await page.mouse.up();
      const from1 = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.view.from);
      assert.ok(from1 < from0, 'dragging right shows earlier time');
      assert.equal(await page.locator('[data-testid=follow]').getAttribute('aria-pressed'), 'false', 'panning pauses follow');
      // Show everything, then brush the middle third on the time axis.
      await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.fitAll());
      await page.mouse.move(b.x + b.width * 0.33, b.y + 10);
      await page.mouse.down();
      await page.mouse.move(b.x + b.width * 0.66, b.y + 10, { steps: 6 });
      await page.mouse.up();
      await page.waitForSelector('[data-testid=range-stats][data-state=ready]');
      const n = Number(await page.locator('[data-testid=range-stats]').getAttribute('data-dispatches'));
      assert.ok(n > 0, `${n} dispatches in the brushed range`);
      assert.match((await page.locator('[data-testid=range-stats]').textContent())!, /Busiest types/);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-brushed-dark.png') });
    } finally {
      await page.close();
    }
  });

  test('timeline: each start\u2019s error bound is drawn where it matters, and hovering a dispatch says "±38 µs"', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'bounds', theme: 'dark' });
    try {
      // Zoomed out (the default span), ±38 µs is far below a pixel: nothing extra is drawn.
      assert.equal(await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.boundsDrawn), 0);
      // Zoom onto a recent dispatch whose lane is in view: 0.5 ms across the canvas makes 38 µs several pixels.
      const seq = await page.evaluate(() => {
        const w = (window as unknown as PageWindow).busscopeInspector;
        const ring = w.store.timeline.dispatches;
        const rect = document.querySelector('[data-testid=timeline-canvas]')!.getBoundingClientRect();
        w.timeline.setFollow(false);
        for (let k = ring.size - 1; k >= 0; k--) {
          const i = ring.physicalIndex(k);
          w.timeline.setView(ring.start[i] - 0.25, ring.start[i] + 0.25);
          w.flush();
          const p = w.timeline.clientPointOfSeq(ring.seq[i]);
          if (p && p.y > rect.top + 30 && p.y < rect.bottom - 10) return ring.seq[i];
        }
        return -1;
      });
      assert.ok(seq > 0, 'a dispatch in a visible lane');
      const drawn = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.timeline.boundsDrawn);
      assert.ok(drawn >= 1, `bounds drawn when zoomed in: ${drawn}`);
      const pt = await page.evaluate((s) => (window as unknown as PageWindow).busscopeInspector.timeline.clientPointOfSeq(s), seq);
      assert.ok(pt, 'the dispatch is in view');
      await page.mouse.move(pt.x, pt.y);
      await page.waitForSelector('[data-testid=timeline-tooltip]:not([hidden])');
      const text = (await page.locator('[data-testid=timeline-tooltip]').textContent())!;
      assert.match(text, new RegExp(`dispatch #${seq}`));
      assert.match(text, /±38 µs/);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-start-bounds-dark.png') });
      await page.mouse.move(1, 1);
      await page.waitForSelector('[data-testid=timeline-tooltip][hidden]', { state: 'attached' });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a dispatch traced by OpenTelemetry: its details show the trace id, and "Copy trace id" puts it on the clipboard through the host', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'otel', theme: 'dark' });
    try {
      // A recent dispatch in a visible lane, zoomed in so it is wide enough to click.
      const seq = await page.evaluate(() => {
        const w = (window as unknown as PageWindow).busscopeInspector;
        const ring = w.store.timeline.dispatches;
        const rect = document.querySelector('[data-testid=timeline-canvas]')!.getBoundingClientRect();
        w.timeline.setFollow(false);
        for (let k = ring.size - 1; k >= 0; k--) {
          const i = ring.physicalIndex(k);
          w.timeline.setView(ring.start[i] - 0.25, ring.start[i] + 0.25);
          w.flush();
          const p = w.timeline.clientPointOfSeq(ring.seq[i]);
          if (p && p.y > rect.top + 30 && p.y < rect.bottom - 10) return ring.seq[i];
        }
        return -1;
      });
      assert.ok(seq > 0, 'a dispatch in a visible lane');
      const pt = await page.evaluate((s) => (window as unknown as PageWindow).busscopeInspector.timeline.clientPointOfSeq(s), seq);
      assert.ok(pt);
      await page.mouse.click(pt.x, pt.y);
      await page.waitForSelector('[data-testid=details][data-kind=dispatch] [data-testid=trace-id]');
      const expected = `4bf92f35${seq.toString(16).padStart(24, '0')}`;
      assert.equal(await page.locator('[data-testid=trace-id]').textContent(), expected);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-trace-id-dark.png') });
      await page.getByRole('button', { name: 'Copy trace id' }).click();
      await page.waitForFunction(() => (window as unknown as PageWindow & { harness: { copied: string[] } }).harness.copied.length > 0);
      const { copied, posted } = await page.evaluate(() => {
        const hw = (window as unknown as { harness: { copied: string[]; fromWebview: { type: string }[] } }).harness;
        return { copied: hw.copied, posted: hw.fromWebview.filter((m) => m.type === 'copyTraceId') };
      });
      assert.deepEqual(posted, [{ type: 'copyTraceId', traceId: expected }]);
      assert.deepEqual(copied, [expected]);
      assert.deepEqual(errors, [], 'no console errors (CSP included)');
    } finally {
      await page.close();
    }
  });

  test('a dispatch without a trace id (no OpenTelemetry, or an older trace) shows no trace id row', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const seq = await page.evaluate(() => {
        const w = (window as unknown as PageWindow).busscopeInspector;
        const ring = w.store.timeline.dispatches;
        return ring.seq[ring.physicalIndex(ring.size - 1)];
      });
      await page.evaluate(
        (s) => (window as unknown as { harness: { connection: { reveal(t: unknown): void } } }).harness.connection.reveal({ kind: 'dispatch', seq: s }),
        seq,
      );
      await page.waitForSelector(
        '[data-testid=details][data-kind=dispatch] [data-testid=dispatch-handlers], [data-testid=details][data-kind=dispatch] p.muted',
      );
      assert.equal(await page.locator('[data-testid=trace-id]').count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Copy trace id' }).count(), 0);
    } finally {
      await page.close();
    }
  });

  test('handler timings from a sample of dispatches (detail "handlers"): the subscription\u2019s details say "sampled 1 in 8"', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'sampled', theme: 'dark' });
    try {
      // A subscription with timings: its figures stand for 8 calls per timed one.
      const found = await page.evaluate(() => {
        const w = (window as unknown as PageWindow).busscopeInspector;
        const s = [...w.store.subscriptions.values()].find((x) => x.timing !== null && x.calls > 100);
        if (!s) return null;
        w.select({ kind: 'subscription', id: s.id });
        w.flush();
        return { id: s.id, calls: s.timing!.calls, every: s.timing!.sampleEvery ?? 1 };
      });
      assert.ok(found, 'a timed subscription');
      assert.equal(found.every, 8);
      await page.waitForFunction(() => /Time.*sampled 1 in 8/s.test(document.querySelector('[data-testid=details]')?.textContent ?? ''));
      const text = (await page.locator('[data-testid=details]').textContent())!;
      assert.match(text, /mean [\d.]+ \S+ · p95 [\d.]+ \S+ · max [\d.]+ \S+ · sampled 1 in 8/);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('graph: hover shows a tooltip, click selects and the model explains, double-click opens the source, wheel zooms', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const pt = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        const node = ins.graphModel()!.nodes.find((n) => n.label === 'DebugLogger')!;
        ins.graphView.reveal(node.key);
        ins.flush();
        return ins.graphView.clientPointOf(node.key)!;
      });
      await page.mouse.move(pt.x, pt.y);
      await page.waitForSelector('[data-testid=graph-tooltip]:not([hidden])');
      assert.match((await page.locator('[data-testid=graph-tooltip]').textContent())!, /calls/);
      await page.mouse.click(pt.x, pt.y);
      await page.waitForSelector('[data-testid=why] .why-headline');
      assert.match((await page.locator('[data-testid=why] .why-headline').textContent())!, /Shield/);
      await page.mouse.dblclick(pt.x, pt.y);
      await page.waitForFunction(() => (window as unknown as PageWindow).harness.opened.length > 0);
      const opened = await page.evaluate(() => (window as unknown as PageWindow).harness.opened.at(-1)!);
      assert.equal(opened.file, '/app/src/debug/logger.ts');
      assert.equal(opened.line, 7);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-selected-dark.png') });
      const k0 = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.graphView.currentTransform.k);
      const g = await box(page, 'graph-canvas');
      await page.mouse.move(g.x + g.width / 2, g.y + g.height / 2);
      await page.mouse.wheel(0, -400);
      await page.waitForFunction((k) => (window as unknown as PageWindow).busscopeInspector.graphView.currentTransform.k > k, k0);
    } finally {
      await page.close();
    }
  });

  test('live, subscriptions without sites (made before probe.start): "why didn\u2019t it run?" answers within a few frames of the click', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'nosites', theme: 'dark' });
    try {
      // The app streams (~10 deltas a second) and the page counts its frames.
      await page.evaluate(() => {
        const w = window as unknown as PageWindow & { liveTimer: number; frames: number };
        w.frames = 0;
        const tick = (): void => {
          w.frames++;
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        w.liveTimer = window.setInterval(() => w.harness.run(15), 100);
      });
      await page.waitForFunction(() => (window as unknown as PageWindow).busscopeInspector.store.lastDeltaSeq >= 5);
      const pt = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        const node = ins.graphModel()!.nodes.find((n) => n.label === 'DebugLogger')!;
        ins.graphView.reveal(node.key);
        ins.flush();
        // The frame count when the click lands, and when the answer is in the page.
        const w = window as unknown as { frames: number; clickFrame: number; answerFrame: number };
        w.clickFrame = -1;
        w.answerFrame = -1;
        const hw = window as unknown as { clickAt: number; harness: { fromHost: { type: string }[] } };
        document.querySelector('[data-testid=graph-canvas]')!.addEventListener(
          'click',
          () => {
            w.clickFrame = w.frames;
            hw.clickAt = hw.harness.fromHost.length;
          },
          { once: true },
        );
        new MutationObserver(() => {
          if (w.answerFrame < 0 && document.querySelector('[data-testid=why] .why-headline')) w.answerFrame = w.frames;
        }).observe(document.querySelector('[data-testid=details]')!, { childList: true, subtree: true });
        return ins.graphView.clientPointOf(node.key)!;
      });
      await page.mouse.click(pt.x, pt.y);
      await page.waitForFunction(() => (window as unknown as { answerFrame: number }).answerFrame >= 0, undefined, { timeout: 10_000 });
      const { clickFrame, answerFrame, ahead } = await page.evaluate(() => {
        const w = window as unknown as { clickFrame: number; answerFrame: number; clickAt: number; harness: { fromHost: { type: string }[] } };
        const after = w.harness.fromHost.slice(w.clickAt).map((m) => m.type);
        return { clickFrame: w.clickFrame, answerFrame: w.answerFrame, ahead: after.slice(0, after.indexOf('details')) };
      });
      figures.whyAnswerFrames = answerFrame - clickFrame;
      assert.ok(clickFrame >= 0);
      // Measured in messages: the answer is posted at once, behind at most the deltas already in flight.
      assert.ok(ahead.filter((t) => t === 'delta').length <= 2, `posted behind ${ahead.join(', ')}`);
      // And in frames: two async hops (page → host → page) and one render; 3–5 ticks of the page's
      // frame counter here on two busy cores. A generous ceiling (a backlog would be dozens).
      assert.ok(answerFrame - clickFrame <= 10, `answered ${answerFrame - clickFrame} frames after the click`);
      assert.match((await page.locator('[data-testid=why] .why-headline').textContent())!, /consumed before its turn, mostly by Shield/);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('live: new dispatches arrive as deltas and the view follows them', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      const size0 = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.store.timeline.size);
      await page.evaluate(() => (window as unknown as PageWindow).harness.run(300));
      await page.waitForFunction((s) => (window as unknown as PageWindow).busscopeInspector.store.timeline.size > s + 250, size0);
      const deltas = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.store.lastDeltaSeq);
      assert.ok(deltas >= 1);
    } finally {
      await page.close();
    }
  });

  test('live at ~10 deltas/s: warnings keep their elements and scroll position; a real press with an 80 ms pause on Focus works', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'small', theme: 'dark' });
    try {
      // A short warnings pane, so the list scrolls; the leak warning scrolled to the very top.
      const id = await page.evaluate(() => {
        const pane = document.querySelector<HTMLElement>('section.warnings')!;
        pane.style.maxHeight = '240px';
        pane.style.flex = 'none';
        const leak = document.querySelector<HTMLElement>('article.warning[data-kind=listener-growth]')!;
        pane.scrollTop += leak.getBoundingClientRect().top - pane.getBoundingClientRect().top;
        return leak.dataset.warningId!;
      });
      const offset = (): Promise<{ top: number; scrollable: boolean; above: string }> =>
        page.evaluate((wid) => {
          const pane = document.querySelector<HTMLElement>('section.warnings')!;
          const el = document.querySelector<HTMLElement>(`article.warning[data-warning-id="${wid}"]`)!;
          const all = [...document.querySelectorAll<HTMLElement>('article.warning')];
          const above = all
            .slice(0, all.indexOf(el))
            .map((e) => `${e.dataset.warningId}:${e.offsetHeight}`)
            .join(',');
          return { top: el.getBoundingClientRect().top - pane.getBoundingClientRect().top, scrollable: pane.scrollHeight > pane.clientHeight, above };
        }, id);
      const before = await offset();
      assert.ok(before.scrollable, 'the warnings list scrolls');
      assert.ok(Math.abs(before.top) <= 1, `the leak warning is at the top (${before.top}px)`);
      // The app streams: ~10 deltas a second; count warning elements replaced meanwhile.
      await page.evaluate(() => {
        const w = window as unknown as PageWindow & { liveTimer: number; replaced: number };
        w.replaced = 0;
        new MutationObserver((records) => {
          for (const r of records)
            for (const n of r.removedNodes) if (n instanceof HTMLElement && (n.matches('article.warning') || n.querySelector('article.warning'))) w.replaced++;
        }).observe(document.querySelector('[data-testid=warnings]')!, { childList: true, subtree: true });
        w.liveTimer = window.setInterval(() => w.harness.run(15), 100);
      });
      const counters = (): Promise<{ seq: number; builds: number; structure: number }> =>
        page.evaluate(() => {
          const ins = (window as unknown as PageWindow).busscopeInspector;
          return { seq: ins.store.lastDeltaSeq, builds: ins.metrics.graphBuilds, structure: ins.store.structureVersion };
        });
      const c0 = await counters();
      await page.waitForTimeout(1500);
      const c1 = await counters();
      assert.ok(c1.seq - c0.seq >= 8, `${c1.seq - c0.seq} deltas in 1.5 s`);
      // Figures change with every delta; the graph follows them at most twice a second (plus structure changes).
      const builds = c1.builds - c0.builds;
      figures.liveGraphBuildsPer1500ms = builds;
      figures.liveDeltasPer1500ms = c1.seq - c0.seq;
      assert.ok(builds <= 4 + (c1.structure - c0.structure), `${builds} graph rebuilds for ${c1.seq - c0.seq} deltas`);
      const after = await offset();
      if (after.above === before.above) assert.ok(Math.abs(after.top - before.top) <= 1, `the leak warning stayed at the top (${before.top} → ${after.top}px)`);
      assert.equal(await page.evaluate(() => (window as unknown as { replaced: number }).replaced), 0, 'no warning element was replaced');
      // A person's click: press, 80 ms, release, while deltas keep coming.
      const button = page.locator(`article.warning[data-warning-id="${id}"] .focus-btn`);
      const b = await button.boundingBox();
      assert.ok(b, 'the Focus button is laid out');
      await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
      await page.mouse.down();
      await page.waitForTimeout(80);
      await page.mouse.up();
      await page.waitForFunction(
        (wid) =>
          (window as unknown as PageWindow).harness.fromWebview.some(
            (m) => m.type === 'focusWarning' && (m as unknown as { warningId: string }).warningId === wid,
          ),
        id,
        { timeout: 2000 },
      );
      assert.equal(await button.getAttribute('aria-pressed'), 'true');
      await page.waitForSelector('.focus-chip:not([hidden])');
      await page.evaluate(() => window.clearInterval((window as unknown as { liveTimer: number }).liveTimer));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a focused warning highlights its subjects; the big graph stays readable (screenshots)', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'graph', theme: 'dark' });
    try {
      const m = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        return {
          nodes: ins.graphModel()!.nodes.length,
          types: ins.store.types.size,
          subs: ins.graphModel()!.subscriptionCount,
          interactiveMs: ins.metrics.snapshotToInteractiveMs,
        };
      });
      assert.equal(m.types, 500);
      assert.ok(m.subs >= 5000);
      assert.ok(m.nodes < 400, `collapsed overview: ${m.nodes} nodes`);
      figures.graphSnapshotToInteractiveMs = m.interactiveMs;
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-500-types-dark.png') });
      await page.locator('article.warning[data-kind=listener-growth] .focus-btn').click();
      await page.waitForSelector('.focus-chip:not([hidden])');
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-focus-dark.png') });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('an instrumented http server: emitters grouped by class, library emitters in one collapsed group, focus on select (screenshot)', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'emitters', theme: 'dark' });
    try {
      const busRows = () =>
        page.locator('[data-testid=node-list] [data-kind=bus]').evaluateAll((els) => els.map((e) => e.querySelector('.node-label')?.textContent ?? ''));
      let rows = await busRows();
      assert.deepEqual(rows.slice(0, 4), ['libraries', 'chat', 'Room ×3', 'Server#1'], rows.join(' | '));
      const nodes = await page.evaluate(() => (window as unknown as PageWindow).busscopeInspector.graphModel()!.nodes.length);
      assert.ok(nodes < 80, `1,500 emitters make a graph of ${nodes} nodes`);
      // One lane per event type of a collapsed group.
      const laneTitles = await page.locator('[data-testid=timeline-lanes] .lane-label').evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
      assert.ok(laneTitles.includes('libraries · data') && laneTitles.includes('Room ×3 · join'), laneTitles.join(' | '));
      assert.ok(laneTitles.length <= 12, `${laneTitles.length} lanes`);

      // Expanding the libraries group shows its classes.
      await page.locator('[data-testid=node-list] [data-kind=bus]', { hasText: 'libraries' }).locator('.caret').click();
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid=node-list] [data-kind=bus]')].some((e) => e.textContent?.includes('Socket ×300')),
      );
      rows = await busRows();
      for (const c of ['IncomingMessage ×600', 'ServerResponse ×600', 'Socket ×300'])
        assert.ok(
          rows.some((r) => r.includes(c)),
          `${c} in ${rows.join(' | ')}`,
        );

      // The expanded libraries group records its 1,500 emitters at full detail (as the tree's expansion
      // does); collapsed again, selecting the sockets asks for those 300 alone.
      await page.waitForFunction(() => (window as unknown as PageWindow).harness.focused.at(-1)?.length === 1500);
      await page.locator('[data-testid=node-list] [data-kind=bus]', { hasText: 'Socket ×300' }).locator('.node-label').click();
      await page.locator('[data-testid=node-list] [data-kind=bus]', { hasText: 'libraries' }).locator('.caret').click();
      await page.waitForFunction(() => (window as unknown as PageWindow).harness.focused.at(-1)?.length === 300);
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-emitters-dark.png') });
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('expanding the libraries group records its emitters at full detail (focus), as the tree does; its classes page their instances from the host; collapsing withdraws', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'emitters', theme: 'dark' });
    try {
      const row = (text: string) => page.locator('[data-testid=node-list] [data-kind=bus]', { hasText: text });
      // 300 sockets, 600 requests and 600 responses: every listener from Node's http internals.
      await row('libraries').locator('.caret').click();
      await page.waitForFunction(() => (window as unknown as PageWindow).harness.focused.at(-1)?.length === 1500);
      assert.ok(
        await page.evaluate(() =>
          (window as unknown as PageWindow).harness.fromWebview.some(
            (m) => m.type === 'expandGroups' && (m as unknown as { groups: string[] }).groups.includes('\u0000libraries'),
          ),
        ),
      );
      // Expanding a class shows its first page of instances (sent by the host while expanded) and "+N more".
      await row('Socket ×300').locator('.caret').click();
      await page.waitForFunction(() => {
        const outline = (window as unknown as PageWindow).busscopeInspector.graphModel()!.outline;
        return (
          outline.filter((n) => n.kind === 'bus' && /^Socket#\d+$/.test(n.label)).length === 50 &&
          outline.some((n) => n.kind === 'more' && n.label === '+250 more Socket')
        );
      });
      // Collapsing the libraries withdraws the focus (nothing selected).
      await row('libraries').first().locator('.caret').click();
      await page.waitForFunction(() => (window as unknown as PageWindow).harness.focused.at(-1)?.length === 0);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
