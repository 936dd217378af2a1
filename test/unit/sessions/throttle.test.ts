// The trailing throttle the views use: at most one run per interval, never losing the last request.
// On node:test's mock clock (setTimeout and Date): the intervals are checked exactly, whatever the
// machine's load, and the test takes no real time.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Throttle } from '../../../extension/src/sessions/throttle';

describe('Throttle', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('coalesces bursts into one run, and runs once more after the interval', () => {
    let runs = 0;
    const t = new Throttle(() => runs++, 50);
    for (let i = 0; i < 100; i++) t.schedule();
    mock.timers.tick(0);
    assert.equal(runs, 1, 'the first request runs promptly');
    for (let i = 0; i < 100; i++) t.schedule();
    mock.timers.tick(49);
    assert.equal(runs, 1, 'not again within the interval');
    mock.timers.tick(1);
    assert.equal(runs, 2, 'the trailing run happened at the end of the interval');
    mock.timers.tick(1000);
    assert.equal(runs, 2, 'and no run without a request');
    t.dispose();
  });

  it('flush runs a pending request now; dispose cancels it', () => {
    let runs = 0;
    const t = new Throttle(() => runs++, 1000);
    t.schedule();
    mock.timers.tick(5);
    t.schedule();
    assert.equal(t.pending, true);
    t.flush();
    assert.equal(runs, 2);
    t.schedule();
    t.dispose();
    mock.timers.tick(2000);
    assert.equal(runs, 2);
  });

  it('rejects bad arguments', () => {
    assert.throws(() => new Throttle(undefined as unknown as () => void, 10), TypeError);
    assert.throws(() => new Throttle(() => undefined, -1), TypeError);
  });
});
