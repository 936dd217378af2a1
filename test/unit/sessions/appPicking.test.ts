// The Attach picker's entries: name, pid, cwd, age, attached marker, order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DiscoveredApp } from '../../../runtime-probe/src/discovery/index';
import { appPickEntries } from '../../../extension/src/sessions/appPicking';

const NOW = 1_800_000_000_000;
function app(pid: number, name: string, ageMs: number, protocolVersion = 1): DiscoveredApp {
  return {
    pid,
    name,
    cwd: `/work/${name}`,
    host: '127.0.0.1',
    port: 40000 + pid,
    token: 't',
    protocolVersion,
    probeVersion: '0.1.0',
    startTime: NOW - ageMs,
    file: `/d/${pid}-${40000 + pid}.json`,
  };
}

describe('appPickEntries', () => {
  it('shows name, pid, age, folder and address; attached apps last and marked', () => {
    const apps = [app(10, 'game', 60_000), app(11, 'editor', 5_000), app(12, 'server', 3_600_000)];
    const entries = appPickEntries(apps, (a) => a.pid === 11, NOW);
    assert.deepEqual(
      entries.map((e) => e.app.pid),
      [10, 12, 11],
    );
    const editor = entries[2];
    assert.equal(editor.label, 'editor');
    assert.equal(editor.attached, true);
    assert.equal(editor.description, 'pid 11 · started 5 s ago · attached');
    assert.equal(editor.detail, '/work/editor  ·  127.0.0.1:40011');
    assert.equal(entries[0].description, 'pid 10 · started 1 min ago');
  });

  it('flags apps whose protocol this extension does not speak', () => {
    const [e] = appPickEntries([app(20, 'future', 1000, 99)], () => false, NOW);
    assert.match(e.detail, /protocol v99, not supported/);
  });

  it('is empty for no apps', () => {
    assert.deepEqual(
      appPickEntries([], () => false, NOW),
      [],
    );
  });
});
