// The inspector renderer in jsdom, fed by the real host connection over a real Model: given the
// fixture app's data, the right nodes, lanes, markers and warnings exist, and clicks, double-clicks
// and keys post the right messages.

import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { createInspector, type Inspector, type InspectorOptions } from '../../../webview/src/inspector';
import { INSPECTOR_MESSAGES_VERSION, type SelectionRef } from '../../../runtime-probe/src/analysis/inspector-messages';
import { FixtureApp, NAMED } from '../../webview/fixtures/fixtureApp';
import { click, createDom, dblclick, key, type TestDom } from './dom';
import { FixtureSource, loopback, type Loopback } from './loopback';
import { ManualClock } from './manualClock';

interface Setup {
  dom: TestDom;
  doc: Document;
  app: FixtureApp;
  source: FixtureSource;
  lb: Loopback;
  ins: Inspector;
}

let open: Setup[] = [];

function create(app: FixtureApp | null, options?: InspectorOptions): Setup {
  const dom = createDom();
  const source = app ? new FixtureSource(app) : new FixtureSource();
  const lb = loopback(source);
  const ins = createInspector(dom.root, lb.port, options);
  ins.flush();
  return { dom, doc: dom.document, app: app as FixtureApp, source, lb, ins };
}

function close(s: Setup): void {
  s.ins.dispose();
  s.lb.connection.dispose();
  s.dom.close();
}

/** A fresh app and renderer for a test that changes things (closed after the test). */
function setup(app: FixtureApp | null = new FixtureApp(), options?: InspectorOptions): Setup {
  const s = create(app, options);
  open.push(s);
  return s;
}

/** One app and renderer shared by the tests that only look (building one costs most of a test). */
let shared: Setup;
before(() => {
  shared = create(new FixtureApp());
});
after(() => close(shared));

afterEach(() => {
  for (const s of open) close(s);
  open = [];
});

function rows(doc: Document, selector = ''): HTMLElement[] {
  return [...doc.querySelectorAll<HTMLElement>(`[data-testid=node-list] [role=option]${selector}`)];
}

function row(doc: Document, label: string, kind?: string): HTMLElement {
  const r = rows(doc, kind ? `[data-kind=${kind}]` : '').find((e) => e.querySelector('.node-label')?.textContent === label);
  assert.ok(r, `node row "${label}" exists`);
  return r;
}

function subId(app: FixtureApp, label: string): number {
  const s = [...app.subs.values()].find((x) => x.label === label);
  assert.ok(s, `fixture has ${label}`);
  return s.id;
}

function lastSelect(lb: Loopback): SelectionRef | null {
  const all = lb.of('select');
  assert.ok(all.length > 0, 'a select was posted');
  return all[all.length - 1].target;
}

/** Lets the host's pump send what is pending, then renders. */
function pump(s: Setup, ms = 100): void {
  s.lb.clock.advance(ms);
  s.ins.flush();
}

describe('inspector renderer', () => {
  test('handshake: ready (with the messages version), then the snapshot fills the store', () => {
    const { lb, ins, app } = shared;
    const ready = lb.of('ready');
    assert.equal(ready.length, 1);
    assert.equal(ready[0].version, INSPECTOR_MESSAGES_VERSION);
    assert.equal(ready[0].state, null);
    assert.equal(lb.hostOf('snapshot').length, 1);
    assert.equal(ins.store.types.size, app.model.typeCount);
    assert.equal(ins.store.timeline.size, app.model.timeline.size);
  });

  test('graph: buses, types and subscribers are nodes; same-site subscriptions are one node with a count', () => {
    const { doc } = shared;
    assert.deepEqual(
      rows(doc, '[data-kind=bus]').map((r) => r.dataset.bus),
      ['gameplay', 'ui'],
    );
    for (const t of ['health.changed', 'damage.taken', 'tooltip.show', NAMED.typoType, 'menu.opened']) {
      assert.ok(rows(doc, `[data-kind=type][data-type="${t}"]`).length === 1, `type ${t} is a node`);
    }
    const tooltip = row(doc, 'Tooltip', 'group');
    assert.match(tooltip.getAttribute('aria-label')!, /120 subscriptions/);
    assert.equal(tooltip.dataset.bus, 'ui');
  });

  test('graph: leaking and owner-gone subscribers in the warning colour, starved and never-called dimmed, throwing in the error colour', () => {
    const { doc } = shared;
    assert.equal(row(doc, 'Tooltip', 'group').dataset.tone, 'warning');
    assert.equal(row(doc, 'SettingsPanel.layout', 'group').dataset.tone, 'warning');
    assert.equal(row(doc, 'DebugLogger', 'group').dataset.tone, 'dim');
    assert.equal(row(doc, 'MenuSounds', 'group').dataset.tone, 'dim');
    assert.equal(row(doc, 'Achievements', 'group').dataset.tone, 'error');
    assert.equal(row(doc, 'HealthBar', 'group').dataset.tone, 'normal');
    // The typo'd event is a warned type.
    assert.equal(rows(doc, `[data-type="${NAMED.typoType}"]`)[0].dataset.tone, 'warning');
  });

  test('timeline: a lane per dispatched type, dispatch counts and markers (error, consumed, depth limit, drops) in view', () => {
    const { doc, ins, app } = shared;
    const lanes = [...doc.querySelectorAll<HTMLElement>('[data-testid=timeline-lanes] .lane-label')].map((e) => e.dataset.type);
    for (const t of ['health.changed', 'damage.taken', 'tick', 'tooltip.show', 'chain.step']) assert.ok(lanes.includes(t), `lane ${t}`);
    assert.ok(!lanes.includes('menu.opened'), 'never-dispatched types have no lane');
    ins.timeline.fitAll();
    ins.flush();
    const summary = doc.querySelector<HTMLElement>('[data-testid=timeline-summary]')!;
    assert.equal(Number(summary.dataset.inView), app.model.timeline.size);
    assert.match(summary.textContent!, /dispatches in view/);
    const kinds = new Set(ins.timeline.markersInView().map((m) => m.kind));
    for (const k of ['error', 'consumed', 'depth-limit', 'drop'] as const) assert.ok(kinds.has(k), `marker ${k} in view`);
  });

  test('timeline: nested dispatches sit in their top-level ancestor’s lane, one row down per depth', () => {
    const { ins } = shared;
    const tl = ins.store.timeline;
    const ring = tl.dispatches;
    let nested = 0;
    for (let k = 0; k < ring.size; k++) {
      const i = ring.physicalIndex(k);
      if (ring.depth[i] === 0) continue;
      nested++;
      // Walk up to the top-level ancestor through parentSeq.
      let p = i;
      while (ring.depth[p] > 0) {
        const up = tl.indexOfSeq(ring.parentSeq[p]);
        assert.ok(up >= 0);
        p = up;
      }
      assert.equal(tl.laneOf(i), ring.typeIndex[p]);
    }
    assert.ok(nested > 10, `fixture has nested dispatches (${nested})`);
  });

  test('warnings: grouped by kind, with explanation, evidence and source links', () => {
    const { doc } = shared;
    const kinds = [...doc.querySelectorAll<HTMLElement>('[data-testid=warnings] .warning-group')].map((g) => g.dataset.kind);
    for (const k of [
      'listener-growth',
      'starved-subscriber',
      'unheard-dispatch',
      'throwing-handler',
      'depth-limit-storm',
      'slow-handler',
      'owner-gone-still-registered',
      'dead-owner-listeners',
      'never-dispatched',
    ]) {
      assert.ok(kinds.includes(k), `group ${k}`);
    }
    // Errors first.
    assert.ok(['throwing-handler', 'depth-limit-storm'].includes(kinds[0]!));
    const leak = doc.querySelector<HTMLElement>('article.warning[data-kind=listener-growth]')!;
    assert.match(leak.querySelector('.explanation')!.textContent!, /\S/);
    assert.match(leak.querySelector('.evidence')!.textContent!, /120 live listeners/);
    assert.match(leak.querySelector('.evidence')!.textContent!, /tooltips\.ts:42/);
    const typo = doc.querySelector<HTMLElement>('article.warning[data-kind=unheard-dispatch]')!;
    assert.match(typo.textContent!, /did you mean health\.changed/);
  });

  test('warnings: a source link opens the file at its line; Focus highlights the subjects in graph and timeline', () => {
    const { doc, lb, ins } = setup();
    const leak = doc.querySelector<HTMLElement>('article.warning[data-kind=listener-growth]')!;
    click(leak.querySelector(`button.link[data-file="${NAMED.leakSite.file}"]`)!);
    assert.deepEqual(lb.of('openSource').at(-1), { type: 'openSource', file: NAMED.leakSite.file, line: 42, column: 7 });
    click(leak.querySelector('.focus-btn')!);
    ins.flush();
    const id = doc.querySelector<HTMLElement>('article.warning[data-kind=listener-growth]')!.dataset.warningId;
    assert.equal(lb.of('focusWarning').at(-1)?.warningId, id);
    const focused = ins.graphView.focused!;
    const tooltipNode = row(doc, 'Tooltip', 'group').dataset.key!;
    const tooltipType = rows(doc, '[data-type="tooltip.show"]')[0].dataset.key!;
    assert.ok(focused.has(tooltipNode) && focused.has(tooltipType));
    assert.ok(!focused.has(row(doc, 'HealthBar', 'group').dataset.key!));
    assert.match(doc.querySelector('.focus-chip')!.textContent!, /tooltip\.show/);
    // Escape leaves focus mode.
    key(doc.querySelector('[data-testid=inspector]')!, 'Escape');
    ins.flush();
    assert.equal(ins.graphView.focused, null);
    assert.equal(lb.of('focusWarning').at(-1)?.warningId, null);
  });

  test('node list: click selects, double-click opens the subscribe site; the model answers "why didn’t it run?"', () => {
    const { doc, lb, ins, app } = setup();
    click(row(doc, 'DebugLogger', 'group'));
    assert.deepEqual(lastSelect(lb), { kind: 'subscription', id: subId(app, 'DebugLogger') });
    ins.flush();
    const why = doc.querySelector<HTMLElement>('[data-testid=why]')!;
    assert.equal(why.dataset.verdict, 'consumed-earlier');
    assert.match(why.querySelector('.why-headline')!.textContent!, /Shield/);
    dblclick(row(doc, 'HealthBar', 'group'));
    assert.deepEqual(lb.of('openSource').at(-1), { type: 'openSource', file: '/app/src/ui/hud.ts', line: 18, column: 5 });
    // An aggregated node selects the group.
    click(row(doc, 'Tooltip', 'group'));
    const g = lastSelect(lb);
    assert.equal(g?.kind, 'group');
    assert.equal(g?.kind === 'group' ? g.subscriptions.length : 0, NAMED.leakCount);
  });

  test('node list keyboard: arrows move, Space selects, Enter opens, Enter/← → on a bus collapse and expand it', () => {
    const { doc, lb, ins, app } = setup();
    const list = doc.querySelector<HTMLElement>('[data-testid=node-list]')!;
    key(list, 'Home');
    assert.equal(list.getAttribute('aria-activedescendant'), rows(doc, '[data-kind=bus][data-bus=gameplay]')[0].id);
    key(list, 'Enter'); // collapse gameplay
    ins.flush();
    const bus = rows(doc, '[data-kind=bus][data-bus=gameplay]')[0];
    assert.equal(bus.getAttribute('aria-expanded'), 'false');
    assert.equal(rows(doc, '[data-type="health.changed"]').length, 0);
    key(list, 'ArrowRight'); // expand again
    ins.flush();
    assert.equal(rows(doc, '[data-kind=bus][data-bus=gameplay]')[0].getAttribute('aria-expanded'), 'true');
    // Walk down to HealthBar: bus, then types in name order; find its index and step there.
    const target = row(doc, 'HealthBar', 'group');
    const steps = Number(target.dataset.index);
    for (let i = 0; i < steps; i++) key(list, 'ArrowDown');
    assert.equal(list.getAttribute('aria-activedescendant'), target.id);
    lb.fromWebview.length = 0;
    key(list, ' ');
    assert.deepEqual(lastSelect(lb), { kind: 'subscription', id: subId(app, 'HealthBar') });
    key(list, 'Enter');
    assert.equal(lb.of('openSource').at(-1)?.file, '/app/src/ui/hud.ts');
  });

  test('graph canvas: click on a node selects it, double-click opens its source', () => {
    const { doc, lb, ins, app } = setup();
    const key_ = row(doc, 'HealthBar', 'group').dataset.key!;
    const pt = ins.graphView.clientPointOf(key_)!;
    const canvas = doc.querySelector<HTMLCanvasElement>('[data-testid=graph-canvas]')!;
    click(canvas, { clientX: pt.x, clientY: pt.y });
    assert.deepEqual(lastSelect(lb), { kind: 'subscription', id: subId(app, 'HealthBar') });
    dblclick(canvas, { clientX: pt.x, clientY: pt.y });
    assert.equal(lb.of('openSource').at(-1)?.file, '/app/src/ui/hud.ts');
    ins.flush();
    assert.equal(ins.graphView.selected, key_);
  });

  test('timeline: clicking a dispatch selects it and shows its handlers in order and who consumed it', () => {
    const { doc, lb, ins, app } = setup();
    // A damage.taken dispatch: Shield consumes it, DebugLogger never runs.
    const tl = ins.store.timeline;
    const ring = tl.dispatches;
    const damage = ins.store.typeIndexOf(1, 'damage.taken');
    let seq = 0;
    for (let k = ring.size - 1; k >= 0 && !seq; k--) {
      const i = ring.physicalIndex(k);
      if (ring.typeIndex[i] === damage && ring.depth[i] === 0) seq = ring.seq[i];
    }
    assert.ok(seq > 0);
    const i = tl.indexOfSeq(seq);
    ins.timeline.setView(ring.start[i] - ring.duration[i], ring.start[i] + ring.duration[i] * 2);
    ins.flush();
    const pt = ins.timeline.clientPointOfSeq(seq)!;
    click(doc.querySelector('[data-testid=timeline-canvas]')!, { clientX: pt.x, clientY: pt.y });
    assert.deepEqual(lastSelect(lb), { kind: 'dispatch', seq });
    ins.flush();
    const details = doc.querySelector<HTMLElement>('[data-testid=details]')!;
    assert.match(details.textContent!, /Consumed by\s*Shield/);
    const handlers = [...details.querySelectorAll('[data-testid=dispatch-handlers] li')].map((li) => li.textContent);
    assert.equal(handlers.length, 1);
    assert.match(handlers[0]!, /Shield.*consumed it/);
    assert.match(details.textContent!, /Payload not captured/);
    assert.equal(lb.hostOf('details').at(-1)?.details.kind, 'dispatch');
    void app;
  });

  test('live deltas: new data and new subscriptions arrive without losing the selection or moving existing nodes', () => {
    const s = setup();
    const { doc, lb, ins, app } = s;
    click(row(doc, 'HealthBar', 'group'));
    ins.flush();
    const before = new Map(ins.graphModel()!.nodes.map((n) => [n.key, n.row]));
    const dispatchesBefore = ins.store.timeline.size;
    app.addLateSubscriptions(3);
    app.run(200);
    app.analyzer.run();
    pump(s);
    assert.ok(lb.hostOf('delta').length >= 1, 'a delta was sent');
    assert.equal(ins.store.timeline.size, app.model.timeline.size);
    assert.ok(ins.store.timeline.size > dispatchesBefore);
    const late = row(doc, 'LateListener', 'group');
    assert.match(late.getAttribute('aria-label')!, /3 subscriptions/);
    for (const n of ins.graphModel()!.nodes) {
      if (before.has(n.key)) assert.equal(n.row, before.get(n.key), `${n.key} kept its place`);
    }
    assert.deepEqual(ins.state().selection, { kind: 'subscription', id: subId(app, 'HealthBar') });
    assert.equal(row(doc, 'HealthBar', 'group').getAttribute('aria-selected'), 'true');
  });

  test('the host paces deltas (≤ 30/s) and sends none while the panel is hidden', () => {
    const s = setup();
    const { lb, app } = s;
    const start = lb.hostOf('delta').length;
    for (let t = 0; t < 1000; t += 5) {
      app.run(2, false);
      s.lb.clock.advance(5);
    }
    const sent = lb.hostOf('delta').length - start;
    assert.ok(sent >= 20 && sent <= 31, `${sent} deltas in one second`);
    lb.connection.setVisible(false);
    const hidden = lb.hostOf('delta').length;
    for (let t = 0; t < 500; t += 5) {
      app.run(2, false);
      s.lb.clock.advance(5);
    }
    assert.equal(lb.hostOf('delta').length, hidden, 'nothing while hidden');
    lb.connection.setVisible(true);
    s.lb.clock.advance(50);
    assert.equal(lb.hostOf('delta').length, hidden + 1, 'one catch-up delta when shown');
    s.ins.flush();
    assert.equal(s.ins.store.timeline.size, app.model.timeline.size);
  });

  test('a missed delta makes the webview ask for a snapshot and resynchronise', () => {
    const s = setup();
    const { lb, ins, app } = s;
    app.run(10);
    pump(s);
    const seq = ins.store.lastDeltaSeq;
    lb.inject({ type: 'delta', delta: { seq: seq + 5, now: 1e9 } });
    assert.equal(lb.of('requestSnapshot').length, 1);
    assert.equal(lb.hostOf('snapshot').length, 2, 'the host answered with a snapshot');
    app.run(10);
    pump(s);
    assert.equal(ins.store.timeline.size, app.model.timeline.size);
  });

  test('session states are shown plainly: empty (with actions), connecting, attached, paused, detached, dropped records', () => {
    const s = setup(null);
    const { doc, lb, ins, source } = s;
    const banner = (): HTMLElement => doc.querySelector<HTMLElement>('[data-testid=session-banner]')!;
    assert.equal(banner().dataset.phase, 'empty');
    assert.match(banner().textContent!, /No app attached/);
    click(banner().querySelector('[data-command=attach]')!);
    click(banner().querySelector('[data-command=runDemo]')!);
    assert.deepEqual(lb.commands, ['busscope.attach', 'busscope.runDemo']);
    const app = new FixtureApp();
    source.phases.set(app.opts.sessionId, 'connecting');
    source.add(app);
    ins.flush();
    assert.equal(banner().dataset.phase, 'connecting');
    assert.match(banner().textContent!, /Connecting to fixture-app/);
    source.setPhase(app.opts.sessionId, 'attached');
    ins.flush();
    assert.equal(banner().dataset.phase, 'attached');
    assert.match(banner().textContent!, /Attached to fixture-app/);
    const dropped = banner().querySelector<HTMLElement>('[data-testid=dropped]')!;
    assert.equal(Number(dropped.dataset.dropped), app.model.drops.records);
    assert.match(dropped.textContent!, /records dropped/);
    source.setPhase(app.opts.sessionId, 'paused');
    ins.flush();
    assert.match(banner().textContent!, /paused in the debugger/);
    source.setPhase(app.opts.sessionId, 'detached');
    ins.flush();
    assert.equal(banner().dataset.phase, 'detached');
    assert.match(banner().textContent!, /Detached from fixture-app \(pid \d+\)\. The app exited\. Showing/);
    source.remove(app.opts.sessionId);
    ins.flush();
    assert.equal(banner().dataset.phase, 'empty');
    assert.equal(ins.store.subscriptions.size, 0);
  });

  test("a detached browser app's page offers Accept Browser Apps and a reload, not Attach to Running App…", () => {
    const s = setup(null);
    const { doc, lb, ins, source } = s;
    const banner = (): HTMLElement => doc.querySelector<HTMLElement>('[data-testid=session-banner]')!;
    const page = new FixtureApp();
    source.browsers.add(page.opts.sessionId);
    source.phases.set(page.opts.sessionId, 'detached');
    source.add(page);
    ins.flush();
    assert.equal(banner().dataset.phase, 'detached');
    assert.match(banner().textContent!, /Reload the page to connect it again/);
    assert.equal(banner().querySelector('[data-command=attach]'), null, 'a page cannot be attached to from the app list');
    click(banner().querySelector('[data-command=acceptBrowserApps]')!);
    assert.deepEqual(lb.commands, ['busscope.acceptBrowserApps']);
  });

  test('brushing a range asks the model for its statistics; Export posts exportRangeStats', async () => {
    const { doc, lb, ins, app } = setup();
    const from = app.model.timeline.start[app.model.timeline.physicalIndex(100)];
    const to = from + 3000;
    ins.timeline.setBrush({ from, to });
    const req = lb.of('rangeStats').at(-1)!;
    assert.equal(req.from, from);
    assert.equal(req.to, to);
    ins.flush();
    const panel = doc.querySelector<HTMLElement>('[data-testid=range-stats]')!;
    assert.equal(panel.hidden, false);
    assert.equal(panel.dataset.state, 'ready');
    const expected = app.feed.rangeStats(from, to);
    assert.equal(Number(panel.dataset.dispatches), expected.dispatches);
    assert.match(panel.textContent!, /Busiest types/);
    click([...panel.querySelectorAll('button')].find((b) => b.textContent === 'Export…')!);
    assert.deepEqual(lb.of('exportRangeStats').at(-1), { type: 'exportRangeStats', from, to });
    await new Promise((r) => setTimeout(r, 0));
    ins.flush();
    assert.match(doc.querySelector('[data-testid=range-stats]')!.textContent!, /Saved \d+ dispatches/);
    click([...doc.querySelectorAll<HTMLElement>('[data-testid=range-stats] button')].find((b) => b.textContent === 'Clear')!);
    ins.flush();
    assert.equal(doc.querySelector<HTMLElement>('[data-testid=range-stats]')!.hidden, true);
  });

  test('filters by text and by bus apply to the graph, the node list and the timeline lanes', () => {
    const { doc, ins } = setup();
    ins.setFilter('tooltip');
    ins.flush();
    assert.deepEqual(
      rows(doc, '[data-kind=type]').map((r) => r.dataset.type),
      ['tooltip.show'],
    );
    const lanes = [...doc.querySelectorAll<HTMLElement>('.lane-label')].map((e) => e.dataset.type);
    assert.deepEqual(lanes, ['tooltip.show']);
    // A subscriber's label finds its type.
    ins.setFilter('debuglogger');
    ins.flush();
    assert.deepEqual(
      rows(doc, '[data-kind=type]').map((r) => r.dataset.type),
      ['damage.taken'],
    );
    assert.deepEqual(
      rows(doc, '[data-kind=group]').map((r) => r.querySelector('.node-label')!.textContent),
      ['DebugLogger'],
    );
    ins.setFilter('', 'ui');
    ins.flush();
    assert.deepEqual(new Set(rows(doc).map((r) => r.dataset.bus)), new Set(['ui']));
  });

  test('view state is reported for vscode.setState (a burst of changes once, 250 ms after the first) and restored by a new renderer', () => {
    const clock = new ManualClock();
    const { dom, lb, ins, app } = setup(new FixtureApp(), { clock });
    const states: unknown[] = [];
    ins.onDidChangeState((s) => states.push(s));
    ins.setFilter('health');
    click(row(dom.document, 'HealthBar', 'group'));
    ins.timeline.setBrush({ from: 20_000, to: 21_000 });
    clock.advance(249);
    assert.equal(states.length, 0, 'not reported before 250 ms');
    clock.advance(1);
    const state = ins.state();
    assert.equal(states.length, 1, 'the filter, the selection and the brush reported together');
    assert.deepEqual(states.at(-1), state);
    assert.equal(state.filterText, 'health');
    assert.equal(state.sessionId, app.opts.sessionId);
    // A reload: a fresh page with the saved state.
    const dom2 = createDom();
    const lb2 = loopback(new FixtureSource(app));
    const ins2 = createInspector(dom2.root, lb2.port, { state });
    ins2.flush();
    open.push({ dom: dom2, doc: dom2.document, app, source: new FixtureSource(), lb: lb2, ins: ins2 });
    assert.deepEqual(lb2.of('ready')[0].state, state);
    assert.equal(dom2.document.querySelector<HTMLInputElement>('[data-testid=filter]')!.value, 'health');
    assert.deepEqual(ins2.state().selection, state.selection);
    assert.equal(row(dom2.document, 'HealthBar', 'group').getAttribute('aria-selected'), 'true');
    assert.deepEqual(ins2.timeline.currentBrush, { from: 20_000, to: 21_000 });
    void lb;
  });

  test('warnings keyboard: ↑/↓ move between warnings, Enter focuses one, Enter again unfocuses', () => {
    const { doc, lb, ins } = setup();
    const items = (): HTMLElement[] => [...doc.querySelectorAll<HTMLElement>('article.warning')];
    items()[0].focus();
    key(items()[0], 'ArrowDown');
    assert.equal(doc.activeElement, items()[1]);
    key(items()[1], 'ArrowUp');
    assert.equal(doc.activeElement, items()[0]);
    key(items()[0], 'End');
    const last = items().at(-1)!;
    assert.equal(doc.activeElement, last);
    const id = last.dataset.warningId!;
    key(last, 'Enter');
    ins.flush();
    assert.equal(lb.of('focusWarning').at(-1)?.warningId, id);
    assert.ok(ins.graphView.focused !== null);
    // The list re-rendered; focus stays on the same warning.
    assert.equal((doc.activeElement as HTMLElement).dataset.warningId, id);
    key(doc.activeElement!, ' ');
    ins.flush();
    assert.equal(lb.of('focusWarning').at(-1)?.warningId, null);
  });

  test('reveal from the extension selects and shows the target', () => {
    const { lb, ins, app } = setup();
    lb.connection.reveal({ kind: 'subscription', id: subId(app, 'Score') });
    ins.flush();
    assert.deepEqual(ins.state().selection, { kind: 'subscription', id: subId(app, 'Score') });
  });
});
