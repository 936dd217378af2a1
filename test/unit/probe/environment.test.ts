// The BUSSCOPE_* variables: the usual on/off spellings are accepted, and every value that is not
// becomes one warning naming the variable, the value and what is accepted, with the probe left off.
// (The real load-time behaviour, in a spawned app, is in test/integration/probe/environment.test.ts.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readProbeEnvironment } from '../../../runtime-probe/src/probe/environment';

test('BUSSCOPE accepts 1, true, yes, on in any case, and 0, false, no, off or empty as off', () => {
  for (const on of ['1', 'true', 'TRUE', 'yes', 'Yes', 'on', 'ON', ' 1 ']) {
    const r = readProbeEnvironment({ BUSSCOPE: on });
    assert.deepEqual(r.start, {}, `BUSSCOPE=${JSON.stringify(on)} starts with the defaults`);
    assert.deepEqual(r.problems, []);
  }
  for (const off of ['0', 'false', 'False', 'no', 'NO', 'off', '', '  ']) {
    const r = readProbeEnvironment({ BUSSCOPE: off });
    assert.equal(r.start, undefined, `BUSSCOPE=${JSON.stringify(off)} is off`);
    assert.deepEqual(r.problems, [], 'silently');
  }
  assert.deepEqual(readProbeEnvironment({}), { record: undefined, start: undefined, problems: [] });
});

test('a BUSSCOPE value not accepted is one warning naming it and what is accepted; the probe stays off', () => {
  for (const bad of ['maybe', '2', 'enable', 'y']) {
    const r = readProbeEnvironment({ BUSSCOPE: bad });
    assert.equal(r.start, undefined);
    assert.equal(r.problems.length, 1);
    assert.equal(
      r.problems[0],
      `BUSSCOPE=${JSON.stringify(bad)} is not accepted (use 1, true, yes, on to turn it on; 0, false, no, off or empty for off (any case)); the probe stays off`,
    );
  }
});

test('BUSSCOPE_PORT: 0…65535 or empty; anything else (abc, 99999, -1, 1.5) warns and leaves the probe off', () => {
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_PORT: '4567' }).start, { port: 4567 });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_PORT: '0' }).start, { port: 0 });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_PORT: '' }).start, {});
  for (const bad of ['abc', '99999', '-1', '1.5', '0x50', '1e3', '65536']) {
    const r = readProbeEnvironment({ BUSSCOPE: 'yes', BUSSCOPE_PORT: bad });
    assert.equal(r.start, undefined, `BUSSCOPE_PORT=${bad}`);
    assert.deepEqual(r.problems, [
      `BUSSCOPE_PORT=${JSON.stringify(bad)} is not accepted (use a port number in 0…65535, 0 for any free port); the probe stays off`,
    ]);
  }
});

test('BUSSCOPE_HOST beyond loopback needs BUSSCOPE_ALLOW_REMOTE; a bad BUSSCOPE_ALLOW_REMOTE warns', () => {
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_HOST: 'localhost' }).start, { host: 'localhost' });
  const refused = readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_HOST: '0.0.0.0' });
  assert.equal(refused.start, undefined);
  assert.equal(refused.problems.length, 1);
  assert.match(refused.problems[0], /^BUSSCOPE_HOST="0\.0\.0\.0" is not a loopback address .* set BUSSCOPE_ALLOW_REMOTE=1 .*; the probe stays off$/);
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_HOST: '0.0.0.0', BUSSCOPE_ALLOW_REMOTE: 'yes' }).start, {
    host: '0.0.0.0',
    allowRemote: true,
  });
  const bad = readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_HOST: '0.0.0.0', BUSSCOPE_ALLOW_REMOTE: 'sure' });
  assert.equal(bad.start, undefined);
  assert.deepEqual(bad.problems.length, 1, 'one warning, about the switch (not also about the host)');
  assert.match(bad.problems[0], /^BUSSCOPE_ALLOW_REMOTE="sure" is not accepted \(use 1, true, yes, on/);
});

test('BUSSCOPE_DETAIL sets the detail of the server and of BUSSCOPE_RECORD; a bad one keeps both off', () => {
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_DETAIL: 'Dispatch', BUSSCOPE_NAME: 'app' }).start, { name: 'app', detail: 'dispatch' });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_RECORD: 'run.bustrace', BUSSCOPE_DETAIL: 'lifecycle' }).record, {
    file: 'run.bustrace',
    options: { detail: 'lifecycle' },
  });
  const r = readProbeEnvironment({ BUSSCOPE: '1', BUSSCOPE_RECORD: 'run.bustrace', BUSSCOPE_DETAIL: 'verbose' });
  assert.equal(r.start, undefined);
  assert.equal(r.record, undefined);
  assert.deepEqual(r.problems, [
    'BUSSCOPE_DETAIL="verbose" is not accepted (use one of lifecycle, dispatch, handlers); no trace is recorded and the probe stays off',
  ]);
  // Not read at all while nothing uses it.
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_DETAIL: 'verbose', BUSSCOPE_PORT: 'abc' }).problems, []);
});

test('BUSSCOPE_RECORD takes a file; a switch word there warns instead of writing a file named "1"', () => {
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_RECORD: 'out/run.bustrace' }), {
    record: { file: 'out/run.bustrace', options: undefined },
    start: undefined,
    problems: [],
  });
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_RECORD: '' }).record, undefined);
  for (const word of ['1', 'true', 'on', 'off', '0']) {
    const r = readProbeEnvironment({ BUSSCOPE_RECORD: word });
    assert.equal(r.record, undefined, word);
    assert.equal(r.problems.length, 1);
    assert.match(
      r.problems[0],
      new RegExp(`^BUSSCOPE_RECORD="${word}" is not accepted \\(it takes the trace file to write, .*\\./${word}\\); no trace is recorded$`),
    );
  }
  assert.deepEqual(readProbeEnvironment({ BUSSCOPE_RECORD: './1' }).record, { file: './1', options: undefined });
});
