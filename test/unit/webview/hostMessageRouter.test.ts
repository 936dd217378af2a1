// The inspector's message router: every kind of host message reaches its own handler, once, as
// sent; anything else is reported as dropped and reaches no handler.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostToWebview } from '../../../runtime-probe/src/analysis/inspector-messages';
import { routeHostMessage, type HostMessageHandlers } from '../../../webview/src/hostMessageRouter';

/** One of each kind: a kind added to HostToWebview fails to compile here until it is listed. */
const ONE_OF_EACH: { readonly [K in HostToWebview['type']]: Extract<HostToWebview, { readonly type: K }> } = {
  snapshot: { type: 'snapshot', snapshot: {} as never },
  delta: { type: 'delta', delta: {} as never },
  session: { type: 'session', session: {} as never },
  details: { type: 'details', details: {} as never },
  reveal: { type: 'reveal', target: { kind: 'bus', id: 1 } },
  rangeStats: { type: 'rangeStats', requestId: 3, stats: null },
  exported: { type: 'exported', ok: true, message: 'saved' },
  breakpoints: { type: 'breakpoints', types: ['a'] },
};

function recordingHandlers(): { handlers: HostMessageHandlers; calls: [string, unknown][] } {
  const calls: [string, unknown][] = [];
  const handlers = Object.fromEntries(
    Object.keys(ONE_OF_EACH).map((kind) => [kind, (msg: unknown) => calls.push([kind, msg])]),
  ) as unknown as HostMessageHandlers;
  return { handlers, calls };
}

test('each kind of host message goes to its own handler, once, with the message as sent', () => {
  for (const [kind, msg] of Object.entries(ONE_OF_EACH)) {
    const { handlers, calls } = recordingHandlers();
    const dropped: string[] = [];
    routeHostMessage(msg, handlers, (m) => dropped.push(m));
    assert.deepEqual(calls, [[kind, msg]], kind);
    assert.deepEqual(dropped, [], kind);
  }
});

test('a message of no known kind (or no message at all) is dropped with what it was, and no handler runs', () => {
  for (const bad of [{ type: 'nonsense' }, { type: 42 }, null, 'snapshot', { snapshot: {} }]) {
    const { handlers, calls } = recordingHandlers();
    const dropped: [string, string][] = [];
    routeHostMessage(bad, handlers, (m, reason) => dropped.push([m, reason]));
    assert.deepEqual(calls, []);
    assert.equal(dropped.length, 1, JSON.stringify(bad));
    assert.match(dropped[0][1], /not a message this inspector page knows/);
  }
});
