// The environment switches in a real app process, as a user sets them: accepted spellings start the
// probe, every value not accepted is one warning on stderr (once, although the app loads both the
// ESM and the CJS build) and leaves the probe off. The app never fails to load because of them.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanup, ROOT, tempDir } from './helpers';

after(cleanup);

const DIST = path.join(ROOT, 'runtime-probe/dist');

/** Loads both builds, waits up to 1 s for the probe to listen, prints what it found. */
const APP = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const esm = await import(${JSON.stringify(path.join(DIST, 'index.mjs'))});
require(${JSON.stringify(path.join(DIST, 'index.cjs'))});
for (let i = 0; i < 100 && esm.probe.info === undefined; i++) await new Promise((r) => setTimeout(r, 10));
const info = esm.probe.info;
console.log(JSON.stringify({ port: info === undefined ? 0 : info.port, detail: esm.probe.config.detail }));
await esm.probe.stop();
`;

interface Outcome {
  readonly started: boolean;
  readonly detail: string;
  /** `[busscope]` lines on stderr. */
  readonly warnings: string[];
  readonly cwd: string;
}

function runWith(env: Record<string, string>): Promise<Outcome> {
  const cwd = tempDir('busscope-env-');
  const full: NodeJS.ProcessEnv = { ...process.env, BUSSCOPE_DISCOVERY_DIR: path.join(cwd, 'discovery'), ...env };
  for (const k of ['BUSSCOPE', 'BUSSCOPE_RECORD', 'BUSSCOPE_PORT', 'BUSSCOPE_HOST', 'BUSSCOPE_DETAIL', 'BUSSCOPE_ALLOW_REMOTE', 'NODE_OPTIONS']) {
    if (!(k in env)) delete full[k];
  }
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', APP], { cwd, env: full, timeout: 15_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`app failed with ${JSON.stringify(env)}: ${error.message}\n${stderr}`));
      const out = JSON.parse(stdout.trim().split('\n').pop() as string) as { port: number; detail: string };
      resolve({ started: out.port > 0, detail: out.detail, warnings: stderr.split('\n').filter((l) => l.includes('[busscope]')), cwd });
    });
  });
}

test('BUSSCOPE=yes, On, TRUE and 1 start the probe; off and 0 do not; none of them warns', async () => {
  const cases: [string, boolean][] = [
    ['yes', true],
    ['On', true],
    ['TRUE', true],
    ['1', true],
    ['off', false],
    ['0', false],
  ];
  const outcomes = await Promise.all(cases.map(([v]) => runWith({ BUSSCOPE: v })));
  cases.forEach(([v, expected], i) => {
    assert.equal(outcomes[i].started, expected, `BUSSCOPE=${v}`);
    assert.deepEqual(outcomes[i].warnings, [], `BUSSCOPE=${v} warns nothing`);
  });
});

test('a value not accepted warns once, naming the variable, the value and what is accepted, and the probe stays off', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { BUSSCOPE: 'maybe' },
      /BUSSCOPE="maybe" is not accepted \(use 1, true, yes, on to turn it on; 0, false, no, off or empty for off \(any case\)\); the probe stays off/,
    ],
    [{ BUSSCOPE: '1', BUSSCOPE_PORT: 'abc' }, /BUSSCOPE_PORT="abc" is not accepted \(use a port number in 0…65535, 0 for any free port\); the probe stays off/],
    [{ BUSSCOPE: '1', BUSSCOPE_PORT: '99999' }, /BUSSCOPE_PORT="99999" is not accepted \(use a port number in 0…65535/],
    [{ BUSSCOPE: '1', BUSSCOPE_HOST: '0.0.0.0' }, /BUSSCOPE_HOST="0\.0\.0\.0" is not a loopback address .*BUSSCOPE_ALLOW_REMOTE=1/],
    [{ BUSSCOPE: '1', BUSSCOPE_ALLOW_REMOTE: 'sure' }, /BUSSCOPE_ALLOW_REMOTE="sure" is not accepted/],
    [{ BUSSCOPE: '1', BUSSCOPE_DETAIL: 'verbose' }, /BUSSCOPE_DETAIL="verbose" is not accepted \(use one of lifecycle, dispatch, handlers\)/],
  ];
  const outcomes = await Promise.all(cases.map(([env]) => runWith(env)));
  cases.forEach(([env, message], i) => {
    const o = outcomes[i];
    assert.equal(o.started, false, `${JSON.stringify(env)} leaves the probe off`);
    assert.equal(o.warnings.length, 1, `${JSON.stringify(env)}: one warning (for two copies of the package):\n${o.warnings.join('\n')}`);
    assert.match(o.warnings[0], message);
  });
});

test('BUSSCOPE_DETAIL is applied; BUSSCOPE_RECORD=1 warns instead of writing a file named "1"', async () => {
  const [detailed, recordSwitch] = await Promise.all([runWith({ BUSSCOPE: 'on', BUSSCOPE_DETAIL: 'dispatch' }), runWith({ BUSSCOPE_RECORD: '1' })]);
  assert.equal(detailed.started, true);
  assert.equal(detailed.detail, 'dispatch');
  assert.deepEqual(detailed.warnings, []);
  assert.equal(recordSwitch.warnings.length, 1);
  assert.match(recordSwitch.warnings[0], /BUSSCOPE_RECORD="1" is not accepted \(it takes the trace file to write/);
  assert.equal(fs.existsSync(path.join(recordSwitch.cwd, '1')), false, 'no file named "1"');
});
