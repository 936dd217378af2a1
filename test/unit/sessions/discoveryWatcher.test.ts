// The discovery list the picker and re-attach use, over real discovery files in a temp folder:
// change events only when the set of apps changes, stale files (dead pids) dropped, waitFor, and
// reference-counted polling.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { writeDiscoveryFile, type DiscoveryEntry } from '../../../runtime-probe/src/discovery/index';
import { appKey, DiscoveryWatcher } from '../../../extension/src/sessions/discoveryWatcher';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-discovery-'));
  dirs.push(d);
  return d;
}
function entry(pid: number, port: number, name = 'app'): DiscoveryEntry {
  return { pid, name, cwd: '/w', host: '127.0.0.1', port, token: 'x', protocolVersion: 1, probeVersion: '0.1.0', startTime: Date.now() };
}

describe('DiscoveryWatcher', () => {
  it('lists live apps, ignores stale ones, and fires only on changes', () => {
    const dir = tempDir();
    const w = new DiscoveryWatcher({ directory: () => dir, intervalMs: 20 });
    const seen: number[] = [];
    w.onDidChange((apps) => seen.push(apps.length));
    assert.deepEqual(w.refresh(), []);
    writeDiscoveryFile(entry(process.pid, 5001), dir);
    writeDiscoveryFile(entry(2 ** 22 + 777, 5002), dir); // no such process: stale
    const apps = w.refresh();
    assert.deepEqual(
      apps.map((a) => a.port),
      [5001],
    );
    w.refresh();
    assert.deepEqual(seen, [1], 'one change event for one change');
    assert.equal(fs.existsSync(path.join(dir, `${2 ** 22 + 777}-5002.json`)), false, 'the stale file was cleaned');
    assert.equal(w.directory, dir);
    assert.match(appKey(apps[0]), new RegExp(`^${process.pid}:5001:`));
    w.dispose();
  });

  it('polls only while watched, and waitFor resolves when the app appears', async () => {
    const dir = tempDir();
    const w = new DiscoveryWatcher({ directory: () => dir, intervalMs: 20 });
    const a = w.watch();
    const b = w.watch();
    assert.equal(w.watching, true);
    const waiting = w.waitFor((app) => app.port === 6001, 2000);
    setTimeout(() => writeDiscoveryFile(entry(process.pid, 6001), dir), 50);
    const found = await waiting;
    assert.equal(found?.port, 6001);
    a.dispose();
    a.dispose(); // idempotent
    assert.equal(w.watching, true);
    b.dispose();
    assert.equal(w.watching, false);
    assert.equal(await w.waitFor((app) => app.port === 7001, 60), undefined, 'times out with undefined');
    w.dispose();
  });

  it('lists nothing for a missing directory', () => {
    const w = new DiscoveryWatcher({ directory: () => path.join(tempDir(), 'missing') });
    assert.deepEqual(w.refresh(), []);
    w.dispose();
  });
});
