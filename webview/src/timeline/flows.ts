// Cross-thread flows on the timeline (pure geometry): the curve from an event's enqueue in a worker's lane group to its dispatch on the main thread, and hit-testing it.

/** One flow as drawn: plot coordinates (CSS px) of the enqueue and of the dispatch's start. */
export interface Flow {
  /** Physical index of the dispatch in the timeline ring. */
  readonly index: number;
  readonly seq: number;
  readonly fromThread: number;
  readonly enqueuedAt: number;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** Flows drawn per frame at most: the rest of a dense view is left out (counted in `flowsOmitted`). */
export const MAX_FLOWS = 400;
/** Pointer distance (px) within which a flow counts as hovered. */
export const FLOW_HIT_PX = 4;
const SAMPLES = 16;

/** The cubic curve's control points: leaves the enqueue horizontally and enters the dispatch horizontally. */
export function controlPoints(f: Flow): { c1x: number; c1y: number; c2x: number; c2y: number } {
  const mx = (f.x0 + f.x1) / 2;
  return { c1x: mx, c1y: f.y0, c2x: mx, c2y: f.y1 };
}

/** Point at parameter t ∈ [0, 1] of the flow's curve. */
export function flowPoint(f: Flow, t: number): { x: number; y: number } {
  const { c1x, c1y, c2x, c2y } = controlPoints(f);
  const u = 1 - t;
  const a = u * u * u;
  const b = 3 * u * u * t;
  const c = 3 * u * t * t;
  const d = t * t * t;
  return { x: a * f.x0 + b * c1x + c * c2x + d * f.x1, y: a * f.y0 + b * c1y + c * c2y + d * f.y1 };
}

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Distance (px) from (x, y) to the flow's curve (a polyline of SAMPLES segments). */
export function distanceToFlow(f: Flow, x: number, y: number): number {
  let best = Infinity;
  let prev = flowPoint(f, 0);
  for (let k = 1; k <= SAMPLES; k++) {
    const p = flowPoint(f, k / SAMPLES);
    const d = segmentDistance(x, y, prev.x, prev.y, p.x, p.y);
    if (d < best) best = d;
    prev = p;
  }
  return best;
}

/** The flow nearest to (x, y) within FLOW_HIT_PX, or null. */
export function flowAt(flows: readonly Flow[], x: number, y: number): Flow | null {
  let best: Flow | null = null;
  let bestDist = FLOW_HIT_PX;
  for (const f of flows) {
    // Cheap box test first: most flows are nowhere near the pointer.
    if (x < Math.min(f.x0, f.x1) - FLOW_HIT_PX || x > Math.max(f.x0, f.x1) + FLOW_HIT_PX) continue;
    if (y < Math.min(f.y0, f.y1) - FLOW_HIT_PX || y > Math.max(f.y0, f.y1) + FLOW_HIT_PX) continue;
    const d = distanceToFlow(f, x, y);
    if (d <= bestDist) {
      best = f;
      bestDist = d;
    }
  }
  return best;
}
