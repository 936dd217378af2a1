// The README's *While debugging* in a real VS Code with its built-in JavaScript debugger (ms-vscode.js-debug): the demo app
// is launched under the debugger (a plain `node` launch configuration), Busscope switches its probe on
// and attaches by itself, an event breakpoint set by command stops the debug session inside
// `dispatch`, the paused app's state is read through the debug session and shown (Subscriptions view,
// status bar, the inspector's session phase), a payload condition filters, removing the breakpoint
// and continuing lets the app run, and ending the debug session detaches Busscope.
import * as assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { BusscopeApi } from '../../extension/src/extension';
import type { EventBreakpoint } from '../../extension/src/debugging/breakpoints';
import { locateDemo } from '../../extension/src/demo/demoRunner';
import type { PausedState } from '../../extension/src/debugging/pausedState';
import type { Session } from '../../extension/src/sessions/session';
import { inspectorSessionInfo } from '../../extension/src/sessions/inspectorSource';
import type { BusscopeNode } from '../../extension/src/views/nodes';
import { activateBusscope, waitFor } from './util';

const LAUNCH_NAME = 'Busscope demo under the debugger';
const TOGGLE = 'busscope.toggleEventBreakpoint';

interface Manifest {
  readonly activationEvents?: readonly string[];
  readonly contributes: {
    readonly commands: readonly { readonly command: string }[];
    readonly configuration: { readonly properties: Readonly<Record<string, { readonly default: unknown }>> };
    readonly menus: Readonly<Record<string, readonly { readonly command: string; readonly when?: string }[]>>;
  };
}

interface Stop {
  readonly session: vscode.DebugSession;
  readonly body: { readonly reason?: string; readonly description?: string; readonly threadId?: number };
}

function label(item: vscode.TreeItem): string {
  const l = item.label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}

describe("Busscope while debugging (VS Code's JavaScript debugger)", function () {
  this.timeout(120_000);
  let api: BusscopeApi;
  let manifest: Manifest;
  let extensionPath: string;
  let tmp: string;
  const stops: Stop[] = [];
  let tracker: vscode.Disposable | undefined;
  let session: Session | undefined;

  /** Continues a stopped debug session (the thread of its last stop). */
  async function continueFrom(stop: Stop): Promise<void> {
    await stop.session.customRequest('continue', { threadId: stop.body.threadId ?? 0 });
  }

  /**
   * From a stop: continues until the app stops with a paused state `accept`s (at most `maxContinues`
   * continues). Resolves with that state.
   */
  async function runUntil(what: string, accept: (state: PausedState) => boolean, maxContinues = 10): Promise<PausedState> {
    const s = session!;
    for (let i = 0; ; i++) {
      // null: the paused state could not be read (it timed out on a loaded machine; the log says so): not this stop, then.
      const state = await waitFor(
        `${what}: the paused state`,
        () => {
          const paused = s.debug?.paused;
          return paused === undefined ? undefined : (paused.state ?? (paused.error !== undefined ? null : undefined));
        },
        20_000,
      );
      if (state !== null && accept(state)) return state;
      assert.ok(i < maxContinues, `${what}: not within ${maxContinues} continues`);
      const count = stops.length;
      await continueFrom(stops[count - 1]);
      await nextStop(count, `${what}: the next stop`);
    }
  }

  /** Waits for the next stop after `count` stops. */
  function nextStop(count: number, what: string, timeoutMs = 20_000): Promise<Stop> {
    return waitFor(what, () => stops[count], timeoutMs);
  }

  before(async () => {
    const ext = await activateBusscope();
    api = ext.exports as BusscopeApi;
    manifest = ext.packageJSON as Manifest;
    extensionPath = ext.extensionPath;
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-vscode-debug-'));
    await vscode.workspace.getConfiguration('busscope').update('discoveryDirectory', path.join(tmp, 'apps'), vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand(TOGGLE, { breakpoints: [] });
    tracker = vscode.debug.registerDebugAdapterTrackerFactory('*', {
      createDebugAdapterTracker: (s) => ({
        onDidSendMessage: (m: { type?: string; event?: string; body?: Stop['body'] }) => {
          if (m.type === 'event' && m.event === 'stopped') stops.push({ session: s, body: m.body ?? {} });
        },
      }),
    });
  });

  after(async () => {
    tracker?.dispose();
    try {
      await vscode.commands.executeCommand(TOGGLE, { breakpoints: [] });
      await vscode.debug.stopDebugging();
      if (session !== undefined) await waitFor('the debugged demo to end', () => !session!.isLive, 15_000).catch(() => undefined);
      api?.sessions.clear();
    } finally {
      await vscode.workspace.getConfiguration('busscope').update('discoveryDirectory', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('contributes the command, the settings, the tree menu, activation on Node debug sessions; js-debug is there', () => {
    assert.ok(manifest.contributes.commands.some((c) => c.command === TOGGLE));
    const props = manifest.contributes.configuration.properties;
    assert.equal(props['busscope.debug.autoAttach']?.default, true);
    assert.equal(props['busscope.debug.snapshotOnPause']?.default, true);
    assert.ok(manifest.contributes.menus['view/item/context']?.some((m) => m.command === TOGGLE && m.when?.includes('busscope.type')));
    for (const type of ['node', 'pwa-node', 'node-terminal']) assert.ok(manifest.activationEvents?.includes(`onDebugResolve:${type}`), type);
    assert.ok(vscode.extensions.getExtension('ms-vscode.js-debug'), 'the built-in JavaScript debugger is installed');
  });

  it('toggles a type from its Subscriptions-tree node; bad arguments are refused', async () => {
    const node: BusscopeNode = { kind: 'type', sessionId: 'any', bus: 1, type: 'combat.hit' };
    assert.deepEqual(await vscode.commands.executeCommand<readonly EventBreakpoint[]>(TOGGLE, node), [{ type: 'combat.hit' }]);
    assert.deepEqual(await vscode.commands.executeCommand<readonly EventBreakpoint[]>(TOGGLE, node), []);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand(TOGGLE, { type: 'x', condition: 'payload.(' })), /not a valid expression/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand(TOGGLE, { breakpoints: 'all' })), /breakpoints must be an array/);
    assert.deepEqual(await vscode.commands.executeCommand<readonly EventBreakpoint[]>(TOGGLE, { breakpoints: [] }), []);
  });

  it('launches the demo under the debugger and attaches to it by itself, linked to the debug session', async () => {
    const demo = locateDemo(extensionPath);
    assert.ok(demo !== undefined, 'the VSIX carries the demo');
    const started = await vscode.debug.startDebugging(undefined, {
      type: 'node',
      request: 'launch',
      name: LAUNCH_NAME,
      program: demo,
      args: ['--quiet', '--duration', '110'],
      console: 'internalConsole',
    });
    assert.equal(started, true, 'the debug session started');
    session = await waitFor(
      'Busscope to attach to the debugged demo',
      () => api.sessions.liveSessions.find((s) => s.debug?.debugSessionName === LAUNCH_NAME),
      30_000,
    );
    assert.equal(session.app?.name, 'busscope-demo');
    assert.equal(session.debug?.autoAttached, true);
    assert.equal(session.debug?.matchedBy, 'pid');
    // The Apps view and the status bar say which debug session it belongs to.
    const item = api.views.apps.getTreeItem({ kind: 'session', sessionId: session.id });
    assert.match(String(item.description), new RegExp(`debugging in “${LAUNCH_NAME}”`));
    const facts = api.views.apps.getChildren({ kind: 'session', sessionId: session.id }).map((n) => api.views.apps.getTreeItem(n));
    assert.ok(
      facts.some((f) => label(f) === 'debug session' && String(f.description).startsWith(LAUNCH_NAME)),
      'a "debug session" fact',
    );
    const status = await waitFor('the status bar to name the debug session', () => {
      const c = api.views.statusBar.current;
      return c.tooltip.includes(`debugging in “${LAUNCH_NAME}”`) ? c : undefined;
    });
    assert.ok(status.visible);
  });

  it('stops the debug session at an event breakpoint and shows the paused app through the debug session', async () => {
    const s = session!;
    const before = stops.length;
    const list = await vscode.commands.executeCommand<readonly EventBreakpoint[]>(TOGGLE, { type: 'frame.tick' });
    assert.deepEqual(list, [{ type: 'frame.tick' }]);
    const stop = await nextStop(before, 'the debug session to stop at frame.tick');
    assert.match(stop.body.description ?? stop.body.reason ?? '', /debugger statement|pause|breakpoint/i);
    // Stopped inside `dispatch`, the dispatching code one frame up.
    const trace = (await stop.session.customRequest('stackTrace', { threadId: stop.body.threadId ?? 0, startFrame: 0, levels: 2 })) as {
      stackFrames: { id: number; name: string }[];
    };
    assert.match(trace.stackFrames[0].name, /dispatch/);
    const payload = (await stop.session.customRequest('evaluate', {
      expression: "JSON.stringify(globalThis[Symbol.for('busscope.eventBreaks')].current.payload)",
      frameId: trace.stackFrames[0].id,
      context: 'repl',
    })) as { result: string };
    assert.match(payload.result, /"frame":\d+/);

    // Busscope read the paused app through the debug session.
    const pause = await waitFor('the paused state', () => (s.debug?.paused?.state !== undefined ? s.debug.paused : undefined));
    const state = pause.state!;
    assert.equal(state.pid, s.app?.pid);
    assert.equal(state.eventBreak?.type, 'frame.tick');
    assert.equal(state.eventBreak?.bus, 'gameplay');
    assert.ok(state.snapshot !== null && state.snapshot.subscriptions.length > 10, 'the live subscriptions');
    assert.deepEqual(state.snapshot.breakOn, ['frame.tick']);
    const tickListeners = state.snapshot.types.find((t) => t.type === 'frame.tick')?.listeners ?? 0;
    assert.equal(tickListeners, state.snapshot.subscriptions.filter((x) => x.type === 'frame.tick').length, 'listener counts');

    // The Subscriptions view: a "Paused" node first, with the break and the paused snapshot.
    const tree = api.views.subscriptions;
    const roots = tree.getChildren();
    const top: BusscopeNode[] = roots.some((n) => n.kind === 'session')
      ? tree.getChildren(roots.find((n) => n.kind === 'session' && n.sessionId === s.id))
      : roots;
    const pausedNode = top[0];
    assert.equal(pausedNode?.kind, 'debug');
    assert.equal(label(tree.getTreeItem(pausedNode)), 'Paused in the debugger');
    assert.match(String(tree.getTreeItem(pausedNode).description), /event breakpoint on frame\.tick/);
    const children = tree.getChildren(pausedNode).map((n) => label(tree.getTreeItem(n)));
    assert.ok(children.includes('Event breakpoint: frame.tick'), children.join(' | '));
    assert.ok(children.includes('Subscriptions (paused snapshot)'), children.join(' | '));
    // The type carries the breakpoint badge.
    const gameplay = top.find((n) => n.kind === 'bus' && label(tree.getTreeItem(n)) === 'gameplay');
    const tick = tree.getChildren(gameplay).find((n) => n.kind === 'type' && n.type === 'frame.tick');
    assert.ok(tick !== undefined);
    assert.match(String(tree.getTreeItem(tick).description), /^● breaks/);
    // The inspector sees the session as paused, with the dispatch stack in words; the status bar too.
    const info = inspectorSessionInfo(s);
    assert.equal(info.phase, 'paused');
    assert.match(info.detail, /Event breakpoint on frame\.tick \(bus gameplay\)/);
    assert.match(info.detail, /Dispatch stack: .*frame\.tick \(about to dispatch\)/);
    await waitFor('the status bar to show the pause', () => (api.views.statusBar.current.text.startsWith('$(debug-pause)') ? true : undefined), 5000);

    // Continue: the mark clears (the next frame may stop again: the breakpoint is still set).
    const n = stops.length;
    await continueFrom(stop);
    await waitFor('the pause mark to clear or the next stop', () => s.debug?.paused === undefined || stops.length > n);
  });

  it('stops only where a payload condition holds', async () => {
    await vscode.commands.executeCommand(TOGGLE, { type: 'frame.tick', condition: 'payload.frame % 7 === 3' });
    const frameOf = (st: PausedState): number => (JSON.parse(st.eventBreak?.payload ?? '{}') as { frame?: number }).frame ?? -1;
    // A stop already under way (before the condition) is let go; from then on every stop meets it.
    let state = await runUntil('a stop that meets the condition', (st) => frameOf(st) % 7 === 3);
    for (let round = 0; round < 2; round++) {
      const previous = frameOf(state);
      state = await runUntil('the next stop', (st) => frameOf(st) !== previous, 1);
      assert.equal(frameOf(state) % 7, 3, `stopped at frame ${frameOf(state)}`);
    }
  });

  it('removing the breakpoint while paused and continuing lets the app run; the pause mark clears', async () => {
    const s = session!;
    const list = await vscode.commands.executeCommand<readonly EventBreakpoint[]>(TOGGLE, { type: 'frame.tick', enabled: false });
    assert.deepEqual(list, []);
    const count = stops.length;
    await continueFrom(stops[count - 1]);
    await waitFor('the pause mark to clear', () => (s.debug !== undefined && s.debug.paused === undefined ? true : undefined));
    // The demo runs on: the breakpoint was muted through the debugger at once, and the probe drops it.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(stops.length, count, 'no further stop');
    assert.ok(s.isLive);
    assert.equal(inspectorSessionInfo(s).phase, 'attached');
  });

  it('ending the debug session detaches Busscope', async () => {
    const s = session!;
    await vscode.debug.stopDebugging();
    await waitFor('the Busscope session to end', () => (!s.isLive ? true : undefined), 20_000);
    assert.equal(s.debug, undefined);
    assert.equal(s.connected, false);
    // Not attached again while the process goes away (nor matched to what is left of the launch).
    const pid = s.app?.pid;
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(api.sessions.liveSessions.filter((x) => x.app?.pid === pid).length, 0, 'no new session for the ended run');
  });

  it('with auto-attach off, nothing is injected or attached; an app started with the probe by its own configuration and attached by hand is linked, never detached by the debugger', async () => {
    const config = vscode.workspace.getConfiguration('busscope');
    await config.update('debug.autoAttach', false, vscode.ConfigurationTarget.Global);
    try {
      const demo = locateDemo(extensionPath)!;
      const name = 'Busscope demo, probe from its own env';
      const started = await vscode.debug.startDebugging(undefined, {
        type: 'node',
        request: 'launch',
        name,
        program: demo,
        args: ['--quiet', '--duration', '60'],
        console: 'internalConsole',
        env: { BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: path.join(tmp, 'apps') },
      });
      assert.equal(started, true);
      const app = await waitFor(
        'the demo in discovery',
        () => api.sessions.listApps().find((a) => a.name === 'busscope-demo' && api.sessions.liveSessions.every((x) => x.app?.pid !== a.pid)),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(
        api.sessions.liveSessions.some((x) => x.app?.pid === app.pid),
        false,
        'not attached by itself',
      );
      const attached = await vscode.commands.executeCommand<{ sessionId: string }>('busscope.attach', { pid: app.pid });
      const s = api.sessions.find(attached.sessionId)!;
      const link = await waitFor('the session to be linked to its debug session', () => s.debug);
      assert.equal(link.debugSessionName, name);
      assert.equal(link.autoAttached, false);
      assert.equal(link.matchedBy, 'pid');
      await vscode.debug.stopDebugging();
      // The app exits with its debug session; Busscope did not detach it first.
      const ended = await waitFor('the session to end', () => s.ended, 20_000);
      assert.notEqual(ended.cause, 'detached');
    } finally {
      await config.update('debug.autoAttach', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
