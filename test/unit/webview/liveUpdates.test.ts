// While an app streams, the inspector re-renders many times a second. A person's press and release
// (30–100 ms apart) must land on the same element, so the warnings list and the node list keep
// their elements across deltas and update them in place. Also: the session banner reads naturally.

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { createInspector, type Inspector } from '../../../webview/src/inspector';
import { emptySession, type SessionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import { SessionBanner } from '../../../webview/src/ui/sessionBanner';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { createDom, type TestDom } from './dom';
import { FixtureSource, loopback, type Loopback } from './loopback';

interface Setup {
  dom: TestDom;
  doc: Document;
  app: FixtureApp;
  lb: Loopback;
  ins: Inspector;
}

let open: Setup[] = [];
afterEach(() => {
  for (const s of open) {
    s.ins.dispose();
    s.lb.connection.dispose();
    s.dom.close();
  }
  open = [];
});

function setup(): Setup {
  const dom = createDom();
  const app = new FixtureApp();
  const lb = loopback(new FixtureSource(app));
  const ins = createInspector(dom.root, lb.port);
  ins.flush();
  const s = { dom, doc: dom.document, app, lb, ins };
  open.push(s);
  return s;
}

/** `n` deltas of new dispatches only (no analysis: the warnings stay as they are), each rendered. */
function streamTimelineDeltas(s: Setup, n: number): void {
  for (let i = 0; i < n; i++) {
    const before = s.ins.store.lastDeltaSeq;
    s.app.run(20, false);
    s.lb.clock.advance(100);
    s.ins.flush();
    assert.ok(s.ins.store.lastDeltaSeq > before, 'a delta arrived');
  }
}

function warningEls(doc: Document): HTMLElement[] {
  return [...doc.querySelectorAll<HTMLElement>('[data-testid=warnings] article.warning')];
}

function mouse(el: Element, type: 'mousedown' | 'mouseup' | 'click'): void {
  const win = el.ownerDocument.defaultView!;
  el.dispatchEvent(new win.MouseEvent(type, { bubbles: true, cancelable: true, view: win, button: 0 }));
}

describe('live updates keep the elements a person is using', () => {
  test('timeline-only deltas leave every warning element (and its buttons) and every node row the same DOM node', () => {
    const s = setup();
    const { doc, ins } = s;
    const warnings = warningEls(doc);
    assert.ok(warnings.length >= 5, `${warnings.length} warnings shown`);
    const buttons = [...doc.querySelectorAll('[data-testid=warnings] button')];
    const rows = [...doc.querySelectorAll('[data-testid=node-list] .node-row')];
    const timelineBefore = ins.store.timeline.size;
    streamTimelineDeltas(s, 12);
    assert.ok(ins.store.timeline.size > timelineBefore, 'the timeline grew');
    const after = warningEls(doc);
    assert.equal(after.length, warnings.length);
    after.forEach((el, i) => assert.equal(el, warnings[i], `warning ${el.dataset.warningId} is the same element`));
    const buttonsAfter = [...doc.querySelectorAll('[data-testid=warnings] button')];
    assert.equal(buttonsAfter.length, buttons.length);
    buttonsAfter.forEach((b, i) => assert.equal(b, buttons[i], 'same button element'));
    for (const r of rows) assert.ok(r.isConnected, `node row ${(r as HTMLElement).dataset.key} was kept`);
  });

  test('deltas that change the warnings update them in place: same elements, new text', () => {
    const s = setup();
    const { doc, app, lb, ins } = s;
    const byId = new Map(warningEls(doc).map((el) => [el.dataset.warningId!, el]));
    for (let i = 0; i < 6; i++) {
      app.run(60); // with analysis: warnings' evidence moves on
      lb.clock.advance(100);
      ins.flush();
    }
    const now = warningEls(doc);
    assert.equal(doc.querySelector('[data-testid=warnings]')!.closest('section')!.querySelector('h2')!.textContent, `Warnings (${ins.store.warnings.size})`);
    assert.equal(now.length, ins.store.warnings.size);
    for (const el of now) {
      const id = el.dataset.warningId!;
      const w = ins.store.warnings.get(id)!;
      assert.ok(el.querySelector('.warning-title')!.textContent!.includes(w.title), `${id} shows its current title`);
      if (byId.has(id)) assert.equal(el, byId.get(id), `${id} kept its element`);
    }
  });

  test('press, deltas arrive, release: the Focus button and the source link still act', () => {
    const s = setup();
    const { doc, lb } = s;
    const target = warningEls(doc).find((el) => el.querySelector('button.link'))!;
    assert.ok(target, 'a warning with a source link');
    const id = target.dataset.warningId!;
    const focus = target.querySelector<HTMLButtonElement>('.focus-btn')!;
    mouse(focus, 'mousedown');
    streamTimelineDeltas(s, 3); // ~300 ms of a live app between press and release
    const focusNow = doc.querySelector(`article.warning[data-warning-id="${id}"] .focus-btn`);
    assert.equal(focusNow, focus, 'the pressed button is still the one in the list');
    assert.ok(focus.isConnected);
    mouse(focus, 'mouseup');
    mouse(focus, 'click');
    assert.deepEqual(lb.of('focusWarning').at(-1), { type: 'focusWarning', warningId: id });
    assert.equal(focus.getAttribute('aria-pressed'), 'true');
    // The source link, pressed while more deltas arrive.
    const link = target.querySelector<HTMLButtonElement>('button.link')!;
    mouse(link, 'mousedown');
    streamTimelineDeltas(s, 3);
    assert.ok(link.isConnected, 'the pressed link is still in the list');
    mouse(link, 'mouseup');
    mouse(link, 'click');
    const opened = lb.opened.at(-1);
    assert.ok(opened, 'the source was opened');
    assert.equal(`${opened.file}:${opened.line}`, link.title.split(':').slice(0, -1).join(':'));
    // And Unfocus, on the same (updated) button.
    mouse(focus, 'mousedown');
    streamTimelineDeltas(s, 2);
    mouse(focus, 'click');
    assert.deepEqual(lb.of('focusWarning').at(-1), { type: 'focusWarning', warningId: null });
    assert.equal(focus.getAttribute('aria-pressed'), 'false');
  });

  test('keyboard focus on a warning survives live deltas', () => {
    const s = setup();
    const { doc } = s;
    const el = warningEls(doc)[2];
    el.focus();
    streamTimelineDeltas(s, 4);
    assert.equal(doc.activeElement, el);
  });
});

describe('session banner wording', () => {
  function bannerText(session: Partial<SessionView>): string {
    const dom = createDom();
    try {
      const banner = new SessionBanner(dom.document, { run: () => undefined, selectSession: () => undefined });
      banner.render({ ...emptySession(), ...session }, false);
      return banner.element.textContent!.replace(/Attach to Running App…/, '');
    } finally {
      dom.close();
    }
  }

  test('detached by the user says "detached" once; other reasons read as a sentence', () => {
    const byUser = bannerText({ phase: 'detached', label: 'busscope-demo (pid 42)', detail: 'detached' });
    assert.equal(byUser, 'Detached from busscope-demo (pid 42). Showing the last data received.');
    assert.equal(byUser.match(/detached/gi)?.length, 1);
    assert.equal(
      bannerText({ phase: 'detached', label: 'busscope-demo (pid 42)', detail: 'the app exited' }),
      'Detached from busscope-demo (pid 42). The app exited. Showing the last data received.',
    );
    assert.equal(bannerText({ phase: 'detached', label: 'app (pid 1)', detail: '' }), 'Detached from app (pid 1). Showing the last data received.');
  });

  test('a trace file is not called "detached"', () => {
    assert.equal(
      bannerText({ phase: 'detached', label: 'run.busscope', detail: 'trace file', offline: true }),
      'Trace: run.busscope. Showing the recorded data.',
    );
    assert.equal(
      bannerText({ phase: 'detached', label: 'run.busscope', detail: 'trace file: truncated record', offline: true }),
      'Trace: run.busscope. Truncated record. Showing the recorded data.',
    );
  });
});
