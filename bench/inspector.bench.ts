// Inspector performance in headless Chromium (the built webview bundle, fed by the real host
// connection over a real Model inside the page):
//   1. the subscription graph at 500 types / 5,000 subscriptions: from the snapshot message to an
//      interactive graph (target ≤ 1 s), also fully expanded, and hit-testing cost;
//   2. the timeline with 200,000 dispatches in the store: frame time while zooming and panning
//      (target ≤ 16 ms per frame), both driven frame by frame and from real wheel/drag input.
// Prints Markdown tables; asserts correctness (the data really is there), not timings.

import type { Page } from 'playwright-core';
import type { Inspector } from '../webview/src/inspector';
import { CHROMIUM, launchChromium, openInspector, servePage } from '../test/webview/support/chromium';
import { markdownTable, median } from './lib/measure';
import { report } from './lib/report';

interface BenchWindow {
  busscopeInspector: Inspector;
  harness: { setupMs: number; hostSnapshotMs: number };
}

function stats(values: readonly number[]): { mean: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { mean, p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0, max: sorted[sorted.length - 1] ?? 0 };
}

const ms = (v: number): string => `${v.toFixed(v < 10 ? 2 : 1)} ms`;

async function graphRun(page: Page): Promise<{
  interactive: number;
  hostSnapshot: number;
  expand: number;
  nodesCollapsed: number;
  nodesExpanded: number;
  hitTestUs: number;
  subs: number;
  types: number;
}> {
  return page.evaluate(() => {
    const w = window as unknown as BenchWindow;
    const ins = w.busscopeInspector;
    const collapsed = ins.graphModel()!.nodes.length;
    const t0 = performance.now();
    [...document.querySelectorAll<HTMLButtonElement>('header.toolbar button')].find((b) => b.textContent === 'Expand all')!.click();
    ins.flush();
    const expand = performance.now() - t0;
    const model = ins.graphModel()!;
    // Hit-testing: 2,000 points over the canvas.
    const r = ins.graphView.canvas.getBoundingClientRect();
    const h0 = performance.now();
    let hits = 0;
    for (let i = 0; i < 2000; i++) if (ins.graphView.nodeAtClient(r.left + ((i * 37) % r.width), r.top + ((i * 91) % r.height))) hits++;
    const hitTestUs = ((performance.now() - h0) / 2000) * 1000;
    void hits;
    return {
      interactive: ins.metrics.snapshotToInteractiveMs,
      hostSnapshot: w.harness.hostSnapshotMs,
      expand,
      nodesCollapsed: collapsed,
      nodesExpanded: model.nodes.length,
      hitTestUs,
      subs: model.subscriptionCount,
      types: model.typeCount,
    };
  });
}

/** Zooms from everything to 1/2000 of it and back while panning, one view per animation frame. */
async function driveFrames(page: Page, frames: number): Promise<{ draw: number[]; interval: number[]; startInView: number; modes: string[] }> {
  return page.evaluate(
    (n) =>
      new Promise<{ draw: number[]; interval: number[]; startInView: number; modes: string[] }>((resolve) => {
        const ins = (window as unknown as BenchWindow).busscopeInspector;
        const tl = ins.timeline;
        tl.fitAll();
        ins.flush();
        const startInView = tl.summary.inView;
        const full = tl.view;
        const span0 = full.to - full.from;
        const draw: number[] = [];
        const interval: number[] = [];
        const modes = new Set<string>();
        let last = -1;
        let k = 0;
        const step = (ts: number): void => {
          if (last >= 0) interval.push(ts - last);
          last = ts;
          const phase = k / n;
          // Zoom in over the first half, out over the second; pan across the whole range meanwhile.
          const zoom = Math.pow(2000, phase < 0.5 ? phase * 2 : (1 - phase) * 2);
          const span = span0 / zoom;
          const centre = full.from + span0 * (0.1 + 0.8 * phase);
          tl.setView(centre - span / 2, centre + span / 2);
          ins.flush();
          draw.push(tl.lastDrawMs);
          modes.add(tl.summary.mode);
          if (++k < n) requestAnimationFrame(step);
          else resolve({ draw, interval, startInView, modes: [...modes] });
        };
        requestAnimationFrame(step);
      }),
    frames,
  );
}

/** Real input: wheel zoom and drag pan over the timeline canvas; returns the draw times of the frames rendered meanwhile. */
async function driveInput(page: Page): Promise<number[]> {
  await page.evaluate(() => {
    const ins = (window as unknown as BenchWindow).busscopeInspector;
    ins.timeline.fitAll();
    ins.flush();
  });
  const framesBefore = await page.evaluate(() => (window as unknown as BenchWindow).busscopeInspector.timeline.frameHistory().length);
  const b = await page.locator('[data-testid=timeline-canvas]').boundingBox();
  if (!b) throw new Error('timeline canvas not laid out');
  const cx = b.x + b.width / 2;
  const cy = b.y + b.height / 2 + 20;
  await page.mouse.move(cx, cy);
  for (let i = 0; i < 25; i++) await page.mouse.wheel(0, -120);
  await page.mouse.down();
  await page.mouse.move(cx + 300, cy, { steps: 30 });
  await page.mouse.move(cx - 300, cy, { steps: 30 });
  await page.mouse.up();
  for (let i = 0; i < 25; i++) await page.mouse.wheel(0, 120);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const history = await page.evaluate(() => (window as unknown as BenchWindow).busscopeInspector.timeline.frameHistory());
  const rendered = history.length - Math.min(history.length, framesBefore);
  return history.slice(history.length - rendered);
}

export async function run(): Promise<void> {
  if (!CHROMIUM) {
    report(`## Inspector (headless Chromium)\n\nSkipped: no Chrome/Chromium found (node scripts/test.mjs --tiers says what to install).`);
    return;
  }
  const server = await servePage();
  const browser = await launchChromium();
  try {
    // 1. Graph at 500 types / 5,000 subscriptions, three fresh pages.
    const runs: Awaited<ReturnType<typeof graphRun>>[] = [];
    for (let i = 0; i < 3; i++) {
      const { page, errors } = await openInspector(browser, server, { scenario: 'graph', theme: 'dark' });
      const r = await graphRun(page);
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      if (r.types !== 500 || r.subs < 5000) throw new Error(`graph fixture is ${r.types} types / ${r.subs} subscriptions`);
      runs.push(r);
      await page.close();
    }
    const med = (f: (r: (typeof runs)[number]) => number): number => median(runs.map(f));
    report(
      `## Inspector: subscription graph, 500 types / ${runs[0].subs.toLocaleString('en-US')} subscriptions (headless Chromium, median of 3 page loads)\n\n` +
        markdownTable(
          ['measure', 'value', 'target'],
          [
            ['snapshot message → graph laid out, drawn, interactive (webview)', ms(med((r) => r.interactive)), '≤ 1000 ms'],
            [`  nodes drawn (buses collapsed, overview)`, String(runs[0].nodesCollapsed), ''],
            ['"Expand all": rebuild + layout + draw', ms(med((r) => r.expand)), '≤ 1000 ms'],
            [`  nodes drawn (everything expanded)`, String(runs[0].nodesExpanded), ''],
            ['host: build the snapshot from the Model', ms(med((r) => r.hostSnapshot)), ''],
            ['hover hit-test per pointer move', `${med((r) => r.hitTestUs).toFixed(1)} µs`, ''],
          ],
        ),
    );

    // 2. Timeline with 200,000 dispatches.
    const { page, errors } = await openInspector(browser, server, { scenario: 'big', theme: 'dark' });
    try {
      const size = await page.evaluate(() => (window as unknown as BenchWindow).busscopeInspector.store.timeline.size);
      if (size !== 200_000) throw new Error(`timeline store holds ${size} dispatches, not 200,000`);
      const driven = await driveFrames(page, 240);
      if (driven.startInView !== 200_000) throw new Error(`fit-all view shows ${driven.startInView} dispatches`);
      const input = await driveInput(page);
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
      const d = stats(driven.draw);
      const iv = stats(driven.interval);
      const inp = stats(input);
      report(
        '## Inspector: dispatch timeline with 200,000 dispatches in the store (headless Chromium, software canvas)\n\n' +
          markdownTable(
            ['measure', 'mean', 'p95', 'max', 'target'],
            [
              [
                `draw per frame, zoom ×2000 in and out while panning (${driven.draw.length} frames, modes: ${driven.modes.join('/')})`,
                ms(d.mean),
                ms(d.p95),
                ms(d.max),
                '≤ 16 ms',
              ],
              ['frame interval during that animation (rAF to rAF)', ms(iv.mean), ms(iv.p95), ms(iv.max), '≤ 16.7 ms'],
              [`draw per frame from real wheel + drag input (${input.length} frames)`, ms(inp.mean), ms(inp.p95), ms(inp.max), '≤ 16 ms'],
            ],
          ) +
          `\n\n_All 200,000 dispatches in view at the start (merged drawing); draw = the timeline's render() in the page (scan + canvas calls); 2 shared cores._`,
      );
    } finally {
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }
}
