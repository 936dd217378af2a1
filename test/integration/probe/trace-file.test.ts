// Trace files carry the same messages as a live session: read back, a trace equals the live stream
// of the same run. BUSSCOPE_RECORD records without any socket, into a file only the probe created
// (never through a symlink, never into a FIFO). A cut-off trace yields what it holds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { ProtocolError, type BusRecord, type StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { cleanup, connect, spawnApp, tempDir, withTimeout } from './helpers';

after(cleanup);

const isData = (r: BusRecord): boolean => r.kind !== 'string' && r.kind !== 'site';
const dataRecords = (ms: StreamMessage[]) => ms.flatMap((m) => (m.type === 'records' ? m.records.filter(isData) : []));

test('a trace recorded during a live session reads back as the same messages', async () => {
  const dir = tempDir('busscope-trace-');
  const app = await spawnApp();
  assert.ok(app.info);
  const c = await connect(app.info);
  await app.call('setupEarly');
  await c.client.ping();
  const liveSnapshot = await c.client.requestSnapshot();
  const mark = c.messages.length;
  const file = await app.call<string>('record', { file: path.join(dir, 'run.bustrace') });
  await app.call('scenario');
  await app.call('stopRecording');
  await c.client.ping();

  const traced = await readTraceFileMessages(file);
  assert.equal(traced[0].type, 'welcome');
  assert.equal(traced[1].type, 'records', 'definitions made so far');
  assert.equal(traced[2].type, 'snapshot');
  assert.ok(traced[0].type === 'welcome');
  assert.deepEqual(traced[0].app, c.client.welcome.app);
  assert.equal(traced[0].timeOrigin, c.client.welcome.timeOrigin);
  assert.ok(traced[2].type === 'snapshot');
  assert.deepEqual(traced[2].snapshot.subscriptions, liveSnapshot.subscriptions);
  assert.deepEqual(traced[2].snapshot.buses, liveSnapshot.buses);

  const live = dataRecords(c.messages.slice(mark));
  const fromFile = dataRecords(traced.slice(3));
  assert.ok(fromFile.length > 50);
  assert.deepEqual(fromFile, live);
  // Every message kind after the preamble is a record batch; the record kinds cover the scenario.
  const kinds = new Set<string>(fromFile.map((r) => r.kind));
  for (const k of ['bus-created', 'subscribe', 'unsubscribe', 'dispatch', 'handler', 'handler-error', 'enqueue', 'flush', 'depth-limit', 'owner-collected']) {
    assert.ok(kinds.has(k), `trace has ${k} records`);
  }
  if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});

test('BUSSCOPE_RECORD records a whole run without a socket, flushed at exit', async () => {
  const dir = tempDir('busscope-trace-');
  const file = path.join(dir, 'env.bustrace');
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: file } });
  assert.equal(app.info, null, 'no server');
  const report = await app.call<{ dispatches: Record<string, number> }>('scenario');
  await app.call('exit', { code: 0 });
  await withTimeout(app.exited, 5000, 'exit');
  const messages = await readTraceFileMessages(file);
  assert.equal(messages[0].type, 'welcome');
  const records = dataRecords(messages);
  const bus = records.find((r) => r.kind === 'bus-created' && r.name === 'scenario');
  assert.ok(bus && bus.kind === 'bus-created');
  const counts: Record<string, number> = {};
  for (const r of records) if (r.kind === 'dispatch' && r.bus === bus.bus) counts[r.type] = (counts[r.type] ?? 0) + 1;
  assert.deepEqual(counts, report.dispatches);
});

test('a trace cut short yields every complete message, then a precise error', async () => {
  const dir = tempDir('busscope-trace-');
  const file = path.join(dir, 'full.bustrace');
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: file } });
  await app.call('scenario');
  await app.call('exit', { code: 0 });
  await withTimeout(app.exited, 5000, 'exit');
  const all = await readTraceFileMessages(file);
  const bytes = fs.readFileSync(file);
  const cut = path.join(dir, 'cut.bustrace');
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 3));
  const got: StreamMessage[] = [];
  const { readTraceFile } = await import('../../../runtime-probe/src/client/index');
  await assert.rejects(
    (async () => {
      for await (const m of readTraceFile(cut)) got.push(m);
    })(),
    (e: unknown) => e instanceof ProtocolError && e.code === 'truncated',
  );
  assert.deepEqual(got, all.slice(0, all.length - 1));
  const notATrace = path.join(dir, 'x.json');
  fs.writeFileSync(notATrace, '{"hello": "world"}');
  await assert.rejects(readTraceFileMessages(notATrace), (e: unknown) => e instanceof ProtocolError && e.code === 'not-a-trace');
});

// BUSSCOPE_RECORD names a path that may already hold something: a trace is only ever written to a
// file the probe created itself (0600), never through a link, never into a FIFO or device.
const posix = process.platform !== 'win32';
const warnings = (app: { stderr: () => string }) =>
  app
    .stderr()
    .split('\n')
    .filter((l) => l.includes('[busscope]'));

test('BUSSCOPE_RECORD at a symlink: the link target is untouched, one warning, the app runs on', { skip: !posix }, async () => {
  const dir = tempDir('busscope-trace-');
  const victim = path.join(tempDir('busscope-victim-'), 'precious.txt');
  fs.writeFileSync(victim, 'precious', { mode: 0o644 });
  const link = path.join(dir, 'run.bustrace');
  fs.symlinkSync(victim, link);
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: link } });
  await app.call('scenario');
  assert.equal(await app.call('ping'), 'pong');
  await app.call('exit', { code: 0 });
  assert.deepEqual(await withTimeout(app.exited, 5000, 'exit'), { code: 0, signal: null });
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
  assert.equal(fs.statSync(victim).mode & 0o777, 0o644);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link itself is left alone');
  const w = warnings(app);
  assert.equal(w.length, 1, app.stderr());
  assert.match(w[0], /recording to .*run\.bustrace failed \(.* is a symbolic link/);
});

test('BUSSCOPE_RECORD over an existing 0644 file replaces it with a fresh 0600 trace', { skip: !posix }, async () => {
  const dir = tempDir('busscope-trace-');
  const file = path.join(dir, 'old.bustrace');
  fs.writeFileSync(file, 'an older trace, readable by everyone');
  fs.chmodSync(file, 0o644);
  // A hard link to the old file must keep the old content: the new trace is a new file, not a rewrite.
  const hard = path.join(dir, 'hard-link');
  fs.linkSync(file, hard);
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: file } });
  await app.call('scenario');
  await app.call('exit', { code: 0 });
  await withTimeout(app.exited, 5000, 'exit');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const messages = await readTraceFileMessages(file);
  assert.equal(messages[0].type, 'welcome');
  assert.equal(fs.readFileSync(hard, 'utf8'), 'an older trace, readable by everyone');
  assert.deepEqual(warnings(app), []);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['hard-link', 'old.bustrace'], 'no temp file left behind');
});

test('BUSSCOPE_RECORD at a FIFO does not block the app at load: it warns once and runs on', { skip: !posix }, async () => {
  const dir = tempDir('busscope-trace-');
  const fifo = path.join(dir, 'pipe.bustrace');
  const made = spawnSync('mkfifo', ['-m', '600', fifo]);
  assert.equal(made.status, 0, 'mkfifo');
  // Before the fix the app hung inside require() opening the FIFO, and never became ready.
  const app = await withTimeout(spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: fifo } }), 8000, 'the app starting');
  assert.equal(await app.call('ping'), 'pong');
  assert.ok(fs.lstatSync(fifo).isFIFO(), 'the FIFO is left alone');
  const w = warnings(app);
  assert.equal(w.length, 1, app.stderr());
  assert.match(w[0], /pipe\.bustrace failed \(.* is a FIFO/);
});

test('a new trace file is created 0600', { skip: !posix }, async () => {
  const dir = tempDir('busscope-trace-');
  const file = path.join(dir, 'new.bustrace');
  const app = await spawnApp({ start: 'none', env: { BUSSCOPE_RECORD: file } });
  await app.call('exit', { code: 0 });
  await withTimeout(app.exited, 5000, 'exit');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal((await readTraceFileMessages(file))[0].type, 'welcome');
});
