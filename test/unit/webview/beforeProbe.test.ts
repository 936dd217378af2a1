// Subscriptions made before `probe.start()` (issue 17, item 14): no probe saw the call, so they have
// no site even with stack capture on. The snapshot marks them (`beforeProbe`), and every place that
// would say "an unknown site" or "stack capture off" says "subscribed before the probe started"
// instead: the model, the warning, the inspector's details pane. Real probe (in this process), real
// socket, real session, model, analyses, host connection and renderer.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { inspectorSource } from '../../../extension/src/sessions/inspectorSource';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { createInspector } from '../../../webview/src/inspector';
import { click, createDom } from './dom';
import { loopback } from './loopback';
import { waitFor } from '../../support/wait';

test('subscriptions made before probe.start() say so in the snapshot, the warning and the details pane', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-before-probe-'));
  const bus = new EventBus<{ typing: { user: string }; message: { text: string } }>({ name: 'chat' });
  bus.subscribe('typing', () => true, { priority: 5, label: 'TypingThrottle' });
  const indicator = bus.subscribe('typing', () => undefined, { priority: 0, label: 'TypingIndicator' });
  const info = await probe.start({ discovery: false, name: 'chat', captureStacks: true });
  const late = bus.subscribe('message', () => undefined, { label: 'MessageList' });
  const manager = new SessionManager({ discoveryDirectory: () => dir, updateIntervalMs: 50 });
  const dom = createDom();
  try {
    const snapshot = probe.snapshot();
    const byLabel = new Map(snapshot.subscriptions.map((s) => [s.label, s]));
    assert.equal(byLabel.get('TypingIndicator')?.beforeProbe, true);
    assert.equal(byLabel.get('TypingThrottle')?.beforeProbe, true);
    assert.equal(byLabel.get('TypingIndicator')?.site, null);
    assert.equal(byLabel.get('MessageList')?.beforeProbe, undefined, 'made after start: not marked');
    assert.notEqual(byLabel.get('MessageList')?.site, null, 'and it has its site');

    const session = await manager.attachAddress('127.0.0.1', info.port, info.token);
    for (let i = 0; i < 40; i++) {
      bus.dispatch('typing', { user: 'a' });
      if (i % 10 === 0) bus.dispatch('message', { text: 'hi' });
      await new Promise((r) => setImmediate(r));
    }
    await waitFor(() => session.warnings.some((w) => w.title.startsWith('TypingIndicator never runs')), 10_000, 'the starved warning');
    assert.equal(session.model.subscriptions.get(indicator.id)?.beforeProbe, true);
    assert.equal(session.model.subscriptions.get(late.id)?.beforeProbe, false);
    const warning = session.warnings.find((w) => w.title.startsWith('TypingIndicator never runs'))!;
    assert.match(warning.explanation, /TypingIndicator \(priority 0, subscribed before the probe started\)/);
    assert.doesNotMatch(warning.explanation, /unknown site/);

    const lb = loopback(inspectorSource(manager));
    const ins = createInspector(dom.root, lb.port);
    try {
      ins.flush();
      const row = (label: string): HTMLElement => {
        const r = [...dom.document.querySelectorAll<HTMLElement>('[data-testid=node-list] .node-row')].find((e) => e.textContent?.includes(label));
        assert.ok(r, `a row for ${label}`);
        return r;
      };
      click(row('TypingIndicator'));
      ins.flush();
      const details = dom.document.querySelector('[data-testid=details]')!.textContent!;
      assert.match(details, /Sitenone: subscribed before the probe started/);
      assert.doesNotMatch(details, /stack capture off/);
      assert.match(details, /consumed before its turn, mostly by TypingThrottle/);
      click(row('MessageList'));
      ins.flush();
      assert.ok(dom.document.querySelector('[data-testid=details] button.link[data-file]'), 'a subscription made after start links its site');
    } finally {
      ins.dispose();
      lb.connection.dispose();
    }
  } finally {
    dom.close();
    manager.dispose();
    await probe.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
