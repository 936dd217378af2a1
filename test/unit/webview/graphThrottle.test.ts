// The graph follows a live app's figures (rates, counts) at most every 500 ms of the inspector's
// clock, and the rebuild that was held back does come: driven by a manual clock, no sleeps.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInspector } from '../../../webview/src/inspector';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { createDom } from './dom';
import { FixtureSource, loopback } from './loopback';
import { ManualClock } from './manualClock';

test('figures-only deltas rebuild the graph once 500 ms after the last rebuild, not per delta', () => {
  const clock = new ManualClock();
  const dom = createDom();
  const app = new FixtureApp();
  const lb = loopback(new FixtureSource(app));
  const ins = createInspector(dom.root, lb.port, { clock });
  try {
    ins.flush();
    // The first deltas bring what the snapshot did not have yet (types): taken in at once (flush).
    for (let i = 0; i < 3; i++) {
      app.run(20);
      lb.clock.advance(100);
      ins.flush();
    }
    const builds = ins.metrics.graphBuilds;
    const structure = ins.store.structureVersion;
    const stats = ins.store.statsVersion;
    // Deltas of new dispatches and the analyses' figures, 100 ms apart on the inspector's clock, each rendered by its frame.
    for (let i = 0; i < 4; i++) {
      const seq = ins.store.lastDeltaSeq;
      app.run(20);
      lb.clock.advance(100);
      assert.ok(ins.store.lastDeltaSeq > seq, 'a delta arrived');
      clock.advance(100);
      clock.runFrames();
    }
    assert.equal(ins.store.structureVersion, structure, 'the deltas changed figures only');
    assert.notEqual(ins.store.statsVersion, stats, 'the deltas changed figures');
    assert.equal(clock.pendingTimers, 1, 'one held-back rebuild');
    assert.equal(ins.metrics.graphBuilds, builds, 'no rebuild within 500 ms of the last');
    clock.advance(99);
    clock.runFrames();
    assert.equal(ins.metrics.graphBuilds, builds, 'still none at 499 ms');
    clock.advance(1);
    assert.equal(clock.runFrames(), 1, 'the held-back rebuild asks for a frame at 500 ms');
    assert.equal(ins.metrics.graphBuilds, builds + 1, 'and rebuilds the graph once');
  } finally {
    ins.dispose();
    lb.connection.dispose();
    dom.close();
  }
});
