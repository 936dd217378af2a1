// The extension's session layer (the part without `vscode`) against the real demo app: real
// processes, real discovery files, real sockets, the real ProbeClient, Model and Analyzer.
// Proves attach through discovery, the model and warnings filling up, detach leaving no socket,
// an app exit ending the session with its state kept, re-attach (offered and automatic), the
// error messages a user sees, and trace files opened and exported.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ProbeClient } from '../../../runtime-probe/src/client/index';
import { DemoRunner, locateDemo, type DemoExit } from '../../../extension/src/demo/demoRunner';
import { buildChromeTrace } from '../../../extension/src/export/chromeTrace';
import { validateChromeTrace } from '../../../extension/src/export/validateChromeTrace';
import { appPickEntries } from '../../../extension/src/sessions/appPicking';
import { AttachError, attachErrorFrom } from '../../../extension/src/sessions/attachError';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import type { Session } from '../../../extension/src/sessions/session';
import { DEMO, ROOT, exited, nextEvent, startDemo, stopAll, tempDir, waitFor } from './demo';

const managers: SessionManager[] = [];
const dirs: string[] = [];

function manager(dir: string, autoReattach = false): SessionManager {
  const m = new SessionManager({ discoveryDirectory: () => dir, autoReattach: () => autoReattach, updateIntervalMs: 100, discoveryIntervalMs: 200 });
  managers.push(m);
  return m;
}

function dir(): string {
  const d = tempDir('busscope-sessions-');
  dirs.push(d);
  return d;
}

/** Sockets of this process connected to `port`. */
function socketsTo(port: number): net.Socket[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles.filter((h): h is net.Socket => h instanceof net.Socket && h.remotePort === port && !h.destroyed);
}

after(async () => {
  for (const m of managers) m.dispose();
  await stopAll();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('sessions against the real demo app', { timeout: 60_000 }, () => {
  it('attaches through discovery, fills the model and finds the leak, then detaches leaving no socket', async () => {
    const d = dir();
    const demo = startDemo({ discoveryDir: d });
    const m = manager(d);
    const session = await m.attachPid(demo.pid!, 10_000);
    assert.equal(session.isLive, true);
    assert.equal(session.app?.name, 'busscope-demo');
    assert.equal(session.app?.pid, demo.pid);
    assert.equal(session.kind, 'live');

    // The picker marks it attached, and attaching again gives the same session.
    const apps = m.listApps();
    const app = apps.find((a) => a.pid === demo.pid)!;
    assert.ok(app, 'the demo is discovered');
    const entry = appPickEntries(apps, (a) => m.isAttached(a)).find((e) => e.app.pid === demo.pid)!;
    assert.equal(entry.attached, true);
    assert.match(entry.description, new RegExp(`pid ${demo.pid} · started .* ago · attached`));
    assert.equal(await m.attachApp(app), session);
    assert.equal(m.sessions.length, 1);

    // Buses from the snapshot, live dispatches, and the HUD leak found at its subscribe site.
    await waitFor(
      () =>
        [...session.model.buses.values()]
          .map((b) => b.name)
          .sort()
          .join() === 'audio,gameplay,ui',
      5000,
      'the three buses',
    );
    await waitFor(() => session.model.totalDispatches > 100, 5000, 'dispatches');
    await waitFor(
      () => session.warnings.some((w) => w.kind === 'listener-growth' && w.subjects.types.some((t) => t.type === 'player.health')),
      10_000,
      'the listener-growth warning on player.health',
    );
    const leak = session.warnings.find((w) => w.kind === 'listener-growth')!;
    assert.ok(
      leak.sites.some((s) => s.file.endsWith('hud.ts') || s.file.includes('demo')),
      `leak site: ${JSON.stringify(leak.sites[0])}`,
    );
    assert.ok(session.dispatchesPerSecond > 0);

    const port = app.port;
    assert.equal(socketsTo(port).length, 1, 'one socket while attached');
    const ended = nextEvent<Session>((l) => m.onDidEndSession(l), 2000, 'the end of the session');
    m.detach(session);
    assert.equal(await ended, session);
    assert.equal(session.isLive, false);
    assert.equal(session.connected, false);
    assert.equal(session.ended?.cause, 'detached');
    await waitFor(() => socketsTo(port).length === 0, 2000, 'the socket to close');
    // The model stays inspectable after detach; the demo keeps running.
    assert.ok(session.model.buses.size >= 3);
    assert.equal(session.model.sessionInfo.state, 'ended');
    assert.equal(demo.exitCode, null);
    assert.equal(m.liveSessions.length, 0);
    assert.equal(m.isAttached(app), false);

    // Clear removes the ended session.
    m.clear();
    assert.equal(m.sessions.length, 0);
  });

  it('ends cleanly when the app exits, keeps its state, and offers to re-attach when it comes back', async () => {
    const d = dir();
    const first = startDemo({ discoveryDir: d });
    const m = manager(d);
    const session = await m.attachPid(first.pid!, 10_000);
    await waitFor(() => session.model.totalDispatches > 0, 5000, 'dispatches');
    const dispatches = session.model.totalDispatches;

    const ended = nextEvent<Session>((l) => m.onDidEndSession(l), 5000, 'the session to end');
    first.kill('SIGTERM');
    await exited(first);
    assert.equal(await ended, session);
    assert.equal(session.ended?.cause, 'app-exited');
    assert.equal(session.ended?.reason, 'the app exited');
    assert.ok(session.model.totalDispatches >= dispatches, 'the model is kept');
    assert.equal(m.sessions.length, 1);

    const returned = nextEvent<{ session: Session; app: { pid: number } }>((l) => m.onDidReturn(l), 10_000, 'the app to come back');
    const second = startDemo({ discoveryDir: d });
    const offer = await returned;
    assert.equal(offer.session, session);
    assert.equal(offer.app.pid, second.pid);

    const fresh = await m.reattach(
      offer.session,
      m.listApps().find((a) => a.pid === second.pid)!,
    );
    assert.equal(fresh.isLive, true);
    assert.equal(fresh.app?.pid, second.pid);
    assert.deepEqual(m.sessions, [fresh], "the re-attached session takes the ended one's place");
    m.detach(fresh);
  });

  it('re-attaches by itself when autoReattach is on', async () => {
    const d = dir();
    const first = startDemo({ discoveryDir: d });
    const m = manager(d, true);
    const session = await m.attachPid(first.pid!, 10_000);
    const reattached = nextEvent<{ previous: Session; session: Session }>((l) => m.onDidReattach(l), 15_000, 'the automatic re-attach');
    first.kill('SIGKILL'); // a crash: no goodbye from the probe, a stale discovery file left behind
    await exited(first);
    const second = startDemo({ discoveryDir: d });
    const r = await reattached;
    assert.equal(r.previous, session);
    assert.equal(r.session.app?.pid, second.pid);
    assert.equal(r.session.isLive, true);
    assert.deepEqual(m.sessions, [r.session]);
    // Shutting down (what deactivate does) closes every socket.
    const port = r.session.source.kind === 'app' ? r.session.source.app.port : 0;
    assert.equal(socketsTo(port).length, 1);
    m.dispose();
    assert.equal(r.session.ended?.cause, 'detached');
    await waitFor(() => socketsTo(port).length === 0, 2000, 'the socket to close on dispose');
  });

  it('turns token, version, address and protocol failures into clear messages', async () => {
    const d = dir();
    const demo = startDemo({ discoveryDir: d });
    const m = manager(d);
    const app = await m.discovery.waitFor((a) => a.pid === demo.pid, 10_000);
    assert.ok(app);

    await assert.rejects(m.attachAddress(app.host, app.port, 'not-the-token'), (e: unknown) => {
      assert.ok(e instanceof AttachError);
      assert.equal(e.code, 'bad-token');
      assert.match(e.message, /refused the token/);
      return true;
    });

    // A client that speaks only a future protocol version, against the real probe.
    const versionError = await ProbeClient.connect({ host: app.host, port: app.port, token: app.token, protocolVersions: [99] }).then(
      () => assert.fail('connected with an unknown protocol version'),
      (e: unknown) => attachErrorFrom(e, { what: 'busscope-demo', appProtocolVersion: 2 }),
    );
    assert.equal(versionError.code, 'version-mismatch');
    assert.match(versionError.message, /this Busscope extension speaks version 6, 5, 4, 3, 2, 1\b/);

    // Nothing listening.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await assert.rejects(
      m.attachAddress('127.0.0.1', deadPort, 'x'),
      (e: unknown) => e instanceof AttachError && e.code === 'connect-failed' && /Nothing answers/.test(e.message),
    );

    // Something that is not a probe (a web server on the wrong port).
    const http = net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n'));
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    try {
      const port = (http.address() as net.AddressInfo).port;
      await assert.rejects(
        m.attachAddress('127.0.0.1', port, 'x'),
        (e: unknown) => e instanceof AttachError && (e.code === 'not-a-probe' || e.code === 'connect-failed'),
      );
    } finally {
      http.close();
    }

    // A pid with no app.
    await assert.rejects(m.attachPid(2 ** 22 + 12345, 0), (e: unknown) => e instanceof AttachError && e.code === 'not-found');
    assert.equal(m.sessions.length, 0, 'failed attaches leave no session behind');
  });

  it('opens a trace file recorded by the probe into the same model, and exports it for Perfetto', async () => {
    const d = dir();
    const file = path.join(d, 'run.bustrace');
    const recorder = startDemo({ discoveryDir: d, args: ['--duration', '2'], env: { BUSSCOPE: '0', BUSSCOPE_RECORD: file } });
    await exited(recorder);
    const m = manager(d);
    const session = await m.openTrace(file);
    assert.equal(session.kind, 'trace');
    assert.equal(session.isLive, false);
    assert.equal(session.ended?.cause, 'end-of-trace');
    assert.match(session.app?.name ?? '', /demo/, 'the trace names the app that recorded it');
    assert.deepEqual([...session.model.buses.values()].map((b) => b.name).sort(), ['audio', 'gameplay', 'ui']);
    assert.ok(session.model.totalDispatches > 100);
    assert.ok(session.warnings.length > 0, 'the analyses ran on the trace');

    const trace = buildChromeTrace(session.model);
    assert.deepEqual(validateChromeTrace(trace).problems, []);
    assert.ok(trace.traceEvents.filter((e) => e.ph === 'X').length > 100);

    const notATrace = path.join(d, 'notes.txt');
    fs.writeFileSync(notATrace, 'hello');
    await assert.rejects(m.openTrace(notATrace), (e: unknown) => e instanceof AttachError && e.code === 'bad-trace' && /not a Busscope trace/.test(e.message));
    assert.equal(m.sessions.length, 1);
  });

  it('runs the shipped demo the way Run Demo App does, and stops it cleanly', async () => {
    // A development checkout finds the build output (or a newer packaged copy); an installed
    // extension finds dist/demo.
    assert.ok([DEMO, path.join(ROOT, 'dist', 'demo', 'demo.cjs')].includes(locateDemo(ROOT) ?? ''));
    const installed = dir();
    fs.mkdirSync(path.join(installed, 'dist', 'demo'), { recursive: true });
    fs.copyFileSync(DEMO, path.join(installed, 'dist', 'demo', 'demo.cjs'));
    assert.equal(locateDemo(installed), path.join(installed, 'dist', 'demo', 'demo.cjs'));
    assert.equal(locateDemo(installed, 'nowhere.cjs'), undefined);

    const d = dir();
    const runner = new DemoRunner();
    const lines: string[] = [];
    runner.onOutput((l) => lines.push(l));
    const pid = await runner.start({ script: locateDemo(installed)!, discoveryDirectory: d });
    assert.equal(runner.running, true);
    await assert.rejects(runner.start({ script: DEMO }), /already running/);
    const m = manager(d);
    const session = await m.attachPid(pid, 10_000);
    assert.equal(session.app?.pid, pid);
    await waitFor(() => lines.some((l) => l.includes('busscope-demo running')), 5000, "the demo's start line");

    const exit = nextEvent<DemoExit>((l) => runner.onDidExit(l), 5000, 'the demo to exit');
    const ended = nextEvent<Session>((l) => m.onDidEndSession(l), 5000, 'the session to end');
    await runner.stop();
    assert.equal((await exit).stopped, true);
    assert.equal(runner.running, false);
    assert.equal((await ended).ended?.cause, 'app-exited');
    assert.deepEqual(
      fs.readdirSync(d).filter((f) => f.endsWith('.json')),
      [],
      'the demo removed its discovery file',
    );
    await runner.dispose();
  });
});
