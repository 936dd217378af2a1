// The timeline's DOM around the canvas: the toolbar, the lane and thread labels in the gutter, the summary line and the hover tooltip.

import { h } from '../ui/dom';
import { fmtInt, fmtMs, plural } from '../ui/format';
import type { Theme } from '../ui/theme';
import { OTHER_LANE, THREAD_HEADER_HEIGHT } from './lanes';
import { laneColour, type TimelineSummary } from './renderer';
import type { TimelineViewport } from './viewport';

export interface ToolbarActions {
  toggleFollow(): void;
  zoomBy(factor: number): void;
  fitAll(): void;
  /** The lane gutter scrolled. */
  scrolled(): void;
}

export class TimelineOverlays {
  readonly element: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  /** Scrolls the lanes: its scrollTop is the canvas's vertical offset too. */
  readonly laneScroll: HTMLElement;
  private readonly laneSpacer: HTMLElement;
  private readonly summaryEl: HTMLElement;
  private readonly followButton: HTMLButtonElement;
  private readonly tooltip: HTMLElement;
  private theme: Theme | null = null;
  private lastLaneRange = '';

  constructor(
    private readonly doc: Document,
    private readonly vp: TimelineViewport,
    actions: ToolbarActions,
  ) {
    this.followButton = h(
      doc,
      'button',
      { class: 'toggle', type: 'button', 'aria-pressed': 'true', title: 'Keep the newest dispatches in view (End)', 'data-testid': 'follow' },
      'Follow live',
    );
    this.followButton.addEventListener('click', () => actions.toggleFollow());
    const zoomIn = h(doc, 'button', { type: 'button', title: 'Zoom in (+)', 'aria-label': 'Zoom in' }, '+');
    const zoomOut = h(doc, 'button', { type: 'button', title: 'Zoom out (-)', 'aria-label': 'Zoom out' }, '−');
    const fitAll = h(doc, 'button', { type: 'button', title: 'Show everything retained (Home)' }, 'Fit');
    zoomIn.addEventListener('click', () => actions.zoomBy(1.5));
    zoomOut.addEventListener('click', () => actions.zoomBy(1 / 1.5));
    fitAll.addEventListener('click', () => actions.fitAll());
    this.summaryEl = h(doc, 'span', { class: 'tl-summary', role: 'status', 'aria-live': 'polite', 'data-testid': 'timeline-summary' }, 'No dispatches in view');
    const toolbar = h(
      doc,
      'div',
      { class: 'tl-toolbar', role: 'toolbar', 'aria-label': 'Timeline' },
      h(doc, 'span', { class: 'section-title' }, 'Dispatch timeline'),
      this.followButton,
      zoomOut,
      zoomIn,
      fitAll,
      this.summaryEl,
    );
    this.laneSpacer = h(doc, 'div', { class: 'lane-spacer' });
    this.laneScroll = h(doc, 'div', { class: 'lane-scroll', 'data-testid': 'timeline-lanes', role: 'list', 'aria-label': 'Timeline lanes' }, this.laneSpacer);
    this.laneScroll.addEventListener('scroll', () => actions.scrolled());
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
  }

  get scrollTop(): number {
    return this.laneScroll.scrollTop;
  }

  scrollBy(dy: number): void {
    this.laneScroll.scrollTop += dy;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.invalidateLanes();
  }

  /** The lane labels are rebuilt on the next render (new lanes or colours). */
  invalidateLanes(): void {
    this.lastLaneRange = '';
  }

  setFollowPressed(follow: boolean): void {
    this.followButton.setAttribute('aria-pressed', String(follow));
  }

  /** Shows `lines` (the first as the title) near client point (clientX, clientY). */
  showTooltip(lines: readonly string[], clientX: number, clientY: number): void {
    this.tooltip.textContent = '';
    lines.forEach((l, k) => this.tooltip.append(h(this.doc, 'div', { class: k === 0 ? 'tooltip-title' : '' }, l)));
    this.tooltip.hidden = false;
    const r = this.canvas.getBoundingClientRect();
    this.tooltip.style.left = `${Math.max(0, Math.min(clientX - r.left + 14, this.vp.size.width - 280))}px`;
    this.tooltip.style.top = `${clientY - r.top + 14}px`;
  }

  hideTooltip(): void {
    this.tooltip.hidden = true;
  }

  /** Lane labels near the scrolled-to part of the gutter (rebuilt only when that part changes). */
  renderLaneLabels(): void {
    const layout = this.vp.lanes;
    const lanes = layout.lanes;
    const viewH = this.laneScroll.clientHeight;
    const scrollTop = this.laneScroll.scrollTop;
    const range = `${lanes.length}:${layout.totalHeight}:${viewH > 0 ? Math.floor(scrollTop / 40) : 0}:${viewH}`;
    if (range === this.lastLaneRange) return;
    this.lastLaneRange = range;
    this.laneSpacer.style.height = `${layout.totalHeight}px`;
    while (this.laneScroll.lastChild && this.laneScroll.lastChild !== this.laneSpacer) this.laneScroll.removeChild(this.laneScroll.lastChild);
    const frag = this.doc.createDocumentFragment();
    const y0 = viewH > 0 ? scrollTop - 200 : -Infinity;
    const y1 = viewH > 0 ? scrollTop + viewH + 200 : Infinity;
    for (const band of layout.threads) {
      if (band.top + THREAD_HEADER_HEIGHT < y0 || band.top > y1) continue;
      const el = h(
        this.doc,
        'div',
        {
          class: 'lane-thread',
          role: 'listitem',
          'data-testid': 'timeline-thread',
          'data-thread': band.label,
          'data-thread-id': band.id,
          'data-lanes': band.lanes,
          title: `${band.label}: ${plural(band.lanes, 'lane')}${band.exited ? ' (exited)' : ''}`,
        },
        band.exited ? `${band.label} (exited)` : band.label,
      );
      el.style.top = `${band.top}px`;
      el.style.height = `${THREAD_HEADER_HEIGHT}px`;
      frag.append(el);
    }
    let prevBus: number | null = null;
    for (const lane of lanes) {
      const firstOfBus = lane.bus !== prevBus;
      prevBus = lane.bus;
      if (lane.top + lane.height < y0 || lane.top > y1) continue;
      const colour = this.theme ? laneColour(this.theme, lane) : '';
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
          'data-thread-id': layout.threads.length > 0 ? lane.thread : null,
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

  renderSummary(s: TimelineSummary): void {
    const parts = [`${plural(s.inView, 'dispatch', 'dispatches')} in view`];
    if (s.errors) parts.push(plural(s.errors, 'error'));
    if (s.consumed) parts.push(`${fmtInt(s.consumed)} consumed`);
    if (s.depthLimits) parts.push(plural(s.depthLimits, 'depth-limit hit'));
    if (s.droppedRecords) parts.push(`${fmtInt(s.droppedRecords)} records dropped`);
    if (s.crossThread) parts.push(`${fmtInt(s.crossThread)} from worker threads`);
    parts.push(`${fmtMs(this.vp.to - this.vp.from)} window`);
    const text = parts.join(' · ');
    if (this.summaryEl.textContent !== text) this.summaryEl.textContent = text;
    this.summaryEl.setAttribute('data-in-view', String(s.inView));
    this.summaryEl.setAttribute('data-errors', String(s.errors));
    this.summaryEl.setAttribute('data-mode', s.mode);
    this.summaryEl.setAttribute('data-cross-thread', String(s.crossThread));
  }
}
