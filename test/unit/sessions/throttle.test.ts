// The trailing throttle the views use: at most one run per interval, never losing the last request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Throttle } from '../../../extension/src/sessions/throttle';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Throttle', () => {
  it('coalesces bursts into one run, and runs once more after the interval', async () => {
    let runs = 0;
    const t = new Throttle(() => runs++, 50);
    for (let i = 0; i < 100; i++) t.schedule();
    await sleep(10);
    assert.equal(runs, 1, 'the first request runs promptly');
    for (let i = 0; i < 100; i++) t.schedule();
    await sleep(20);
    assert.equal(runs, 1, 'not again within the interval');
    await sleep(60);
    assert.equal(runs, 2, 'the trailing run happened');
    t.dispose();
  });

  it('flush runs a pending request now; dispose cancels it', async () => {
    let runs = 0;
    const t = new Throttle(() => runs++, 1000);
    t.schedule();
    await sleep(5);
    t.schedule();
    assert.equal(t.pending, true);
    t.flush();
    assert.equal(runs, 2);
    t.schedule();
    t.dispose();
    await sleep(20);
    assert.equal(runs, 2);
  });

  it('rejects bad arguments', () => {
    assert.throws(() => new Throttle(undefined as unknown as () => void, 10), TypeError);
    assert.throws(() => new Throttle(() => undefined, -1), TypeError);
  });
});
