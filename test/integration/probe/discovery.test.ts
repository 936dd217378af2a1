// Discovery files: created with the right modes when the probe listens, enough to attach with; removed
// on normal exit and on SIGTERM, SIGHUP and SIGQUIT (and the app still terminates by the signal); an
// app's own handler is left in charge; stale files of dead processes are ignored and cleaned; a
// symlinked directory is refused, never chmod'ed or written through.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { discoveryDirectory, listDiscoveredApps, removeDiscoveryFile, writeDiscoveryFile } from '../../../runtime-probe/src/discovery/index';
import { PROTOCOL_VERSION } from '../../../runtime-probe/src/protocol/version';
import { cleanup, connect, sleep, spawnApp, tempDir, waitFor, withTimeout } from './helpers';

after(cleanup);

const posix = process.platform !== 'win32';

test('BUSSCOPE=1 writes a private discovery file that is enough to attach', async () => {
  const parent = tempDir('busscope-disc-');
  const dir = path.join(parent, 'apps');
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE: '1', BUSSCOPE_NAME: 'disco', BUSSCOPE_DISCOVERY_DIR: dir } });
  assert.ok(app.info, 'the environment started the probe');
  const file = app.info.discoveryFile;
  assert.ok(file !== null && path.dirname(file) === dir);
  if (posix) {
    assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  }
  const entry = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(entry.pid, app.pid);
  assert.equal(entry.name, 'disco');
  assert.equal(entry.port, app.info.port);
  assert.equal(entry.token, app.info.token);
  assert.equal(entry.protocolVersion, PROTOCOL_VERSION);
  assert.equal(entry.host, '127.0.0.1');
  assert.equal(typeof entry.cwd, 'string');
  assert.ok(Math.abs(entry.startTime - Date.now()) < 60_000);
  const [found] = listDiscoveredApps({ dir });
  assert.equal(found.pid, app.pid);
  const c = await connect(found);
  assert.equal(c.client.welcome.app.name, 'disco');
  // Removed on normal exit.
  await app.call('exit', { code: 0 });
  assert.deepEqual(await withTimeout(app.exited, 5000, 'exit'), { code: 0, signal: null });
  assert.equal(fs.existsSync(file), false);
});

test('SIGTERM removes the file and still terminates the app by the signal', { skip: !posix }, async () => {
  const dir = tempDir('busscope-disc-');
  const app = await spawnApp({ start: { discovery: true }, env: { BUSSCOPE_DISCOVERY_DIR: dir } });
  const file = app.info?.discoveryFile;
  assert.ok(file && fs.existsSync(file));
  app.child.kill('SIGTERM');
  assert.deepEqual(await withTimeout(app.exited, 5000, 'exit on SIGTERM'), { code: null, signal: 'SIGTERM' });
  assert.equal(fs.existsSync(file), false);
});

test('an app with its own SIGTERM handler keeps control (and its file until it exits)', { skip: !posix }, async () => {
  const dir = tempDir('busscope-disc-');
  const app = await spawnApp({ start: { discovery: true }, env: { BUSSCOPE_DISCOVERY_DIR: dir } });
  const file = app.info?.discoveryFile;
  assert.ok(file);
  await app.call('trapSigterm');
  app.child.kill('SIGTERM');
  await waitFor(() => app.events.some((e) => e.event === 'sigterm-handled'), 5000, 'the app handling SIGTERM');
  await sleep(100);
  assert.equal(await app.call('ping'), 'pong', 'the app is still running');
  assert.ok(fs.existsSync(file));
  await app.call('exit', { code: 3 });
  assert.deepEqual(await withTimeout(app.exited, 5000, 'exit'), { code: 3, signal: null });
  assert.equal(fs.existsSync(file), false);
});

for (const signal of ['SIGHUP', 'SIGQUIT'] as const) {
  test(`${signal} removes the file (and its token) and still terminates the app by the signal`, { skip: !posix }, async () => {
    const dir = tempDir('busscope-disc-');
    const app = await spawnApp({ start: { discovery: true }, env: { BUSSCOPE_DISCOVERY_DIR: dir } });
    const file = app.info?.discoveryFile;
    assert.ok(file && fs.existsSync(file));
    app.child.kill(signal);
    assert.deepEqual(await withTimeout(app.exited, 5000, `exit on ${signal}`), { code: null, signal });
    assert.equal(fs.existsSync(file), false);
    assert.deepEqual(fs.readdirSync(dir), []);
  });
}

test('an app with its own SIGHUP handler keeps running (and its file until it exits)', { skip: !posix }, async () => {
  const dir = tempDir('busscope-disc-');
  const app = await spawnApp({ start: { discovery: true }, env: { BUSSCOPE_DISCOVERY_DIR: dir } });
  const file = app.info?.discoveryFile;
  assert.ok(file);
  await app.call('trapSignal', { signal: 'SIGHUP' });
  app.child.kill('SIGHUP');
  await waitFor(() => app.events.some((e) => e.event === 'sighup-handled'), 5000, 'the app handling SIGHUP');
  await sleep(100);
  assert.equal(await app.call('ping'), 'pong', 'the app is still running');
  assert.ok(fs.existsSync(file));
  await app.call('exit', { code: 0 });
  assert.deepEqual(await withTimeout(app.exited, 5000, 'exit'), { code: 0, signal: null });
  assert.equal(fs.existsSync(file), false);
});

test('a discovery directory that is a symlink is refused: its target keeps its mode and gets no token; the app runs on', { skip: !posix }, async () => {
  // Someone plants a link where the app's discovery directory would be, pointing at a directory of
  // the victim's (the victim owns it, so it would pass an ownership check made through the link).
  const target = tempDir('busscope-victim-');
  fs.chmodSync(target, 0o755);
  const link = path.join(tempDir('busscope-shared-'), 'busscope');
  fs.symlinkSync(target, link);
  const app = await spawnApp({ start: { discovery: true }, env: { BUSSCOPE_DISCOVERY_DIR: link } });
  assert.ok(app.info && app.info.port > 0, 'the probe still serves');
  assert.equal(app.info.discoveryFile, null);
  assert.equal(fs.statSync(target).mode & 0o777, 0o755, "the link target was not chmod'ed");
  assert.deepEqual(fs.readdirSync(target), [], 'no token written there');
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.equal(await app.call('ping'), 'pong');
  const reports = app
    .stderr()
    .split('\n')
    .filter((l) => l.includes('[busscope]'));
  assert.equal(reports.length, 1, app.stderr());
  assert.match(reports[0], /refusing to use the discovery directory .*busscope: it is a symbolic link/);
  // The writer refuses it directly too.
  assert.throws(() => writeDiscoveryFile(entryFor(5551), link), /it is a symbolic link/);
  assert.deepEqual(fs.readdirSync(target), []);
});

test('probe.stop() removes the file; stale files of dead processes are ignored and cleaned', async () => {
  const dir = tempDir('busscope-disc-');
  const app = await spawnApp({ start: { discovery: true, name: 'live' }, env: { BUSSCOPE_DISCOVERY_DIR: dir } });
  // A process that has exited: its pid is dead.
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout);
  const stale = path.join(dir, `${deadPid}-4242.json`);
  fs.writeFileSync(
    stale,
    JSON.stringify({ pid: deadPid, name: 'crashed', cwd: '/', host: '127.0.0.1', port: 4242, token: 'x', protocolVersion: 1, probeVersion: '0', startTime: 1 }),
    { mode: 0o600 },
  );
  const junk = path.join(dir, '123-456.json');
  fs.writeFileSync(junk, 'not json', { mode: 0o600 });
  const apps = listDiscoveredApps({ dir });
  assert.deepEqual(
    apps.map((a) => a.name),
    ['live'],
  );
  assert.equal(fs.existsSync(stale), false, 'the stale file was removed');
  assert.equal(fs.existsSync(junk), true, 'unreadable files are skipped, not deleted');
  await app.call('stopProbe');
  assert.deepEqual(listDiscoveredApps({ dir }), []);
  assert.equal(await app.call('ping'), 'pong');
});

test('the directory: override, XDG runtime dir, Windows, home', () => {
  assert.equal(discoveryDirectory({ BUSSCOPE_DISCOVERY_DIR: '/tmp/x' }, 'linux'), '/tmp/x');
  assert.equal(discoveryDirectory({ XDG_RUNTIME_DIR: '/run/user/1000' }, 'linux'), '/run/user/1000/busscope');
  assert.match(discoveryDirectory({}, 'linux'), /\.busscope[\\/]apps$/);
  assert.match(discoveryDirectory({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32'), /busscope[\\/]apps$/);
});

// Hostile neighbours: nobody but this user may plant or swap discovery files (a rogue host/port
// would receive our token), and the writer never follows a symlink planted at its paths.
const entryFor = (port: number) => ({
  pid: process.pid,
  name: 'self',
  cwd: process.cwd(),
  host: '127.0.0.1',
  port,
  token: 'f'.repeat(32),
  protocolVersion: 1,
  probeVersion: 'test',
  startTime: Date.now(),
});

test('a discovery directory others can write to is not trusted by readers; the writer makes its own private', { skip: !posix }, () => {
  const dir = path.join(tempDir('busscope-disc-'), 'apps');
  const file = writeDiscoveryFile(entryFor(1111), dir);
  assert.equal(listDiscoveredApps({ dir, clean: false }).length, 1);
  fs.chmodSync(dir, 0o777);
  assert.deepEqual(listDiscoveredApps({ dir, clean: false }), [], 'a world-writable directory lists nothing');
  fs.chmodSync(dir, 0o720);
  assert.deepEqual(listDiscoveredApps({ dir, clean: false }), [], 'a group-writable directory lists nothing');
  // The writer owns it, so it repairs the mode instead of using it as is.
  writeDiscoveryFile(entryFor(1112), dir);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  assert.equal(listDiscoveredApps({ dir, clean: false }).length, 2);
  removeDiscoveryFile(file);
});

test('files that are symlinks, writable by others, or owned by another user are skipped', { skip: !posix }, () => {
  const dir = path.join(tempDir('busscope-disc-'), 'apps');
  writeDiscoveryFile(entryFor(2221), dir);
  const outside = path.join(tempDir('busscope-other-'), 'planted.json');
  fs.writeFileSync(outside, JSON.stringify({ ...entryFor(2222), host: 'evil.example' }), { mode: 0o600 });
  fs.symlinkSync(outside, path.join(dir, `${process.pid}-2222.json`));
  const loose = path.join(dir, `${process.pid}-2223.json`);
  fs.writeFileSync(loose, JSON.stringify(entryFor(2223)));
  fs.chmodSync(loose, 0o666);
  const foreign = path.join(dir, `${process.pid}-2224.json`);
  fs.writeFileSync(foreign, JSON.stringify(entryFor(2224)), { mode: 0o600 });
  const isRoot = process.getuid?.() === 0;
  if (isRoot) fs.chownSync(foreign, 4242, 4242);
  const ports = listDiscoveredApps({ dir, clean: false })
    .map((a) => a.port)
    .sort();
  assert.deepEqual(ports, isRoot ? [2221] : [2221, 2224]);
});

test('a discovery directory owned by another user is refused by writer and readers', { skip: !posix || process.getuid?.() !== 0 }, () => {
  const dir = path.join(tempDir('busscope-disc-'), 'apps');
  fs.mkdirSync(dir, { mode: 0o700 });
  fs.writeFileSync(path.join(dir, `${process.pid}-3331.json`), JSON.stringify(entryFor(3331)), { mode: 0o600 });
  fs.chownSync(dir, 4242, 4242);
  assert.throws(() => writeDiscoveryFile(entryFor(3332), dir), /refusing to use the discovery directory .* owned by uid 4242/);
  assert.deepEqual(listDiscoveredApps({ dir, clean: false }), []);
});

test('the writer replaces a symlink at the file name instead of writing through it', { skip: !posix }, () => {
  const dir = path.join(tempDir('busscope-disc-'), 'apps');
  fs.mkdirSync(dir, { mode: 0o700 });
  const victim = path.join(tempDir('busscope-victim-'), 'victim.txt');
  fs.writeFileSync(victim, 'precious');
  const target = path.join(dir, `${process.pid}-4441.json`);
  fs.symlinkSync(victim, target);
  const file = writeDiscoveryFile(entryFor(4441), dir);
  assert.equal(file, target);
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious', 'the symlink target is untouched');
  assert.equal(fs.lstatSync(file).isSymbolicLink(), false);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir), [path.basename(file)], 'no temp file left behind');
});
