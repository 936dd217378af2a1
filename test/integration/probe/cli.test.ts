// The `busscope` CLI (built: runtime-probe/dist/cli.cjs) against a real app: list, tail (NDJSON),
// record (a trace file the reader accepts), demo. Exit codes: 0 done, 2 usage error (before anything
// else is tried), 3 app not found / connection failed, 4 the app ended while attached.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { listDiscoveredApps } from '../../../runtime-probe/src/discovery/index';
import { CLI, ROOT, cleanup, onCleanup, sleep, spawnApp, tempDir, waitFor, withTimeout } from './helpers';
import { PROTOCOL_VERSION } from '../../../runtime-probe/src/protocol/version';

after(cleanup);

function cli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 15_000 });
}

function spawnCli(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

test('help, version and usage errors', () => {
  const env = { BUSSCOPE_DISCOVERY_DIR: tempDir('busscope-cli-') };
  const help = cli(['--help'], env);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /busscope tail <pid\|port>/);
  assert.equal(cli([], env).status, 2);
  const unknown = cli(['frobnicate'], env);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /unknown command "frobnicate"/);
  assert.equal(cli(['tail'], env).status, 2);
  assert.equal(cli(['record', '123'], env).status, 2, 'record needs -o');
  assert.equal(cli(['tail', 'abc'], env).status, 2);
  assert.match(cli(['--version'], env).stdout, new RegExp(`^0\\.1\\.0 \\(protocol ${PROTOCOL_VERSION}\\)`));
  const none = cli(['list'], env);
  assert.equal(none.status, 0);
  assert.match(none.stderr, /no apps with the Busscope probe are running/);
  const missing = cli(['tail', '999999'], env);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /no running app with pid or port 999999/);
  assert.match(help.stdout, /Exit codes:[\s\S]*\b2 +usage error[\s\S]*\b3 +app not found[\s\S]*\b4 +the app ended/);
});

test('unknown options and bad values are usage errors (exit 2) reported before looking for the app', () => {
  const env = { BUSSCOPE_DISCOVERY_DIR: tempDir('busscope-cli-') };
  const cases: [string[], RegExp][] = [
    [['list', '--bogus'], /unknown option --bogus/],
    [['list', '--json=yes'], /--json' does not take an argument/],
    // The app does not exist, but the bad value is what gets reported.
    [['tail', '999999', '--detail', 'verbose'], /--detail must be one of lifecycle, dispatch, handlers \(got "verbose"\)/],
    [['tail', '999999', '--bogus'], /unknown option --bogus/],
    [['tail', '999999', '--duration', 'soon'], /--duration must be a number of seconds/],
    [['tail', '999999', '--duration', '-1'], /--duration/],
    [['tail', '999999', '--detail'], /--detail <value>' argument missing/],
    [['record', '999999', '-o', 'x.bustrace', '--host', ''], /--host must not be empty/],
    [['tail', '1', '2'], /takes one pid or port/],
    [['--bogus'], /unknown option --bogus/],
  ];
  for (const [args, message] of cases) {
    const r = cli(args, env);
    assert.equal(r.status, 2, `${args.join(' ')} → exit 2 (stderr: ${r.stderr})`);
    const lines = r.stderr.trimEnd().split('\n');
    assert.match(lines[0], message, args.join(' '));
    assert.doesNotMatch(r.stderr, /no running app/, 'the app was not looked for');
    assert.equal(lines.length, 2, 'the message and a one-line usage hint');
    assert.match(lines[1], /^usage: busscope /);
  }
});

test('list, tail and record a running app', async () => {
  const dir = tempDir('busscope-cli-');
  const env = { BUSSCOPE_DISCOVERY_DIR: dir };
  const app = await spawnApp({ start: { discovery: true, name: 'cli-target' }, env });
  assert.ok(app.info);
  await app.call('startBackground', { everyMs: 5, perTick: 5 });

  const list = cli(['list'], env);
  assert.equal(list.status, 0);
  assert.match(list.stdout, new RegExp(`^${app.pid}\\s+cli-target\\s+127\\.0\\.0\\.1:${app.info.port}`, 'm'));
  const json = JSON.parse(cli(['list', '--json'], env).stdout);
  assert.equal(json[0].pid, app.pid);
  assert.equal(json[0].token, undefined, 'tokens are not printed');

  // tail by pid: NDJSON, welcome first, then records; Ctrl+C ends it with exit 0.
  const tail = spawnCli(['tail', String(app.pid)], env);
  await waitFor(
    () =>
      tail
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"kind":"dispatch"')).length >= 20,
    10_000,
    'tail output',
  );
  tail.child.kill('SIGINT');
  assert.equal(await withTimeout(tail.exited, 5000, 'tail exit'), 0);
  const lines = tail
    .stdout()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines[0].type, 'welcome');
  assert.equal(lines[0].app.pid, app.pid);
  assert.ok(lines.some((l) => l.type === 'snapshot'));
  assert.ok(lines.some((l) => l.kind === 'dispatch' && l.type === 'bg.tick'));

  // record by port, for a second.
  const file = path.join(dir, 'cli.bustrace');
  const rec = cli(['record', String(app.info.port), '-o', file, '--duration', '1'], env);
  assert.equal(rec.status, 0, rec.stderr);
  assert.match(rec.stderr, /recorded \d+ frames/);
  const messages = await readTraceFileMessages(file);
  assert.equal(messages[0].type, 'welcome');
  assert.ok(messages.some((m) => m.type === 'records' && m.records.some((r) => r.kind === 'dispatch' && r.type === 'bg.tick')));

  // A wrong token is a clear failure.
  const bad = cli(['tail', String(app.info.port), '--token', 'wrong', '--duration', '1'], env);
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /wrong or missing token/);

  // tail ends by itself when the app stops its probe, and says so (exit 4).
  const tail2 = spawnCli(['tail', String(app.pid)], env);
  await waitFor(() => tail2.stdout().includes('"type":"snapshot"'), 10_000, 'second tail attached');
  await app.call('stopProbe');
  assert.equal(await withTimeout(tail2.exited, 5000, 'tail exit after probe stop'), 4);
  assert.match(tail2.stderr(), new RegExp(`app cli-target \\(pid ${app.pid}\\) stopped its probe`));
});

test('tail and record say why when the app ends while attached, and exit 4', async () => {
  const dir = tempDir('busscope-cli-');
  const env = { BUSSCOPE_DISCOVERY_DIR: dir };
  const app = await spawnApp({ start: { discovery: true, name: 'short-lived' }, env });
  await app.call('startBackground', { everyMs: 5, perTick: 2 });
  const tail = spawnCli(['tail', String(app.pid)], env);
  const file = path.join(dir, 'ended.bustrace');
  const rec = spawnCli(['record', String(app.pid), '-o', file], env);
  await waitFor(() => tail.stdout().includes('"type":"snapshot"'), 10_000, 'tail attached');
  await waitFor(() => fs.existsSync(file) && fs.statSync(file).size > 500, 10_000, 'record attached');
  await app.call('exit', { code: 0 });
  assert.equal(await withTimeout(tail.exited, 5000, 'tail exit after the app ended'), 4);
  assert.equal(await withTimeout(rec.exited, 5000, 'record exit after the app ended'), 4);
  const ended = new RegExp(`^busscope: app short-lived \\(pid ${app.pid}\\) ended$`, 'm');
  assert.match(tail.stderr(), ended);
  assert.match(rec.stderr(), ended);
  assert.match(rec.stderr(), /recorded \d+ frames/);
  const messages = await readTraceFileMessages(file);
  assert.equal(messages[0].type, 'welcome', 'the trace is complete up to the end');
});

test('tail into a slow stdout: one drain listener, no lost lines, drops counted', { skip: process.platform === 'win32' }, async () => {
  const dir = tempDir('busscope-cli-');
  const env = { BUSSCOPE_DISCOVERY_DIR: dir };
  const app = await spawnApp({ start: { discovery: true, name: 'firehose' }, env });
  // tail's stdout is a real pipe into a reader slower than the app produces; the shell leaves tail's
  // pid and exit code in files.
  const outFile = path.join(dir, 'out.ndjson');
  const fastFlag = path.join(dir, 'fast');
  const pidFile = path.join(dir, 'tail.pid');
  const codeFile = path.join(dir, 'tail.code');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script =
    `{ ${q(process.execPath)} ${q(CLI)} tail ${app.pid} & echo $! > ${q(pidFile)}; wait $!; echo $? > ${q(codeFile)}; }` +
    ` | ${q(process.execPath)} ${q(path.join(ROOT, 'test/fixtures/apps/slow-reader.cjs'))} ${q(outFile)} ${q(fastFlag)}`;
  const sh = spawn('sh', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  sh.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const shExited = new Promise<number | null>((r) => sh.once('exit', (code) => r(code)));
  onCleanup(() => {
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        // gone
      }
    }
    fs.writeFileSync(fastFlag, '');
  });
  const output = () => (fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : '');
  await waitFor(() => output().includes('"type":"snapshot"'), 10_000, 'tail attached');
  // A steady trickle of small batches: they pile up in the socket while tail waits for stdout, so
  // each chunk it reads afterwards holds many messages (the old code added a listener per message).
  await app.call('startBackground', { everyMs: 2, perTick: 10 });
  await sleep(2000);
  const total = await app.call<number>('stopBackground');
  fs.writeFileSync(fastFlag, '');
  // Every dispatch arrives as a line or is counted in a drops record.
  let parsedUpTo = 0;
  let dispatches = 0;
  let dropped = 0;
  const received = () => {
    const text = output();
    const end = text.lastIndexOf('\n') + 1;
    for (const line of text.slice(parsedUpTo, end).split('\n')) {
      if (line === '') continue;
      const r = JSON.parse(line) as { kind?: string; type?: string; dispatches?: number };
      if (r.kind === 'dispatch' && r.type === 'bg.tick') dispatches++;
      else if (r.kind === 'drops') dropped += r.dispatches ?? 0;
    }
    parsedUpTo = Math.max(parsedUpTo, end);
    return dispatches + dropped;
  };
  await waitFor(() => received() >= total, 30_000, 'every dispatch printed or counted');
  process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGTERM');
  assert.equal(await withTimeout(shExited, 10_000, 'tail and reader exit'), 0);
  assert.equal(fs.readFileSync(codeFile, 'utf8').trim(), '0', 'tail ended by the signal exits 0');
  received();
  assert.equal(dispatches + dropped, total, `printed ${dispatches} + dropped ${dropped}`);
  assert.ok(output().endsWith('\n'), 'no partial line');
  assert.doesNotMatch(stderr, /MaxListenersExceededWarning/);
  assert.equal(stderr, '');
});

test('demo runs the demo app with the probe on', { skip: !fs.existsSync(path.join(ROOT, 'runtime-probe/dist/busscope-demo.cjs')) }, async () => {
  const dir = tempDir('busscope-cli-');
  const demo = spawnCli(['demo', '--quiet', '--duration', '20'], { BUSSCOPE_DISCOVERY_DIR: dir });
  await waitFor(() => listDiscoveredApps({ dir }).length === 1, 10_000, 'the demo in the discovery directory');
  demo.child.kill('SIGINT');
  const code = await withTimeout(demo.exited, 10_000, 'demo exit');
  assert.equal(code, 0, demo.stderr());
  await waitFor(() => listDiscoveredApps({ dir }).length === 0, 5000, 'the demo gone from discovery');
});
