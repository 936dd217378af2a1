// A page's clock is coarse: Chromium's `performance.now()` moves in 100 µs steps in a page that is
// not cross-origin isolated (5 µs when isolated; Firefox 1 ms in some modes), so a read says only
// that the true time lies within a step of it. The page measures the step once per connection and
// sends it as `welcome.clockStep`; the reader adds it to every dispatch bound (PROTOCOL.md).
// Node's clock (hrtime, ns) has no step to speak of: the Node probe sends none (its bounds stay as they were).

import type { RecorderClock } from '../recorder/recorder-host';

/**
 * The smallest change in a few changes of the clock's value, read back to back (ms; at most 40,000
 * reads, ~3 ms; a clock that never moved is taken as 200 ms). A fine clock gives the time a read
 * takes (tens of ns): no harm in stating it. Literal numbers: the page bundle is counted in bytes.
 */
export function measureClockStep(clock: RecorderClock): number {
  let last = clock.now();
  let step = 200;
  for (let i = 0, changes = 0; i < 4e4 && changes < 3; i++) {
    const now = clock.now();
    if (now !== last) {
      step = Math.min(step, now - last);
      last = now;
      changes++;
    }
  }
  return step;
}
