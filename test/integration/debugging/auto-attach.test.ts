// The extension's debugging logic that needs no `vscode`, against real processes and the real
// session manager: the launch environment a debug configuration gets makes a real app start its probe
// where Busscope looks; apps are matched to debug targets by pid and by the real process tree; event
// breakpoints persist and reach every attached app's probe on every attach (checked in the app);
// a paused session reads as "paused" with its dispatch stack in the inspector's terms.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { BreakOnSync } from '../../../extension/src/debugging/breakOnSync';
import { EVENT_BREAKPOINTS_KEY, EventBreakpointStore, type BreakpointMemento } from '../../../extension/src/debugging/breakpoints';
import { conditionProblem } from '../../../extension/src/debugging/conditions';
import { injectProbeEnvironment } from '../../../extension/src/debugging/environment';
import { debugLinkText, type DebugLink } from '../../../extension/src/debugging/link';
import { ancestorsOf, linuxParentPid, matchApp, pidFromTargetName } from '../../../extension/src/debugging/matching';
import type { PausedState } from '../../../extension/src/debugging/pausedState';
import { Session } from '../../../extension/src/sessions/session';
import { inspectorSessionInfo } from '../../../extension/src/sessions/inspectorSource';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import type { ProbeSnapshot } from '../../../runtime-probe/src/protocol/index';
import { cleanup, onCleanup, spawnDebugApp, tempDir, waitFor, withTimeout } from './helpers';

after(cleanup);

class MemoryMemento implements BreakpointMemento {
  readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.data.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}

describe('auto-attach: the launch environment and matching apps to debug targets', () => {
  test("a Node launch gets BUSSCOPE=1 and the discovery folder; the user's values and attach configurations are left alone", () => {
    const launch = injectProbeEnvironment({ type: 'pwa-node', request: 'launch', program: 'app.js', env: { FOO: 'bar' } }, '/tmp/apps');
    assert.deepEqual(launch.env, { FOO: 'bar', BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: '/tmp/apps' });
    assert.equal(launch.program, 'app.js');
    const mine = injectProbeEnvironment({ type: 'node', request: 'launch', env: { BUSSCOPE: null, BUSSCOPE_DISCOVERY_DIR: '/elsewhere' } }, '/tmp/apps');
    assert.deepEqual(mine.env, { BUSSCOPE: null, BUSSCOPE_DISCOVERY_DIR: '/elsewhere' });
    const attach = { type: 'node', request: 'attach', port: 9229 };
    assert.equal(injectProbeEnvironment(attach, '/tmp/apps'), attach);
    const chrome = { type: 'chrome', request: 'launch' };
    assert.equal(injectProbeEnvironment(chrome, '/tmp/apps'), chrome);
  });

  test('that environment makes a real app start its probe in that folder, where the session manager finds and attaches it', async () => {
    const dir = path.join(tempDir('busscope-debug-env-'), 'apps');
    const launch: { type: string; request: string; env?: Record<string, string | null | undefined> } = { type: 'node', request: 'launch' };
    const env = injectProbeEnvironment(launch, dir).env as Record<string, string>;
    const app = await spawnDebugApp({ inspect: false, probe: 'env', env });
    assert.ok(app.info !== null, 'the probe started from BUSSCOPE=1');
    assert.equal(path.dirname(app.info.discoveryFile!), dir);
    const sessions = new SessionManager({ discoveryDirectory: () => dir });
    onCleanup(() => sessions.dispose());
    const s = await sessions.attachPid(app.pid, 5000);
    assert.equal(s.isLive, true);
    assert.equal(s.source.kind === 'app' ? s.source.app.pid : 0, app.pid);
  });

  test('apps match debug targets by pid, by the real process tree, and by folder and time only when nothing else can', async () => {
    // A real parent → child chain: the debugged process (parent) starts the app (child) itself.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' }); console.log(c.pid); setTimeout(() => { c.kill(); }, 20000);",
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    onCleanup(() => {
      parent.kill('SIGKILL');
    });
    const childPid = await withTimeout(
      new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())))),
      10_000,
      'grandchild pid',
    );
    onCleanup(() => {
      try {
        process.kill(childPid, 'SIGKILL');
      } catch {
        // gone
      }
    });
    if (process.platform === 'linux') {
      assert.equal(linuxParentPid(childPid), parent.pid);
      const chain = ancestorsOf(childPid);
      assert.deepEqual(chain.slice(0, 2), [parent.pid, process.pid], 'child → debugged parent → this test');
    }
    const app = { pid: childPid, cwd: '/work/app', startTime: Date.now() };
    const target = { id: 'child-session', pid: parent.pid, startedAt: Date.now() - 1000, cwd: '/work/app' };
    const other = { id: 'other', pid: 999_999_999, startedAt: Date.now() - 1000, cwd: '/work/app' };
    assert.deepEqual(matchApp({ ...app, pid: parent.pid! }, [other, target]), { target, reason: 'pid' });
    if (process.platform === 'linux') assert.deepEqual(matchApp(app, [other, target]), { target, reason: 'descendant' });
    // Fallback: a target whose pid is unknown, same folder, started before the app — only when it is the only one.
    const launcher = { id: 'launcher', pid: undefined, startedAt: Date.now() - 5000, cwd: '/work/app/' };
    const none = (): undefined => undefined;
    assert.deepEqual(matchApp({ pid: 4242, cwd: '/work/app', startTime: Date.now() }, [launcher], none), { target: launcher, reason: 'cwd-and-time' });
    assert.equal(matchApp({ pid: 4242, cwd: '/work/app', startTime: Date.now() }, [launcher, { ...launcher, id: 'second' }], none), undefined, 'ambiguous');
    assert.equal(matchApp({ pid: 4242, cwd: '/work/other', startTime: Date.now() }, [launcher], none), undefined, 'another folder');
    assert.equal(
      matchApp({ pid: 4242, cwd: '/work/app', startTime: Date.now() - 60_000 }, [launcher], none),
      undefined,
      'started long before the debug session',
    );
    // js-debug's names of Node targets.
    assert.equal(pidFromTargetName('app.js [25285] « Launch Program'), 25285);
    assert.equal(pidFromTargetName('Launch Program'), undefined);
  });
});

describe('event breakpoints: persisted per workspace, sent to every attached app on every attach', () => {
  test('the store validates, persists and reloads (tolerating bad stored entries)', async () => {
    const memento = new MemoryMemento();
    const store = new EventBreakpointStore(memento);
    const changes: number[] = [];
    store.onDidChange((l) => changes.push(l.length));
    assert.equal(await store.toggle('combat.damage'), true);
    await store.set('enemy.killed', '  payload.kind === "boss"  ');
    assert.deepEqual(store.list, [{ type: 'combat.damage' }, { type: 'enemy.killed', condition: 'payload.kind === "boss"' }]);
    assert.deepEqual(store.conditions, [{ type: 'enemy.killed', condition: 'payload.kind === "boss"' }]);
    await assert.rejects(store.set('x', 'payload.('), /not a valid expression/);
    await assert.rejects(store.set('', undefined), TypeError);
    assert.equal(store.list.length, 2, 'a rejected change changes nothing');
    assert.deepEqual(changes, [1, 2]);
    // Reload from the workspace state.
    assert.deepEqual(new EventBreakpointStore(memento).list, store.list);
    memento.data.set(EVENT_BREAKPOINTS_KEY, [{ type: 'ok' }, { type: 42 }, 'junk', { type: 'bad', condition: '))' }]);
    assert.deepEqual(new EventBreakpointStore(memento).list, [{ type: 'ok' }]);
    assert.equal(await store.toggle('combat.damage'), false);
    assert.equal(conditionProblem('payload.damage > 50 // big hits'), undefined);
    assert.match(conditionProblem('payload.damage >') ?? '', /Unexpected/);
  });

  test('attach sends breakOn; a change re-sends it; detach and re-attach send it again (seen in the app)', async () => {
    const dir = path.join(tempDir('busscope-debug-sync-'), 'apps');
    const app = await spawnDebugApp({ inspect: false, probe: 'env', env: { BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: dir } });
    const breakOnInApp = async (): Promise<readonly string[]> => (await app.call<ProbeSnapshot>('snapshot')).breakOn;
    const memento = new MemoryMemento();
    const store = new EventBreakpointStore(memento);
    await store.replace([{ type: 'combat.damage' }, { type: 'round.start', condition: 'payload.round > 1' }]);
    const sessions = new SessionManager({ discoveryDirectory: () => dir });
    onCleanup(() => sessions.dispose());
    const logs: string[] = [];
    const sync = new BreakOnSync(sessions, store, (m) => logs.push(m));
    onCleanup(() => sync.dispose());

    const first = await sessions.attachPid(app.pid, 5000);
    await waitFor(() => logs.some((l) => l.includes('combat.damage, round.start')), 5000, 'the probe acknowledged the list');
    assert.deepEqual(await breakOnInApp(), ['combat.damage', 'round.start']);

    await store.remove('round.start');
    await waitFor(() => logs.some((l) => /: combat\.damage$/.test(l)), 5000, 'the new list acknowledged');
    assert.deepEqual(await breakOnInApp(), ['combat.damage']);

    sessions.detach(first);
    await waitFor(() => !first.connected, 5000, 'detached');
    // The probe forgets a client's breakpoints when it leaves…
    const deadline = Date.now() + 5000;
    while ((await breakOnInApp()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await breakOnInApp(), []);
    // …and a new attach brings them back.
    const sends = sync.sends;
    const second = await sessions.attachPid(app.pid, 5000);
    assert.notEqual(second, first);
    await waitFor(() => sync.sends > sends, 5000, 're-sent on attach');
    const until = Date.now() + 5000;
    while ((await breakOnInApp()).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await breakOnInApp(), ['combat.damage']);
  });
});

describe('a paused session as the views and the inspector see it', () => {
  test('phase "paused" with where it stopped, the dispatch stack and listener counts; back to "attached" when it runs', () => {
    const s = new Session({ id: 'session-x', source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' } });
    onCleanup(() => s.dispose());
    const snapshot: ProbeSnapshot = {
      time: 1,
      timeOrigin: 0,
      lastSeq: 7,
      recording: true,
      buses: [{ id: 1, name: 'combat', createdAt: 0, subscriptions: 3 }],
      types: [
        { bus: 1, type: 'combat.damage', listeners: 2, dispatches: 4 },
        { bus: 1, type: 'round.start', listeners: 1, dispatches: 1 },
      ],
      subscriptions: [
        { id: 1, bus: 1, type: 'combat.damage', priority: 10, label: 'HealthBar', owner: null, once: false, site: null, calls: 3, createdAt: 0 },
        { id: 2, bus: 1, type: 'combat.damage', priority: 0, label: null, owner: 'Widget#hud', once: false, site: null, calls: 3, createdAt: 0 },
        { id: 4, bus: 1, type: 'round.start', priority: 5, label: 'RoundDirector', owner: null, once: false, site: null, calls: 1, createdAt: 0 },
      ],
      dispatching: [{ seq: 7, bus: 1, type: 'round.start', depth: 0, start: 1, subscriptionId: 4 }],
      breakOn: ['combat.damage'],
      truncated: false,
    };
    const state: PausedState = {
      pid: 123,
      snapshot,
      eventBreak: { busId: 1, bus: 'combat', type: 'combat.damage', payload: '{"amount":20}' },
      conditionErrors: {},
    };
    const updates: number[] = [];
    s.onDidUpdate(() => updates.push(1));
    const link: DebugLink = { debugSessionId: 'd1', debugSessionName: 'Launch Game', autoAttached: true, matchedBy: 'pid', paused: undefined };
    s.setDebug(link);
    assert.equal(debugLinkText(s.debug!), 'debugging in “Launch Game”');
    assert.equal(inspectorSessionInfo(s).phase, 'attached');
    s.setDebug({ ...link, paused: { at: Date.now(), reason: 'Paused on debugger statement', state, error: undefined } });
    const info = inspectorSessionInfo(s);
    assert.equal(info.phase, 'paused');
    assert.match(info.detail, /Stopped in “Launch Game” \(Paused on debugger statement\)/);
    assert.match(info.detail, /Event breakpoint on combat\.damage \(bus combat\), payload \{"amount":20\}/);
    assert.match(info.detail, /Dispatch stack: round\.start \(in RoundDirector #4\) → combat\.damage \(about to dispatch\)/);
    assert.match(info.detail, /3 live subscriptions on 1 buses \(listeners: combat\.damage 2, round\.start 1\)/);
    assert.equal(debugLinkText(s.debug!), 'paused in “Launch Game”');
    s.setDebug(link);
    assert.equal(inspectorSessionInfo(s).phase, 'attached');
    assert.equal(updates.length, 3, 'each change tells the views');
  });
});
