// Worker threads in the BUILT inspector, in real headless Chromium: the host posts a snapshot of a
// session with a main thread and two workers (test/webview/fixtures/threadSession.ts: a real Model and
// InspectorFeed with the contract's thread fields), as VS Code delivers it. The node list heads each
// thread's buses with the thread, the timeline has a lane group per thread, each cross-thread dispatch
// gets a flow from its worker's group at the enqueue time to the dispatch, and hovering the flow (or
// the dispatch) says where and when it was enqueued. Asserted on the DOM and the renderer's hit-test
// results, not on pixels.

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Inspector } from '../../webview/src/inspector';
import { MAX_FLOWS } from '../../webview/src/timeline/flows';
import { ENQUEUE_LEAD_MS, threadSession } from './fixtures/threadSession';
import { chromiumUnavailable, launchChromium, OUT_DIR, openInspector, servePage, type PageServer, tearDown } from './support/chromium';

const skip = chromiumUnavailable();

interface PageWindow {
  busscopeInspector: Inspector;
}

async function showThreadSession(page: Page): Promise<void> {
  const { snapshot } = threadSession();
  await page.evaluate((s) => window.postMessage({ type: 'snapshot', snapshot: s }, '*'), snapshot);
  await page.waitForFunction(() => (window as unknown as PageWindow).busscopeInspector.store.session.sessionId === 'threads-1');
  // A roomy window over the whole session (it spans ~0.1–0.8 s), drawn now.
  await page.evaluate(() => {
    const ins = (window as unknown as PageWindow).busscopeInspector;
    ins.timeline.setView(50, 900);
    ins.flush();
  });
}

describe('worker threads in the inspector (Chromium)', { skip: skip ?? false }, () => {
  let browser: Browser;
  let server: PageServer;

  before(async () => {
    server = await servePage();
    browser = await launchChromium();
  });

  after(() => tearDown([() => browser?.close(), () => server?.close()]));

  test('the node list groups buses by thread, the timeline has a lane group per thread', async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'empty', theme: 'dark' });
    try {
      await showThreadSession(page);
      const rows = await page
        .locator('[data-testid=node-list] [data-kind=thread], [data-testid=node-list] [data-kind=bus]')
        .evaluateAll((els) =>
          els
            .sort((a, b) => Number(a.getAttribute('data-index')) - Number(b.getAttribute('data-index')))
            .map((e) =>
              e.getAttribute('data-kind') === 'thread'
                ? `# ${e.getAttribute('data-thread')}`
                : `${e.getAttribute('data-bus')} @ ${e.getAttribute('data-thread')}`,
            ),
        );
      assert.deepEqual(rows, [
        '# main thread',
        'app @ main thread',
        'jobs @ main thread',
        '# worker hasher',
        'hasher-bus @ worker hasher',
        '# worker resizer',
        'resizer-bus @ worker resizer',
      ]);

      // Lane groups: a header per thread in the gutter, each thread's lanes between its header and the next.
      const groups = await page.evaluate(() => {
        const heads = [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-lanes] [data-testid=timeline-thread]')].map((e) => ({
          label: e.getAttribute('data-thread')!,
          id: Number(e.getAttribute('data-thread-id')),
          top: e.getBoundingClientRect().top,
        }));
        const lanes = [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-lanes] .lane-label')].map((e) => ({
          name: `${e.getAttribute('data-bus')} · ${e.getAttribute('data-type')}`,
          thread: Number(e.getAttribute('data-thread-id')),
          top: e.getBoundingClientRect().top,
        }));
        return { heads, lanes };
      });
      assert.deepEqual(
        groups.heads.map((h) => h.label),
        ['main thread', 'worker hasher', 'worker resizer'],
      );
      for (const lane of groups.lanes) {
        const k = groups.heads.findIndex((h) => h.id === lane.thread);
        assert.ok(k >= 0, `${lane.name} belongs to a listed thread`);
        const next = groups.heads[k + 1];
        assert.ok(lane.top > groups.heads[k].top && (next === undefined || lane.top < next.top), `${lane.name} lies in ${groups.heads[k].label}'s group`);
      }
      assert.deepEqual(
        groups.lanes.map((l) => `${l.name} @ ${l.thread}`),
        ['app · request @ 0', 'jobs · job.done @ 0', 'hasher-bus · hash.step @ 1', 'resizer-bus · resize.step @ 2'],
      );
      await page.screenshot({ path: path.join(OUT_DIR, 'inspector-threads.png') });
      assert.deepEqual(errors, [], 'no console errors');
    } finally {
      await page.close();
    }
  });

  test("a cross-thread dispatch is drawn as a flow from the worker's lane group at its enqueue to the dispatch; hovering it says so", async () => {
    const { page, errors } = await openInspector(browser, server, { scenario: 'empty', theme: 'dark' });
    try {
      await showThreadSession(page);
      const { crossThread } = threadSession();
      const drawn = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        const canvas = ins.timeline.canvas.getBoundingClientRect();
        const heads = [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-thread]')].map((e) => {
          const r = e.getBoundingClientRect();
          return { id: Number(e.getAttribute('data-thread-id')), top: r.top, bottom: r.bottom };
        });
        const flows = ins.timeline
          .flowsDrawn()
          .map((f) => ({ ...f, dispatchAt: ins.timeline.clientPointOfSeq(f.seq), start: ins.store.timeline.dispatches.start[f.index] }));
        const view = ins.timeline.view;
        return {
          canvas: { left: canvas.left, top: canvas.top, width: canvas.width },
          heads,
          flows,
          view,
          summary: document.querySelector('[data-testid=timeline-summary]')!.getAttribute('data-cross-thread'),
        };
      });
      assert.equal(drawn.summary, String(crossThread.size), 'the summary counts the cross-thread dispatches in view');
      assert.deepEqual(
        drawn.flows.map((f) => [f.seq, f.fromThread]).sort((a, b) => a[0] - b[0]),
        [...crossThread.entries()].sort((a, b) => a[0] - b[0]),
        'one flow per cross-thread dispatch, from its producer thread',
      );
      const pxPerMs = drawn.canvas.width / (drawn.view.to - drawn.view.from);
      for (const f of drawn.flows) {
        // Starts in the producer's header band (gutter and canvas share their vertical offsets) …
        const head = drawn.heads.find((h) => h.id === f.fromThread)!;
        const y0 = drawn.canvas.top + f.y0;
        assert.ok(y0 >= head.top - 1 && y0 <= head.bottom + 1, `flow #${f.seq} starts in thread ${f.fromThread}'s band (${y0} in ${head.top}..${head.bottom})`);
        // … at the enqueue time, and ends at the dispatch's start on the main thread's lane.
        assert.ok(Math.abs(f.x1 - f.x0 - ENQUEUE_LEAD_MS * pxPerMs) < 1, `flow #${f.seq} spans the enqueue-to-dispatch time`);
        assert.equal(f.enqueuedAt, f.start - ENQUEUE_LEAD_MS);
        assert.ok(f.dispatchAt);
        assert.ok(Math.abs(drawn.canvas.top + f.y1 - f.dispatchAt.y) <= 2, `flow #${f.seq} ends on its dispatch's row`);
      }

      // Hover the middle of the first flow: the tooltip names the worker, the enqueue time and the wait.
      const first = drawn.flows.sort((a, b) => a.seq - b.seq)[0];
      const mid = { x: drawn.canvas.left + (first.x0 + first.x1) / 2, y: drawn.canvas.top + (first.y0 + first.y1) / 2 };
      const hit = await page.evaluate(
        ([x, y]) => {
          const ins = (window as unknown as PageWindow).busscopeInspector;
          return { flow: ins.timeline.flowAtClient(x, y)?.seq ?? null, dispatch: ins.timeline.dispatchAtClient(x, y) };
        },
        [mid.x, mid.y] as const,
      );
      assert.deepEqual(hit, { flow: first.seq, dispatch: -1 }, 'the flow, not a dispatch, is under its midpoint');
      await page.mouse.move(mid.x, mid.y);
      const tooltip = page.locator('[data-testid=timeline-tooltip]');
      await tooltip.waitFor({ state: 'visible' });
      const text = await tooltip.innerText();
      assert.match(text, new RegExp(`job\\.done · dispatch #${first.seq}`));
      assert.match(text, /enqueued in worker hasher at .+, dispatched 40(\.0+)? ms later/);

      // The dispatch itself says the same under its own details.
      await page.mouse.move(first.dispatchAt!.x, first.dispatchAt!.y);
      await page.waitForFunction(
        () =>
          /enqueued in worker/.test(document.querySelector('[data-testid=timeline-tooltip]')!.textContent ?? '') &&
          /took/.test(document.querySelector('[data-testid=timeline-tooltip]')!.textContent ?? ''),
      );
      assert.deepEqual(errors, [], 'no console errors');
    } finally {
      await page.close();
    }
  });

  test('flows are drawn for the rows in view only, and not at all in a one-thread session', async () => {
    const { page } = await openInspector(browser, server, { scenario: 'empty', theme: 'dark' });
    try {
      await showThreadSession(page);
      const counts = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        const all = ins.timeline.flowsDrawn().length;
        // A window over the first job only.
        ins.timeline.setView(50, 200);
        ins.flush();
        return { all, firstJob: ins.timeline.flowsDrawn().length };
      });
      assert.deepEqual(counts, { all: 6, firstJob: 1 });
      // Many cross-thread dispatches in view: at most MAX_FLOWS flows a frame; none once the view is merged.
      for (const [jobs, want] of [
        [700, { mode: 'individual', cross: '700', flows: MAX_FLOWS }],
        [1_000, { mode: 'merged', cross: '1000', flows: 0 }],
      ] as const) {
        const busy = threadSession({ jobs }).snapshot;
        const id = `busy-${jobs}`;
        await page.evaluate(([s, sid]) => window.postMessage({ type: 'snapshot', snapshot: { ...s, session: { ...s.session, sessionId: sid } } }, '*'), [
          busy,
          id,
        ] as const);
        await page.waitForFunction((sid) => (window as unknown as PageWindow).busscopeInspector.store.session.sessionId === sid, id);
        const seen = await page.evaluate(() => {
          const ins = (window as unknown as PageWindow).busscopeInspector;
          ins.timeline.fitAll();
          ins.flush();
          const summary = document.querySelector('[data-testid=timeline-summary]')!;
          return { mode: summary.getAttribute('data-mode'), cross: summary.getAttribute('data-cross-thread'), flows: ins.timeline.flowsDrawn().length };
        });
        assert.deepEqual(seen, want, `${jobs} jobs`);
      }
      const plain = threadSession({ threads: false }).snapshot;
      await page.evaluate((s) => window.postMessage({ type: 'snapshot', snapshot: { ...s, session: { ...s.session, sessionId: 'plain-1' } } }, '*'), plain);
      await page.waitForFunction(() => (window as unknown as PageWindow).busscopeInspector.store.session.sessionId === 'plain-1');
      const plainView = await page.evaluate(() => {
        const ins = (window as unknown as PageWindow).busscopeInspector;
        ins.timeline.setView(50, 900);
        ins.flush();
        return {
          flows: ins.timeline.flowsDrawn().length,
          heads: document.querySelectorAll('[data-testid=timeline-thread]').length,
          threadRows: document.querySelectorAll('[data-testid=node-list] [data-kind=thread]').length,
        };
      });
      assert.deepEqual(plainView, { flows: 0, heads: 0, threadRows: 0 });
    } finally {
      await page.close();
    }
  });
});
