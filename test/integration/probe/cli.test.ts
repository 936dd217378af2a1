// The `busscope` CLI (built: runtime-probe/dist/cli.cjs) against a real app: list, tail (NDJSON),
// record (a trace file the reader accepts), demo; usage errors exit 2, failures exit 1.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { listDiscoveredApps } from '../../../runtime-probe/src/discovery/index';
import { CLI, ROOT, cleanup, onCleanup, spawnApp, tempDir, waitFor, withTimeout } from './helpers';

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
  assert.match(cli(['--version'], env).stdout, /^0\.1\.0 \(protocol 1\)/);
  const none = cli(['list'], env);
  assert.equal(none.status, 0);
  assert.match(none.stderr, /no apps with the Busscope probe are running/);
  const missing = cli(['tail', '999999'], env);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no running app with pid or port 999999/);
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
  await waitFor(() => tail.stdout().split('\n').filter((l) => l.includes('"kind":"dispatch"')).length >= 20, 10_000, 'tail output');
  tail.child.kill('SIGINT');
  assert.equal(await withTimeout(tail.exited, 5000, 'tail exit'), 0);
  const lines = tail.stdout().trim().split('\n').map((l) => JSON.parse(l));
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
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /wrong or missing token/);

  // tail ends by itself (exit 0) when the app stops its probe.
  const tail2 = spawnCli(['tail', String(app.pid)], env);
  await waitFor(() => tail2.stdout().includes('"type":"snapshot"'), 10_000, 'second tail attached');
  await app.call('stopProbe');
  assert.equal(await withTimeout(tail2.exited, 5000, 'tail exit after probe stop'), 0);
});

test('demo runs the demo app with the probe on', { skip: !fs.existsSync(path.join(ROOT, 'runtime-probe/dist/demo.cjs')) }, async () => {
  const dir = tempDir('busscope-cli-');
  const demo = spawnCli(['demo', '--quiet', '--duration', '20'], { BUSSCOPE_DISCOVERY_DIR: dir });
  await waitFor(() => listDiscoveredApps({ dir }).length === 1, 10_000, 'the demo in the discovery directory');
  demo.child.kill('SIGINT');
  const code = await withTimeout(demo.exited, 10_000, 'demo exit');
  assert.equal(code, 0, demo.stderr());
  await waitFor(() => listDiscoveredApps({ dir }).length === 0, 5000, 'the demo gone from discovery');
});
