// A real http server under `node --require busscope-probe/register` (the BUILT register script), real
// keep-alive clients, a real client feeding the real Model: what a user looking at a real server sees.
//  - The libraries group: Node's sockets, requests and responses (listeners all Node's own, most of
//    them without a subscribe site) are library emitters in the Subscriptions tree's grouping, the
//    inspector feed's and the webview's — one verdict (`isLibraryBus`) everywhere; the app's own
//    emitters stay at the top.
//  - No false findings: Node's `resOnFinish` / `clearIncoming` / `socketOnData` listeners on those
//    buses (recorded at lifecycle detail: no dispatches) are not "never dispatched"; the app's real
//    leak on a shared emitter is still reported at its own line.
//  - No nameless buses: every bus the model holds has its `ClassName#n` (or given) name.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { listDiscoveredApps } from '../../../runtime-probe/src/discovery/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { groupBuses, LibraryClassifier } from '../../../runtime-probe/src/analysis/busGroups';
import { subscriptionView } from '../../../runtime-probe/src/analysis/model/views';
import { BusGrouper } from '../../../extension/src/inspector/busGroupFeed';
import { groupBuses as webviewGroupBuses, LIBRARIES_GROUP } from '../../../webview/src/graph/busGroups';
import { cleanup, connect, onCleanup, ROOT, tempDir, waitFor, withTimeout } from './helpers';

after(cleanup);

const REGISTER_CJS = path.join(ROOT, 'runtime-probe/dist/register.cjs');
const REQUESTS = 24;

const SERVER = `const http = require('node:http');
const { EventEmitter } = require('node:events');
class JobQueue extends EventEmitter {}
const jobs = new JobQueue();
jobs.on('job', function runJob() {});
const shared = new EventEmitter();
shared.setMaxListeners(0);
const server = http.createServer((req, res) => {
  shared.on('close', function releaseRequest() { req.destroy(); });
  jobs.emit('job', req.url);
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
`;
const LEAK_LINE = 9;

async function runServer(): Promise<{ model: Model; dir: string }> {
  const dir = tempDir('busscope-register-libs-');
  const discovery = path.join(dir, 'discovery');
  fs.writeFileSync(path.join(dir, 'server.js'), SERVER);
  const env: NodeJS.ProcessEnv = { ...process.env, BUSSCOPE_DISCOVERY_DIR: discovery };
  for (const k of Object.keys(env)) if ((k.startsWith('BUSSCOPE') && k !== 'BUSSCOPE_DISCOVERY_DIR') || k === 'NODE_OPTIONS') delete env[k];
  const child = spawn(process.execPath, ['--require', REGISTER_CJS, 'server.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  onCleanup(async () => {
    child.kill('SIGKILL');
    await withTimeout(exited, 5000, 'server exit').catch(() => undefined);
  });
  let info: { host: string; port: number; token: string } | undefined;
  await waitFor(
    () => (info = listDiscoveredApps({ dir: discovery, clean: false }).find((a) => a.pid === child.pid)) !== undefined,
    15_000,
    `the discovery file (stderr: ${err})`,
  );
  await waitFor(() => out.includes('\n'), 15_000, 'the server listens');
  const { port } = JSON.parse(out) as { port: number };
  const model = new Model();
  const c = await connect(info as { host: string; port: number; token: string }, { onMessage: (m) => model.apply(m) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
  onCleanup(() => agent.destroy());
  const get = (): Promise<void> =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        })
        .on('error', reject);
    });
  // Spaced as a real server's traffic (a burst under 200 ms is a startup pattern, not a leak).
  for (let i = 0; i < REQUESTS; i += 3) {
    await Promise.all([get(), get(), get()]);
    await new Promise((r) => setTimeout(r, 30));
  }
  await c.client.ping();
  await waitFor(
    () => [...model.buses.values()].some((b) => b.name === 'EventEmitter#1' && (b.types.get('close')?.live.size ?? 0) === REQUESTS),
    10_000,
    'every leaked listener',
  );
  return { model, dir };
}

test('a real http server under register: Node’s sockets, requests and responses are in the libraries group of the tree, the feed and the webview; the app’s emitters on top', async () => {
  const { model } = await runServer();
  type Entry =
    | { readonly kind: 'bus'; readonly bus: { readonly name: string } }
    | { readonly kind: 'class'; readonly className: string; readonly buses: readonly unknown[] };
  const names = (list: readonly Entry[]) => list.map((e) => (e.kind === 'bus' ? e.bus.name : `${e.className} ×${e.buses.length}`));
  // The Subscriptions tree's grouping.
  const tree = groupBuses(model.buses.values(), new LibraryClassifier());
  const app = names(tree.app);
  const libraries = names(tree.libraries);
  for (const own of ['Server#1', 'JobQueue#1', 'EventEmitter#1']) assert.ok(app.includes(own), `${own} is the app's: ${app.join(', ')}`);
  assert.ok(
    libraries.some((n) => /^Socket ×\d+$/.test(n)),
    `the server's sockets are a library class: ${libraries.join(', ')}`,
  );
  assert.ok(
    libraries.some((n) => /^IncomingMessage ×\d+$/.test(n)),
    `requests too: ${libraries.join(', ')}`,
  );
  assert.ok(
    libraries.some((n) => /^ServerResponse ×\d+$/.test(n)),
    `responses too: ${libraries.join(', ')}`,
  );
  assert.ok(!app.some((n) => /^(Socket|IncomingMessage|ServerResponse)\b/.test(n)), `none of Node's per-request emitters among the app's: ${app.join(', ')}`);

  // The inspector feed's grouping (host side): the same verdict.
  const grouper = new BusGrouper();
  grouper.rebuild(model.buses.values(), model.now);
  const views = grouper.views();
  const libs = views.find((v) => v.key === LIBRARIES_GROUP);
  assert.ok(libs !== undefined && libs.buses === tree.libraryBuses, `the feed's libraries group counts the tree's ${tree.libraryBuses} buses (${libs?.buses})`);
  for (const own of ['Server#1', 'JobQueue#1', 'EventEmitter#1']) {
    const bus = [...model.buses.values()].find((b) => b.name === own)!;
    assert.notEqual(grouper.groupKeyOf(bus.id), LIBRARIES_GROUP, `${own} is drawn as the app's`);
  }

  // The webview's own grouping, from the subscription views the host sends.
  const refs = [...model.buses.values()].map((b) => ({ id: b.id, name: b.name, ...(b.kind !== null ? { kind: b.kind } : {}) }));
  const web = webviewGroupBuses(refs, [...model.subscriptions.values()].map(subscriptionView));
  assert.equal(web.libraryBuses, tree.libraryBuses, 'the webview judges as the tree does');
  assert.deepEqual(names(web.app).sort(), app.slice().sort());
});

test('a real http server under register: no never-dispatched findings on Node’s library emitters (recorded at lifecycle detail); the app’s leak is still reported at its line', async () => {
  const { model, dir } = await runServer();
  const warnings = new Analyzer(model, { thresholds: { neverDispatched: { graceMs: 0 } } }).run().warnings;
  const library = new LibraryClassifier();
  const onLibraries = warnings.filter((w) =>
    w.subjects.buses.some((id) => {
      const bus = model.buses.get(id);
      return bus !== undefined && library.isLibrary(bus);
    }),
  );
  assert.deepEqual(
    onLibraries.map((w) => w.title),
    [],
    'nothing about Node’s sockets, requests and responses',
  );
  const never = warnings.filter((w) => w.kind === 'never-dispatched');
  assert.ok(
    never.every((w) => !/resOnFinish|clearIncoming|socketOnData|onReadableStreamEnd/.test(w.title)),
    `no never-dispatched for Node's own listeners: ${never.map((w) => w.title).join(' | ')}`,
  );
  assert.ok(never.length <= 3, `a handful at most, not one per request: ${never.length}: ${never.map((w) => w.title).join(' | ')}`);
  const growth = warnings.filter((w) => w.kind === 'listener-growth');
  assert.equal(growth.length, 1, growth.map((w) => w.title).join(' | '));
  assert.deepEqual(
    growth[0].subjects.types.map((t) => `${t.busName}/${t.type}`),
    ['EventEmitter#1/close'],
  );
  assert.equal(growth[0].sites[0]?.file, path.join(dir, 'server.js'));
  assert.equal(growth[0].sites[0]?.line, LEAK_LINE);
});
