// The analyses against the real demo app: every deliberate bug listed in runtime-probe/src/demo/bugs.ts
// must be reported, and nothing else. One run of the built demo (dist/demo.cjs; `npm run build`
// first) with the probe on and a trace recorded:
//   - live: the real ProbeClient attaches through the discovery file (late attach: snapshot first),
//     the model is fed every message, the analyses run while the app is still running;
//   - offline: after the app exits (disposing its buses), the trace file is read back with the
//     probe's reader into a fresh model and judged again, as a user opening the trace would.
// Thresholds are the defaults except the never-dispatched grace period (2.5 s instead of 5 s), so
// the whole test stays under ~9 s.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEMO_BUGS, type DemoBug, type DemoBugKind } from '../../../runtime-probe/src/demo/bugs';
import { ProbeClient, readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { Analyzer, type Warning, type WarningKind } from '../../../runtime-probe/src/analysis/analyses/index';

const ROOT = path.resolve(__dirname, '../../..');
const DEMO = path.join(ROOT, 'runtime-probe/dist/demo.cjs');
const RUN_SECONDS = 5;
/** Record time (ms since the probe started) at which the live model is judged (at least). */
const JUDGE_LIVE_AT = 4000;
/** …and at least this long after attach, so subscriptions seen first in the snapshot are past the grace period. */
const JUDGE_AFTER_ATTACH = 3000;
const THRESHOLDS = { neverDispatched: { graceMs: 2500 } };

const KIND_OF_BUG: Record<DemoBugKind, WarningKind> = {
  'listener-growth': 'listener-growth',
  'dead-owner': 'dead-owner-listeners',
  'owner-gone-still-registered': 'owner-gone-still-registered',
  'dispatch-without-listeners': 'unheard-dispatch',
  'never-dispatched': 'never-dispatched',
  'slow-handler': 'slow-handler',
  'starved-subscriber': 'starved-subscriber',
  'depth-limit': 'depth-limit-storm',
  'throwing-handler': 'throwing-handler',
};

let child: ChildProcess | undefined;
let client: ProbeClient | undefined;
let workDir = '';
const live = new Model();
let liveWarnings: readonly Warning[] = [];
let liveError: unknown;
let childExit: Promise<number | null> = Promise.resolve(null);

function labelsOf(model: Model, w: Warning): (string | null)[] {
  return w.subjects.subscriptions.map((id) => model.subscriptions.get(id)?.label ?? null);
}

/** Does warning `w` report bug `b`? Same kind, same bus and event type, and the faulty subscription. */
function reports(model: Model, w: Warning, b: DemoBug): boolean {
  if (w.kind !== KIND_OF_BUG[b.kind]) return false;
  if (!w.subjects.types.some((t) => t.busName === b.bus && t.type === b.eventType)) return false;
  if (b.label !== null && !labelsOf(model, w).includes(b.label)) return false;
  // The other party, where the bug names one: the near-miss name, the starving consumer.
  if (b.related?.eventType !== undefined && w.kind === 'unheard-dispatch' && !w.evidence.nearMisses.some((m) => m.type === b.related?.eventType)) return false;
  if (b.related?.label !== undefined && w.kind === 'starved-subscriber' && !w.evidence.consumers.some((c) => c.label === b.related?.label)) return false;
  if (b.related?.label !== undefined && w.kind === 'owner-gone-still-registered' && w.evidence.disposedLabel !== b.related.label) return false;
  return true;
}

function judge(model: Model, warnings: readonly Warning[], when: string): void {
  const describe = (w: Warning): string =>
    `${w.kind} ${w.subjects.types.map((t) => `${t.busName}/${t.type}`).join(',')} [${labelsOf(model, w).join(',')}]: ${w.title}`;
  for (const b of DEMO_BUGS) {
    assert.ok(
      warnings.some((w) => reports(model, w, b)),
      `${when}: bug ${b.id} (${b.kind}, ${b.bus}/${b.eventType}, ${b.label ?? 'no label'}) was not reported. Warnings:\n${warnings.map(describe).join('\n')}`,
    );
  }
  const unexplained = warnings.filter((w) => !DEMO_BUGS.some((b) => reports(model, w, b)));
  assert.deepEqual(unexplained.map(describe), [], `${when}: warnings that are not deliberate bugs`);
  for (const w of warnings) {
    assert.ok(w.explanation.length > 40, `${w.id} has a plain explanation`);
    const bug = DEMO_BUGS.find((b) => reports(model, w, b));
    // Source links: the first site is the faulty line's file (src/demo/<file>, source-mapped).
    assert.ok(w.sites.length > 0, `${w.id} links to source`);
    assert.equal(path.basename(w.sites[0].file), bug?.file, `${w.id} links to ${bug?.file}: ${w.sites.map((x) => x.file).join(', ')}`);
  }
}

before(async () => {
  assert.ok(existsSync(DEMO), `${DEMO} is missing: run \`npm run build\` first`);
  workDir = mkdtempSync(path.join(tmpdir(), 'busscope-demo-analyses-'));
  const trace = path.join(workDir, 'demo.bustrace');
  // With source maps, as the extension's "Run Demo" starts it: subscribe sites point into src/demo.
  child = spawn(process.execPath, ['--enable-source-maps', DEMO, '--duration', String(RUN_SECONDS), '--quiet'], {
    cwd: workDir,
    env: { ...process.env, BUSSCOPE: '1', BUSSCOPE_RECORD: trace, BUSSCOPE_DISCOVERY_DIR: path.join(workDir, 'discovery') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  childExit = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const startLine = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no start line from the demo within 5 s; stderr: ${stderr}`)), 5000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    proc.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its start line; stderr: ${stderr}`)));
  });
  const discovery = /discovery=(\S+)/.exec(startLine)?.[1];
  assert.ok(discovery, `the start line names the discovery file: ${startLine}`);
  const entry = JSON.parse(readFileSync(discovery, 'utf8')) as { port: number; token: string };
  client = await ProbeClient.connect({
    port: entry.port,
    token: entry.token,
    clientName: 'busscope-analyses-test',
    onMessage: (m) => {
      try {
        live.apply(m);
      } catch (e) {
        liveError ??= e;
      }
    },
    onClose: () => live.endSession('app exited'),
  });
  // Judge the live model while the app still runs.
  const deadline = Date.now() + 8000;
  const judgeAt = (): number => Math.max(JUDGE_LIVE_AT, (live.sessionInfo.attachedAt ?? 0) + JUDGE_AFTER_ATTACH);
  while (live.now < judgeAt() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  liveWarnings = new Analyzer(live, { thresholds: THRESHOLDS }).run().warnings;
});

after(() => {
  client?.close();
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test('live session (late attach): every deliberate bug of the demo is reported, and nothing else', { timeout: 15_000 }, () => {
  assert.equal(liveError, undefined);
  assert.ok(live.now >= JUDGE_LIVE_AT, `the live model reached ${live.now} ms of record time (attached at ${live.sessionInfo.attachedAt})`);
  assert.equal(live.sessionInfo.state, 'live');
  assert.ok(live.sessionInfo.attachedAt !== null, 'a snapshot came first');
  assert.ok(live.totalDispatches > 100 && live.totalHandlerCalls > 100);
  assert.equal(live.integrity.unknownSubscriptions, 0);
  judge(live, liveWarnings, 'live');
});

test('trace file after the app exited: the same bugs, and nothing else', { timeout: 15_000 }, async () => {
  const code = await childExit;
  assert.equal(code, 0);
  const messages = await readTraceFileMessages(path.join(workDir, 'demo.bustrace'));
  const model = new Model();
  for (const m of messages) model.apply(m);
  model.endSession('end of trace');
  assert.ok(model.now >= RUN_SECONDS * 1000 - 500, `the trace covers the run (${model.now} ms)`);
  assert.deepEqual(
    [...model.buses.values()].map((b) => b.disposedAt !== null),
    [true, true, true],
    'the demo disposed its buses at exit',
  );
  assert.equal(model.drops.records, 0);
  judge(model, new Analyzer(model, { thresholds: THRESHOLDS }).run().warnings, 'trace');
  // The live session ended cleanly and stays inspectable.
  await client?.closed;
  assert.equal(live.sessionInfo.state, 'ended');
  assert.ok(live.subscriptions.size > 0);
});
