// Event breakpoints from the inspector: the details of a selected event type carry a real button
// that says whether the type breaks and toggles it. The real renderer (jsdom), the real host
// connection and the real EventBreakpointStore (the one the command and the Subscriptions tree use,
// here over an in-memory workspace state): pressing it posts `toggleBreakpoint`, the host toggles
// the store, and the store's change comes back as `breakpoints`, which the button reflects.

import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { EventBreakpointStore, type BreakpointMemento } from '../../../extension/src/debugging/breakpoints';
import { InspectorConnection } from '../../../extension/src/inspector/connection';
import type { InspectorSource } from '../../../extension/src/inspector/source';
import { inspectorBreakpoints } from '../../../extension/src/sessions/inspectorSource';
import { createInspector, type Inspector } from '../../../webview/src/inspector';
import { isWebviewToHost, type HostToWebview } from '../../../runtime-probe/src/analysis/inspector-messages';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { click, createDom, key, type TestDom } from './dom';
import { FixtureSource, loopback, type Loopback } from './loopback';

class MemoryState implements BreakpointMemento {
  readonly values = new Map<string, unknown>();
  get<T>(k: string): T | undefined {
    return this.values.get(k) as T | undefined;
  }
  async update(k: string, v: unknown): Promise<void> {
    this.values.set(k, v);
  }
}

interface Setup {
  dom: TestDom;
  doc: Document;
  lb: Loopback;
  ins: Inspector;
  store: EventBreakpointStore;
}

let open: Setup[] = [];
afterEach(() => {
  for (const s of open) {
    s.ins.dispose();
    s.lb.connection.dispose();
    s.store.dispose();
    s.dom.close();
  }
  open = [];
});

function setup(withBreakpoints = true): Setup {
  const fixtures = new FixtureSource(new FixtureApp());
  const store = new EventBreakpointStore(new MemoryState());
  const source: InspectorSource = {
    sessions: () => fixtures.sessions(),
    onDidChangeSessions: fixtures.onDidChangeSessions,
    breakpoints: withBreakpoints ? inspectorBreakpoints(store) : undefined,
  };
  const dom = createDom();
  const lb = loopback(source);
  const ins = createInspector(dom.root, lb.port);
  ins.flush();
  const s = { dom, doc: dom.document, lb, ins, store };
  open.push(s);
  return s;
}

/** Selects the event type `name` through the node list, as a user clicks it. */
function selectType(s: Setup, name: string): void {
  const r = [...s.doc.querySelectorAll<HTMLElement>('[data-testid=node-list] [role=option][data-kind=type]')].find(
    (e) => e.querySelector('.node-label')?.textContent === name,
  );
  assert.ok(r, `type row ${name}`);
  click(r);
  s.ins.flush();
}

function toggle(s: Setup): HTMLButtonElement | null {
  return s.doc.querySelector<HTMLButtonElement>('[data-testid=details] [data-testid=break-toggle]');
}

/** Lets the store's async update settle, then renders. */
async function settle(s: Setup): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  s.ins.flush();
}

describe('event breakpoints in the inspector', () => {
  test('a selected type shows a toggle; pressing it posts toggleBreakpoint and the store (and the button) follow', async () => {
    const s = setup();
    assert.deepEqual(s.lb.hostOf('breakpoints').at(-1), { type: 'breakpoints', types: [] }, 'the host sends the list after the snapshot');
    selectType(s, 'health.changed');
    const off = toggle(s);
    assert.ok(off, 'the details of a type have the toggle');
    assert.equal(off.tagName, 'BUTTON', 'a real button: Tab reaches it, Enter and Space press it');
    assert.equal(off.getAttribute('aria-pressed'), 'false');
    assert.match(off.textContent!, /Break on dispatch/);

    click(off);
    assert.deepEqual(s.lb.of('toggleBreakpoint').at(-1), { type: 'toggleBreakpoint', eventType: 'health.changed' });
    await settle(s);
    assert.deepEqual(s.store.types, ['health.changed'], 'the same store as the command and the tree');
    assert.deepEqual(s.lb.hostOf('breakpoints').at(-1), { type: 'breakpoints', types: ['health.changed'] });
    const on = toggle(s)!;
    assert.equal(on.getAttribute('aria-pressed'), 'true');
    assert.match(on.textContent!, /Breaks on dispatch/);

    // Pressing again removes it.
    click(on);
    await settle(s);
    assert.deepEqual(s.store.types, []);
    assert.equal(toggle(s)!.getAttribute('aria-pressed'), 'false');
  });

  test('the button reflects breakpoints set elsewhere (the command, the tree)', async () => {
    const s = setup();
    selectType(s, 'tick');
    await s.store.set('tick', 'payload.n > 3');
    await settle(s);
    assert.equal(toggle(s)!.getAttribute('aria-pressed'), 'true');
    await s.store.replace([{ type: 'health.changed' }]);
    await settle(s);
    assert.equal(toggle(s)!.getAttribute('aria-pressed'), 'false');
    selectType(s, 'health.changed');
    assert.equal(toggle(s)!.getAttribute('aria-pressed'), 'true');
    // Keyboard: the button is focusable and a keydown does not toggle by itself (the browser turns Enter/Space into click).
    toggle(s)!.focus();
    assert.equal(s.doc.activeElement, toggle(s));
    key(toggle(s)!, 'Tab');
    assert.equal(s.lb.of('toggleBreakpoint').length, 0);
  });

  test('without breakpoints in the host, no toggle is shown and nothing about breakpoints is sent', () => {
    const s = setup(false);
    selectType(s, 'health.changed');
    assert.equal(toggle(s), null);
    assert.equal(s.lb.hostOf('breakpoints').length, 0);
  });
});

describe('the host side of toggleBreakpoint', () => {
  function host(): { connection: InspectorConnection; store: EventBreakpointStore; errors: string[]; posted: HostToWebview[] } {
    const fixtures = new FixtureSource(new FixtureApp());
    const store = new EventBreakpointStore(new MemoryState());
    const errors: string[] = [];
    const posted: HostToWebview[] = [];
    const connection = new InspectorConnection(
      { sessions: () => fixtures.sessions(), onDidChangeSessions: fixtures.onDidChangeSessions, breakpoints: inspectorBreakpoints(store) },
      {
        post: (m) => void posted.push(m),
        openSource: () => undefined,
        runCommand: () => undefined,
        exportRangeStats: async () => null,
        showError: (m) => void errors.push(m),
      },
    );
    return { connection, store, errors, posted };
  }

  test('toggles the store; malformed messages are rejected and change nothing', async () => {
    const h = host();
    try {
      for (const bad of [
        { type: 'toggleBreakpoint' },
        { type: 'toggleBreakpoint', eventType: '' },
        { type: 'toggleBreakpoint', eventType: 42 },
        { type: 'toggleBreakpoint', eventType: 'x'.repeat(1025) },
        { type: 'toggleBreakpoint', eventType: null },
      ]) {
        assert.equal(isWebviewToHost(bad), false, JSON.stringify(bad).slice(0, 60));
        h.connection.receive(bad);
      }
      await new Promise((r) => setTimeout(r, 0));
      assert.deepEqual(h.store.types, []);
      assert.ok(isWebviewToHost({ type: 'toggleBreakpoint', eventType: 'combat.hit' }));
      h.connection.receive({ type: 'toggleBreakpoint', eventType: 'combat.hit' });
      await new Promise((r) => setTimeout(r, 0));
      assert.deepEqual(h.store.types, ['combat.hit']);
      h.connection.receive({ type: 'toggleBreakpoint', eventType: 'combat.hit' });
      await new Promise((r) => setTimeout(r, 0));
      assert.deepEqual(h.store.types, []);
      assert.deepEqual(h.errors, []);
      assert.equal(h.posted.length, 0, 'nothing posted before the webview is ready');
    } finally {
      h.connection.dispose();
      h.store.dispose();
    }
  });
});
