// The render scheduler on an injected clock: requests within a frame coalesce into one render of
// every part asked for; flush renders at once; a delayed request fires at its time, not before.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Scheduler, type Part } from '../../../webview/src/ui/scheduler';
import { ManualClock } from './manualClock';

function setup(): { clock: ManualClock; scheduler: Scheduler; renders: Part[][] } {
  const clock = new ManualClock();
  const renders: Part[][] = [];
  const scheduler = new Scheduler(clock, (parts) => renders.push([...parts].sort()));
  return { clock, scheduler, renders };
}

test('many invalidations before a frame become one render of every part asked for', () => {
  const { clock, scheduler, renders } = setup();
  scheduler.invalidate('graph');
  scheduler.invalidate('timeline', 'graph');
  for (let i = 0; i < 100; i++) scheduler.invalidate('details');
  assert.equal(clock.pendingFrames, 1, 'one frame requested for all of them');
  assert.deepEqual(renders, [], 'nothing renders before the frame');
  clock.runFrames();
  assert.deepEqual(renders, [['details', 'graph', 'timeline']]);
  assert.equal(clock.runFrames(), 0, 'no second frame');
  scheduler.invalidate('banner');
  clock.runFrames();
  assert.deepEqual(renders.at(-1), ['banner'], 'the next frame renders only what was asked since');
});

test('flush renders pending parts at once and cancels the frame; with nothing pending it renders nothing', () => {
  const { clock, scheduler, renders } = setup();
  scheduler.invalidate('outline', 'warnings');
  scheduler.flush();
  assert.deepEqual(renders, [['outline', 'warnings']]);
  assert.equal(clock.pendingFrames, 0);
  scheduler.flush();
  assert.equal(renders.length, 1);
});

test('invalidateAfter fires at its time on the injected clock; a second request while one waits adds no timer', () => {
  const { clock, scheduler, renders } = setup();
  scheduler.invalidateAfter(500, 'graph');
  scheduler.invalidateAfter(200, 'graph');
  assert.equal(clock.pendingTimers, 1);
  clock.advance(499);
  clock.runFrames();
  assert.deepEqual(renders, [], 'not before 500 ms');
  clock.advance(1);
  clock.runFrames();
  assert.deepEqual(renders, [['graph']]);
  scheduler.invalidateAfter(100, 'timeline');
  assert.equal(clock.pendingTimers, 1, 'a new request once the last fired');
});

test('after dispose nothing renders and no timer or frame is left behind', () => {
  const { clock, scheduler, renders } = setup();
  scheduler.invalidate('graph');
  scheduler.invalidateAfter(500, 'timeline');
  scheduler.dispose();
  assert.equal(clock.pendingFrames, 0);
  assert.equal(clock.pendingTimers, 0);
  scheduler.invalidate('graph');
  scheduler.flush();
  clock.advance(1000);
  clock.runFrames();
  assert.deepEqual(renders, []);
});
