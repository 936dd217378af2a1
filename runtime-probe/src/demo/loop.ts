// Drives a world in real time: steps as many frames as the wall clock says are due, then sleeps
// until the next frame. After a stall (debugger pause, busy machine) it skips ahead instead of
// replaying a burst of missed frames.
import { FRAME_MS } from './clock';
import type { DemoWorld } from './world';

const MAX_CATCH_UP_FRAMES = 5;

export interface RealTimeLoop {
  stop(): void;
}

export function runInRealTime(world: DemoWorld): RealTimeLoop {
  const origin = performance.now();
  let framesRun = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const tick = (): void => {
    if (stopped) return;
    const due = Math.floor((performance.now() - origin) / FRAME_MS);
    let behind = due - framesRun;
    if (behind > MAX_CATCH_UP_FRAMES) {
      framesRun = due - 1; // forget the stall: run one frame, not a burst
      behind = 1;
    }
    for (let i = 0; i < behind; i++) {
      world.step();
      framesRun++;
    }
    const next = origin + (framesRun + 1) * FRAME_MS;
    timer = setTimeout(tick, Math.max(1, next - performance.now()));
  };
  timer = setTimeout(tick, FRAME_MS);

  return {
    stop(): void {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
