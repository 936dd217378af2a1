// The CLI and the extension say the same thing about the same trace: `busscope check --json` on the
// demo's trace against the extension's own path — SessionManager.openTrace (its model, its analyzer
// run until complete, with thresholds read by readSettings as from settings.json) and the Problems
// entries built from it. Same warnings (ids, kinds, severities, titles, explanations, evidence,
// subjects, sites), same order, and the same wording in the CLI's text output.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readSettings } from '../../../runtime-probe/src/analysis/settings';
import type { Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { diagnosticEntries } from '../../../extension/src/diagnostics/entries';
import { SessionManager } from '../../../extension/src/sessions/sessionManager';
import type { Session } from '../../../extension/src/sessions/session';
import { ROOT, cli, recordDemoTrace, tempDir } from './helpers';

let dir = '';
let trace = '';
let manager: SessionManager | undefined;

before(async () => {
  dir = tempDir('busscope-equivalence-');
  trace = await recordDemoTrace(dir);
});
after(() => {
  manager?.dispose();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The extension with `busscope.warnings.neverDispatched.graceMs: 2500` in settings.json. */
async function openInExtension(file: string): Promise<Session> {
  const settings: Record<string, unknown> = { 'warnings.neverDispatched.graceMs': 2500 };
  manager = new SessionManager({
    discoveryDirectory: () => path.join(dir, 'discovery'),
    analyzerOptions: () => readSettings((key) => settings[key]).analyzer,
    updateIntervalMs: 20,
  });
  const session = await manager.openTrace(file);
  // The session's analyzer works in budgeted runs on its throttle; wait until it has caught up.
  const deadline = Date.now() + 20_000;
  while (session.analyzer.progress.partial) {
    if (Date.now() > deadline) throw new Error('the extension analyzer did not complete');
    await new Promise((r) => setTimeout(r, 25));
  }
  session.update();
  return session;
}

/** `since` is when a warning was first raised: the extension may see it mid-read, the CLI at the end. */
function comparable(w: Warning | (Warning & { fails?: boolean })): Omit<Warning, 'since'> {
  const { since: _since, fails: _fails, ...rest } = w as Warning & { fails?: boolean };
  return rest;
}

test('check --json and the extension report the same warnings, evidence and explanations for the demo trace', { timeout: 60_000 }, async () => {
  const r = cli(['check', trace, '--json', '--set', 'neverDispatched.graceMs=2500', '--fail-on', 'none']);
  assert.equal(r.status, 0, r.stderr);
  const fromCli = (JSON.parse(r.stdout) as { warnings: (Warning & { fails: boolean })[] }).warnings;
  const session = await openInExtension(trace);
  const fromExtension = session.warnings;
  assert.ok(fromExtension.length >= 9, `the extension found the demo's bugs (${fromExtension.length})`);
  assert.deepEqual(fromCli.map(comparable), fromExtension.map(comparable));
});

test('the CLI prints each Problems entry of the extension: its site, severity and message', { timeout: 60_000 }, async () => {
  // --fail-on info: every warning fails, so no line carries the "(does not fail)" remark.
  const text = cli(['check', trace, '--set', 'neverDispatched.graceMs=2500', '--fail-on', 'info']);
  assert.equal(text.status, 1, text.stderr);
  const session = manager?.sessions[0] ?? (await openInExtension(trace));
  const entries = diagnosticEntries([session]);
  assert.ok(entries.length >= session.warnings.length);
  for (const w of session.warnings) {
    const first = entries.find((e) => e.warningId === w.id);
    assert.ok(first, `${w.id} is a Problems entry`);
    const [title, ...explanation] = first.message.split('\n');
    const where = `${path.relative(ROOT, first.site.file)}:${first.site.line}:${first.site.column}`;
    assert.ok(
      text.stdout.includes(`${where}: ${first.severity}: ${title}\n${explanation.map((l) => `    ${l}`).join('\n')}\n`),
      `${w.id} as in Problems:\n${first.message}`,
    );
  }
});
