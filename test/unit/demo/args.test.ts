import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDemoArgs } from '../../../runtime-probe/src/demo/args';

test('demo args: defaults run until killed, not quiet', () => {
  assert.deepEqual(parseDemoArgs([]), { durationSeconds: undefined, quiet: false, seed: undefined, help: false });
});

test('demo args: --duration, --quiet, --seed, both spellings', () => {
  assert.deepEqual(parseDemoArgs(['--duration', '3', '--quiet', '--seed=7']), { durationSeconds: 3, quiet: true, seed: 7, help: false });
  assert.equal(parseDemoArgs(['--duration=0.5']).durationSeconds, 0.5);
});

test('demo args: environment, overridden by flags', () => {
  const env = { BUSSCOPE_DEMO_DURATION: '10', BUSSCOPE_DEMO_QUIET: '1' };
  assert.deepEqual(parseDemoArgs([], env), { durationSeconds: 10, quiet: true, seed: undefined, help: false });
  assert.equal(parseDemoArgs(['--duration', '2'], env).durationSeconds, 2);
});

test('demo args: bad input is a TypeError naming the flag', () => {
  assert.throws(() => parseDemoArgs(['--duration']), { name: 'TypeError', message: /--duration/ });
  assert.throws(() => parseDemoArgs(['--duration', '-1']), { name: 'TypeError', message: /--duration/ });
  assert.throws(() => parseDemoArgs(['--duration', 'soon']), { name: 'TypeError', message: /--duration/ });
  assert.throws(() => parseDemoArgs(['--seed', '1.5']), { name: 'TypeError', message: /--seed/ });
  assert.throws(() => parseDemoArgs(['--fast']), { name: 'TypeError', message: /--fast/ });
  assert.throws(() => parseDemoArgs([], { BUSSCOPE_DEMO_DURATION: 'x' }), { name: 'TypeError', message: /BUSSCOPE_DEMO_DURATION/ });
});

test('demo args: BUSSCOPE_DEMO_QUIET takes the same on/off spellings as BUSSCOPE; another value is a usage error', () => {
  assert.equal(parseDemoArgs([], { BUSSCOPE_DEMO_QUIET: 'yes' }).quiet, true);
  assert.equal(parseDemoArgs([], { BUSSCOPE_DEMO_QUIET: 'On' }).quiet, true);
  assert.equal(parseDemoArgs([], { BUSSCOPE_DEMO_QUIET: 'off' }).quiet, false);
  assert.throws(() => parseDemoArgs([], { BUSSCOPE_DEMO_QUIET: 'loud' }), /^TypeError: BUSSCOPE_DEMO_QUIET="loud" is not accepted \(use 1, true, yes, on/);
});
