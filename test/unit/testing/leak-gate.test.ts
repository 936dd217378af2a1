// The leak gate (`busscope-probe/testing`) in-process, with the real bus, recorder and trace file:
// a clean test passes; a subscription left behind, a dead owner's listener, or a sibling left
// registered after its owner tore down each fail with the finding's text and the subscribe site.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { LeakError, LeakGate, leakGateHooks, withLeakGate } from '../../../runtime-probe/src/testing/index';

interface Events {
  tick: number;
  'user.saved': { id: number };
  'user.deleted': { id: number };
}

/** A long-lived bus, as an app's shared bus is: created before the gate starts. */
const shared = new EventBus<Events>({ name: 'shared', onError: () => undefined });
const baseline = shared.subscribe('tick', () => undefined, { label: 'ExistingBefore' });

class Panel {
  disposed = false;
  constructor(readonly name: string) {}
}

test('a test that disposes what it subscribed passes; what existed before is not its leak', async () => {
  const gate = LeakGate.start();
  const sub = shared.subscribe('tick', () => undefined, { label: 'Temporary' });
  shared.dispatch('tick', 1);
  sub.dispose();
  assert.deepEqual(await gate.stop(), []);
  assert.ok(baseline.active, 'the subscription made before the gate stays, and is not reported');
});

test('a subscription left registered fails with its bus, type, label and subscribe site', async () => {
  const gate = LeakGate.start();
  const left = shared.subscribe('user.saved', () => undefined, { label: 'AuditLog' });
  const leakLine = currentLine() - 1; // the subscribe, one line up
  const error = await gate.check().then(
    () => undefined,
    (e: unknown) => e,
  );
  left.dispose();
  assert.ok(error instanceof LeakError, 'check() throws a LeakError');
  assert.equal(error.findings.length, 1);
  const f = error.findings[0];
  assert.equal(f.kind, 'listener-growth');
  assert.match(f.title, /1 subscription to "user\.saved" on bus "shared" made during this test is still registered at its end/);
  assert.match(f.explanation, /Handler AuditLog/);
  assert.equal(f.sites.length, 1);
  assert.match(f.sites[0].file, /leak-gate\.test\.ts$/);
  assert.equal(f.sites[0].line, leakLine);
  assert.match(error.message, /^busscope leak gate: the test left 1 leak/);
  assert.match(error.message, new RegExp(`subscribed at .*leak-gate\\.test\\.ts:${leakLine}:\\d+`), 'the message names the site as path:line:column');
});

test('a bus created and disposed within the test leaves nothing, whatever was still subscribed', async () => {
  const gate = LeakGate.start();
  const local = new EventBus<Events>({ name: 'local' });
  local.subscribe('tick', () => undefined);
  local.dispose();
  assert.deepEqual(await gate.stop(), []);
});

test("dead-owner listeners fail the test with the analysis' own wording", async () => {
  const gate = LeakGate.start();
  const panel = new Panel('settings');
  shared.subscribe('tick', () => undefined, { owner: panel, label: 'PanelTick' });
  panel.disposed = true;
  shared.dispatch('tick', 2); // the bus drops the dead owner's subscription here
  const findings = await gate.stop();
  const dead = findings.find((f) => f.kind === 'dead-owner-listeners');
  assert.ok(dead, `a dead-owner finding: ${JSON.stringify(findings.map((f) => f.kind))}`);
  assert.ok(
    dead.sites.some((s) => /leak-gate\.test\.ts$/.test(s.file)),
    'at the subscribe site',
  );
  assert.ok(!findings.some((f) => f.kind === 'listener-growth'), 'the dropped subscription is not growth');
});

test('a sibling left registered after its owner disposed the other one fails (owner gone, still registered)', async () => {
  const gate = LeakGate.start({ kinds: ['owner-gone-still-registered'] });
  const editor = new Panel('editor');
  const saved = shared.subscribe('user.saved', () => undefined, { owner: editor, label: 'OnSaved' });
  const deleted = shared.subscribe('user.deleted', () => undefined, { owner: editor, label: 'OnDeleted' });
  saved.dispose(); // teardown that forgot `deleted`
  const findings = await gate.stop();
  deleted.dispose();
  assert.equal(findings.length, 1, JSON.stringify(findings));
  assert.equal(findings[0].kind, 'owner-gone-still-registered');
  assert.match(findings[0].title, /OnDeleted still registered after its owner tore down/);
});

test('kinds and ignore narrow what fails; bad options are TypeErrors', async () => {
  const gate = LeakGate.start({ ignore: (s) => s.label === 'WarmCache' });
  const cache = shared.subscribe('tick', () => undefined, { label: 'WarmCache' });
  assert.deepEqual(await gate.stop(), []);
  cache.dispose();
  assert.throws(() => LeakGate.start({ kinds: ['slow-handler' as never] }), TypeError);
  assert.throws(() => LeakGate.start({ ignore: 'x' as never }), TypeError);
});

test('the hooks and the wrapper fail the test that leaked, and only that one', async () => {
  const hooks = leakGateHooks();
  hooks.beforeEach();
  const sub = shared.subscribe('tick', () => undefined, { label: 'Leaky' });
  await assert.rejects(hooks.afterEach(), (e: unknown) => e instanceof LeakError && /Leaky/.test(e.message));
  sub.dispose();
  hooks.beforeEach();
  await hooks.afterEach();

  let kept: { dispose(): void } | undefined;
  const leaky = withLeakGate(async () => {
    kept = shared.subscribe('tick', () => undefined, { label: 'WrappedLeak' });
  });
  await assert.rejects(leaky(), (e: unknown) => e instanceof LeakError && /WrappedLeak/.test(e.message));
  kept?.dispose();
  // The test's own failure wins over the gate's verdict.
  await assert.rejects(
    withLeakGate(() => {
      throw new Error('assertion in the test');
    })(),
    /assertion in the test/,
  );
});

function currentLine(): number {
  const frame = new Error().stack?.split('\n')[2] ?? '';
  return Number(/:(\d+):\d+\)?$/.exec(frame)?.[1]);
}
