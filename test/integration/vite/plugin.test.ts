// busscope-probe/vite with the real Vite (8.3.8): the dev server's pages get the connect call (URL
// and token from the options, or from the file *Accept Browser Apps* writes), and `vite build` of the
// same project contains no trace of it — the build runs Vite's own CLI on a tiny project whose config
// loads the BUILT plugin, and the output is searched for the token, the URL and the probe.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { removeBrowserAppsFile, writeBrowserAppsFile } from '../../../runtime-probe/src/discovery/browser-apps-file';
import { busscope } from '../../../runtime-probe/src/vite/index';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const BUILT_PLUGIN = path.join(ROOT, 'runtime-probe/dist/vite.mjs');
const TOKEN = '0123456789abcdef0123456789abcdef';
const URL_ = 'ws://127.0.0.1:45678/';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'busscope-vite-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function project(name: string, config: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!DOCTYPE html><html><head><title>tiny</title></head><body><script type="module" src="/main.js"></script></body></html>\n',
  );
  writeFileSync(path.join(dir, 'main.js'), "document.body.append('tiny app');\n");
  writeFileSync(path.join(dir, 'vite.config.mjs'), config);
  return dir;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

test('serve: every page gets connect(...) with the URL, token and name, first in <head>', async () => {
  const dir = project('serve', 'export default {};\n');
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: [busscope({ url: URL_, token: TOKEN, name: 'tiny' })],
    server: { middlewareMode: true },
  });
  try {
    const html = await server.transformIndexHtml('/', readFileSync(path.join(dir, 'index.html'), 'utf8'));
    assert.match(
      html,
      /<head>\s*<script type="module">import \{ connect \} from 'busscope-probe\/browser';\s*connect\(\{ url: "ws:\/\/127\.0\.0\.1:45678\/", token: "0123456789abcdef0123456789abcdef", name: "tiny" \}\);<\/script>/,
    );
  } finally {
    await server.close();
  }
});

test('serve with payloads: true: the page imports busscope-probe/browser/payloads before connect; a non-boolean is a TypeError', async () => {
  const dir = project('serve-payloads', 'export default {};\n');
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: [busscope({ url: URL_, token: TOKEN, payloads: true })],
    server: { middlewareMode: true },
  });
  try {
    const html = await server.transformIndexHtml('/', readFileSync(path.join(dir, 'index.html'), 'utf8'));
    assert.match(
      html,
      /<head>\s*<script type="module">import 'busscope-probe\/browser\/payloads';\s*import \{ connect \} from 'busscope-probe\/browser';\s*connect\(/,
    );
  } finally {
    await server.close();
  }
  assert.throws(() => busscope({ payloads: 'yes' as unknown as boolean }), { name: 'TypeError', message: 'busscope(): options.payloads must be a boolean' });
});

test('serve without options: the URL and token Accept Browser Apps wrote, read again for each page; none, nothing injected', async () => {
  const dir = project('serve-file', 'export default {};\n');
  const discovery = path.join(tmp, 'discovery');
  const server = await createServer({
    root: dir,
    configFile: false,
    logLevel: 'silent',
    plugins: [busscope({ discoveryDir: discovery })],
    server: { middlewareMode: true },
  });
  const page = readFileSync(path.join(dir, 'index.html'), 'utf8');
  try {
    assert.doesNotMatch(await server.transformIndexHtml('/', page), /busscope/);
    writeBrowserAppsFile({ url: URL_, token: TOKEN }, discovery);
    assert.equal(statSync(path.join(discovery, 'browser-apps.json')).mode & 0o777, 0o600);
    assert.match(await server.transformIndexHtml('/', page), new RegExp(`token: "${TOKEN}"`));
    removeBrowserAppsFile(discovery);
    assert.doesNotMatch(await server.transformIndexHtml('/', page), /busscope/);
  } finally {
    await server.close();
  }
});

test('vite build: the output has no connect call, no token, no URL and no probe code', () => {
  assert.ok(existsSync(BUILT_PLUGIN), 'runtime-probe/dist/vite.mjs is missing: run `npm run build` first');
  const dir = project(
    'build',
    `import { busscope } from ${JSON.stringify(BUILT_PLUGIN)};\nexport default { plugins: [busscope({ url: ${JSON.stringify(URL_)}, token: ${JSON.stringify(TOKEN)} })], logLevel: 'silent' };\n`,
  );
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `vite build failed:\n${r.stdout}\n${r.stderr}`);
  const files = filesUnder(path.join(dir, 'dist'));
  assert.ok(files.some((f) => f.endsWith('index.html')) && files.some((f) => f.endsWith('.js')), files.join(', '));
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const needle of [TOKEN, '45678', 'busscope', 'connect(']) assert.ok(!text.includes(needle), `${path.relative(dir, f)} contains ${needle}`);
  }
  // The build did include the app (the check above is not vacuous).
  assert.ok(files.some((f) => readFileSync(f, 'utf8').includes('tiny app')));
});

test('busscope() refuses bad options with a TypeError', () => {
  assert.throws(() => busscope({ url: 'http://x' }), { name: 'TypeError', message: /options\.url must be a ws:\/\/ URL/ });
  assert.throws(() => busscope({ token: '' }), { name: 'TypeError', message: /options\.token must be a non-empty string/ });
  assert.throws(() => busscope(42 as never), TypeError);
});
