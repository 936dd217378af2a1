import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeakMonitor } from '../../../runtime-probe/src/analysis/analyses/leakMonitor';

test('warns at the threshold, re-arms by half the threshold, clears below it', () => {
  const m = new LeakMonitor({ threshold: 10, rearmFraction: 0.5 });
  const events: string[] = [];
  for (let n = 1; n <= 25; n++) {
    const e = m.check(n);
    if (e !== 'none') events.push(`${e}@${n}`);
  }
  assert.deepEqual(events, ['warned@10', 'warned@15', 'warned@20', 'warned@25']);
  assert.equal(m.warnings, 4);
  assert.equal(m.check(24), 'none'); // still above the threshold: the warning holds
  assert.equal(m.check(9), 'cleared');
  assert.equal(m.warning, false);
  assert.equal(m.check(10), 'warned'); // re-armed at the threshold after clearing
});

test('a count that jumps re-arms relative to the count it warned at', () => {
  const m = new LeakMonitor({ threshold: 10, rearmFraction: 0.5 });
  assert.equal(m.check(40), 'warned');
  assert.equal(m.check(44), 'none');
  assert.equal(m.check(45), 'warned');
});

test('threshold 0 disables; bad options throw', () => {
  const m = new LeakMonitor({ threshold: 0, rearmFraction: 0.5 });
  assert.equal(m.check(1_000_000), 'none');
  assert.throws(() => new LeakMonitor({ threshold: NaN, rearmFraction: 0.5 }), TypeError);
  assert.throws(() => new LeakMonitor({ threshold: 5, rearmFraction: 0 }), TypeError);
});
