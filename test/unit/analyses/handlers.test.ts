import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

function frameApp(model: Model): StreamBuilder {
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'frame.tick', label: 'Minimap.redraw', site: site('/app/hud.ts', 70) });
  s.subscribe({ id: 2, type: 'frame.tick', label: 'Camera.smooth' });
  s.into(model);
  return s;
}

test('slow handler: p95 of self time over enough calls', () => {
  const model = new Model();
  const s = frameApp(model);
  for (let f = 0; f < 40; f++) {
    s.dispatch({
      type: 'frame.tick',
      handlers: [
        { sub: 1, duration: f % 4 === 0 ? 2.5 : 0.02 },
        { sub: 2, duration: 0.01 },
      ],
    });
    s.wait(16);
  }
  s.into(model);
  const ws = warningsOf(model, 'slow-handler');
  assert.deepEqual(
    ws.map((w) => w.subjects.subscriptions),
    [[1]],
  );
  const w = ws[0];
  assert.equal(w.evidence.calls, 40);
  assert.ok(w.evidence.p95Ms >= 2 && w.evidence.p95Ms <= 2.5, String(w.evidence.p95Ms));
  assert.ok(Math.abs(w.evidence.maxMs - 2.5) < 1e-6);
  assert.ok(w.evidence.typeRatePerSecond > 30);
  assert.match(w.title, /Minimap\.redraw/);
  assert.deepEqual(warningsOf(model, 'slow-handler', { slowHandler: { p95Ms: 3 } }), []);
  assert.deepEqual(warningsOf(model, 'slow-handler', { slowHandler: { minCalls: 41 } }), []);
});

test('slow handler: one or two preempted calls among few are not a slow handler; three are', () => {
  for (const [outliers, expected] of [
    [2, 0],
    [3, 1],
  ] as const) {
    const model = new Model();
    const s = frameApp(model);
    for (let i = 0; i < 15; i++) s.dispatch({ type: 'frame.tick', handlers: [{ sub: 2, duration: i < outliers ? 8 : 0.02 }] });
    s.into(model);
    const ws = warningsOf(model, 'slow-handler');
    assert.equal(ws.length, expected, `${outliers} slow calls of 15`);
    if (expected) assert.equal(ws[0].evidence.slowCalls, 3);
  }
});

test('slow handler: a single very long call; and a handler slow only through what it dispatches is not', () => {
  const model = new Model();
  const s = frameApp(model);
  s.subscribe({ id: 3, type: 'save', label: 'Saver' }).subscribe({ id: 4, type: 'level.end', label: 'LevelEnd' });
  s.dispatch({ type: 'save', handlers: [{ sub: 3, duration: 150 }] });
  for (let i = 0; i < 20; i++)
    s.dispatch({ type: 'level.end', handlers: [{ sub: 4, duration: 0.05, nested: [{ type: 'save', handlers: [{ sub: 3, duration: 5 }] }] }] });
  s.into(model);
  const ws = warningsOf(model, 'slow-handler');
  assert.deepEqual(
    ws.map((w) => w.subjects.subscriptions[0]),
    [3],
    'LevelEnd only waits for Saver',
  );
  assert.match(ws[0].title, /Saver/);
});

test('throwing handler: counts, last message; depth errors are left to the depth analysis', () => {
  const model = new Model();
  const s = frameApp(model);
  s.subscribe({ id: 3, type: 'sfx.play', bus: 3, label: 'Mixer.play', site: site('/app/audio.ts', 44) });
  s.dispatch({ type: 'sfx.play', bus: 3, handlers: [{ sub: 3 }] });
  s.dispatch({ type: 'sfx.play', bus: 3, handlers: [{ sub: 3, throws: 'Error: sound "x" is not in a loaded bank' }] });
  s.dispatch({ type: 'frame.tick', handlers: [{ sub: 2, throws: 'DispatchDepthError: dispatch depth limit 32 exceeded' }] });
  s.into(model);
  const ws = warningsOf(model, 'throwing-handler');
  assert.equal(ws.length, 1);
  assert.equal(ws[0].severity, 'error');
  assert.deepEqual([ws[0].evidence.errors, ws[0].evidence.calls], [1, 2]);
  assert.match(ws[0].evidence.lastMessage, /loaded bank/);
  assert.deepEqual(
    ws[0].sites.map((x) => x.line),
    [44],
  );
});

test('depth-limit storm: hits per type with the handler that recursed', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'layout.changed', bus: 2, label: 'Inventory.relayout', site: site('/app/panels.ts', 33) });
  s.subscribe({ id: 2, type: 'layout.changed', bus: 2, label: 'Other' });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'depth-limit-storm'), []);
  // depth 0 → 1 → 2, then refused at 3.
  const nest = (depth: number): { type: string; bus: number; handlers: { sub: number; throws?: string; nested?: unknown[] }[] } =>
    depth === 2
      ? { type: 'layout.changed', bus: 2, handlers: [{ sub: 1, throws: 'DispatchDepthError: depth 3 exceeds 2' }, { sub: 2 }] }
      : { type: 'layout.changed', bus: 2, handlers: [{ sub: 1, nested: [nest(depth + 1)] }, { sub: 2 }] };
  s.dispatch(nest(0) as never);
  s.depthLimit('layout.changed', 3, 3, 2);
  s.into(model);
  const [w] = warningsOf(model, 'depth-limit-storm');
  assert.ok(w);
  assert.equal(w.evidence.hits, 1);
  assert.equal(w.evidence.maxRefusedDepth, 3);
  assert.deepEqual(
    w.evidence.handlers.map((h) => [h.label, h.depthErrors]),
    [['Inventory.relayout', 1]],
  );
  assert.deepEqual(
    w.sites.map((x) => x.line),
    [33],
  );
  assert.equal(model.findType(2, 'layout.changed')?.maxDepth, 2);
  assert.deepEqual(warningsOf(model, 'depth-limit-storm', { depthLimit: { minHits: 2 } }), []);
});

test('starved subscriber: every dispatch since it subscribed consumed by an earlier subscription', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'input.key', priority: 100, label: 'DebugConsole.captureKeys', site: site('/app/input.ts', 40) });
  s.subscribe({ id: 2, type: 'input.key', priority: 0, label: 'Hotkeys.onKey', site: site('/app/input.ts', 60) });
  for (let i = 0; i < 4; i++) s.dispatch({ type: 'input.key', handlers: [{ sub: 1, consumed: true }] });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'starved-subscriber'), [], 'fewer than minDispatches');
  s.dispatch({ type: 'input.key', handlers: [{ sub: 1, consumed: true }] });
  s.into(model);
  const [w] = warningsOf(model, 'starved-subscriber');
  assert.ok(w);
  assert.deepEqual(w.subjects.subscriptions, [2, 1]);
  assert.deepEqual([w.evidence.dispatchesSinceSubscribed, w.evidence.consumedAhead], [5, 5]);
  assert.deepEqual(
    w.evidence.consumers.map((c) => [c.label, c.priority, c.consumed]),
    [['DebugConsole.captureKeys', 100, 5]],
  );
  assert.deepEqual(
    w.sites.map((x) => x.line),
    [60, 40],
  );
  assert.match(w.title, /Hotkeys\.onKey never runs/);
  // One dispatch that gets through ends the starvation.
  s.dispatch({ type: 'input.key', handlers: [{ sub: 1 }, { sub: 2 }] });
  s.into(model);
  assert.deepEqual(warningsOf(model, 'starved-subscriber'), []);
});

test('starved subscriber: consumed only sometimes is fine; counts start when it subscribed', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'hit', priority: 10, label: 'Shield' });
  s.subscribe({ id: 2, type: 'hit', priority: 0, label: 'Player' });
  s.subscribe({ id: 3, type: 'hit', priority: -5, label: 'Late' });
  for (let i = 0; i < 10; i++) s.dispatch({ type: 'hit', handlers: i % 2 ? [{ sub: 1, consumed: true }] : [{ sub: 1 }, { sub: 2, consumed: true }] });
  s.into(model);
  // Player runs on half of them: not starved. Late never runs: half of the dispatches were consumed
  // by Shield and half by Player, both ahead of it.
  assert.deepEqual(
    warningsOf(model, 'starved-subscriber').map((w) => w.subjects.subscriptions[0]),
    [3],
  );
  // A subscriber that arrives now is judged on the dispatches after it subscribed only.
  s.subscribe({ id: 4, type: 'hit', priority: -10, label: 'New' });
  for (let i = 0; i < 5; i++) s.dispatch({ type: 'hit', handlers: [{ sub: 1, consumed: true }] });
  s.into(model);
  const w = warningsOf(model, 'starved-subscriber').find((x) => x.subjects.subscriptions[0] === 4);
  assert.deepEqual(w && [w.evidence.dispatchesSinceSubscribed, w.evidence.consumedAhead], [5, 5]);
  // A consumer that runs after a subscription does not starve it.
  const after = new Model();
  const a = new StreamBuilder().welcome();
  a.subscribe({ id: 1, type: 'k', priority: 5, label: 'First' }).subscribe({ id: 2, type: 'k', priority: 1, label: 'Consumer' });
  for (let i = 0; i < 10; i++) a.dispatch({ type: 'k', handlers: [{ sub: 1 }, { sub: 2, consumed: true }] });
  a.into(after);
  assert.deepEqual(warningsOf(after, 'starved-subscriber'), []);
});
