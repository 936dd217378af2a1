// Everything the inspector shows by name comes from the app: bus and type names, labels, owner
// descriptions, file paths, session labels. A hostile app's markup must show up as text, never as
// elements (the page would run it: the CSP blocks inline handlers, but not every injected element).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInspector } from '../../../webview/src/inspector';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { click, createDom } from './dom';
import { FixtureSource, loopback } from './loopback';

const EVIL = '<img src=x onerror="globalThis.pwned=1">';

test('hostile names, labels, owners and paths render as text, not markup', () => {
  const app = new FixtureApp({ label: `${EVIL} (pid 1)`, types: 12, subscriptions: 20, dispatches: 50 });
  app.model.applyRecords([
    { kind: 'bus-created', time: 10_000, bus: 3, name: `bus${EVIL}` },
    {
      kind: 'subscribe',
      time: 10_001,
      subscriptionId: 90_001,
      bus: 3,
      type: `type${EVIL}`,
      priority: 0,
      label: `label${EVIL}`,
      owner: `owner${EVIL}<script>globalThis.pwned=2</script>`,
      once: false,
      site: { file: `/app/${EVIL}.ts`, line: 1, column: 1, functionName: `fn${EVIL}` },
    },
  ]);
  const dom = createDom();
  const source = new FixtureSource(app);
  const lb = loopback(source);
  const ins = createInspector(dom.root, lb.port);
  try {
    ins.flush();
    const doc = dom.document;
    const hostileRow = [...doc.querySelectorAll<HTMLElement>('[data-testid=node-list] [role=option]')].find((e) => e.textContent?.includes(`label${EVIL}`));
    assert.ok(hostileRow, 'the hostile label is listed, as text');
    click(hostileRow);
    ins.flush();
    lb.clock.advance(100);
    ins.flush();
    const text = doc.body.textContent ?? '';
    for (const shown of [`label${EVIL}`, `type${EVIL}`, `owner${EVIL}`, `${EVIL} (pid 1)`]) {
      assert.ok(text.includes(shown), `${shown} is visible as text`);
    }
    assert.equal(doc.querySelectorAll('img, script, iframe, object, embed').length, 0, 'no element was injected');
    assert.equal(doc.querySelectorAll('[onerror], [onload], [onclick]').length, 0, 'no inline handler attribute');
    assert.equal((dom.window as unknown as { pwned?: number }).pwned, undefined);
  } finally {
    ins.dispose();
    lb.connection.dispose();
    dom.close();
  }
});
