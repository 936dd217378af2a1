// Hit-testing the timeline: which dispatch lies under a plot point, and where a dispatch is drawn (plot coordinates, no DOM).

import type { TimelineStore } from '../store/timelineStore';
import { LANE_ROW_HEIGHT } from './lanes';
import { AXIS_HEIGHT, type TimelineViewport } from './viewport';

/** Pixels either side of the pointer a dispatch may be and still count as under it. */
const SLACK_PX = 4;

/**
 * Physical index of the dispatch under plot point (x, y) — CSS px from the canvas's top-left, the
 * lanes scrolled by `scrollTop` — or -1.
 */
export function dispatchAt(tl: TimelineStore, vp: TimelineViewport, x: number, y: number, scrollTop: number): number {
  if (y < AXIS_HEIGHT) return -1;
  const laneY = y - AXIS_HEIGHT + scrollTop;
  const lane = vp.lanes.lanes.find((l) => laneY >= l.top && laneY < l.top + l.height);
  if (!lane) return -1;
  const row = Math.min(lane.rows - 1, Math.floor((laneY - lane.top - 2) / LANE_ROW_HEIGHT));
  const t = vp.timeAtX(x);
  const slack = (SLACK_PX * (vp.to - vp.from)) / vp.size.width;
  const ring = tl.dispatches;
  let best = -1;
  let bestDist = Infinity;
  ring.forEachInRange(t - slack, t + slack, (i) => {
    // By lane, not type: the "other types" lane holds many types.
    if (vp.lanes.byType[tl.laneOf(i)] !== lane || Math.min(ring.depth[i], lane.rows - 1) !== row) return;
    const s = ring.start[i];
    const end = s + ring.duration[i];
    const dist = t >= s && t <= end ? 0 : Math.min(Math.abs(t - s), Math.abs(t - end));
    if (dist < bestDist || (dist === bestDist && best >= 0 && ring.duration[i] < ring.duration[best])) {
      best = i;
      bestDist = dist;
    }
  });
  return best;
}

/** Plot point inside the drawn rectangle of the dispatch at physical index `i`, or null when it has no lane. */
export function pointOfDispatch(tl: TimelineStore, vp: TimelineViewport, i: number, scrollTop: number): { x: number; y: number } | null {
  const lane = vp.lanes.byType[tl.laneOf(i)];
  if (!lane) return null;
  const ring = tl.dispatches;
  const pxPerMs = vp.pxPerMs;
  const x0 = (ring.start[i] - vp.from) * pxPerMs;
  const x1 = Math.max(x0 + 1, (ring.start[i] + ring.duration[i] - vp.from) * pxPerMs);
  const row = Math.min(ring.depth[i], lane.rows - 1);
  const y = AXIS_HEIGHT + lane.top - scrollTop + row * LANE_ROW_HEIGHT + LANE_ROW_HEIGHT / 2 + 2;
  const x = Math.max(0, x0) + (Math.min(vp.size.width, x1) - Math.max(0, x0)) / 2;
  return { x, y };
}
