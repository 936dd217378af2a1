// Draws the timeline canvas: collects the dispatches in view, then paints lane bands, dispatches (one by one or merged), handler slices, markers, the brush and the axis.
//
// Drawing cost is bounded by pixels, not records: when more than INDIVIDUAL_LIMIT dispatches are in
// view, adjacent dispatches of one lane row that touch on screen are merged into one rectangle
// while scanning (records arrive nearly in time order per row), so 200,000 dispatches cost one pass
// over typed arrays and at most a few thousand fillRects.
//
// Worker threads: each thread's lane group starts with a header band, and a dispatch whose event was
// enqueued in another thread gets a flow from the producer's band (at the enqueue time) to the
// dispatch. Flows are drawn only with dispatches drawn one by one, for rows in view, at most MAX_FLOWS.

import { DispatchFlag, HandlerSliceFlag } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { InspectorStore } from '../store/inspectorStore';
import { MAX_LANE_ROWS } from '../store/timelineStore';
import { TextFitter } from '../ui/canvas';
import { fmtInt } from '../ui/format';
import { withAlpha, type Theme } from '../ui/theme';
import { drawAxis, drawGrid } from './axis';
import { MAX_FLOWS, controlPoints, type Flow } from './flows';
import { LANE_ROW_HEIGHT, THREAD_HEADER_HEIGHT, type Lane, type ThreadBand } from './lanes';
import { AXIS_HEIGHT, type TimelineViewport } from './viewport';

export interface TimelineSummary {
  /** Dispatches overlapping the view in the lanes shown. */
  readonly inView: number;
  readonly errors: number;
  readonly consumed: number;
  readonly depthLimits: number;
  readonly drops: number;
  readonly droppedRecords: number;
  readonly lanes: number;
  /** Dispatches in view whose event another thread enqueued. */
  readonly crossThread: number;
  /** 'individual' draws each dispatch (with handler slices); 'merged' draws coverage. */
  readonly mode: 'individual' | 'merged' | 'empty';
}

export interface TimelineMarkerInView {
  readonly kind: 'error' | 'depth-limit' | 'consumed' | 'drop' | 'skipped';
  readonly at: number;
  readonly type: number;
  readonly seq: number;
}

const INDIVIDUAL_LIMIT = 3_000;
/** A start bound is drawn once it spans this many pixels either side of the start. */
const MIN_BOUND_PX = 2;

export function laneColour(theme: Theme, lane: Lane): string {
  return theme.palette[lane.colour % theme.palette.length];
}

export class TimelineRenderer {
  summary: TimelineSummary = { inView: 0, errors: 0, consumed: 0, depthLimits: 0, drops: 0, droppedRecords: 0, lanes: 0, crossThread: 0, mode: 'empty' };
  /** Cross-thread flows drawn by the last render, in plot coordinates (for hover and tests). */
  flows: Flow[] = [];
  /** Start bounds drawn by the last render (a whisker where the bound spans ≥ MIN_BOUND_PX). */
  boundsDrawn = 0;
  private readonly fitter = new TextFitter();
  /** Physical indices of the dispatches in view (in the lanes shown), from the last `collect`. */
  private collected: Int32Array;
  private collectedCount = 0;
  private mergeStart = new Float64Array(0);
  private mergeEnd = new Float64Array(0);

  constructor(
    private readonly store: InspectorStore,
    private readonly vp: TimelineViewport,
  ) {
    this.collected = new Int32Array(store.timeline.dispatches.capacity);
  }

  /** Sizes the merge buffers for the lanes in `vp.lanes`. */
  lanesChanged(): void {
    const need = this.vp.lanes.lanes.length * MAX_LANE_ROWS;
    if (this.mergeStart.length < need) {
      this.mergeStart = new Float64Array(need);
      this.mergeEnd = new Float64Array(need);
    }
  }

  /** Finds the dispatches in view and sums them up in `summary`. */
  collect(): void {
    const vp = this.vp;
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    if (this.collected.length < ring.capacity) this.collected = new Int32Array(ring.capacity);
    const byType = vp.lanes.byType;
    const collected = this.collected;
    let n = 0;
    let errors = 0;
    let consumed = 0;
    let depthLimits = 0;
    let crossThread = 0;
    const fromThread = tl.fromThread;
    ring.forEachInRange(vp.from, vp.to, (i) => {
      if (byType[tl.laneOf(i)] === undefined) return;
      collected[n++] = i;
      if (fromThread[i] >= 0) crossThread++;
      const f = tl.flags[i];
      if (f & DispatchFlag.error) errors++;
      if (f & DispatchFlag.depthLimit) depthLimits++;
      if (ring.consumedBy[i] !== 0) consumed++;
    });
    this.collectedCount = n;
    let drops = 0;
    let droppedRecords = 0;
    for (const m of tl.markers) {
      if (m.at < vp.from || m.at > vp.to) continue;
      if (m.kind === 'drop') {
        drops++;
        droppedRecords += m.count;
      } else if (m.kind === 'depth-limit') depthLimits++;
    }
    this.summary = {
      inView: n,
      errors,
      consumed,
      depthLimits,
      drops,
      droppedRecords,
      lanes: vp.lanes.lanes.length,
      crossThread,
      mode: n === 0 ? 'empty' : n <= INDIVIDUAL_LIMIT ? 'individual' : 'merged',
    };
  }

  /** Markers in the last collected view (for tests and the summary). */
  markersInView(): TimelineMarkerInView[] {
    const vp = this.vp;
    const out: TimelineMarkerInView[] = [];
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    for (let k = 0; k < this.collectedCount; k++) {
      const i = this.collected[k];
      const f = tl.flags[i];
      if (f & DispatchFlag.error) out.push({ kind: 'error', at: ring.start[i], type: ring.typeIndex[i], seq: ring.seq[i] });
      if (f & DispatchFlag.depthLimit) out.push({ kind: 'depth-limit', at: ring.start[i], type: ring.typeIndex[i], seq: ring.seq[i] });
      if (ring.consumedBy[i] !== 0) out.push({ kind: 'consumed', at: ring.start[i] + ring.duration[i], type: ring.typeIndex[i], seq: ring.seq[i] });
    }
    for (const m of tl.markers) {
      if (m.at < vp.from || m.at > vp.to) continue;
      if (m.kind === 'depth-limit') out.push({ kind: 'depth-limit', at: m.at, type: m.type, seq: m.seq });
      else out.push({ kind: m.kind, at: m.at, type: -1, seq: 0 });
    }
    return out;
  }

  /** Paints the whole canvas from the last `collect`, the lanes scrolled by `scrollTop`. */
  draw(ctx: CanvasRenderingContext2D, theme: Theme, scrollTop: number): void {
    const vp = this.vp;
    this.boundsDrawn = 0;
    this.flows = [];
    const { width, height, dpr } = vp.size;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, width, height);
    const top0 = AXIS_HEIGHT - scrollTop;
    // Lane bands and separators.
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS_HEIGHT, width, height - AXIS_HEIGHT);
    ctx.clip();
    let prevBus: number | null = null;
    for (const lane of vp.lanes.lanes) {
      const y = top0 + lane.top;
      if (y > height || y + lane.height < AXIS_HEIGHT) {
        prevBus = lane.bus;
        continue;
      }
      const focused = vp.focusTypes?.has(lane.type) ?? false;
      if (focused) {
        ctx.fillStyle = withAlpha(theme.warning, 0.12);
        ctx.fillRect(0, y, width, lane.height);
      } else if (lane.slot % 2 === 1) {
        ctx.fillStyle = withAlpha(theme.foreground, 0.03);
        ctx.fillRect(0, y, width, lane.height);
      }
      ctx.fillStyle = lane.bus !== prevBus ? withAlpha(theme.foreground, 0.25) : theme.grid;
      ctx.fillRect(0, y, width, 1);
      prevBus = lane.bus;
    }
    // Thread header bands (their labels are in the gutter).
    for (const band of vp.lanes.threads) {
      const y = top0 + band.top;
      if (y > height || y + THREAD_HEADER_HEIGHT < AXIS_HEIGHT) continue;
      ctx.fillStyle = withAlpha(theme.foreground, 0.08);
      ctx.fillRect(0, y, width, THREAD_HEADER_HEIGHT);
      ctx.fillStyle = withAlpha(theme.foreground, 0.4);
      ctx.fillRect(0, y, width, 1);
    }
    drawGrid(ctx, theme, vp);
    if (this.summary.mode === 'merged') this.drawMerged(ctx, theme, top0);
    else if (this.summary.mode === 'individual') this.drawIndividual(ctx, theme, top0);
    this.drawTimelineMarkers(ctx, theme, top0);
    if (vp.brush) {
      const bx0 = vp.xOf(vp.brush.from);
      const bx1 = vp.xOf(vp.brush.to);
      ctx.fillStyle = withAlpha(theme.focus, 0.14);
      ctx.fillRect(bx0, AXIS_HEIGHT, bx1 - bx0, height - AXIS_HEIGHT);
      ctx.fillStyle = theme.focus;
      ctx.fillRect(bx0, AXIS_HEIGHT, 1, height - AXIS_HEIGHT);
      ctx.fillRect(bx1, AXIS_HEIGHT, 1, height - AXIS_HEIGHT);
    }
    ctx.restore();
    drawAxis(ctx, theme, vp);
    if (this.collectedCount === 0) {
      ctx.fillStyle = theme.muted;
      ctx.font = `${theme.fontSize}px ${theme.fontFamily}`;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'middle';
      const msg = this.store.timeline.size === 0 ? 'No dispatches recorded yet' : 'No dispatches in this range';
      ctx.fillText(msg, width / 2, AXIS_HEIGHT + (height - AXIS_HEIGHT) / 2);
      ctx.textAlign = 'left';
    }
  }

  private drawMerged(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const vp = this.vp;
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    const byType = vp.lanes.byType;
    const width = vp.size.width;
    const height = vp.size.height;
    const pxPerMs = vp.pxPerMs;
    const from = vp.from;
    const slots = vp.lanes.lanes.length * MAX_LANE_ROWS;
    const ms = this.mergeStart;
    const me = this.mergeEnd;
    ms.fill(-1e9, 0, slots);
    me.fill(-1e9, 0, slots);
    const palette = theme.palette.length;
    // Rectangles per colour: one fillStyle change per colour per frame.
    const rects: number[][] = [];
    for (let c = 0; c < palette; c++) rects.push([]);
    const errorMarks: number[] = [];
    const laneOfSlot = vp.lanes.lanes;
    const dimLane = vp.focusTypes;
    const flush = (slot: number): void => {
      const lane = laneOfSlot[(slot / MAX_LANE_ROWS) | 0];
      const row = slot % MAX_LANE_ROWS;
      const y = top0 + lane.top + row * LANE_ROW_HEIGHT + 2;
      const x0 = ms[slot];
      rects[lane.colour % palette].push(x0, y, Math.max(1, me[slot] - x0), LANE_ROW_HEIGHT - 3);
    };
    const collected = this.collected;
    let lastErrorPx = -1;
    for (let k = 0; k < this.collectedCount; k++) {
      const i = collected[k];
      const lane = byType[tl.laneOf(i)]!;
      const y = top0 + lane.top;
      if (y > height || y + lane.height < AXIS_HEIGHT) continue;
      const row = ring.depth[i] < lane.rows ? ring.depth[i] : lane.rows - 1;
      const slot = lane.slot * MAX_LANE_ROWS + row;
      let x0 = (ring.start[i] - from) * pxPerMs;
      let x1 = x0 + ring.duration[i] * pxPerMs;
      if (x0 < -2) x0 = -2;
      if (x1 > width + 2) x1 = width + 2;
      if (x1 < x0 + 1) x1 = x0 + 1;
      if (x0 <= me[slot] + 0.75) {
        if (x1 > me[slot]) me[slot] = x1;
      } else {
        if (me[slot] > -1e8) flush(slot);
        ms[slot] = x0;
        me[slot] = x1;
      }
      if (tl.flags[i] & (DispatchFlag.error | DispatchFlag.depthLimit)) {
        const px = x0 | 0;
        if (px !== lastErrorPx) {
          errorMarks.push(x0, y + row * LANE_ROW_HEIGHT + 2, tl.flags[i]);
          lastErrorPx = px;
        }
      }
    }
    for (let s = 0; s < slots; s++) if (me[s] > -1e8) flush(s);
    for (let c = 0; c < palette; c++) {
      const list = rects[c];
      if (list.length === 0) continue;
      ctx.fillStyle = withAlpha(theme.palette[c], dimLane ? 0.35 : 0.8);
      for (let r = 0; r < list.length; r += 4) ctx.fillRect(list[r], list[r + 1], list[r + 2], list[r + 3]);
    }
    for (let m = 0; m < errorMarks.length; m += 3) drawFlagMark(ctx, theme, errorMarks[m], errorMarks[m + 1], errorMarks[m + 2]);
  }

  private drawIndividual(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const vp = this.vp;
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    const byType = vp.lanes.byType;
    const { width, height } = vp.size;
    const pxPerMs = vp.pxPerMs;
    const from = vp.from;
    const wide = new Map<number, { x0: number; x1: number; y: number }>();
    const font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.font = font;
    ctx.textBaseline = 'middle';
    let selected: { x0: number; x1: number; y: number } | null = null;
    const consumeMarks: number[] = [];
    const bounds: number[] = [];
    const bands = vp.lanes.threads;
    const flows: Flow[] = [];
    for (let k = 0; k < this.collectedCount; k++) {
      const i = this.collected[k];
      const lane = byType[tl.laneOf(i)]!;
      const row = ring.depth[i] < lane.rows ? ring.depth[i] : lane.rows - 1;
      const y = top0 + lane.top + row * LANE_ROW_HEIGHT + 2;
      if (y > height || y + LANE_ROW_HEIGHT < AXIS_HEIGHT) continue;
      const x0 = (ring.start[i] - from) * pxPerMs;
      const producer = tl.fromThread[i];
      if (producer >= 0 && flows.length < MAX_FLOWS) {
        const band = bandOf(bands, producer);
        if (band) {
          const at = tl.enqueuedAt[i];
          flows.push({
            index: i,
            seq: ring.seq[i],
            fromThread: producer,
            enqueuedAt: at,
            x0: (at - from) * pxPerMs,
            y0: top0 + band.top + THREAD_HEADER_HEIGHT / 2,
            x1: x0,
            y1: y + (LANE_ROW_HEIGHT - 3) / 2,
          });
        }
      }
      let x1 = x0 + ring.duration[i] * pxPerMs;
      if (x1 < x0 + 1) x1 = x0 + 1;
      const cx0 = Math.max(-2, x0);
      const cx1 = Math.min(width + 2, x1);
      const hgt = LANE_ROW_HEIGHT - 3;
      const colour = laneColour(theme, lane);
      const f = tl.flags[i];
      const dim = vp.focusTypes !== null && !vp.focusTypes.has(ring.typeIndex[i]) && !vp.focusTypes.has(lane.type);
      const alpha = dim ? 0.3 : Math.max(0.45, 0.9 - ring.depth[i] * 0.1);
      if (f & DispatchFlag.unheard) {
        ctx.strokeStyle = withAlpha(colour, alpha);
        ctx.lineWidth = 1;
        ctx.setLineDash([3, 2]);
        ctx.strokeRect(cx0 + 0.5, y + 0.5, Math.max(1, cx1 - cx0 - 1), hgt - 1);
        ctx.setLineDash([]);
      } else {
        ctx.fillStyle = withAlpha(colour, alpha);
        ctx.fillRect(cx0, y, cx1 - cx0, hgt);
      }
      const w = cx1 - cx0;
      if (w >= 6) wide.set(ring.seq[i], { x0: cx0, x1: cx1, y });
      if (w > 36) {
        const label = this.store.typeName(ring.typeIndex[i]);
        ctx.fillStyle = theme.foreground;
        ctx.fillText(this.fitter.fit(ctx, label, w - 6), cx0 + 3, y + hgt / 2 - 2);
      }
      if (f & (DispatchFlag.error | DispatchFlag.depthLimit)) drawFlagMark(ctx, theme, cx0, y, f);
      if (ring.consumedBy[i] !== 0 && w < 6) consumeMarks.push(cx1, y);
      // The start's error bound (interpolated starts), where it spans enough pixels to matter.
      const b = ring.startBound[i] * pxPerMs;
      if (b >= MIN_BOUND_PX && x0 + b >= 0 && x0 - b <= width) bounds.push(x0, b, y);
      if (vp.selectedSeq !== null && ring.seq[i] === vp.selectedSeq) selected = { x0: cx0, x1: cx1, y };
    }
    // Handler slices inside wide enough dispatches.
    if (wide.size > 0) {
      const handlers = tl.handlers;
      const sliceH = 5;
      tl.forEachHandlerInRange(vp.from, vp.to, (hi) => {
        const d = wide.get(handlers.seq[hi]);
        if (!d) return;
        let hx0 = (handlers.start[hi] - from) * pxPerMs;
        let hx1 = hx0 + handlers.duration[hi] * pxPerMs;
        if (hx0 < d.x0) hx0 = d.x0;
        if (hx1 > d.x1) hx1 = d.x1;
        if (hx1 < hx0 + 1) hx1 = hx0 + 1;
        const f = handlers.flags[hi];
        const sy = d.y + LANE_ROW_HEIGHT - 3 - sliceH;
        const focused = vp.focusSubs?.has(handlers.subscription[hi]) ?? false;
        ctx.fillStyle = f & HandlerSliceFlag.threw ? theme.error : focused ? theme.warning : withAlpha(theme.foreground, 0.55);
        ctx.fillRect(hx0, sy, Math.max(1, hx1 - hx0 - 1), sliceH);
        if (f & HandlerSliceFlag.consumed) consumeMarks.push(hx1, d.y);
      });
    }
    ctx.fillStyle = theme.consumed;
    for (let m = 0; m < consumeMarks.length; m += 2) {
      const x = consumeMarks[m];
      const y = consumeMarks[m + 1];
      ctx.beginPath();
      ctx.moveTo(x - 4, y - 1);
      ctx.lineTo(x + 4, y - 1);
      ctx.lineTo(x, y + 5);
      ctx.closePath();
      ctx.fill();
    }
    // Bound whiskers on top of the bars: a line across [start − bound, start + bound] with end caps.
    this.boundsDrawn = bounds.length / 3;
    if (bounds.length > 0) {
      ctx.fillStyle = withAlpha(theme.foreground, 0.8);
      const hgt = LANE_ROW_HEIGHT - 3;
      for (let k = 0; k < bounds.length; k += 3) {
        const x = bounds[k];
        const b = bounds[k + 1];
        const y = bounds[k + 2];
        const l = Math.max(-2, Math.round(x - b));
        const r = Math.min(width + 2, Math.round(x + b));
        ctx.fillRect(l, Math.round(y + hgt / 2), r - l, 1);
        ctx.fillRect(l, y + 2, 1, hgt - 4);
        ctx.fillRect(r - 1, y + 2, 1, hgt - 4);
      }
    }
    if (selected) {
      ctx.strokeStyle = theme.focus;
      ctx.lineWidth = 2;
      ctx.strokeRect(selected.x0 - 1, selected.y - 1, selected.x1 - selected.x0 + 2, LANE_ROW_HEIGHT - 1);
    }
    if (flows.length > 0) drawFlows(ctx, theme, flows);
    this.flows = flows;
  }

  private drawTimelineMarkers(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const vp = this.vp;
    const { height } = vp.size;
    ctx.font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.textBaseline = 'top';
    for (const m of this.store.timeline.markers) {
      if (m.at < vp.from || m.at > vp.to) continue;
      const x = Math.round(vp.xOf(m.at));
      if (m.kind === 'depth-limit') {
        const lane = vp.lanes.byType[m.type];
        if (!lane) continue;
        drawFlagMark(ctx, theme, x, top0 + lane.top + 2, DispatchFlag.depthLimit);
        continue;
      }
      const colour = m.kind === 'drop' ? theme.error : theme.muted;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1;
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(x + 0.5, AXIS_HEIGHT);
      ctx.lineTo(x + 0.5, height);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = colour;
      const label = m.kind === 'drop' ? `${fmtInt(m.count)} dropped` : `${fmtInt(m.count)} not shown`;
      const w = ctx.measureText(label).width;
      ctx.fillText(label, x + 3 + w > vp.size.width ? x - 3 - w : x + 3, AXIS_HEIGHT + 2);
    }
    ctx.textBaseline = 'middle';
  }
}

function bandOf(bands: readonly ThreadBand[], thread: number): ThreadBand | undefined {
  for (const b of bands) if (b.id === thread) return b;
  return undefined;
}

/** Each flow: a dot at the enqueue, a curve, an arrowhead into the dispatch. One colour, one path per part. */
function drawFlows(ctx: CanvasRenderingContext2D, theme: Theme, flows: readonly Flow[]): void {
  const colour = theme.info;
  ctx.strokeStyle = withAlpha(colour, 0.85);
  ctx.lineWidth = 1.25;
  ctx.beginPath();
  for (const f of flows) {
    const c = controlPoints(f);
    ctx.moveTo(f.x0, f.y0);
    ctx.bezierCurveTo(c.c1x, c.c1y, c.c2x, c.c2y, f.x1, f.y1);
  }
  ctx.stroke();
  ctx.fillStyle = colour;
  ctx.beginPath();
  for (const f of flows) {
    ctx.moveTo(f.x0 + 2.5, f.y0);
    ctx.arc(f.x0, f.y0, 2.5, 0, Math.PI * 2);
    // The curve enters the dispatch horizontally (or vertically when both ends share an x).
    const horizontal = Math.abs(f.x1 - f.x0) >= 1;
    if (horizontal) {
      const dir = f.x1 >= f.x0 ? 1 : -1;
      ctx.moveTo(f.x1, f.y1);
      ctx.lineTo(f.x1 - 6 * dir, f.y1 - 3.5);
      ctx.lineTo(f.x1 - 6 * dir, f.y1 + 3.5);
    } else {
      const dir = f.y1 >= f.y0 ? 1 : -1;
      ctx.moveTo(f.x1, f.y1);
      ctx.lineTo(f.x1 - 3.5, f.y1 - 6 * dir);
      ctx.lineTo(f.x1 + 3.5, f.y1 - 6 * dir);
    }
    ctx.closePath();
  }
  ctx.fill();
}

function drawFlagMark(ctx: CanvasRenderingContext2D, theme: Theme, x: number, y: number, flags: number): void {
  if (flags & DispatchFlag.error) {
    ctx.fillStyle = theme.error;
    ctx.fillRect(x - 1, y - 1, 3, LANE_ROW_HEIGHT - 1);
  }
  if (flags & DispatchFlag.depthLimit) {
    ctx.fillStyle = theme.warning;
    ctx.beginPath();
    ctx.moveTo(x, y - 1);
    ctx.lineTo(x + 5, y + 8);
    ctx.lineTo(x - 5, y + 8);
    ctx.closePath();
    ctx.fill();
  }
}
