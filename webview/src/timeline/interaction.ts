// Turns input on the timeline canvas into view changes: d3-zoom for wheel zoom and drag pan, pointer brushing, clicks, hover and keys.
//
// Brushing (drag on the time axis, or Shift+drag anywhere) selects a range for statistics; Shift+wheel
// scrolls the lanes. d3-zoom's transform is kept in line with programmatic view changes through its
// public `zoomTransform`, relative to the viewport's time origin.

import { select, zoom, zoomIdentity, zoomTransform, type D3ZoomEvent, type ZoomBehavior } from 'd3';
import { LANE_ROW_HEIGHT } from './lanes';
import { AXIS_HEIGHT, clampSpan, MAX_SPAN_MS, MIN_SPAN_MS, type TimeRange, type TimelineViewport } from './viewport';

/** What input can do to the timeline (the view implements it). */
export interface TimelineControls {
  setFollow(follow: boolean, byUser?: boolean): void;
  setBrush(range: TimeRange | null, notify?: boolean): void;
  zoomBy(factor: number): void;
  panBy(fraction: number): void;
  fitAll(): void;
  /** The view window changed under d3-zoom: save state and redraw. */
  zoomed(): void;
  requestRender(): void;
  scrollLanes(dy: number): void;
  /** Physical index of the dispatch under a client point, or -1. */
  dispatchAtClient(clientX: number, clientY: number): number;
  /** Clicked a dispatch (its physical index) or empty space (-1). */
  clicked(index: number): void;
  doubleClicked(index: number): void;
  escape(): void;
  enter(): void;
  hover(clientX: number, clientY: number): void;
  hideTooltip(): void;
}

export class TimelineInteraction {
  private readonly zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown>;
  private brushing: { startX: number; pointerId: number } | null = null;
  private justBrushed = false;
  /** Set while the view pushes its window into d3-zoom (the resulting zoom event is not input). */
  private syncing = false;
  private lastZoomY = 0;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly vp: TimelineViewport,
    private readonly controls: TimelineControls,
  ) {
    this.zoomBehavior = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([1000 / MAX_SPAN_MS, 1000 / MIN_SPAN_MS])
      .touchable(() => false)
      .extent(() => [
        [0, 0],
        [this.vp.size.width, this.vp.size.height],
      ])
      .filter((e: Event) => {
        const me = e as MouseEvent;
        if (e.type === 'wheel') return !me.shiftKey;
        if (me.button || me.shiftKey) return false;
        if (e.type === 'mousedown' && this.localY(me) < AXIS_HEIGHT) return false;
        return true;
      })
      .on('zoom', (e: D3ZoomEvent<HTMLCanvasElement, unknown>) => this.onZoom(e));
    select(canvas).call(this.zoomBehavior).on('dblclick.zoom', null);
    canvas.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    canvas.addEventListener('pointermove', (e) => this.onPointerMove(e));
    canvas.addEventListener('pointerleave', () => controls.hideTooltip());
    canvas.addEventListener('pointerup', (e) => this.onPointerUp(e));
    canvas.addEventListener('click', (e) => {
      if (this.justBrushed) {
        this.justBrushed = false;
        return;
      }
      controls.clicked(controls.dispatchAtClient(e.clientX, e.clientY));
    });
    canvas.addEventListener('dblclick', (e) => {
      const i = controls.dispatchAtClient(e.clientX, e.clientY);
      if (i >= 0) controls.doubleClicked(i);
    });
    canvas.addEventListener('wheel', (e) => {
      if (!e.shiftKey) return;
      e.preventDefault();
      controls.scrollLanes(e.deltaY || e.deltaX);
    });
    canvas.addEventListener('keydown', (e) => this.onKey(e));
  }

  localX(e: { clientX: number }): number {
    return e.clientX - this.canvas.getBoundingClientRect().left;
  }

  localY(e: { clientY: number }): number {
    return e.clientY - this.canvas.getBoundingClientRect().top;
  }

  /** Puts d3-zoom's transform in line with the view after programmatic changes. */
  syncZoom(): void {
    const vp = this.vp;
    const w = vp.size.width;
    if (Number.isNaN(vp.origin)) vp.origin = vp.from;
    const span = vp.to - vp.from;
    const k = 1000 / span;
    const x = (-(vp.from - vp.origin) * w) / span;
    const cur = zoomTransform(this.canvas);
    if (Math.abs(cur.k - k) <= k * 1e-9 && Math.abs(cur.x - x) < 0.01) return;
    this.syncing = true;
    try {
      select(this.canvas).call(this.zoomBehavior.transform, zoomIdentity.translate(x, cur.y).scale(k));
    } finally {
      this.syncing = false;
    }
  }

  private onZoom(e: D3ZoomEvent<HTMLCanvasElement, unknown>): void {
    const vp = this.vp;
    const t = e.transform;
    const dy = t.y - this.lastZoomY;
    this.lastZoomY = t.y;
    if (this.syncing) return;
    const w = vp.size.width;
    if (Number.isNaN(vp.origin)) vp.origin = vp.from;
    const from = vp.origin + (((0 - t.x) / t.k) * 1000) / w;
    const to = vp.origin + (((w - t.x) / t.k) * 1000) / w;
    const source = e.sourceEvent as Event | null;
    if (source && source.type === 'wheel' && vp.followLive) {
      // Zooming while following changes the window width; the right edge stays at "now".
      vp.spanMs = clampSpan(to - from);
    } else {
      vp.from = from;
      vp.to = to;
      vp.spanMs = to - from;
      if (source && vp.followLive) this.controls.setFollow(false, true);
    }
    // A vertical drag scrolls the lanes (d3-zoom pans in y too; only its change is used).
    if (source && source.type === 'mousemove' && dy !== 0) this.controls.scrollLanes(-dy);
    this.controls.zoomed();
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
      this.controls.hover(e.clientX, e.clientY);
      return;
    }
    this.controls.hideTooltip();
    const a = this.vp.timeAtX(this.brushing.startX);
    const b = this.vp.timeAtX(this.localX(e));
    // Drawn while dragging; reported (and statistics asked for) on release.
    this.vp.brush = { from: Math.min(a, b), to: Math.max(a, b) };
    this.controls.requestRender();
  }

  private onPointerUp(e: PointerEvent): void {
    if (!this.brushing) return;
    const dx = Math.abs(this.localX(e) - this.brushing.startX);
    this.brushing = null;
    this.justBrushed = true;
    if (dx < 3) this.controls.setBrush(null);
    else {
      const brush = this.vp.brush;
      const a = this.vp.timeAtX(this.localX(e));
      const b = brush ? (Math.abs(brush.from - a) < Math.abs(brush.to - a) ? brush.to : brush.from) : a;
      this.controls.setBrush({ from: Math.min(a, b), to: Math.max(a, b) });
    }
  }

  private onKey(e: KeyboardEvent): void {
    const c = this.controls;
    switch (e.key) {
      case 'ArrowLeft':
        c.panBy(-0.2);
        break;
      case 'ArrowRight':
        c.panBy(0.2);
        break;
      case 'ArrowUp':
        c.scrollLanes(-LANE_ROW_HEIGHT * 2);
        break;
      case 'ArrowDown':
        c.scrollLanes(LANE_ROW_HEIGHT * 2);
        break;
      case '+':
      case '=':
        c.zoomBy(1.5);
        break;
      case '-':
        c.zoomBy(1 / 1.5);
        break;
      case 'Home':
        c.fitAll();
        break;
      case 'End':
        c.setFollow(true, true);
        break;
      case 'Escape':
        c.escape();
        break;
      case 'Enter':
        c.enter();
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}
