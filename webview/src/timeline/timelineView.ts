// The dispatch timeline on a canvas. Time runs left to right (d3-scale for the axis, d3-zoom for
// wheel zoom and drag pan), lanes per event type grouped by bus, nested dispatches one row below
// their parent, handler slices inside a dispatch, markers for consumption, errors, depth-limit hits
// and dropped records. Follow-live keeps the right edge at the newest record; any pan pauses it.
// Brushing (drag on the time axis, or Shift+drag anywhere) selects a range for statistics.
//
// Drawing cost is bounded by pixels, not records: when more than INDIVIDUAL_LIMIT dispatches are in
// view, adjacent dispatches of one lane row that touch on screen are merged into one rectangle
// while scanning (records arrive nearly in time order per row), so 200,000 dispatches cost one pass
// over typed arrays and at most a few thousand fillRects.

import { scaleLinear, select, zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3';
import { DispatchFlag, HandlerSliceFlag } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { InspectorStore } from '../store/inspectorStore';
import { MAX_LANE_ROWS } from '../store/timelineStore';
import { context2d, fitCanvas, TextFitter, type CanvasSize } from '../ui/canvas';
import { h } from '../ui/dom';
import { fmtBound, fmtInt, fmtMs, fmtTime, plural } from '../ui/format';
import { withAlpha, type Theme } from '../ui/theme';
import { LANE_ROW_HEIGHT, OTHER_LANE, type Lane, type LaneLayout } from './lanes';

export interface TimelineEvents {
  select(seq: number | null): void;
  open(seq: number): void;
  brushed(range: { from: number; to: number } | null): void;
  followChanged(follow: boolean): void;
  viewChanged(): void;
  requestRender(): void;
}

export interface TimelineSummary {
  /** Dispatches overlapping the view in the lanes shown. */
  readonly inView: number;
  readonly errors: number;
  readonly consumed: number;
  readonly depthLimits: number;
  readonly drops: number;
  readonly droppedRecords: number;
  readonly lanes: number;
  /** 'individual' draws each dispatch (with handler slices); 'merged' draws coverage. */
  readonly mode: 'individual' | 'merged' | 'empty';
}

export interface TimelineMarkerInView {
  readonly kind: 'error' | 'depth-limit' | 'consumed' | 'drop' | 'skipped';
  readonly at: number;
  readonly type: number;
  readonly seq: number;
}

export const AXIS_HEIGHT = 24;
const FALLBACK_SIZE = { width: 900, height: 260 };
const INDIVIDUAL_LIMIT = 3_000;
const DEFAULT_SPAN_MS = 5_000;
const MIN_SPAN_MS = 1e-3;
const MAX_SPAN_MS = 7 * 24 * 3600_000;
const FRAME_HISTORY = 512;
/** A start bound is drawn once it spans this many pixels either side of the start. */
const MIN_BOUND_PX = 2;

export class TimelineView {
  readonly element: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly laneScroll: HTMLElement;
  private readonly laneSpacer: HTMLElement;
  private readonly summaryEl: HTMLElement;
  private readonly followButton: HTMLButtonElement;
  private readonly ctx: CanvasRenderingContext2D | null;
  private readonly tooltip: HTMLElement;
  /** Start bounds drawn by the last render (a whisker where the bound spans ≥ MIN_BOUND_PX). */
  private boundsDrawnCount = 0;
  private readonly zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly fitter = new TextFitter();
  private theme: Theme | null = null;
  private lanes: LaneLayout = { lanes: [], byType: [], totalHeight: 0 };
  private size: CanvasSize = { ...FALLBACK_SIZE, dpr: 1 };
  /** Visible time range, record-time ms. */
  private from = 0;
  private to = DEFAULT_SPAN_MS;
  private origin = NaN;
  private spanMs = DEFAULT_SPAN_MS;
  private followLive = true;
  private brush: { from: number; to: number } | null = null;
  private brushing: { startX: number; pointerId: number } | null = null;
  private justBrushed = false;
  private selectedSeq: number | null = null;
  private focusTypes: ReadonlySet<number> | null = null;
  private focusSubs: ReadonlySet<number> | null = null;
  private syncing = false;
  private lastZoomY = 0;
  private collected: Int32Array;
  private collectedCount = 0;
  private mergeStart = new Float64Array(0);
  private mergeEnd = new Float64Array(0);
  private readonly frameTimes = new Float64Array(FRAME_HISTORY);
  private frames = 0;
  private lastLaneRange = '';
  summary: TimelineSummary = { inView: 0, errors: 0, consumed: 0, depthLimits: 0, drops: 0, droppedRecords: 0, lanes: 0, mode: 'empty' };
  lastDrawMs = 0;

  constructor(
    private readonly doc: Document,
    private readonly store: InspectorStore,
    private readonly events: TimelineEvents,
  ) {
    this.collected = new Int32Array(store.timeline.dispatches.capacity);
    this.followButton = h(doc, 'button', { class: 'toggle', type: 'button', 'aria-pressed': 'true', title: 'Keep the newest dispatches in view (End)', 'data-testid': 'follow' }, 'Follow live');
    this.followButton.addEventListener('click', () => this.setFollow(!this.followLive, true));
    const zoomIn = h(doc, 'button', { type: 'button', title: 'Zoom in (+)', 'aria-label': 'Zoom in' }, '+');
    const zoomOut = h(doc, 'button', { type: 'button', title: 'Zoom out (-)', 'aria-label': 'Zoom out' }, '−');
    const fitAll = h(doc, 'button', { type: 'button', title: 'Show everything retained (Home)' }, 'Fit');
    zoomIn.addEventListener('click', () => this.zoomBy(1.5));
    zoomOut.addEventListener('click', () => this.zoomBy(1 / 1.5));
    fitAll.addEventListener('click', () => this.fitAll());
    this.summaryEl = h(doc, 'span', { class: 'tl-summary', role: 'status', 'aria-live': 'polite', 'data-testid': 'timeline-summary' }, 'No dispatches in view');
    const toolbar = h(doc, 'div', { class: 'tl-toolbar', role: 'toolbar', 'aria-label': 'Timeline' }, h(doc, 'span', { class: 'section-title' }, 'Dispatch timeline'), this.followButton, zoomOut, zoomIn, fitAll, this.summaryEl);
    this.laneSpacer = h(doc, 'div', { class: 'lane-spacer' });
    this.laneScroll = h(doc, 'div', { class: 'lane-scroll', 'data-testid': 'timeline-lanes', role: 'list', 'aria-label': 'Timeline lanes' }, this.laneSpacer);
    this.laneScroll.addEventListener('scroll', () => this.events.requestRender());
    const gutter = h(doc, 'div', { class: 'tl-gutter' }, h(doc, 'div', { class: 'tl-gutter-head' }, 'bus · type'), this.laneScroll);
    this.canvas = h(doc, 'canvas', {
      class: 'tl-canvas',
      tabindex: 0,
      role: 'img',
      'aria-label': 'Dispatch timeline. Arrow keys pan, plus and minus zoom, Home fits, End follows live, Shift+drag or drag on the axis selects a range.',
      'data-testid': 'timeline-canvas',
    });
    this.tooltip = h(doc, 'div', { class: 'tooltip', role: 'tooltip', hidden: true, 'data-testid': 'timeline-tooltip' });
    const plot = h(doc, 'div', { class: 'tl-plot' }, this.canvas, this.tooltip);
    this.element = h(doc, 'section', { class: 'timeline', 'aria-label': 'Dispatch timeline' }, toolbar, h(doc, 'div', { class: 'tl-body' }, gutter, plot));
    this.ctx = context2d(this.canvas);

    this.zoomBehavior = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([1000 / MAX_SPAN_MS, 1000 / MIN_SPAN_MS])
      .touchable(() => false)
      .extent(() => [
        [0, 0],
        [this.size.width, this.size.height],
      ])
      .filter((e: Event) => {
        const me = e as MouseEvent;
        if (e.type === 'wheel') return !me.shiftKey;
        if (me.button || me.shiftKey) return false;
        if (e.type === 'mousedown' && this.localY(me) < AXIS_HEIGHT) return false;
        return true;
      })
      .on('zoom', (e: D3ZoomEvent<HTMLCanvasElement, unknown>) => this.onZoom(e));
    select(this.canvas).call(this.zoomBehavior).on('dblclick.zoom', null);
    this.canvas.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.canvas.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.canvas.addEventListener('pointerleave', () => this.hideTooltip());
    this.canvas.addEventListener('pointerup', (e) => this.onPointerUp(e));
    this.canvas.addEventListener('click', (e) => {
      if (this.justBrushed) {
        this.justBrushed = false;
        return;
      }
      const i = this.dispatchAtClient(e.clientX, e.clientY);
      this.events.select(i >= 0 ? this.store.timeline.dispatches.seq[i] : null);
    });
    this.canvas.addEventListener('dblclick', (e) => {
      const i = this.dispatchAtClient(e.clientX, e.clientY);
      if (i >= 0) this.events.open(this.store.timeline.dispatches.seq[i]);
    });
    this.canvas.addEventListener('wheel', (e) => {
      if (!e.shiftKey) return;
      e.preventDefault();
      this.laneScroll.scrollTop += e.deltaY || e.deltaX;
      this.events.requestRender();
    });
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
  }

  // --- state -------------------------------------------------------------------------------

  get follow(): boolean {
    return this.followLive;
  }

  get view(): { from: number; to: number } {
    return { from: this.from, to: this.to };
  }

  get span(): number {
    return this.spanMs;
  }

  get currentBrush(): { from: number; to: number } | null {
    return this.brush;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.lastLaneRange = '';
  }

  setLanes(layout: LaneLayout): void {
    this.lanes = layout;
    this.lastLaneRange = '';
    const need = layout.lanes.length * MAX_LANE_ROWS;
    if (this.mergeStart.length < need) {
      this.mergeStart = new Float64Array(need);
      this.mergeEnd = new Float64Array(need);
    }
  }

  setFollow(follow: boolean, byUser = false): void {
    if (this.followLive === follow) return;
    this.followLive = follow;
    this.followButton.setAttribute('aria-pressed', String(follow));
    if (byUser) this.events.followChanged(follow);
    this.events.viewChanged();
    this.events.requestRender();
  }

  setSpan(spanMs: number): void {
    if (spanMs > 0 && Number.isFinite(spanMs)) this.spanMs = Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, spanMs));
  }

  /** Shows [from, to] and stops following (programmatic pan/zoom). */
  setView(from: number, to: number): void {
    if (!(to > from)) throw new TypeError(`TimelineView.setView: empty range ${from}..${to}`);
    this.from = from;
    this.to = to;
    this.spanMs = to - from;
    if (Number.isNaN(this.origin)) this.origin = from;
    if (this.followLive) this.setFollow(false, true);
    this.events.viewChanged();
    this.events.requestRender();
  }

  setBrush(range: { from: number; to: number } | null, notify = true): void {
    this.brush = range && range.to > range.from ? { from: range.from, to: range.to } : null;
    if (notify) this.events.brushed(this.brush);
    this.events.requestRender();
  }

  setSelection(seq: number | null): void {
    this.selectedSeq = seq;
  }

  setFocus(types: ReadonlySet<number> | null, subs: ReadonlySet<number> | null): void {
    this.focusTypes = types;
    this.focusSubs = subs;
  }

  /** Forgets the time origin (new session). */
  reset(): void {
    this.origin = NaN;
    this.brush = null;
    this.selectedSeq = null;
  }

  zoomBy(factor: number): void {
    const mid = (this.from + this.to) / 2;
    const half = Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, (this.to - this.from) / factor)) / 2;
    if (this.followLive) {
      this.spanMs = half * 2;
      this.events.viewChanged();
      this.events.requestRender();
    } else this.setView(mid - half, mid + half);
  }

  panBy(fraction: number): void {
    const d = (this.to - this.from) * fraction;
    this.setView(this.from + d, this.to + d);
  }

  fitAll(): void {
    const tl = this.store.timeline;
    if (tl.size === 0) return;
    const from = tl.earliest;
    const to = Math.max(tl.latest, from + MIN_SPAN_MS);
    const pad = (to - from) * 0.02;
    this.setView(from - pad, to + pad);
  }

  /** Per-frame draw times (ms) of the most recent frames, oldest first. */
  frameHistory(): number[] {
    const n = Math.min(this.frames, FRAME_HISTORY);
    const out: number[] = [];
    for (let k = this.frames - n; k < this.frames; k++) out.push(this.frameTimes[k % FRAME_HISTORY]);
    return out;
  }

  /** Markers currently in view (for tests and the summary). */
  markersInView(): TimelineMarkerInView[] {
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
      if (m.at < this.from || m.at > this.to) continue;
      if (m.kind === 'depth-limit') out.push({ kind: 'depth-limit', at: m.at, type: m.type, seq: m.seq });
      else out.push({ kind: m.kind, at: m.at, type: -1, seq: 0 });
    }
    return out;
  }

  /** Client point inside the drawn rectangle of a dispatch, or null when it is not visible. */
  clientPointOfSeq(seq: number): { x: number; y: number } | null {
    const tl = this.store.timeline;
    const i = tl.indexOfSeq(seq);
    if (i < 0) return null;
    const lane = this.lanes.byType[tl.laneOf(i)];
    if (!lane) return null;
    const ring = tl.dispatches;
    const pxPerMs = this.size.width / (this.to - this.from);
    const x0 = (ring.start[i] - this.from) * pxPerMs;
    const x1 = Math.max(x0 + 1, (ring.start[i] + ring.duration[i] - this.from) * pxPerMs);
    const row = Math.min(ring.depth[i], lane.rows - 1);
    const y = AXIS_HEIGHT + lane.top - this.laneScroll.scrollTop + row * LANE_ROW_HEIGHT + LANE_ROW_HEIGHT / 2 + 2;
    const r = this.canvas.getBoundingClientRect();
    const x = Math.max(0, x0) + (Math.min(this.size.width, x1) - Math.max(0, x0)) / 2;
    return { x: r.left + x, y: r.top + y };
  }

  // --- interaction -------------------------------------------------------------------------

  private localX(e: { clientX: number }): number {
    return e.clientX - this.canvas.getBoundingClientRect().left;
  }

  private localY(e: { clientY: number }): number {
    return e.clientY - this.canvas.getBoundingClientRect().top;
  }

  private timeAtX(x: number): number {
    return this.from + (x / this.size.width) * (this.to - this.from);
  }

  private onZoom(e: D3ZoomEvent<HTMLCanvasElement, unknown>): void {
    const t = e.transform;
    const dy = t.y - this.lastZoomY;
    this.lastZoomY = t.y;
    if (this.syncing) return;
    const w = this.size.width;
    if (Number.isNaN(this.origin)) this.origin = this.from;
    const from = this.origin + (((0 - t.x) / t.k) * 1000) / w;
    const to = this.origin + (((w - t.x) / t.k) * 1000) / w;
    const source = e.sourceEvent as Event | null;
    if (source && source.type === 'wheel' && this.followLive) {
      // Zooming while following changes the window width; the right edge stays at "now".
      this.spanMs = Math.min(MAX_SPAN_MS, Math.max(MIN_SPAN_MS, to - from));
    } else {
      this.from = from;
      this.to = to;
      this.spanMs = to - from;
      if (source && this.followLive) this.setFollow(false, true);
    }
    if (source && source.type === 'mousemove' && dy !== 0) this.laneScroll.scrollTop -= dy;
    this.events.viewChanged();
    this.events.requestRender();
  }

  /** Puts d3-zoom's transform in line with the view after programmatic changes. */
  private syncZoom(): void {
    const w = this.size.width;
    if (Number.isNaN(this.origin)) this.origin = this.from;
    const span = this.to - this.from;
    const k = 1000 / span;
    const x = (-(this.from - this.origin) * w) / span;
    const cur = (this.canvas as unknown as { __zoom?: { k: number; x: number; y: number } }).__zoom;
    if (cur && Math.abs(cur.k - k) <= k * 1e-9 && Math.abs(cur.x - x) < 0.01) return;
    this.syncing = true;
    try {
      select(this.canvas).call(this.zoomBehavior.transform, zoomIdentity.translate(x, cur?.y ?? 0).scale(k));
    } finally {
      this.syncing = false;
    }
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    if (!(e.shiftKey || this.localY(e) < AXIS_HEIGHT)) return;
    this.brushing = { startX: this.localX(e), pointerId: e.pointerId };
    try {
      this.canvas.setPointerCapture(e.pointerId);
    } catch {
      // jsdom and synthetic events have no active pointer to capture.
    }
    e.preventDefault();
  }

  private onPointerMove(e: PointerEvent): void {
    if (!this.brushing) {
      this.hover(e.clientX, e.clientY);
      return;
    }
    this.hideTooltip();
    const a = this.timeAtX(this.brushing.startX);
    const b = this.timeAtX(this.localX(e));
    this.brush = { from: Math.min(a, b), to: Math.max(a, b) };
    this.events.requestRender();
  }

  private onPointerUp(e: PointerEvent): void {
    if (!this.brushing) return;
    const dx = Math.abs(this.localX(e) - this.brushing.startX);
    this.brushing = null;
    this.justBrushed = true;
    if (dx < 3) this.setBrush(null);
    else {
      const a = this.timeAtX(this.localX(e));
      const b = this.brush ? (Math.abs(this.brush.from - a) < Math.abs(this.brush.to - a) ? this.brush.to : this.brush.from) : a;
      this.setBrush({ from: Math.min(a, b), to: Math.max(a, b) });
    }
  }

  private onKey(e: KeyboardEvent): void {
    switch (e.key) {
      case 'ArrowLeft':
        this.panBy(-0.2);
        break;
      case 'ArrowRight':
        this.panBy(0.2);
        break;
      case 'ArrowUp':
        this.laneScroll.scrollTop -= LANE_ROW_HEIGHT * 2;
        this.events.requestRender();
        break;
      case 'ArrowDown':
        this.laneScroll.scrollTop += LANE_ROW_HEIGHT * 2;
        this.events.requestRender();
        break;
      case '+':
      case '=':
        this.zoomBy(1.5);
        break;
      case '-':
        this.zoomBy(1 / 1.5);
        break;
      case 'Home':
        this.fitAll();
        break;
      case 'End':
        this.setFollow(true, true);
        break;
      case 'Escape':
        if (this.brush) this.setBrush(null);
        else this.events.select(null);
        break;
      case 'Enter':
        if (this.selectedSeq !== null) this.events.open(this.selectedSeq);
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  /** Start bounds the last render drew (for tests: where a bound is wide enough to matter). */
  get boundsDrawn(): number {
    return this.boundsDrawnCount;
  }

  /** The dispatch under the pointer: its type, start with its error bound (e.g. "±38 µs"), duration. */
  private hover(clientX: number, clientY: number): void {
    const i = this.dispatchAtClient(clientX, clientY);
    if (i < 0) return this.hideTooltip();
    const ring = this.store.timeline.dispatches;
    const bound = fmtBound(ring.startBound[i]);
    const origin = Number.isNaN(this.origin) ? 0 : this.origin;
    const lines = [
      `${this.store.typeName(ring.typeIndex[i])} · dispatch #${ring.seq[i]}`,
      `started ${fmtTime(ring.start[i], origin)}${bound ? ` ${bound}` : ''} · took ${fmtMs(ring.duration[i])}`,
      `${plural(ring.delivered[i], 'handler')}${ring.depth[i] > 0 ? ` · depth ${ring.depth[i]}` : ''}`,
    ];
    this.tooltip.textContent = '';
    lines.forEach((l, k) => this.tooltip.append(h(this.doc, 'div', { class: k === 0 ? 'tooltip-title' : '' }, l)));
    this.tooltip.hidden = false;
    const r = this.canvas.getBoundingClientRect();
    this.tooltip.style.left = `${Math.max(0, Math.min(clientX - r.left + 14, this.size.width - 280))}px`;
    this.tooltip.style.top = `${clientY - r.top + 14}px`;
  }

  private hideTooltip(): void {
    this.tooltip.hidden = true;
  }

  /** Physical index of the dispatch under a client point, or -1. */
  dispatchAtClient(clientX: number, clientY: number): number {
    const x = this.localX({ clientX });
    const y = this.localY({ clientY });
    if (y < AXIS_HEIGHT) return -1;
    const laneY = y - AXIS_HEIGHT + this.laneScroll.scrollTop;
    const lane = this.lanes.lanes.find((l) => laneY >= l.top && laneY < l.top + l.height);
    if (!lane) return -1;
    const row = Math.min(lane.rows - 1, Math.floor((laneY - lane.top - 2) / LANE_ROW_HEIGHT));
    const t = this.timeAtX(x);
    const slack = (4 * (this.to - this.from)) / this.size.width;
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    let best = -1;
    let bestDist = Infinity;
    tl.dispatches.forEachInRange(t - slack, t + slack, (i) => {
      // By lane, not type: the "other types" lane holds many types.
      if (this.lanes.byType[tl.laneOf(i)] !== lane || Math.min(ring.depth[i], lane.rows - 1) !== row) return;
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

  // --- drawing -----------------------------------------------------------------------------

  render(): void {
    const t0 = performance.now();
    this.size = fitCanvas(this.canvas, FALLBACK_SIZE);
    const tl = this.store.timeline;
    if (this.followLive) {
      const end = Math.max(tl.latest, this.store.now);
      if (Number.isFinite(end)) {
        this.to = end + this.spanMs * 0.02;
        this.from = this.to - this.spanMs;
      }
    }
    if (Number.isNaN(this.origin) && Number.isFinite(tl.earliest)) this.origin = tl.earliest;
    this.syncZoom();
    this.collect();
    const ctx = this.ctx;
    if (ctx && this.theme) this.draw(ctx, this.theme);
    this.renderLaneLabels();
    this.renderSummary();
    const ms = performance.now() - t0;
    this.lastDrawMs = ms;
    this.frameTimes[this.frames % FRAME_HISTORY] = ms;
    this.frames++;
  }

  private collect(): void {
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    if (this.collected.length < ring.capacity) this.collected = new Int32Array(ring.capacity);
    const byType = this.lanes.byType;
    const collected = this.collected;
    let n = 0;
    let errors = 0;
    let consumed = 0;
    let depthLimits = 0;
    ring.forEachInRange(this.from, this.to, (i) => {
      if (byType[tl.laneOf(i)] === undefined) return;
      collected[n++] = i;
      const f = tl.flags[i];
      if (f & DispatchFlag.error) errors++;
      if (f & DispatchFlag.depthLimit) depthLimits++;
      if (ring.consumedBy[i] !== 0) consumed++;
    });
    this.collectedCount = n;
    let drops = 0;
    let droppedRecords = 0;
    for (const m of tl.markers) {
      if (m.at < this.from || m.at > this.to) continue;
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
      lanes: this.lanes.lanes.length,
      mode: n === 0 ? 'empty' : n <= INDIVIDUAL_LIMIT ? 'individual' : 'merged',
    };
  }

  private laneColour(theme: Theme, lane: Lane): string {
    return theme.palette[lane.colour % theme.palette.length];
  }

  private draw(ctx: CanvasRenderingContext2D, theme: Theme): void {
    this.boundsDrawnCount = 0;
    const { width, height, dpr } = this.size;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, width, height);
    const scrollTop = this.laneScroll.scrollTop;
    const top0 = AXIS_HEIGHT - scrollTop;
    // Lane bands and separators.
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS_HEIGHT, width, height - AXIS_HEIGHT);
    ctx.clip();
    let prevBus: number | null = null;
    for (const lane of this.lanes.lanes) {
      const y = top0 + lane.top;
      if (y > height || y + lane.height < AXIS_HEIGHT) {
        prevBus = lane.bus;
        continue;
      }
      const focused = this.focusTypes?.has(lane.type) ?? false;
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
    this.drawGrid(ctx, theme);
    if (this.summary.mode === 'merged') this.drawMerged(ctx, theme, top0);
    else if (this.summary.mode === 'individual') this.drawIndividual(ctx, theme, top0);
    this.drawTimelineMarkers(ctx, theme, top0);
    if (this.brush) {
      const bx0 = this.xOf(this.brush.from);
      const bx1 = this.xOf(this.brush.to);
      ctx.fillStyle = withAlpha(theme.focus, 0.14);
      ctx.fillRect(bx0, AXIS_HEIGHT, bx1 - bx0, height - AXIS_HEIGHT);
      ctx.fillStyle = theme.focus;
      ctx.fillRect(bx0, AXIS_HEIGHT, 1, height - AXIS_HEIGHT);
      ctx.fillRect(bx1, AXIS_HEIGHT, 1, height - AXIS_HEIGHT);
    }
    ctx.restore();
    this.drawAxis(ctx, theme);
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

  private xOf(t: number): number {
    return ((t - this.from) / (this.to - this.from)) * this.size.width;
  }

  private ticks(): { scale: ReturnType<typeof scaleLinear<number, number>>; values: number[]; step: number } {
    // Labels are record time: seconds since the probe started (the same clock as every detail).
    const scale = scaleLinear().domain([this.from, this.to]).range([0, this.size.width]);
    const values = scale.ticks(Math.max(2, Math.floor(this.size.width / 110)));
    const step = values.length > 1 ? values[1] - values[0] : this.to - this.from;
    return { scale, values, step };
  }

  private drawGrid(ctx: CanvasRenderingContext2D, theme: Theme): void {
    const { scale, values } = this.ticks();
    ctx.fillStyle = theme.grid;
    for (const v of values) ctx.fillRect(Math.round(scale(v)), AXIS_HEIGHT, 1, this.size.height - AXIS_HEIGHT);
  }

  private drawAxis(ctx: CanvasRenderingContext2D, theme: Theme): void {
    const { width } = this.size;
    ctx.fillStyle = theme.nodeFill;
    ctx.fillRect(0, 0, width, AXIS_HEIGHT);
    ctx.fillStyle = theme.border;
    ctx.fillRect(0, AXIS_HEIGHT - 1, width, 1);
    const { scale, values, step } = this.ticks();
    ctx.fillStyle = theme.muted;
    ctx.font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';
    for (const v of values) {
      const x = Math.round(scale(v));
      ctx.fillRect(x, AXIS_HEIGHT - 6, 1, 6);
      ctx.fillText(axisLabel(v, step), x + 3, AXIS_HEIGHT / 2 - 1);
    }
    if (this.brush) {
      const bx0 = this.xOf(this.brush.from);
      const bx1 = this.xOf(this.brush.to);
      ctx.fillStyle = withAlpha(theme.focus, 0.45);
      ctx.fillRect(bx0, 0, bx1 - bx0, AXIS_HEIGHT - 1);
    }
    if (this.followLive) {
      ctx.fillStyle = theme.info;
      ctx.beginPath();
      ctx.arc(width - 8, AXIS_HEIGHT / 2, 3.5, 0, Math.PI * 2);
      ctx.fill();
    }
  }

  private drawMerged(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    const byType = this.lanes.byType;
    const width = this.size.width;
    const height = this.size.height;
    const pxPerMs = width / (this.to - this.from);
    const from = this.from;
    const slots = this.lanes.lanes.length * MAX_LANE_ROWS;
    const ms = this.mergeStart;
    const me = this.mergeEnd;
    ms.fill(-1e9, 0, slots);
    me.fill(-1e9, 0, slots);
    const palette = theme.palette.length;
    // Rectangles per colour: one fillStyle change per colour per frame.
    const rects: number[][] = [];
    for (let c = 0; c < palette; c++) rects.push([]);
    const errorMarks: number[] = [];
    const laneOfSlot = this.lanes.lanes;
    const dimLane = this.focusTypes;
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
    for (let m = 0; m < errorMarks.length; m += 3) this.drawFlagMark(ctx, theme, errorMarks[m], errorMarks[m + 1], errorMarks[m + 2]);
  }

  private drawFlagMark(ctx: CanvasRenderingContext2D, theme: Theme, x: number, y: number, flags: number): void {
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

  private drawIndividual(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const tl = this.store.timeline;
    const ring = tl.dispatches;
    const byType = this.lanes.byType;
    const { width, height } = this.size;
    const pxPerMs = width / (this.to - this.from);
    const from = this.from;
    const wide = new Map<number, { x0: number; x1: number; y: number }>();
    const font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.font = font;
    ctx.textBaseline = 'middle';
    let selected: { x0: number; x1: number; y: number } | null = null;
    const consumeMarks: number[] = [];
    const bounds: number[] = [];
    for (let k = 0; k < this.collectedCount; k++) {
      const i = this.collected[k];
      const lane = byType[tl.laneOf(i)]!;
      const row = ring.depth[i] < lane.rows ? ring.depth[i] : lane.rows - 1;
      const y = top0 + lane.top + row * LANE_ROW_HEIGHT + 2;
      if (y > height || y + LANE_ROW_HEIGHT < AXIS_HEIGHT) continue;
      const x0 = (ring.start[i] - from) * pxPerMs;
      let x1 = x0 + ring.duration[i] * pxPerMs;
      if (x1 < x0 + 1) x1 = x0 + 1;
      const cx0 = Math.max(-2, x0);
      const cx1 = Math.min(width + 2, x1);
      const hgt = LANE_ROW_HEIGHT - 3;
      const colour = this.laneColour(theme, lane);
      const f = tl.flags[i];
      const dim = this.focusTypes !== null && !this.focusTypes.has(ring.typeIndex[i]) && !this.focusTypes.has(lane.type);
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
      if (f & (DispatchFlag.error | DispatchFlag.depthLimit)) this.drawFlagMark(ctx, theme, cx0, y, f);
      if (ring.consumedBy[i] !== 0 && w < 6) consumeMarks.push(cx1, y);
      // The start's error bound (interpolated starts), where it spans enough pixels to matter.
      const b = ring.startBound[i] * pxPerMs;
      if (b >= MIN_BOUND_PX && x0 + b >= 0 && x0 - b <= width) bounds.push(x0, b, y);
      if (this.selectedSeq !== null && ring.seq[i] === this.selectedSeq) selected = { x0: cx0, x1: cx1, y };
    }
    // Handler slices inside wide enough dispatches.
    if (wide.size > 0) {
      const handlers = tl.handlers;
      const sliceH = 5;
      tl.forEachHandlerInRange(this.from, this.to, (hi) => {
        const d = wide.get(handlers.seq[hi]);
        if (!d) return;
        let hx0 = (handlers.start[hi] - from) * pxPerMs;
        let hx1 = hx0 + handlers.duration[hi] * pxPerMs;
        if (hx0 < d.x0) hx0 = d.x0;
        if (hx1 > d.x1) hx1 = d.x1;
        if (hx1 < hx0 + 1) hx1 = hx0 + 1;
        const f = handlers.flags[hi];
        const sy = d.y + LANE_ROW_HEIGHT - 3 - sliceH;
        const focused = this.focusSubs?.has(handlers.subscription[hi]) ?? false;
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
    this.boundsDrawnCount = bounds.length / 3;
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
  }

  private drawTimelineMarkers(ctx: CanvasRenderingContext2D, theme: Theme, top0: number): void {
    const { height } = this.size;
    ctx.font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.textBaseline = 'top';
    for (const m of this.store.timeline.markers) {
      if (m.at < this.from || m.at > this.to) continue;
      const x = Math.round(this.xOf(m.at));
      if (m.kind === 'depth-limit') {
        const lane = this.lanes.byType[m.type];
        if (!lane) continue;
        this.drawFlagMark(ctx, theme, x, top0 + lane.top + 2, DispatchFlag.depthLimit);
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
      ctx.fillText(label, x + 3 + w > this.size.width ? x - 3 - w : x + 3, AXIS_HEIGHT + 2);
    }
    ctx.textBaseline = 'middle';
  }

  private renderLaneLabels(): void {
    const lanes = this.lanes.lanes;
    const viewH = this.laneScroll.clientHeight;
    const scrollTop = this.laneScroll.scrollTop;
    const range = `${lanes.length}:${this.lanes.totalHeight}:${viewH > 0 ? Math.floor(scrollTop / 40) : 0}:${viewH}`;
    if (range === this.lastLaneRange) return;
    this.lastLaneRange = range;
    this.laneSpacer.style.height = `${this.lanes.totalHeight}px`;
    while (this.laneScroll.lastChild && this.laneScroll.lastChild !== this.laneSpacer) this.laneScroll.removeChild(this.laneScroll.lastChild);
    const frag = this.doc.createDocumentFragment();
    const y0 = viewH > 0 ? scrollTop - 200 : -Infinity;
    const y1 = viewH > 0 ? scrollTop + viewH + 200 : Infinity;
    let prevBus: number | null = null;
    for (const lane of lanes) {
      const firstOfBus = lane.bus !== prevBus;
      prevBus = lane.bus;
      if (lane.top + lane.height < y0 || lane.top > y1) continue;
      const colour = this.theme ? this.laneColour(this.theme, lane) : '';
      const chip = h(this.doc, 'span', { class: 'lane-chip', 'aria-hidden': 'true' });
      if (colour) chip.style.background = colour;
      const el = h(
        this.doc,
        'div',
        {
          class: `lane-label${firstOfBus ? ' first-of-bus' : ''}`,
          role: 'listitem',
          'data-type': lane.name,
          'data-bus': lane.busName,
          'data-lane': lane.type,
          'data-lane-types': lane.types,
          title: lane.type === OTHER_LANE ? `${lane.name}: the least active types, drawn together` : `${lane.busName} · ${lane.name}`,
        },
        chip,
        firstOfBus && lane.type !== OTHER_LANE ? h(this.doc, 'span', { class: 'lane-bus' }, `${lane.busName} · `) : null,
        h(this.doc, 'span', { class: 'lane-name' }, lane.name),
      );
      el.style.top = `${lane.top}px`;
      el.style.height = `${lane.height}px`;
      frag.append(el);
    }
    this.laneScroll.append(frag);
  }

  private renderSummary(): void {
    const s = this.summary;
    const parts = [`${plural(s.inView, 'dispatch', 'dispatches')} in view`];
    if (s.errors) parts.push(plural(s.errors, 'error'));
    if (s.consumed) parts.push(`${fmtInt(s.consumed)} consumed`);
    if (s.depthLimits) parts.push(plural(s.depthLimits, 'depth-limit hit'));
    if (s.droppedRecords) parts.push(`${fmtInt(s.droppedRecords)} records dropped`);
    parts.push(`${fmtMs(this.to - this.from)} window`);
    const text = parts.join(' · ');
    if (this.summaryEl.textContent !== text) this.summaryEl.textContent = text;
    this.summaryEl.setAttribute('data-in-view', String(s.inView));
    this.summaryEl.setAttribute('data-errors', String(s.errors));
    this.summaryEl.setAttribute('data-mode', s.mode);
  }
}

function axisLabel(v: number, step: number): string {
  const a = Math.abs(step);
  // Seconds once the values are large, with as many decimals as the step needs.
  if (Math.abs(v) >= 1000 && a >= 1) {
    const decimals = Math.max(0, Math.min(3, Math.ceil(-Math.log10(a / 1000) - 1e-9)));
    return `${(v / 1000).toFixed(decimals)} s`;
  }
  if (a >= 1) return `${v.toFixed(0)} ms`;
  if (a >= 0.1) return `${v.toFixed(1)} ms`;
  if (a >= 0.01) return `${v.toFixed(2)} ms`;
  return `${(v * 1000).toFixed(a >= 0.001 ? 0 : 2)} µs`;
}
