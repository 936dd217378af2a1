// The subscription graph on a canvas: d3-zoom for pan and zoom, culling to the visible rows,
// level of detail (labels only when they are legible), edges batched per style. Hit testing is a
// binary search in the node's column, so hover stays cheap at thousands of nodes.

import { select, zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior, type ZoomTransform } from 'd3';
import { fmtInt, fmtMs, fmtRate } from '../ui/format';
import { context2d, fitCanvas, TextFitter, type CanvasSize } from '../ui/canvas';
import { h } from '../ui/dom';
import { withAlpha, type Theme } from '../ui/theme';
import type { GraphEdge, GraphModel, GraphNode, Tone } from './graphModel';
import { columnsByRow, GRAPH_LAYOUT, layoutBounds } from './layout';

export interface GraphViewEvents {
  select(node: GraphNode | null): void;
  open(node: GraphNode): void;
  toggle(node: GraphNode): void;
  transformChanged(t: { k: number; x: number; y: number }): void;
  requestRender(): void;
}

const FALLBACK_SIZE = { width: 900, height: 520 };
const HEADER_HEIGHT = 22;

export class GraphView {
  readonly element: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly tooltip: HTMLElement;
  private readonly ctx: CanvasRenderingContext2D | null;
  private readonly zoomBehavior: ZoomBehavior<HTMLCanvasElement, unknown>;
  private readonly fitter = new TextFitter();
  private model: GraphModel | null = null;
  private columns: GraphNode[][] = [[], [], []];
  private transform: ZoomTransform = zoomIdentity;
  private size: CanvasSize = { ...FALLBACK_SIZE, dpr: 1 };
  private theme: Theme | null = null;
  private selectedKey: string | null = null;
  private hoverKey: string | null = null;
  private focusKeys: ReadonlySet<string> | null = null;
  private placed = false;
  /** Milliseconds the last draw took. */
  lastDrawMs = 0;

  constructor(
    private readonly doc: Document,
    private readonly events: GraphViewEvents,
  ) {
    this.canvas = h(doc, 'canvas', {
      class: 'graph-canvas',
      tabindex: 0,
      role: 'img',
      'aria-label': 'Subscription graph. Use the node list to move between nodes with the keyboard.',
      'data-testid': 'graph-canvas',
    });
    this.tooltip = h(doc, 'div', { class: 'tooltip', role: 'tooltip', hidden: true, 'data-testid': 'graph-tooltip' });
    this.element = h(doc, 'div', { class: 'graph-surface' }, this.canvas, this.tooltip);
    this.ctx = context2d(this.canvas);
    this.zoomBehavior = zoom<HTMLCanvasElement, unknown>()
      .scaleExtent([0.03, 4])
      // Node has no `navigator`; touch is not a VS Code webview concern.
      .touchable(() => false)
      .extent(() => [
        [0, 0],
        [this.size.width, this.size.height],
      ])
      .on('zoom', (e: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        this.transform = e.transform;
        if (e.sourceEvent) this.hideTooltip();
        this.events.transformChanged({ k: e.transform.k, x: e.transform.x, y: e.transform.y });
        this.events.requestRender();
      });
    select(this.canvas).call(this.zoomBehavior).on('dblclick.zoom', null);
    this.canvas.addEventListener('click', (e) => {
      const n = this.nodeAtClient(e.clientX, e.clientY);
      if (n && n.kind === 'bus' && this.onCaret(n, e.clientX)) this.events.toggle(n);
      else this.events.select(n);
    });
    this.canvas.addEventListener('dblclick', (e) => {
      const n = this.nodeAtClient(e.clientX, e.clientY);
      if (!n) return;
      if (n.kind === 'bus' || n.kind === 'more') this.events.toggle(n);
      else this.events.open(n);
    });
    this.canvas.addEventListener('pointermove', (e) => this.hover(e.clientX, e.clientY));
    this.canvas.addEventListener('pointerleave', () => {
      this.hoverKey = null;
      this.hideTooltip();
      this.events.requestRender();
    });
    this.canvas.addEventListener('keydown', (e) => this.onKey(e));
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
  }

  setModel(model: GraphModel): void {
    this.model = model;
    this.columns = columnsByRow(model);
    if (this.hoverKey && !model.byKey.has(this.hoverKey)) this.hoverKey = null;
  }

  setSelection(key: string | null): void {
    this.selectedKey = key;
  }

  setFocus(keys: ReadonlySet<string> | null): void {
    this.focusKeys = keys;
  }

  /** Keys highlighted by the focused warning (null when none). */
  get focused(): ReadonlySet<string> | null {
    return this.focusKeys;
  }

  get selected(): string | null {
    return this.selectedKey;
  }

  get currentTransform(): { k: number; x: number; y: number } {
    return { k: this.transform.k, x: this.transform.x, y: this.transform.y };
  }

  setTransform(t: { k: number; x: number; y: number }): void {
    this.placed = true;
    select(this.canvas).call(this.zoomBehavior.transform, zoomIdentity.translate(t.x, t.y).scale(t.k));
  }

  /** Whole width visible, top of the graph at the top. */
  fit(): void {
    if (!this.model) return;
    this.size = fitCanvas(this.canvas, FALLBACK_SIZE);
    const b = layoutBounds(this.model);
    const k = Math.max(0.3, Math.min(1, (this.size.width - 24) / b.width));
    this.setTransform({ k, x: Math.max(12, (this.size.width - b.width * k) / 2), y: HEADER_HEIGHT + 8 });
  }

  /** Brings a node into view (keeps the zoom unless labels would be illegible). */
  reveal(key: string): void {
    const n = this.model?.byKey.get(key);
    if (!n) return;
    const k = Math.max(this.transform.k, 0.7);
    const sx = this.transform.applyX(n.x);
    const sy = this.transform.applyY(n.y);
    const inView = sx >= 0 && sx + n.w * this.transform.k <= this.size.width && sy >= HEADER_HEIGHT && sy + n.h * this.transform.k <= this.size.height;
    if (inView && k === this.transform.k) return;
    this.setTransform({ k, x: this.size.width / 2 - (n.x + n.w / 2) * k, y: this.size.height / 2 - (n.y + n.h / 2) * k });
  }

  /** Where a node's centre is, in client coordinates (for tests and the tooltip). */
  clientPointOf(key: string): { x: number; y: number } | null {
    const n = this.model?.byKey.get(key);
    if (!n) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + this.transform.applyX(n.x + n.w / 2), y: r.top + this.transform.applyY(n.y + n.h / 2) };
  }

  nodeAtClient(clientX: number, clientY: number): GraphNode | null {
    const r = this.canvas.getBoundingClientRect();
    const [wx, wy] = this.transform.invert([clientX - r.left, clientY - r.top]);
    return this.nodeAtWorld(wx, wy);
  }

  private nodeAtWorld(wx: number, wy: number): GraphNode | null {
    for (let c = 0; c < 3; c++) {
      const x0 = GRAPH_LAYOUT.columnX[c];
      if (wx < x0 || wx > x0 + GRAPH_LAYOUT.columnWidth[c]) continue;
      const col = this.columns[c];
      const row = Math.floor(wy / GRAPH_LAYOUT.rowHeight);
      let lo = 0;
      let hi = col.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (col[mid].row < row) lo = mid + 1;
        else hi = mid;
      }
      const n = col[lo];
      if (n && n.row === row && wx >= n.x && wx <= n.x + n.w && wy >= n.y && wy <= n.y + n.h) return n;
    }
    return null;
  }

  private onCaret(n: GraphNode, clientX: number): boolean {
    const r = this.canvas.getBoundingClientRect();
    const wx = this.transform.invertX(clientX - r.left);
    return wx - n.x < 18;
  }

  private hover(clientX: number, clientY: number): void {
    const n = this.nodeAtClient(clientX, clientY);
    const key = n?.key ?? null;
    if (key !== this.hoverKey) {
      this.hoverKey = key;
      this.events.requestRender();
    }
    if (!n) return this.hideTooltip();
    this.showTooltip(n, clientX, clientY);
  }

  private showTooltip(n: GraphNode, clientX: number, clientY: number): void {
    const lines: string[] = [n.label];
    switch (n.kind) {
      case 'site':
        lines.push(`dispatch site · ${n.detail}`, `${fmtInt(n.dispatches)} sampled dispatches · ${fmtRate(n.rate)}`);
        break;
      case 'bus':
        lines.push(`bus · ${n.detail || `${n.count} types`}`, `${fmtInt(n.dispatches)} dispatches · ${fmtRate(n.rate)}`);
        if (n.collapsed) lines.push('collapsed: double-click or Enter to expand');
        break;
      case 'type':
        lines.push(`event type on ${n.busName}`, `${fmtInt(n.dispatches)} dispatches · ${fmtRate(n.rate)} · ${n.count} listeners`);
        break;
      case 'group':
      case 'more': {
        if (n.column === 0) {
          lines.push(`${n.detail}`, `${fmtRate(n.rate)} together · double-click or Enter to show them`);
          break;
        }
        if (n.column === 1) {
          lines.push(n.detail, `${fmtInt(n.dispatches)} dispatches · ${fmtRate(n.rate)} together (of the types the inspector holds)`);
          break;
        }
        lines.push(`${n.count === 1 ? 'subscription' : `${n.count} subscriptions`} · ${n.detail}`);
        const mean = n.calls > 0 ? n.totalMs / n.calls : 0;
        lines.push(`${fmtInt(n.calls)} calls · ${fmtRate(n.rate)} · mean ${fmtMs(mean)} · max ${fmtMs(n.maxMs)}`);
        if (n.errors > 0) lines.push(`${fmtInt(n.errors)} errors`);
        if (n.health.size > 0) lines.push([...n.health].join(', '));
        break;
      }
      case 'thread': // never among the graph's nodes (outline only): its label is all there is
        break;
    }
    this.tooltip.textContent = '';
    lines.forEach((l, i) => this.tooltip.append(h(this.doc, 'div', { class: i === 0 ? 'tooltip-title' : '' }, l)));
    this.tooltip.hidden = false;
    const r = this.canvas.getBoundingClientRect();
    const x = Math.min(clientX - r.left + 14, this.size.width - 280);
    const y = clientY - r.top + 14;
    this.tooltip.style.left = `${Math.max(0, x)}px`;
    this.tooltip.style.top = `${y}px`;
  }

  private hideTooltip(): void {
    this.tooltip.hidden = true;
  }

  private onKey(e: KeyboardEvent): void {
    const step = 60;
    const t = this.transform;
    let next: { k: number; x: number; y: number } | null = null;
    switch (e.key) {
      case 'ArrowLeft':
        next = { k: t.k, x: t.x + step, y: t.y };
        break;
      case 'ArrowRight':
        next = { k: t.k, x: t.x - step, y: t.y };
        break;
      case 'ArrowUp':
        next = { k: t.k, x: t.x, y: t.y + step };
        break;
      case 'ArrowDown':
        next = { k: t.k, x: t.x, y: t.y - step };
        break;
      case '+':
      case '=':
        this.zoomBy(1.25);
        break;
      case '-':
        this.zoomBy(0.8);
        break;
      case '0':
        this.fit();
        break;
      default:
        return;
    }
    e.preventDefault();
    if (next) this.setTransform(next);
  }

  zoomBy(factor: number): void {
    select(this.canvas).call(this.zoomBehavior.scaleBy, factor, [this.size.width / 2, this.size.height / 2]);
  }

  render(): void {
    const t0 = performance.now();
    this.size = fitCanvas(this.canvas, FALLBACK_SIZE);
    if (this.model && !this.placed) this.fit();
    const ctx = this.ctx;
    const theme = this.theme;
    if (!ctx || !theme || !this.model) {
      this.lastDrawMs = performance.now() - t0;
      return;
    }
    const { width, height, dpr } = this.size;
    const t = this.transform;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, width, height);
    if (this.model.nodes.length === 0) {
      ctx.fillStyle = theme.muted;
      ctx.font = `${theme.fontSize}px ${theme.fontFamily}`;
      ctx.textAlign = 'center';
      ctx.fillText('No buses or subscriptions to show', width / 2, height / 2);
      ctx.textAlign = 'left';
      this.lastDrawMs = performance.now() - t0;
      return;
    }
    const y0 = t.invertY(0) - GRAPH_LAYOUT.rowHeight;
    const y1 = t.invertY(height) + GRAPH_LAYOUT.rowHeight;
    ctx.setTransform(dpr * t.k, 0, 0, dpr * t.k, dpr * t.x, dpr * t.y);
    this.drawEdges(ctx, theme, y0, y1);
    this.drawNodes(ctx, theme, y0, y1);
    // Column headers stay on screen.
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.background;
    ctx.fillRect(0, 0, width, HEADER_HEIGHT);
    ctx.fillStyle = theme.muted;
    ctx.font = `600 ${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';
    let freeFrom = -Infinity;
    ['DISPATCH SITES', 'BUSES · EVENT TYPES', 'SUBSCRIBERS'].forEach((label, c) => {
      // A column scrolled off to the left has no title; one partly visible keeps it at the edge.
      if (t.applyX(GRAPH_LAYOUT.columnX[c] + GRAPH_LAYOUT.columnWidth[c]) < 60) return;
      const x = Math.max(4, t.applyX(GRAPH_LAYOUT.columnX[c]));
      const w = ctx.measureText(label).width;
      // Zoomed far out the columns are narrower than their titles: skip a title that would overlap.
      if (x < freeFrom || x + w > width) return;
      ctx.fillText(label, x, HEADER_HEIGHT / 2);
      freeFrom = x + w + 12;
    });
    this.lastDrawMs = performance.now() - t0;
  }

  private toneColor(theme: Theme, tone: Tone): string {
    switch (tone) {
      case 'warning':
        return theme.warning;
      case 'error':
        return theme.error;
      case 'dim':
        return theme.muted;
      case 'normal':
        return theme.foreground;
    }
  }

  private drawEdges(ctx: CanvasRenderingContext2D, theme: Theme, y0: number, y1: number): void {
    const model = this.model!;
    let maxRate = 0;
    for (const e of model.edges) if (e.rate > maxRate) maxRate = e.rate;
    const k = this.transform.k;
    const minWidth = 0.8 / k;
    const batches = new Map<string, { segs: GraphEdge[]; color: string; width: number }>();
    const focus = this.focusKeys;
    const sel = this.selectedKey;
    for (const e of model.edges) {
      const a = e.from;
      const b = e.to;
      const top = Math.min(a.y, b.y);
      const bottom = Math.max(a.y, b.y) + a.h;
      if (bottom < y0 || top > y1) continue;
      const related = sel !== null && (a.key === sel || b.key === sel);
      const faded = focus !== null && !(focus.has(a.key) && focus.has(b.key));
      const w = Math.max(minWidth, maxRate > 0 ? 1 + 5 * Math.sqrt(e.rate / maxRate) : 1);
      const base = related ? theme.focus : e.tone === 'normal' ? theme.muted : this.toneColor(theme, e.tone);
      const alpha = faded ? 0.12 : related ? 0.95 : e.tone === 'dim' ? 0.3 : e.tone === 'normal' ? 0.45 : 0.8;
      const color = withAlpha(base, alpha);
      const wb = Math.round(w * 4) / 4;
      const key = `${color}|${wb}`;
      let batch = batches.get(key);
      if (!batch) batches.set(key, (batch = { segs: [], color, width: wb }));
      batch.segs.push(e);
    }
    for (const batch of batches.values()) {
      ctx.strokeStyle = batch.color;
      ctx.lineWidth = batch.width;
      ctx.beginPath();
      for (const e of batch.segs) {
        const ax = e.from.x + e.from.w;
        const ay = e.from.y + e.from.h / 2;
        const bx = e.to.x;
        const by = e.to.y + e.to.h / 2;
        const mx = (ax + bx) / 2;
        ctx.moveTo(ax, ay);
        ctx.bezierCurveTo(mx, ay, mx, by, bx, by);
      }
      ctx.stroke();
    }
  }

  private drawNodes(ctx: CanvasRenderingContext2D, theme: Theme, y0: number, y1: number): void {
    const k = this.transform.k;
    const labels = GRAPH_LAYOUT.nodeHeight * k >= 9;
    const font = `${theme.fontSize}px ${theme.fontFamily}`;
    const bold = `600 ${theme.fontSize}px ${theme.fontFamily}`;
    const small = `${Math.max(9, theme.fontSize - 2)}px ${theme.fontFamily}`;
    ctx.textBaseline = 'middle';
    const busColor = new Map<number, string>();
    let paletteIndex = 0;
    for (const n of this.model!.outline) if (n.kind === 'bus') busColor.set(n.bus, theme.palette[paletteIndex++ % theme.palette.length]);
    for (const col of this.columns) {
      // First node at or after y0 (columns are sorted by row).
      let lo = 0;
      let hi = col.length;
      const r0 = Math.floor(y0 / GRAPH_LAYOUT.rowHeight);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (col[mid].row < r0) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < col.length; i++) {
        const n = col[i];
        if (n.y > y1) break;
        const faded = this.focusKeys !== null && !this.focusKeys.has(n.key);
        ctx.globalAlpha = faded ? 0.25 : n.tone === 'dim' ? 0.55 : 1;
        const accent =
          n.kind === 'bus' || n.kind === 'type'
            ? n.tone === 'normal' || n.tone === 'dim'
              ? (busColor.get(n.bus) ?? theme.info)
              : this.toneColor(theme, n.tone)
            : n.kind === 'site'
              ? theme.info
              : this.toneColor(theme, n.tone);
        ctx.fillStyle = n.kind === 'bus' && !n.collapsed ? theme.background : theme.nodeFill;
        ctx.fillRect(n.x, n.y, n.w, n.h);
        ctx.fillStyle = accent;
        ctx.fillRect(n.x, n.y, n.kind === 'bus' ? 4 : 3, n.h);
        if (n.tone === 'warning' || n.tone === 'error') {
          ctx.strokeStyle = accent;
          ctx.lineWidth = 1.5;
          ctx.strokeRect(n.x + 0.75, n.y + 0.75, n.w - 1.5, n.h - 1.5);
        } else if (theme.contrastBorder) {
          ctx.strokeStyle = theme.contrastBorder;
          ctx.lineWidth = 1;
          ctx.strokeRect(n.x + 0.5, n.y + 0.5, n.w - 1, n.h - 1);
        }
        if (n.key === this.selectedKey || n.key === this.hoverKey) {
          ctx.strokeStyle = n.key === this.selectedKey ? theme.focus : theme.foreground;
          ctx.lineWidth = n.key === this.selectedKey ? 2.5 : 1;
          ctx.strokeRect(n.x - 1, n.y - 1, n.w + 2, n.h + 2);
        }
        if (!labels) continue;
        let textX = n.x + 8;
        let right = n.x + n.w - 6;
        if (n.kind === 'bus') {
          ctx.fillStyle = theme.foreground;
          ctx.font = bold;
          ctx.fillText(n.collapsed ? '▸' : '▾', n.x + 7, n.y + n.h / 2);
          textX = n.x + 20;
        }
        if (n.count > 1 && (n.kind === 'group' || n.kind === 'more' || (n.kind === 'bus' && n.collapsed))) {
          ctx.font = small;
          const badge = n.kind === 'bus' ? `${n.count} types` : `×${n.count}`;
          const bw = ctx.measureText(badge).width;
          ctx.fillStyle = theme.muted;
          ctx.fillText(badge, right - bw, n.y + n.h / 2);
          right -= bw + 6;
        }
        ctx.font = n.kind === 'bus' ? bold : font;
        ctx.fillStyle = n.tone === 'warning' ? theme.warning : n.tone === 'error' ? theme.error : theme.foreground;
        ctx.fillText(this.fitter.fit(ctx, n.label, right - textX), textX, n.y + n.h / 2);
      }
    }
    ctx.globalAlpha = 1;
  }
}
