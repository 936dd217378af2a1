// Subscribe and dispatch sites of a real source-mapped app (test/fixtures/apps/sites-app.ts, built
// here with esbuild), run with and without --enable-source-maps: exact positions in the TypeScript
// source when Node maps stacks, in the built file when it does not; never a frame of the bus — also
// when the app bundles the probe into its own (minified) file. The trace carries per-owner ids.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as esbuild from 'esbuild';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord, SiteInfo } from '../../../runtime-probe/src/protocol/index';
import { ROOT, cleanup, tempDir, withTimeout } from './helpers';

const SOURCE = path.join(ROOT, 'test/fixtures/apps/sites-app.ts');
let dir = '';

/** Marker name → [1-based line, 1-based column of the call's method name, function name]. */
function markers(): Map<string, { line: number; column: number; functionName: string }> {
  const names: Record<string, [string, string]> = {
    mount: ['subscribe(', 'Hud.mount'],
    ctor: ['subscribe(', 'new Spawner'],
    tick: ['subscribe(', 'wireTick'],
    dispatch: ['dispatch(', 'arrow'],
  };
  const out = new Map<string, { line: number; column: number; functionName: string }>();
  fs.readFileSync(SOURCE, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const m = /\/\/ site:(\w+)/.exec(text);
      if (m === null) return;
      const [call, functionName] = names[m[1]];
      out.set(m[1], { line: i + 1, column: text.indexOf(call) + 1, functionName });
    });
  assert.equal(out.size, 4, 'four markers in the fixture');
  return out;
}

async function build(name: string, bundled: boolean): Promise<string> {
  const outfile = path.join(dir, `${name}.cjs`);
  await esbuild.build({
    entryPoints: [SOURCE],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    sourcemap: 'linked',
    logLevel: 'error',
    minify: bundled,
    ...(bundled ? { alias: { 'busscope-probe': path.join(ROOT, 'runtime-probe/src/index.ts') } } : { external: ['busscope-probe'] }),
  });
  return outfile;
}

interface Run {
  readonly subscribes: Extract<BusRecord, { kind: 'subscribe' }>[];
  readonly dispatches: Extract<BusRecord, { kind: 'dispatch' }>[];
}

async function run(app: string, sourceMaps: boolean): Promise<Run> {
  const trace = path.join(dir, `${path.basename(app)}-${sourceMaps ? 'maps' : 'plain'}.bustrace`);
  const child = spawn(process.execPath, [...(sourceMaps ? ['--enable-source-maps'] : []), app, trace], {
    // The external build requires 'busscope-probe': the repo's workspace link to the built package.
    env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules'), BUSSCOPE: '', BUSSCOPE_RECORD: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await withTimeout(new Promise<number | null>((resolve) => child.once('exit', resolve)), 15_000, `${app} exits`);
  assert.equal(code, 0, output);
  const records = (await readTraceFileMessages(trace)).flatMap((m) => (m.type === 'records' ? m.records : []));
  return {
    subscribes: records.filter((r): r is Extract<BusRecord, { kind: 'subscribe' }> => r.kind === 'subscribe'),
    dispatches: records.filter((r): r is Extract<BusRecord, { kind: 'dispatch' }> => r.kind === 'dispatch'),
  };
}

function siteOf(r: Run, label: string): SiteInfo | null {
  const s = r.subscribes.find((x) => x.label === label);
  assert.ok(s, `a subscribe record labelled ${label}`);
  return s.site;
}

function sitesByMarker(r: Run): Map<string, SiteInfo | null> {
  return new Map([
    ['mount', siteOf(r, 'Hud.mount')],
    ['ctor', siteOf(r, 'Spawner')],
    ['tick', siteOf(r, 'tick')],
    ['dispatch', r.dispatches.find((d) => d.type === 'hit')?.site ?? null],
  ]);
}

before(() => {
  dir = tempDir('busscope-sites-');
});
after(cleanup);

test('source-mapped app: sites are exact positions in the TypeScript source (and in the built file without maps)', async () => {
  const app = await build('external', false);
  const expected = markers();

  const mapped = await run(app, true);
  for (const [marker, site] of sitesByMarker(mapped)) {
    const want = expected.get(marker);
    assert.deepEqual(site, { file: SOURCE, line: want?.line, column: want?.column, functionName: want?.functionName }, marker);
  }
  // One site for the three Hud subscriptions, and three different owners that describe themselves alike.
  const huds = mapped.subscribes.filter((s) => s.label === 'Hud.mount');
  assert.equal(huds.length, 3);
  assert.equal(new Set(huds.map((s) => s.site)).size, 1, 'the same site object');
  assert.deepEqual(new Set(huds.map((s) => s.owner)), new Set(['Hud#hud']));
  const ids = huds.map((s) => s.ownerId);
  assert.ok(
    ids.every((id) => typeof id === 'number' && id > 0),
    `owner ids ${ids.join(',')}`,
  );
  assert.equal(new Set(ids).size, 3, 'one owner id per Hud');
  assert.ok(
    mapped.subscribes.filter((s) => s.owner === null).every((s) => s.ownerId === undefined),
    'no owner, no owner id',
  );

  const plain = await run(app, false);
  const built = fs.readFileSync(app, 'utf8').split('\n');
  for (const [marker, site] of sitesByMarker(plain)) {
    assert.ok(site, marker);
    assert.equal(site.file, app, marker);
    const call = marker === 'dispatch' ? 'dispatch(' : 'subscribe(';
    assert.ok(built[site.line - 1].slice(site.column - 1).startsWith(call), `${marker}: ${site.line}:${site.column} is the ${call} call`);
    assert.equal(site.functionName, expected.get(marker)?.functionName, marker);
  }
});

test("an app bundle that includes the probe, minified: with source maps, sites are the app's lines, not the bus's", async () => {
  const app = await build('bundled', true);
  const expected = markers();
  const mapped = await run(app, true);
  for (const [marker, site] of sitesByMarker(mapped)) {
    const want = expected.get(marker);
    assert.ok(site, marker);
    assert.deepEqual([site.file, site.line, site.column], [SOURCE, want?.line, want?.column], `${marker}: ${JSON.stringify(site)}`);
  }
});
