// `busscope check` and `busscope show` (built: runtime-probe/dist/cli.cjs) on the demo's trace and
// on live apps: the text output (grouped by kind, each warning at path:line:column, worded as the
// extension words it), exit codes (0 nothing fails, 1 findings, 2 usage, 3 unreadable / no app,
// 4 the app ended before --duration), the documented --json schema, and SARIF validated against
// the official SARIF 2.1.0 schema.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { WARNING_KINDS } from '../../../runtime-probe/src/analysis/analyses/index';
import { cleanup, spawnApp, waitFor, type App } from '../probe/helpers';
import { CLI, ROOT, checkJsonValidator, cli, recordDemoTrace, sarifValidator, tempDir } from './helpers';

let dir = '';
let trace = '';
/** The demo runs 5 s; its never-dispatched bug needs a grace period shorter than the default 5 s. */
const GRACE = ['--set', 'neverDispatched.graceMs=2500'];

before(async () => {
  dir = tempDir('busscope-check-');
  trace = await recordDemoTrace(dir);
});
after(async () => {
  await cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

interface CheckJson {
  version: number;
  failed: boolean;
  failOn: string;
  counts: { total: number; failing: number; bySeverity: Record<string, number>; byKind: Record<string, number> };
  warnings: {
    id: string;
    kind: string;
    severity: string;
    title: string;
    explanation: string;
    sites: { file: string; line: number; column: number }[];
    fails: boolean;
  }[];
  source: { kind: string };
  note: string | null;
}

/** Waits until a client (the check under test) records from the app: the event the check's run starts at. */
async function recordingStarted(app: App): Promise<void> {
  await waitFor(async () => (await app.call<{ recording: boolean }>('snapshot')).recording, 20_000, 'the check to attach and record', 50);
}

function json(args: string[]): { status: number | null; body: CheckJson; stderr: string } {
  const r = cli(['check', ...args, '--json']);
  let body: CheckJson;
  try {
    body = JSON.parse(r.stdout) as CheckJson;
  } catch {
    throw new Error(`not JSON (exit ${r.status}): ${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status, body, stderr: r.stderr };
}

test('check <trace>: every warning grouped by kind, at path:line:column, worded as in the extension; exit 1', () => {
  const text = cli(['check', trace, ...GRACE]);
  const { body } = json([trace, ...GRACE]);
  assert.equal(text.status, 1, text.stderr);
  assert.ok(body.warnings.length >= 9, `the demo's deliberate bugs are found (${body.warnings.length})`);
  const out = text.stdout;
  // Groups in the analyses' order, each with its count.
  const headers = [...out.matchAll(/^── ([a-z-]+) \((\d+)\) ──$/gm)].map((m) => [m[1], Number(m[2])] as const);
  assert.deepEqual(
    headers.map(([k]) => k),
    WARNING_KINDS.filter((k) => body.warnings.some((w) => w.kind === k)),
  );
  for (const [kind, n] of headers) assert.equal(n, body.warnings.filter((w) => w.kind === kind).length, kind);
  for (const w of body.warnings) {
    const site = w.sites[0];
    assert.ok(site, `${w.id} has a site`);
    // Relative to the working folder (the repository root here), as compilers print it.
    const rel = path.relative(ROOT, site.file);
    assert.ok(!rel.startsWith('..'), `${site.file} is inside the repository`);
    const suffix = w.fails ? '' : '  (does not fail)';
    assert.ok(out.includes(`${rel}:${site.line}:${site.column}: ${w.severity}: ${w.title}${suffix}\n`), `${w.id} is printed at its site:\n${out}`);
    // The explanation, line for line, as the extension's Problems entry has it (title, newline, explanation).
    assert.ok(
      out.includes(
        w.explanation
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n'),
      ),
      `${w.id}'s explanation`,
    );
  }
  assert.match(
    out,
    new RegExp(
      `busscope check: ${body.warnings.length} warnings in ${trace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}; ${body.counts.failing} fail \\(--fail-on warning\\)\\n$`,
    ),
  );
});

test('--json follows the documented schema, and --fail-on picks what fails', () => {
  const validate = checkJsonValidator();
  const all = json([trace, ...GRACE]);
  assert.ok(validate(all.body), JSON.stringify(validate.errors, null, 2));
  assert.equal(all.body.version, 1);
  assert.equal(all.body.source.kind, 'trace');
  assert.equal(all.body.failOn, 'warning');
  assert.equal(all.body.counts.total, all.body.warnings.length);
  // Default `warning`: warnings and errors fail, info does not.
  for (const w of all.body.warnings) assert.equal(w.fails, w.severity !== 'info', w.id);
  assert.ok(all.body.counts.bySeverity.error > 0, 'the demo has error-level findings (throwing handler, depth limit)');

  const none = json([trace, ...GRACE, '--fail-on', 'none']);
  assert.equal(none.status, 0, 'report only');
  assert.equal(none.body.failed, false);
  assert.ok(validate(none.body));

  const errors = json([trace, ...GRACE, '--fail-on', 'error']);
  assert.equal(errors.status, 1);
  assert.deepEqual(
    errors.body.warnings.filter((w) => w.fails).map((w) => w.id),
    errors.body.warnings.filter((w) => w.severity === 'error').map((w) => w.id),
  );

  const oneKind = json([trace, ...GRACE, '--fail-on', 'starved-subscriber']);
  assert.equal(oneKind.status, 1);
  assert.ok(oneKind.body.warnings.filter((w) => w.fails).every((w) => w.kind === 'starved-subscriber'));

  // Disable every kind the trace shows, as the extension's busscope.warnings.disabled does: nothing fails.
  const kinds = [...new Set(all.body.warnings.map((w) => w.kind))];
  const disabled = json([trace, ...GRACE, '--set', `disabled=${kinds.join(',')}`]);
  assert.equal(disabled.status, 0);
  assert.deepEqual(disabled.body.warnings, []);
  // A threshold, as the extension's setting: a grace period longer than the demo ran hides never-dispatched.
  const patient = json([trace, '--set', 'neverDispatched.graceMs=60000']);
  assert.ok(all.body.warnings.some((w) => w.kind === 'never-dispatched'));
  assert.ok(!patient.body.warnings.some((w) => w.kind === 'never-dispatched'), 'waited less than 60 s');
  assert.equal(patient.body.warnings.length, all.body.warnings.length - all.body.warnings.filter((w) => w.kind === 'never-dispatched').length);
});

test('--sarif writes a SARIF 2.1.0 log that validates against the official schema', () => {
  const file = path.join(dir, 'check.sarif');
  const r = cli(['check', trace, ...GRACE, '--sarif', file, '--fail-on', 'none']);
  assert.equal(r.status, 0, r.stderr);
  const log = JSON.parse(fs.readFileSync(file, 'utf8')) as { runs: { results: Record<string, unknown>[]; [k: string]: unknown }[]; [k: string]: unknown };
  const validate = sarifValidator();
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
  // Not vacuous: the validator does reject a broken log.
  assert.equal(validate({ ...log, runs: [{ ...log.runs[0], results: [{ ...log.runs[0].results[0], level: 'fatal' }] }] }), false);
  const { body } = json([trace, ...GRACE]);
  const run = log.runs[0] as unknown as {
    tool: { driver: { name: string; rules: { id: string }[] } };
    results: {
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: object } }[];
    }[];
  };
  assert.equal(run.tool.driver.name, 'busscope');
  assert.deepEqual(
    run.tool.driver.rules.map((x: { id: string }) => x.id),
    WARNING_KINDS,
  );
  assert.equal(run.results.length, body.warnings.length);
  for (const [i, w] of body.warnings.entries()) {
    const res = run.results[i];
    assert.equal(res.ruleId, w.kind);
    assert.equal(run.tool.driver.rules[res.ruleIndex].id, w.kind);
    assert.equal(res.level, w.severity === 'info' ? 'note' : w.severity);
    assert.equal(res.message.text, `${w.title}\n${w.explanation}`);
    const loc = res.locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uriBaseId, 'SRCROOT');
    assert.equal(loc.artifactLocation.uri, path.relative(ROOT, w.sites[0].file).split(path.sep).join('/'));
    assert.deepEqual(loc.region, { startLine: w.sites[0].line, startColumn: w.sites[0].column });
  }
});

test('show <trace>: buses, types, rates, slowest handlers, drops and warnings', () => {
  const r = cli(['show', trace]);
  assert.equal(r.status, 0, r.stderr);
  const out = r.stdout;
  assert.match(out, /^Trace +.*demo\.bustrace$/m);
  assert.match(out, /^App +busscope-demo|^App +\S+ \(pid \d+/m);
  assert.match(out, /^Drops +none$/m);
  assert.match(out, /^Buses \(3\)$/m);
  assert.match(out, /^ +BUS +TYPES +LISTENERS +DISPATCHES +PER SEC +STATE$/m);
  assert.match(out, /disposed at \d+\.\d s/);
  assert.match(out, /^Event types \(\d+/m);
  assert.match(out, /^Slowest handlers/m);
  assert.match(out, /^ +P95 MS +MAX MS +CALLS +HANDLER +SITE$/m);
  const warnings = /^Warnings \((\d+)\)$/m.exec(out);
  assert.ok(warnings && Number(warnings[1]) > 0);
  assert.match(out, /^ {2}listener-growth \(\d+\)$/m);
});

test('usage errors exit 2 before the trace is read; unreadable traces and missing apps exit 3', () => {
  const cases: [string[], RegExp][] = [
    [['check'], /check needs a trace file, or the pid or port/],
    [['check', 'missing.bustrace', '--fail-on', 'sometimes'], /--fail-on takes none, a severity/],
    [['check', 'missing.bustrace', '--set', 'listenerGrowth.threshold=lots'], /--set listenerGrowth\.threshold takes an integer from 0 to/],
    [['check', 'missing.bustrace', '--set', 'listenerGrowth.treshold=5'], /--set: unknown setting "listenerGrowth\.treshold"/],
    [['check', 'missing.bustrace', '--set', 'disabled=slow-handlers'], /--set disabled takes warning kinds/],
    [['check', 'missing.bustrace', '--set', 'threshold'], /--set takes <key>=<value>/],
    [['check', 'missing.bustrace', '--duration', '5'], /--duration is for a running app; "missing\.bustrace" is read as a trace file/],
    [['check', 'a', 'b'], /check takes one trace, pid or port/],
    [['check', 'x', '--bogus'], /unknown option --bogus/],
    [['show'], /show needs a trace file/],
  ];
  for (const [args, message] of cases) {
    const r = cli(args);
    assert.equal(r.status, 2, `${args.join(' ')} → 2 (${r.stderr})`);
    assert.match(r.stderr.split('\n')[0], message, args.join(' '));
    assert.match(r.stderr.split('\n')[1], /^usage: busscope (check|show) /);
  }
  const missing = cli(['check', path.join(dir, 'nope.bustrace')]);
  assert.equal(missing.status, 3);
  assert.match(missing.stderr, /cannot read the trace .*nope\.bustrace/);
  const notTrace = path.join(dir, 'not-a-trace.txt');
  fs.writeFileSync(notTrace, 'hello, this is not a trace\n');
  const bad = cli(['show', notTrace]);
  assert.equal(bad.status, 3);
  assert.match(bad.stderr, /is not a Busscope trace file/);
  const noApp = cli(['check', '999999', '--duration', '1'], { env: { BUSSCOPE_DISCOVERY_DIR: path.join(dir, 'empty') } });
  assert.equal(noApp.status, 3);
  assert.match(noApp.stderr, /no running app with pid or port 999999/);
});

test('a trace cut mid-record (the app was killed) is checked up to the cut, and says so', () => {
  const cut = path.join(dir, 'cut.bustrace');
  const bytes = fs.readFileSync(trace);
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 7));
  const r = json([cut, '--fail-on', 'none']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.body.note ?? '', /the trace ends mid-record/);
  assert.ok(r.body.warnings.length > 0, 'what came before the cut is judged');
  assert.match(cli(['check', cut, '--fail-on', 'none']).stdout, /^note: the trace ends mid-record/m);
});

test("--help: the one exit-code table, with check's findings", () => {
  const r = cli(['--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /busscope check <trace\|pid\|port>/);
  assert.match(r.stdout, /busscope show <trace>/);
  assert.match(r.stdout, /--set <key>=<value>[\s\S]*listenerGrowth\.threshold[\s\S]*disabled/);
  assert.match(
    r.stdout,
    /Exit codes:\n {2}0 .*\n {2}1 +check: findings that --fail-on selects[\s\S]*\n {2}2 +usage error[\s\S]*\n {2}3 +app not found[\s\S]*\n {2}4 +the app ended/,
  );
});

test('check <pid> --duration: a live demo is observed, judged to completion, and its findings fail', { timeout: 60_000 }, async () => {
  const discovery = path.join(dir, 'live-discovery');
  const demo = spawn(process.execPath, ['--enable-source-maps', path.join(ROOT, 'runtime-probe/dist/demo.cjs'), '--duration', '20', '--quiet'], {
    cwd: dir,
    env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: discovery },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    await new Promise<void>((resolve) => demo.stdout?.once('data', () => resolve()));
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, [CLI, 'check', String(demo.pid), '--duration', '4', '--json', '--set', 'neverDispatched.graceMs=1500'], {
        cwd: ROOT,
        env: { ...process.env, BUSSCOPE_DISCOVERY_DIR: discovery },
      });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.once('exit', (code) => resolve({ code, out }));
    });
    assert.equal(r.code, 1, r.out);
    const body = JSON.parse(r.out) as CheckJson & { source: { kind: string; label: string; durationMs: number } };
    assert.ok(checkJsonValidator()(body));
    assert.deepEqual(body.source, { kind: 'app', label: body.source.label, durationMs: 4000 });
    assert.match(body.source.label, /\(pid \d+, port \d+\)$/);
    const kinds = new Set(body.warnings.map((w) => w.kind));
    for (const k of ['listener-growth', 'throwing-handler', 'slow-handler', 'unheard-dispatch'] as const)
      assert.ok(kinds.has(k), `live: ${k} among ${[...kinds].join(', ')}`);
  } finally {
    demo.kill('SIGKILL');
  }
});

test(
  'check <pid>: an app that ends before --duration is up exits 4 (nothing failing); without --duration its end ends the check (0)',
  { timeout: 60_000 },
  async () => {
    const discovery = path.join(dir, 'app-discovery');
    const env = { BUSSCOPE_DISCOVERY_DIR: discovery };
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const c = spawn(process.execPath, [CLI, 'check', ...args], { cwd: ROOT, env: { ...process.env, ...env } });
        let out = '';
        let err = '';
        c.stdout.on('data', (d: Buffer) => (out += d.toString()));
        c.stderr.on('data', (d: Buffer) => (err += d.toString()));
        c.once('exit', (code) => resolve({ code, out, err }));
      });
    const app = await spawnApp({ start: { discovery: true, name: 'check-target' }, env });
    await app.call('startBackground', { everyMs: 5, perTick: 2 });
    const early = run([String(app.pid), '--duration', '30']);
    await recordingStarted(app);
    await app.call('exit', { code: 0 });
    const r = await early;
    assert.equal(r.code, 4, `${r.out}\n${r.err}`);
    assert.match(r.err, new RegExp(`app check-target \\(pid ${app.pid}\\) ended after \\d+ ms of record time, before --duration was up`));
    assert.match(r.out, /busscope check: no warnings in check-target/);

    const app2 = await spawnApp({ start: { discovery: true, name: 'check-target-2' }, env });
    await app2.call('startBackground', { everyMs: 5, perTick: 2 });
    const untilEnd = run([String(app2.pid), '--json']);
    await recordingStarted(app2);
    await app2.call('exit', { code: 0 });
    const r2 = await untilEnd;
    assert.equal(r2.code, 0, `${r2.out}\n${r2.err}`);
    const body = JSON.parse(r2.out) as CheckJson;
    assert.match(body.note ?? '', /ended after \d+ ms of record time$/);
  },
);
