// "Why didn't it run?" in a live session (issue 17, item 6): the answer must show within a frame or
// two of the click, also while deltas stream to a page that reads them more slowly than the host
// pumps them. VS Code's channel to a webview is an ordered queue without back-pressure; here it is
// one too (`inbox`), drained by the page a couple of messages per frame. The host (the real
// InspectorConnection over a real Model and Analyzer) and the page (the real renderer in jsdom) are
// the product's own; the app's subscriptions were all made before the probe started (no sites).
// Also: every message dropped or rejected on either side reaches the host's log.

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { InspectorConnection, type HostEffects } from '../../../extension/src/inspector/connection';
import { createInspector, type Inspector } from '../../../webview/src/inspector';
import type { HostToWebview, InspectorPort } from '../../../runtime-probe/src/analysis/inspector-messages';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { click, createDom, type TestDom } from './dom';
import { FixtureSource, ManualClock } from './loopback';

/** Host messages the page reads per frame: a page that falls behind a 30-per-second pump. */
const MESSAGES_PER_FRAME = 2;
/** A frame every 100 ms of the host's clock (a page busy drawing); the app dispatches all the time. */
const FRAME_MS = 100;
/** The app's records arrive (and the pump may post) every ~33 ms: three times per page frame. */
const APP_STEP_MS = FRAME_MS / 3;

interface QueuedSetup {
  dom: TestDom;
  app: FixtureApp;
  clock: ManualClock;
  connection: InspectorConnection;
  ins: Inspector;
  /** Host → page messages posted and not yet read by the page, oldest first. */
  inbox: HostToWebview[];
  log: string[];
  /** Reads up to `n` queued messages, then renders (one frame). */
  frame(n?: number): void;
  /** One page frame: ~100 ms of host time (the app dispatches, the pump posts), then the page reads and renders. */
  step(): void;
  /** `ms` of frames. */
  stream(ms: number): void;
}

let open: QueuedSetup[] = [];
afterEach(() => {
  for (const s of open) {
    s.ins.dispose();
    s.connection.dispose();
    s.dom.close();
  }
  open = [];
});

function queuedSetup(): QueuedSetup {
  const dom = createDom();
  const app = new FixtureApp({ subscribeSites: false });
  const clock = new ManualClock();
  const inbox: HostToWebview[] = [];
  const log: string[] = [];
  const listeners = new Set<(msg: HostToWebview) => void>();
  const effects: HostEffects = {
    post: (msg) => void inbox.push(JSON.parse(JSON.stringify(msg)) as HostToWebview),
    openSource: () => undefined,
    runCommand: () => undefined,
    exportRangeStats: async () => null,
    showError: (m) => assert.fail(m),
    log: (line) => void log.push(line),
  };
  const connection = new InspectorConnection(new FixtureSource(app), effects, { clock });
  const port: InspectorPort = {
    // Page → host: delivered at once (the host is never the slow side here).
    postMessage: (msg) => connection.receive(JSON.parse(JSON.stringify(msg))),
    onMessage(listener) {
      listeners.add(listener);
      return { dispose: () => void listeners.delete(listener) };
    },
  };
  const ins = createInspector(dom.root, port);
  const frame = (n = MESSAGES_PER_FRAME): void => {
    for (const msg of inbox.splice(0, n)) for (const l of listeners) l(msg);
    ins.flush();
  };
  const step = (): void => {
    for (let k = 0; k < 3; k++) {
      app.run(4);
      clock.advance(APP_STEP_MS);
    }
    frame();
  };
  const stream = (ms: number): void => {
    for (let t = 0; t < ms; t += FRAME_MS) step();
  };
  // The snapshot (and what follows it) arrives.
  frame(10);
  const s: QueuedSetup = { dom, app, clock, connection, ins, inbox, log, frame, step, stream };
  open.push(s);
  return s;
}

function nodeRow(dom: TestDom, label: string): HTMLElement {
  const row = [...dom.document.querySelectorAll<HTMLElement>('[data-testid=node-list] .node-row')].find((r) => r.textContent?.includes(label));
  assert.ok(row, `a node-list row for ${label}`);
  return row;
}

function whyText(dom: TestDom): string {
  return dom.document.querySelector('[data-testid=why]')?.textContent ?? '';
}

describe('why didn’t it run, live', () => {
  test('subscriptions without sites, deltas flowing to a slow page: the answer shows within two frames of the click', () => {
    const s = queuedSetup();
    const { dom, ins } = s;
    const starved = [...ins.store.subscriptions.values()].find((v) => v.label === 'DebugLogger')!;
    assert.equal(starved.site, null, 'subscribed before the probe started: no site');
    s.stream(3000);
    assert.ok(ins.store.lastDeltaSeq > 10, `deltas flow (${ins.store.lastDeltaSeq} applied)`);
    // What the page has not read yet when the user clicks: what an answer would wait behind.
    const queued = s.inbox.map((m) => m.type);

    click(nodeRow(dom, 'DebugLogger'));
    ins.flush();
    assert.match(whyText(dom), /Asking the model/);
    const answer = s.inbox.findIndex((m) => m.type === 'details');
    assert.ok(answer >= 0, 'the host answered at once');
    let frames = 0;
    while (/Asking the model/.test(whyText(dom)) && frames < 100) {
      s.step();
      frames++;
    }
    assert.ok(frames <= 2, `answered ${frames} frames after the click (${answer} messages queued ahead of the answer: ${queued.join(', ')})`);
    assert.ok(queued.length <= 2, `at most two messages were queued for the page, not a backlog (${queued.length})`);
    assert.match(whyText(dom), /consumed before its turn, mostly by Shield/);
    // Held deltas were coalesced, not lost: the page keeps up and nothing was logged as dropped.
    s.stream(1000);
    assert.ok(s.connection.stats.held > 0, 'the host held deltas back while the page was behind');
    assert.deepEqual(s.log, []);
  });

  test('a page that never says it applied a delta: the host holds, then sends one more every timeout and logs it', () => {
    const dom = createDom();
    const app = new FixtureApp({ subscribeSites: false });
    const clock = new ManualClock();
    const posted: HostToWebview[] = [];
    const log: string[] = [];
    const connection = new InspectorConnection(
      new FixtureSource(app),
      {
        post: (m) => void posted.push(m),
        openSource: () => undefined,
        runCommand: () => undefined,
        exportRangeStats: async () => null,
        showError: () => undefined,
        log: (l) => void log.push(l),
      },
      { clock },
    );
    try {
      connection.receive({ type: 'ready', version: 1, state: null });
      for (let i = 0; i < 15; i++) {
        app.run(5);
        clock.advance(100);
      }
      const deltas = posted.filter((m) => m.type === 'delta').length;
      assert.equal(deltas, 2, 'two unanswered deltas, then nothing until the timeout');
      for (let i = 0; i < 10; i++) {
        app.run(5);
        clock.advance(100);
      }
      assert.equal(posted.filter((m) => m.type === 'delta').length, 3, 'one more after the timeout (2 s)');
      assert.equal(log.length, 1);
      assert.match(log[0], /has not applied delta 1 of 2 in 2000 ms/);
    } finally {
      connection.dispose();
      dom.close();
    }
  });

  test('every message dropped or rejected, on either side, is in the host’s log', () => {
    const s = queuedSetup();
    s.stream(300);
    // Host side: a request the host must not act on.
    s.connection.receive({ type: 'openSource', file: '', line: 0, column: 1 });
    s.connection.receive({ type: 'x'.repeat(500) });
    // Page side: a message it does not know, then a gap in the delta sequence.
    s.frame(100);
    s.inbox.push({ type: 'bogus' } as unknown as HostToWebview);
    s.frame(1);
    s.inbox.push({ type: 'delta', delta: { seq: s.ins.store.lastDeltaSeq + 5, now: 0 } });
    s.frame(1);
    // Waiting for the snapshot it asked for, the page drops deltas (reported once a second).
    s.inbox.push({ type: 'delta', delta: { seq: s.ins.store.lastDeltaSeq + 6, now: 0 } });
    s.frame(1);
    const text = s.log.join('\n');
    assert.match(text, /rejected a message from the inspector page \("openSource"\)/);
    assert.match(text, /rejected a message from the inspector page \("x{40}…"\)/);
    assert.match(text, /inspector page dropped a "bogus" message: not a message this inspector page knows/);
    assert.match(text, /inspector page dropped a delta message: delta \d+ does not follow delta \d+: asked for a snapshot/);
    assert.ok(s.connection.stats.rejected === 2);
    // The snapshot it asked for arrives and the page is back in step.
    s.stream(500);
    assert.ok(s.ins.store.hasSnapshot);
  });
});
