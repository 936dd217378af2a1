// The dispatch timeline as the inspector uses it: owns the view state and wires the DOM overlays, the input handling and the canvas renderer together.
//
// Time runs left to right, lanes per event type grouped by bus, nested dispatches one row below
// their parent, handler slices inside a dispatch, markers for consumption, errors, depth-limit hits
// and dropped records. Follow-live keeps the right edge at the newest record; any pan pauses it.
// With worker threads, a lane group per thread and flows from a worker's enqueue to the main
// thread's dispatch; hovering a dispatch or its flow says where and when it was enqueued.

import type { InspectorStore } from '../store/inspectorStore';
import { context2d, fitCanvas } from '../ui/canvas';
import { fmtBound, fmtMs, fmtTime, plural } from '../ui/format';
import type { Theme } from '../ui/theme';
import { threadLabel } from '../store/threads';
import { flowAt, type Flow } from './flows';
import { dispatchAt, pointOfDispatch } from './hitTest';
import { TimelineInteraction, type TimelineControls } from './interaction';
import type { LaneLayout } from './lanes';
import { TimelineOverlays } from './overlays';
import { TimelineRenderer, type TimelineMarkerInView, type TimelineSummary } from './renderer';
import { clampSpan, FALLBACK_SIZE, MIN_SPAN_MS, TimelineViewport, type TimeRange } from './viewport';

export type { TimelineMarkerInView, TimelineSummary } from './renderer';
export { AXIS_HEIGHT } from './viewport';

export interface TimelineEvents {
  select(seq: number | null): void;
  open(seq: number): void;
  brushed(range: TimeRange | null): void;
  followChanged(follow: boolean): void;
  viewChanged(): void;
  requestRender(): void;
}

const FRAME_HISTORY = 512;

export class TimelineView implements TimelineControls {
  readonly element: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly vp = new TimelineViewport();
  private readonly overlays: TimelineOverlays;
  private readonly renderer: TimelineRenderer;
  private readonly interaction: TimelineInteraction;
  private readonly ctx: CanvasRenderingContext2D | null;
  private theme: Theme | null = null;
  private readonly frameTimes = new Float64Array(FRAME_HISTORY);
  private frames = 0;
  lastDrawMs = 0;

  constructor(
    doc: Document,
    private readonly store: InspectorStore,
    private readonly events: TimelineEvents,
  ) {
    this.overlays = new TimelineOverlays(doc, this.vp, {
      toggleFollow: () => this.setFollow(!this.vp.followLive, true),
      zoomBy: (f) => this.zoomBy(f),
      fitAll: () => this.fitAll(),
      scrolled: () => this.events.requestRender(),
    });
    this.element = this.overlays.element;
    this.canvas = this.overlays.canvas;
    this.ctx = context2d(this.canvas);
    this.renderer = new TimelineRenderer(store, this.vp);
    this.interaction = new TimelineInteraction(this.canvas, this.vp, this);
  }

  // --- state -------------------------------------------------------------------------------

  get follow(): boolean {
    return this.vp.followLive;
  }

  get view(): TimeRange {
    return { from: this.vp.from, to: this.vp.to };
  }

  get span(): number {
    return this.vp.spanMs;
  }

  get currentBrush(): TimeRange | null {
    return this.vp.brush;
  }

  get summary(): TimelineSummary {
    return this.renderer.summary;
  }

  /** Start bounds the last render drew (for tests: where a bound is wide enough to matter). */
  get boundsDrawn(): number {
    return this.renderer.boundsDrawn;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.overlays.setTheme(theme);
  }

  setLanes(layout: LaneLayout): void {
    this.vp.lanes = layout;
    this.overlays.invalidateLanes();
    this.renderer.lanesChanged();
  }

  setFollow(follow: boolean, byUser = false): void {
    if (this.vp.followLive === follow) return;
    this.vp.followLive = follow;
    this.overlays.setFollowPressed(follow);
    if (byUser) this.events.followChanged(follow);
    this.events.viewChanged();
    this.events.requestRender();
  }

  setSpan(spanMs: number): void {
    if (spanMs > 0 && Number.isFinite(spanMs)) this.vp.spanMs = clampSpan(spanMs);
  }

  /** Shows [from, to] and stops following (programmatic pan/zoom). */
  setView(from: number, to: number): void {
    if (!(to > from)) throw new TypeError(`TimelineView.setView: empty range ${from}..${to}`);
    const vp = this.vp;
    vp.from = from;
    vp.to = to;
    vp.spanMs = to - from;
    if (Number.isNaN(vp.origin)) vp.origin = from;
    if (vp.followLive) this.setFollow(false, true);
    this.events.viewChanged();
    this.events.requestRender();
  }

  setBrush(range: TimeRange | null, notify = true): void {
    this.vp.brush = range && range.to > range.from ? { from: range.from, to: range.to } : null;
    if (notify) this.events.brushed(this.vp.brush);
    this.events.requestRender();
  }

  setSelection(seq: number | null): void {
    this.vp.selectedSeq = seq;
  }

  setFocus(types: ReadonlySet<number> | null, subs: ReadonlySet<number> | null): void {
    this.vp.focusTypes = types;
    this.vp.focusSubs = subs;
  }

  /** Forgets the time origin (new session). */
  reset(): void {
    this.vp.origin = NaN;
    this.vp.brush = null;
    this.vp.selectedSeq = null;
  }

  zoomBy(factor: number): void {
    const vp = this.vp;
    const mid = (vp.from + vp.to) / 2;
    const half = clampSpan((vp.to - vp.from) / factor) / 2;
    if (vp.followLive) {
      vp.spanMs = half * 2;
      this.events.viewChanged();
      this.events.requestRender();
    } else this.setView(mid - half, mid + half);
  }

  panBy(fraction: number): void {
    const d = (this.vp.to - this.vp.from) * fraction;
    this.setView(this.vp.from + d, this.vp.to + d);
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
    return this.renderer.markersInView();
  }

  /** Client point inside the drawn rectangle of a dispatch, or null when it is not visible. */
  clientPointOfSeq(seq: number): { x: number; y: number } | null {
    const i = this.store.timeline.indexOfSeq(seq);
    if (i < 0) return null;
    const p = pointOfDispatch(this.store.timeline, this.vp, i, this.overlays.scrollTop);
    if (!p) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + p.x, y: r.top + p.y };
  }

  /** Cross-thread flows the last render drew (plot coordinates: CSS px from the canvas's top-left). */
  flowsDrawn(): readonly Flow[] {
    return this.renderer.flows;
  }

  /** The drawn flow under a client point, or null. */
  flowAtClient(clientX: number, clientY: number): Flow | null {
    return flowAt(this.renderer.flows, this.interaction.localX({ clientX }), this.interaction.localY({ clientY }));
  }

  /** Physical index of the dispatch under a client point, or -1. */
  dispatchAtClient(clientX: number, clientY: number): number {
    const x = this.interaction.localX({ clientX });
    const y = this.interaction.localY({ clientY });
    return dispatchAt(this.store.timeline, this.vp, x, y, this.overlays.scrollTop);
  }

  // --- TimelineControls (input) ----------------------------------------------------------------

  zoomed(): void {
    this.events.viewChanged();
    this.events.requestRender();
  }

  requestRender(): void {
    this.events.requestRender();
  }

  scrollLanes(dy: number): void {
    this.overlays.scrollBy(dy);
    this.events.requestRender();
  }

  clicked(index: number): void {
    this.events.select(index >= 0 ? this.store.timeline.dispatches.seq[index] : null);
  }

  doubleClicked(index: number): void {
    this.events.open(this.store.timeline.dispatches.seq[index]);
  }

  escape(): void {
    if (this.vp.brush) this.setBrush(null);
    else this.events.select(null);
  }

  enter(): void {
    if (this.vp.selectedSeq !== null) this.events.open(this.vp.selectedSeq);
  }

  /** The dispatch under the pointer: its type, start with its error bound (e.g. "±38 µs"), duration. */
  hover(clientX: number, clientY: number): void {
    const i = this.dispatchAtClient(clientX, clientY);
    if (i >= 0) return this.overlays.showTooltip(this.dispatchTooltip(i), clientX, clientY);
    const flow = this.flowAtClient(clientX, clientY);
    if (flow === null || this.store.timeline.dispatches.seq[flow.index] !== flow.seq) return this.hideTooltip();
    const ring = this.store.timeline.dispatches;
    this.overlays.showTooltip([`${this.store.typeName(ring.typeIndex[flow.index])} · dispatch #${flow.seq}`, this.enqueueText(flow.index)], clientX, clientY);
  }

  private dispatchTooltip(i: number): string[] {
    const ring = this.store.timeline.dispatches;
    const bound = fmtBound(ring.startBound[i]);
    const lines = [
      `${this.store.typeName(ring.typeIndex[i])} · dispatch #${ring.seq[i]}`,
      `started ${fmtTime(ring.start[i], this.origin())}${bound ? ` ${bound}` : ''} · took ${fmtMs(ring.duration[i])}`,
      `${plural(ring.delivered[i], 'handler')}${ring.depth[i] > 0 ? ` · depth ${ring.depth[i]}` : ''}`,
    ];
    if (this.store.timeline.fromThread[i] >= 0) lines.push(this.enqueueText(i));
    return lines;
  }

  /** "enqueued in worker hasher at 1.204 s, dispatched 3.1 ms later". */
  private enqueueText(i: number): string {
    const tl = this.store.timeline;
    const id = tl.fromThread[i];
    const at = tl.enqueuedAt[i];
    const name = this.store.session.threads?.find((t) => t.id === id)?.name ?? `thread ${id}`;
    return `enqueued in ${threadLabel(id, name)} at ${fmtTime(at, this.origin())}, dispatched ${fmtMs(Math.max(0, tl.dispatches.start[i] - at))} later`;
  }

  private origin(): number {
    return Number.isNaN(this.vp.origin) ? 0 : this.vp.origin;
  }

  hideTooltip(): void {
    this.overlays.hideTooltip();
  }

  // --- drawing -----------------------------------------------------------------------------

  render(): void {
    const t0 = performance.now();
    const vp = this.vp;
    vp.size = fitCanvas(this.canvas, FALLBACK_SIZE);
    const tl = this.store.timeline;
    if (vp.followLive) {
      const end = Math.max(tl.latest, this.store.now);
      if (Number.isFinite(end)) {
        vp.to = end + vp.spanMs * 0.02;
        vp.from = vp.to - vp.spanMs;
      }
    }
    if (Number.isNaN(vp.origin) && Number.isFinite(tl.earliest)) vp.origin = tl.earliest;
    this.interaction.syncZoom();
    this.renderer.collect();
    if (this.ctx && this.theme) this.renderer.draw(this.ctx, this.theme, this.overlays.scrollTop);
    this.overlays.renderLaneLabels();
    this.overlays.renderSummary(this.renderer.summary);
    const ms = performance.now() - t0;
    this.lastDrawMs = ms;
    this.frameTimes[this.frames % FRAME_HISTORY] = ms;
    this.frames++;
  }
}
