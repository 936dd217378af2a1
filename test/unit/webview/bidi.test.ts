// Bidi controls in names (issue 17, item 19): an app's names can carry U+202E RIGHT-TO-LEFT
// OVERRIDE and its kin, which reorder what follows on screen (`invoice\u202Efdp.exe` reads as
// "invoiceexe.pdf"). The inspector and the VS Code trees show them escaped, with one helper
// (runtime-probe/src/analysis/visibleText.ts); the raw name stays the key (selection, breakpoints).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visibleTreeItem } from '../../../extension/src/views/visibleTreeItems';
import { createInspector } from '../../../webview/src/inspector';
import { TextFitter } from '../../../webview/src/ui/canvas';
import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { click, createDom } from './dom';
import { FixtureSource, loopback } from './loopback';

const BIDI = ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
const ANY_BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const RLO = '\u202E';

describe('bidi controls in names', () => {
  test('visibleText writes every bidi control as a visible escape, and leaves other text alone', () => {
    for (const c of BIDI) {
      const shown = visibleText(`a${c}b`);
      assert.equal(shown, `a\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}b`);
      assert.ok(!ANY_BIDI.test(shown));
    }
    const plain = 'user.42.updated — Ünïcödé 日本語 עברית';
    assert.equal(visibleText(plain), plain, 'letters of any script stay as they are');
  });

  test('the inspector shows them escaped in lists, details, warnings, tooltips and canvas labels; the raw name stays the key', () => {
    const app = new FixtureApp({ label: `chat${RLO}gnp.exe (pid 1)`, types: 12, subscriptions: 20, dispatches: 50 });
    app.model.applyRecords([
      { kind: 'bus-created', time: 10_000, bus: 3, name: `bus${RLO}kcatta` },
      {
        kind: 'subscribe',
        time: 10_001,
        subscriptionId: 90_001,
        bus: 3,
        type: `typing${RLO}daer`,
        priority: 0,
        label: `Typing${RLO}rotacidnI`,
        owner: `Owner\u2067x\u2069`,
        once: false,
        site: { file: `/app/${RLO}st.evil.ts`, line: 1, column: 1, functionName: `fn\u200F` },
      },
      {
        kind: 'dispatch',
        seq: 99_999,
        bus: 3,
        type: `typing${RLO}daer`,
        start: 10_002,
        duration: 0.1,
        delivered: 1,
        consumedBy: 0,
        depth: 0,
        parentSeq: 0,
        site: null,
      },
    ]);
    app.analyzer.run();
    const dom = createDom();
    const lb = loopback(new FixtureSource(app));
    const ins = createInspector(dom.root, lb.port);
    try {
      ins.flush();
      const doc = dom.document;
      const row = [...doc.querySelectorAll<HTMLElement>('[data-testid=node-list] .node-row')].find((r) => r.textContent?.includes('Typing\\u202ErotacidnI'));
      assert.ok(row, 'the label is listed with the override escaped');
      click(row);
      ins.flush();
      lb.clock.advance(100);
      ins.flush();
      assert.deepEqual(lb.of('select').at(-1), { type: 'select', target: { kind: 'subscription', id: 90_001 } }, 'the selection is by id, as before');
      const details = doc.querySelector('[data-testid=details]')!.textContent!;
      assert.ok(details.includes('typing\\u202Edaer'), 'the details pane names the type escaped');
      assert.ok(details.includes('Owner\\u2067x\\u2069'));
      const text = doc.body.textContent ?? '';
      assert.ok(text.includes('chat\\u202Egnp.exe (pid 1)'), 'the session label too');
      assert.ok(!ANY_BIDI.test(text), 'no bidi control reaches the page text');
      for (const el of doc.querySelectorAll('[title], [aria-label]')) {
        for (const a of ['title', 'aria-label']) assert.ok(!ANY_BIDI.test(el.getAttribute(a) ?? ''), `${a} of ${el.tagName}: ${el.getAttribute(a)}`);
      }
      // Canvas labels (graph nodes, timeline lanes) go through the text fitter.
      const ctx = { font: '12px x', measureText: (t: string) => ({ width: t.length * 7 }) } as unknown as CanvasRenderingContext2D;
      const fitted = new TextFitter().fit(ctx, `typing${RLO}daer`, 1000);
      assert.equal(fitted, 'typing\\u202Edaer');
      // The raw name is still what the page sends back (a breakpoint on that exact type).
      const typeLink = [...doc.querySelectorAll<HTMLButtonElement>('[data-testid=details] button.link')].find((b) => b.textContent === 'typing\\u202Edaer');
      assert.ok(typeLink, 'a link to the type');
      click(typeLink);
      ins.flush();
      lb.inject({ type: 'breakpoints', types: [] });
      ins.flush();
      click(doc.querySelector<HTMLButtonElement>('[data-testid=break-toggle]')!);
      assert.deepEqual(lb.of('toggleBreakpoint').at(-1), { type: 'toggleBreakpoint', eventType: `typing${RLO}daer` });
    } finally {
      ins.dispose();
      lb.connection.dispose();
      dom.close();
    }
  });

  test('tree items: label, description and tooltip (plain or Markdown) show them escaped', () => {
    const md = { value: `**Listener leak** on \`typing${RLO}daer\`` };
    const item = visibleTreeItem({ label: `Typing${RLO}rotacidnI`, description: `p0 · owner\u2066x`, tooltip: md as never });
    assert.equal(item.label, 'Typing\\u202ErotacidnI');
    assert.equal(item.description, 'p0 · owner\\u2066x');
    assert.equal(md.value, '**Listener leak** on `typing\\u202Edaer`');
    const highlighted = visibleTreeItem({ label: { label: `bus${RLO}x`, highlights: [[0, 3]] }, tooltip: `file /a/${RLO}b.ts` });
    assert.deepEqual(highlighted.label, { label: 'bus\\u202Ex' });
    assert.equal(highlighted.tooltip, 'file /a/\\u202Eb.ts');
    const plain = { label: 'HealthBar', description: 'p10', tooltip: 'ok' };
    assert.deepEqual(visibleTreeItem({ ...plain }), plain);
  });
});
