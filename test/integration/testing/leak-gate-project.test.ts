// The leak gate in a real project's test suite: test/fixtures/leak-gate-project (its own node:test
// suite, using `busscope-probe/testing` through the package's exports, built) is copied to a temp
// folder and run three times as a child process — it passes; a leak is introduced (Badge.dispose
// forgets its subscription) and it fails, naming the leak and its site; the fix is restored and it
// passes again.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/leak-gate-project');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-leak-gate-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

function runSuite(): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec'], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
    // Not the parent's test-runner environment, and the probe is not switched on from outside.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', BUSSCOPE_DISCOVERY_DIR: path.join(work, 'discovery') },
  });
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

test('the sample suite passes, fails when a listener leak is introduced, and passes once it is fixed', { timeout: 120_000 }, () => {
  assert.ok(fs.existsSync(path.join(ROOT, 'runtime-probe/dist/testing.cjs')), 'runtime-probe/dist/testing.cjs: run the build first');
  fs.cpSync(FIXTURE, work, { recursive: true });
  fs.mkdirSync(path.join(work, 'node_modules'));
  fs.symlinkSync(path.join(ROOT, 'runtime-probe'), path.join(work, 'node_modules/busscope-probe'), 'dir');
  const badge = path.join(work, 'src/badge.js');
  const fixed = fs.readFileSync(badge, 'utf8');

  const clean = runSuite();
  assert.equal(clean.status, 0, `the clean suite passes:\n${clean.output}`);
  assert.match(clean.output, /pass 2/);

  // The leak: dispose() no longer unsubscribes.
  const leaky = fixed.replace('this.subscription.dispose();', '// (the unsubscribe was lost in a refactoring)');
  assert.notEqual(leaky, fixed);
  fs.writeFileSync(badge, leaky);
  const failing = runSuite();
  assert.notEqual(failing.status, 0, `the leaky suite fails:\n${failing.output}`);
  assert.match(failing.output, /fail 2/, 'the first test fails by the gate, the second by its own assertion');
  assert.match(failing.output, /busscope leak gate: the test left 1 leak/);
  assert.match(failing.output, /listener-growth: 1 subscription to "message\.received" on bus "app" made during this test is still registered at its end/);
  assert.match(failing.output, /Handler Badge\.onMessage \(owner Badge/);
  const subscribeLine = fixed.split('\n').findIndex((l) => l.includes("bus.subscribe('message.received'")) + 1;
  assert.match(failing.output, new RegExp(`subscribed at src/badge\\.js:${subscribeLine}:\\d+ \\(new Badge\\)`), 'the subscribe site, relative to the project');

  fs.writeFileSync(badge, fixed);
  const again = runSuite();
  assert.equal(again.status, 0, `fixed again, the suite passes:\n${again.output}`);
});
