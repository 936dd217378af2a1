// The timeline's view state, shared by its parts: the visible time window, follow-live, brush, selection, focus, lanes and canvas size.

import type { CanvasSize } from '../ui/canvas';
import type { LaneLayout } from './lanes';

export const AXIS_HEIGHT = 24;
export const FALLBACK_SIZE = { width: 900, height: 260 };
export const DEFAULT_SPAN_MS = 5_000;
export const MIN_SPAN_MS = 1e-3;
export const MAX_SPAN_MS = 7 * 24 * 3600_000;

export type TimeRange = { from: number; to: number };

export class TimelineViewport {
  lanes: LaneLayout = { lanes: [], byType: [], totalHeight: 0, threads: [] };
  size: CanvasSize = { ...FALLBACK_SIZE, dpr: 1 };
  /** Visible time range, record-time ms. */
  from = 0;
  to = DEFAULT_SPAN_MS;
  /** Time at d3-zoom's identity transform (the first view's start); NaN until known. */
  origin = NaN;
  spanMs = DEFAULT_SPAN_MS;
  followLive = true;
  brush: TimeRange | null = null;
  selectedSeq: number | null = null;
  focusTypes: ReadonlySet<number> | null = null;
  focusSubs: ReadonlySet<number> | null = null;

  /** x (CSS px from the plot's left edge) of a time. */
  xOf(t: number): number {
    return ((t - this.from) / (this.to - this.from)) * this.size.width;
  }

  /** Time at x (CSS px from the plot's left edge). */
  timeAtX(x: number): number {
    return this.from + (x / this.size.width) * (this.to - this.from);
  }

  get pxPerMs(): number {
    return this.size.width / (this.to - this.from);
  }
}

export function clampSpan(spanMs: number): number {
  return Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, spanMs));
}
