// One process, one probe: an ESM app that also loads the CJS build (through a CJS dependency) and
// the bus-only entry gets one registry, one id space, one tracer and one probe. Each scenario runs
// in a fresh node process (the shared slot lives on globalThis) against the BUILT files.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord, ProbeSnapshot } from '../../../runtime-probe/src/protocol/index';
import { RUNTIME_VERSION } from '../../../runtime-probe/src/bus/runtime';
import { cleanup, ROOT, tempDir } from './helpers';

const DIST = path.join(ROOT, 'runtime-probe/dist');

after(cleanup);

/** Runs `body` as an ESM module with `esm`, `cjs` and `busOnly` (the three entries) in scope; returns its last stdout line as JSON. */
function runApp<T>(body: string, env: NodeJS.ProcessEnv = {}, prelude = ''): { result: T; stderr: string; pid: number } {
  const script = `${prelude}
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const esm = await import(${JSON.stringify(path.join(DIST, 'index.mjs'))});
const cjs = require(${JSON.stringify(path.join(DIST, 'index.cjs'))});
const busOnly = await import(${JSON.stringify(path.join(DIST, 'bus.mjs'))});
const out = { pid: process.pid };
${body}
console.log(JSON.stringify(out));
`;
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const k of ['BUSSCOPE', 'BUSSCOPE_RECORD', 'NODE_OPTIONS']) if (!(k in env)) delete childEnv[k];
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: childEnv, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
  assert.equal(r.status, 0, `app exited ${r.status} ${r.signal ?? ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  const result = JSON.parse(lines[lines.length - 1]) as T & { pid: number };
  return { result, stderr: r.stderr, pid: result.pid };
}

test('ESM, CJS and busscope-probe/bus in one process share one probe, one registry and one id space', async () => {
  const dir = tempDir('busscope-one-runtime-');
  const trace = path.join(dir, 'run.bustrace');
  const discoveryDir = path.join(dir, 'discovery');
  const { result, pid } = runApp<{
    sameProbe: boolean;
    infos: { port: number; token: string; discoveryFile: string | null }[];
    snapshot: ProbeSnapshot;
    ownerIds: number[];
    discovery: string[];
    delivered: number[];
  }>(
    `
const owner = { id: 'shared-owner' };
const buses = [new esm.EventBus({ name: 'esm' }), new cjs.EventBus({ name: 'cjs' }), new busOnly.EventBus({ name: 'bus-only' })];
for (const b of buses) {
  b.subscribe('ping', () => undefined, { owner, label: b.name + '-owned' });
  b.subscribe('ping', () => undefined, { label: b.name + '-plain' });
}
out.sameProbe = esm.probe === cjs.probe;
// Started from both copies, concurrently: one server, one info.
out.infos = await Promise.all([esm.probe.start({ name: 'one-runtime' }), cjs.probe.start({ name: 'one-runtime' })]);
out.snapshot = cjs.probe.snapshot();
out.ownerIds = out.snapshot.subscriptions.filter((s) => s.label.endsWith('-owned')).map((s) => s.ownerId);
out.discovery = (await import('node:fs')).readdirSync(process.env.BUSSCOPE_DISCOVERY_DIR);
// A trace recorded through the CJS copy sees dispatches on every copy's buses.
const recording = cjs.probe.record(${JSON.stringify(trace)});
out.delivered = buses.map((b) => b.dispatch('ping').delivered);
// A handler on the ESM bus dispatches on the CJS bus: one nested dispatch, across copies.
buses[0].subscribe('outer', () => { buses[1].dispatch('inner'); });
buses[0].dispatch('outer');
await recording.stop();
await esm.probe.stop();
`,
    { BUSSCOPE_DISCOVERY_DIR: discoveryDir },
  );

  assert.equal(result.sameProbe, true, 'the ESM and the CJS build export the same probe');
  const [a, b] = result.infos;
  assert.ok(a.port > 0, 'listening');
  assert.deepEqual(b, a, 'a second start (from the other copy) returns the same info');
  assert.deepEqual(
    result.discovery.filter((f) => f.startsWith(`${pid}-`)),
    [`${pid}-${a.port}.json`],
    'one discovery file for the pid, so `tail <pid>` has one app to pick',
  );

  const snap = result.snapshot;
  assert.deepEqual(
    snap.buses.map((bus) => bus.name),
    ['esm', 'cjs', 'bus-only'],
    'buses from all three entries are in the one probe',
  );
  const busIds = snap.buses.map((bus) => bus.id);
  assert.equal(new Set(busIds).size, 3, `distinct bus ids: ${busIds.join(', ')}`);
  const subIds = snap.subscriptions.map((s) => s.id);
  assert.equal(subIds.length, 6);
  assert.equal(new Set(subIds).size, 6, `distinct subscription ids: ${subIds.join(', ')}`);
  assert.equal(result.ownerIds.length, 3);
  assert.equal(new Set(result.ownerIds).size, 1, `one owner object has one id on every copy's bus: ${result.ownerIds.join(', ')}`);

  assert.deepEqual(result.delivered, [2, 2, 2]);
  const records: BusRecord[] = (await readTraceFileMessages(trace)).flatMap((m) => (m.type === 'records' ? m.records : []));
  const dispatches = records.flatMap((r) => (r.kind === 'dispatch' ? [r] : []));
  const pings = dispatches.filter((d) => d.type === 'ping').map((d) => d.bus);
  assert.deepEqual(pings.sort(), [...busIds].sort(), 'the one tracer records dispatches on every copy');
  const outer = dispatches.find((d) => d.type === 'outer');
  const inner = dispatches.find((d) => d.type === 'inner');
  assert.ok(outer && inner);
  assert.deepEqual(
    { bus: inner.bus, depth: inner.depth, parentSeq: inner.parentSeq },
    { bus: busIds[1], depth: 1, parentSeq: outer.seq },
    'a dispatch nested across copies is nested in the trace',
  );
});

test('a copy that finds an incompatible runtime version warns once and still works on its own', () => {
  const { result, stderr } = runApp<{
    warnings: { name: string; code: string; message: string }[];
    foreignUntouched: boolean;
    sameProbe: boolean;
    delivered: number[];
    buses: string[];
    subIds: number[];
    port: number;
  }>(
    `
out.warnings = warnings.map((w) => ({ name: w.name, code: w.code, message: w.message }));
out.foreignUntouched = globalThis[Symbol.for('busscope.runtime')] === foreign && Object.keys(foreign).length === 2;
out.sameProbe = esm.probe === cjs.probe;
const buses = [new esm.EventBus({ name: 'esm' }), new cjs.EventBus({ name: 'cjs' }), new busOnly.EventBus({ name: 'bus-only' })];
out.subIds = buses.map((b) => b.subscribe('ping', () => undefined).id);
out.delivered = buses.map((b) => b.dispatch('ping').delivered);
const info = await cjs.probe.start({ discovery: false });
out.port = info.port;
out.buses = esm.probe.snapshot().buses.map((b) => b.name);
await cjs.probe.stop();
`,
    {},
    // Before any copy loads: another (future) version's runtime is in the slot.
    `const foreign = { version: 999, createdBy: '9.9.9' };
globalThis[Symbol.for('busscope.runtime')] = foreign;
const warnings = [];
process.on('warning', (w) => warnings.push(w));`,
  );
  assert.equal(result.warnings.length, 1, `one warning for the process, not one per copy:\n${stderr}`);
  const w = result.warnings[0];
  assert.equal(w.code, 'BUSSCOPE_RUNTIME_MISMATCH');
  assert.match(w.message, new RegExp(`busscope-probe \\S+ \\(runtime version ${RUNTIME_VERSION}\\) found runtime version 999 from busscope-probe 9\\.9\\.9`));
  assert.match(w.message, /Install one version of busscope-probe/);
  assert.equal(result.foreignUntouched, true, 'the other version keeps its slot');
  // The copies of this version still share one runtime among themselves.
  assert.equal(result.sameProbe, true);
  assert.deepEqual(result.delivered, [1, 1, 1], 'the buses work');
  assert.equal(new Set(result.subIds).size, 3, 'ids stay distinct');
  assert.ok(result.port > 0, 'its probe starts');
  assert.deepEqual(result.buses, ['esm', 'cjs', 'bus-only'], "this version's probe sees this version's buses");
});

test('the copies of one process read the environment once: BUSSCOPE=1 starts one probe', async () => {
  const dir = tempDir('busscope-one-runtime-env-');
  const { result, pid } = runApp<{ port: number | null; samePort: boolean; files: string[] }>(
    `
for (let i = 0; i < 200 && esm.probe.info === undefined; i++) await new Promise((r) => setTimeout(r, 10));
const info = esm.probe.info;
out.port = info === undefined ? null : info.port;
out.samePort = cjs.probe.info === info;
await new Promise((r) => setTimeout(r, 100));
out.files = (await import('node:fs')).readdirSync(process.env.BUSSCOPE_DISCOVERY_DIR);
await esm.probe.stop();
`,
    { BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: dir },
  );
  assert.ok(result.port !== null && result.port > 0, 'started from the environment');
  assert.equal(result.samePort, true);
  assert.deepEqual(
    result.files.filter((f) => f.startsWith(`${pid}-`)),
    [`${pid}-${result.port}.json`],
    'one discovery file',
  );
  assert.deepEqual(
    fs.readdirSync(dir).filter((f) => f.startsWith(`${pid}-`)),
    [],
    'removed by stop()',
  );
});
