// Snapshot on pause with a real debugger: while the app is stopped its probe socket is silent, yet
// the state read by evaluating the probe's snapshot in the paused context (the very expression and
// decoder the extension sends through the debug session) equals what the app itself says — every
// live subscription, the listener counts, and the dispatch in progress (which dispatch, which handler,
// at what depth) — at an event breakpoint and at an ordinary line breakpoint inside a handler.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { describeDispatchStack, readPausedState, type PausedState } from '../../../extension/src/debugging/pausedState';
import type { ProbeSnapshot } from '../../../runtime-probe/src/protocol/index';
import { cleanup, connect, debuggedApp, DEBUG_APP, sleep, type Cdp, type CallFrame } from './helpers';

after(cleanup);

interface Truth {
  readonly pid: number;
  readonly subscriptions: { id: number; bus: string; type: string; label: string | null; priority: number; calls: number }[];
  readonly listeners: Record<string, number>;
  readonly subs: Record<string, number>;
}

function busName(s: ProbeSnapshot, id: number): string {
  return s.buses.find((b) => b.id === id)?.name ?? `?${id}`;
}

/** The snapshot in the app's own terms, for comparing with `truth()`. */
function asTruth(s: ProbeSnapshot): Pick<Truth, 'subscriptions' | 'listeners'> {
  const listeners: Record<string, number> = {};
  for (const t of s.types) if (t.listeners > 0) listeners[`${busName(s, t.bus)}/${t.type}`] = t.listeners;
  return {
    subscriptions: s.subscriptions.map((x) => ({ id: x.id, bus: busName(s, x.bus), type: x.type, label: x.label, priority: x.priority, calls: x.calls })),
    listeners,
  };
}

async function stateAt(cdp: Cdp, frame: CallFrame, chunk?: number): Promise<PausedState> {
  return readPausedState((expression) => cdp.evaluateOnFrame<string>(frame, expression), chunk);
}

describe('snapshot on pause, evaluated by a real debugger in the paused context', () => {
  test("at an event breakpoint inside a handler's dispatch: equals the app's state, with the dispatch in progress", async () => {
    const { app, cdp } = await debuggedApp();
    const { client } = await connect(app.info!);
    await client.breakOn(['combat.damage']);

    // round.start's handler (RoundDirector) dispatches combat.damage: the break is one level down.
    const done = app.call<number>('round', { round: 2 }, 30_000);
    const paused = await cdp.pause(0);
    const top = paused.callFrames[0];
    const state = await stateAt(cdp, top);
    const truth = JSON.parse(await cdp.evaluateOnFrame<string>(top, 'globalThis.__fixture.truth()')) as Truth;

    assert.equal(state.pid, app.pid);
    assert.ok(state.snapshot !== null);
    const snapshot = state.snapshot;
    assert.deepEqual(asTruth(snapshot), { subscriptions: truth.subscriptions, listeners: truth.listeners }, 'subscriptions and listener counts');
    assert.deepEqual(snapshot.breakOn, ['combat.damage']);
    assert.equal(snapshot.truncated, false);
    // The dispatch in progress: round.start at depth 0, inside RoundDirector's handler.
    assert.deepEqual(
      snapshot.dispatching.map((f) => ({ bus: busName(snapshot, f.bus), type: f.type, depth: f.depth, subscriptionId: f.subscriptionId })),
      [{ bus: 'combat', type: 'round.start', depth: 0, subscriptionId: truth.subs.director }],
    );
    assert.ok(snapshot.dispatching[0].seq > 0);
    // …and the dispatch it stopped at, with its payload.
    assert.deepEqual(state.eventBreak, { busId: 1, bus: 'combat', type: 'combat.damage', payload: JSON.stringify({ target: 'boss', amount: 20 }) });
    assert.equal(
      describeDispatchStack(state, (id) => snapshot.subscriptions.find((s) => s.id === id)?.label ?? undefined),
      `round.start (in RoundDirector #${truth.subs.director}) → combat.damage (about to dispatch)`,
    );

    // The transport in small chunks gives the same state (big apps) and leaves nothing behind.
    const chunked = await stateAt(cdp, top, 64);
    assert.deepEqual({ ...chunked, snapshot: { ...chunked.snapshot, time: 0 } }, { ...state, snapshot: { ...snapshot, time: 0 } });
    assert.equal(await cdp.evaluateOnFrame(top, "Symbol.for('busscope.pausedState') in globalThis"), false);

    // Meanwhile the probe's socket cannot answer: a snapshot request waits for the app to run.
    let answered = false;
    const viaSocket = client.requestSnapshot().then((s) => {
      answered = true;
      return s;
    });
    await sleep(400);
    assert.equal(answered, false, 'the socket is silent while the app is paused');
    await cdp.send('Debugger.resume');
    const after = await viaSocket;
    assert.equal(await done, 1);
    assert.deepEqual(
      after.subscriptions.map((s) => s.id),
      snapshot.subscriptions.map((s) => s.id),
      'the same subscriptions once it runs again',
    );
    assert.deepEqual(after.dispatching, [], 'nothing in progress once the round is over');
  });

  test('at a line breakpoint in a handler: the dispatch stack names both dispatches, the running handler and the depth', async () => {
    const { app, cdp } = await debuggedApp();
    await connect(app.info!); // a client records, as when Busscope is attached
    const lines = fs.readFileSync(DEBUG_APP, 'utf8').split('\n');
    const lineNumber = lines.findIndex((l) => l.includes('damageTaken += p.amount;'));
    assert.ok(lineNumber > 0);
    const bp = await cdp.send<{ breakpointId: string }>('Debugger.setBreakpointByUrl', { lineNumber, urlRegex: 'debug-app\\.cjs$' });

    const done = app.call<number>('round', { round: 1 }, 30_000);
    const paused = await cdp.pause(0);
    assert.equal(paused.reason, 'other');
    const state = await stateAt(cdp, paused.callFrames[0]);
    const truth = JSON.parse(await cdp.evaluateOnFrame<string>(paused.callFrames[0], 'globalThis.__fixture.truth()')) as Truth;
    const s = state.snapshot!;
    assert.equal(state.eventBreak, null, 'not an event breakpoint');
    assert.deepEqual(
      s.dispatching.map((f) => ({ type: f.type, depth: f.depth, subscriptionId: f.subscriptionId })),
      [
        { type: 'round.start', depth: 0, subscriptionId: truth.subs.director },
        { type: 'combat.damage', depth: 1, subscriptionId: truth.subs.healthBar },
      ],
    );
    assert.deepEqual(asTruth(s), { subscriptions: truth.subscriptions, listeners: truth.listeners });
    await cdp.send('Debugger.removeBreakpoint', { breakpointId: bp.breakpointId });
    await cdp.send('Debugger.resume');
    assert.equal(await done, 1);
  });

  test('a process without the probe says so instead of failing', async () => {
    const { app, cdp } = await debuggedApp({ probe: 'none' });
    const self = app.call('selfPause', {}, 15_000);
    const paused = await cdp.pause(0);
    const state = await stateAt(cdp, paused.callFrames[0]);
    // The package is loaded (the fixture requires it) but never started: a snapshot of the buses still works.
    assert.equal(state.pid, app.pid);
    assert.ok(state.snapshot !== null && state.snapshot.subscriptions.length === 6);
    assert.equal(state.snapshot.recording, false);
    // A context without the package at all: evaluate in a fresh vm context.
    const bare = await readPausedState(async (expression) => {
      const r = await cdp.evaluateOnFrame<string>(
        paused.callFrames[0],
        `process.mainModule.require('node:vm').runInNewContext(${JSON.stringify(expression)}, { Buffer })`,
      );
      return r;
    }).catch((e: Error) => e);
    assert.ok(!(bare instanceof Error), bare instanceof Error ? bare.message : '');
    assert.equal((bare as PausedState).snapshot, null);
    assert.equal((bare as PausedState).pid, null);
    await cdp.send('Debugger.resume');
    await self;
  });
});
