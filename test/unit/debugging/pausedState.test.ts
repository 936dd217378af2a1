// The state read from a paused app is checked as strictly as the probe's `snapshot` message (one
// validator, protocol/probe-messages.ts): a snapshot whose lists hold a malformed element is refused
// with the element and field named, instead of being handed to the trees as a ProbeSnapshot.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { parsePausedState, PausedStateError } from '../../../extension/src/debugging/pausedState';

const bus = new EventBus<{ 'paused.ping': { n: number } }>({ name: 'paused-state-test' });
const sub = bus.subscribe('paused.ping', () => undefined, { label: 'pinger', priority: 3 });
after(() => {
  sub.dispose();
  bus.dispose();
});

/** The JSON the paused-state expression builds in the debuggee, around the given snapshot. */
function stateJson(snapshot: unknown): string {
  return JSON.stringify({ v: 1, pid: process.pid, snapshot, eventBreak: null, conditionErrors: {} });
}

/** The app's real snapshot, as plain JSON (what the debuggee sends). */
function realSnapshot(): Record<string, unknown> & { subscriptions: Record<string, unknown>[]; buses: Record<string, unknown>[] } {
  return JSON.parse(JSON.stringify(probe.snapshot())) as ReturnType<typeof realSnapshot>;
}

test('a real snapshot reads back as it was', () => {
  const snapshot = realSnapshot();
  const state = parsePausedState(stateJson(snapshot));
  assert.equal(state.pid, process.pid);
  const mine = state.snapshot?.subscriptions.find((s) => s.label === 'pinger');
  assert.ok(mine, 'the subscription is in the snapshot');
  assert.equal(mine.type, 'paused.ping');
  assert.equal(mine.priority, 3);
});

test('a subscription whose field has the wrong type is refused, naming the element and field', () => {
  const snapshot = realSnapshot();
  const at = snapshot.subscriptions.findIndex((s) => s.label === 'pinger');
  snapshot.subscriptions[at] = { ...snapshot.subscriptions[at], type: 42 };
  assert.throws(
    () => parsePausedState(stateJson(snapshot)),
    (e: unknown) => e instanceof PausedStateError && new RegExp(`subscriptions\\[${at}\\]\\.type`).test(e.message),
  );
});

test('list elements that are not objects, or lack a field, are refused', () => {
  const withNull = { ...realSnapshot(), buses: [null] };
  assert.throws(
    () => parsePausedState(stateJson(withNull)),
    (e: unknown) => e instanceof PausedStateError && /buses\[0\]/.test(e.message),
  );
  const frameless = { ...realSnapshot(), dispatching: [{ seq: 1, bus: 1, type: 'paused.ping', depth: 0, start: 0 }] };
  assert.throws(
    () => parsePausedState(stateJson(frameless)),
    (e: unknown) => e instanceof PausedStateError && /dispatching\[0\]\.subscriptionId/.test(e.message),
  );
  const badBreak = { ...realSnapshot(), breakOn: [7] };
  assert.throws(
    () => parsePausedState(stateJson(badBreak)),
    (e: unknown) => e instanceof PausedStateError && /breakOn\[0\]/.test(e.message),
  );
});

test('no probe in the paused app: the snapshot is null, not an error', () => {
  assert.equal(parsePausedState(stateJson(null)).snapshot, null);
});
