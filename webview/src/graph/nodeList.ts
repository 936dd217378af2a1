// The graph's nodes as an accessible, keyboard-driven list (the canvas itself is not navigable):
// bus → types → subscriber nodes, then the dispatch sites. Virtualised — only the rows in view
// exist in the DOM — so 5,000 subscriptions cost a few dozen elements. Each row carries
// data-kind / data-key / data-bus / data-type so tests and screen readers see what the canvas shows.
//
// Keys: ↑/↓/Home/End/PageUp/PageDown move; Space selects; Enter selects and opens the source
// (or expands/collapses a bus or a "+N more" node); ←/→ collapse/expand a bus.

import type { GraphModel, GraphNode } from './graphModel';
import { h, isActivation, setText } from '../ui/dom';
import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';

export interface NodeListEvents {
  select(node: GraphNode): void;
  open(node: GraphNode): void;
  toggle(node: GraphNode, expand?: boolean): void;
}

const ROW_HEIGHT = 22;

/** A row's element and the parts an update rewrites. */
interface RowRecord {
  readonly el: HTMLElement;
  readonly caret: HTMLElement;
  readonly label: HTMLElement;
  readonly detail: HTMLElement;
  /** What it shows now, to leave unchanged rows untouched. */
  shown: string;
}

/** Rows rendered when the list has no layout (jsdom) or as overscan. */
const FALLBACK_ROWS = 400;
const OVERSCAN = 12;

export class NodeList {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private rows: GraphNode[] = [];
  private active = -1;
  private selectedKey: string | null = null;
  private lastRange = '';
  private rowElements = new Map<string, RowRecord>();

  constructor(
    private readonly doc: Document,
    private readonly events: NodeListEvents,
  ) {
    this.spacer = h(doc, 'div', { class: 'node-list-spacer' });
    this.element = h(
      doc,
      'div',
      {
        class: 'node-list',
        role: 'listbox',
        tabindex: 0,
        'aria-label': 'Graph nodes',
        'data-testid': 'node-list',
      },
      this.spacer,
    );
    this.element.addEventListener('scroll', () => this.renderRows(false));
    this.element.addEventListener('keydown', (e) => this.onKey(e));
    this.element.addEventListener('click', (e) => {
      const row = this.rowFromEvent(e);
      if (row < 0) return;
      this.setActive(row);
      const n = this.rows[row];
      if (n.kind === 'thread') return; // a heading, nothing to select
      if (n.kind === 'bus' && (e.target as Element).closest('.caret')) this.events.toggle(n);
      else this.events.select(n);
    });
    this.element.addEventListener('dblclick', (e) => {
      const row = this.rowFromEvent(e);
      if (row < 0) return;
      this.activate(this.rows[row]);
    });
  }

  setModel(model: GraphModel): void {
    const activeKey = this.active >= 0 ? this.rows[this.active]?.key : undefined;
    this.rows = model.outline;
    this.active = activeKey ? this.rows.findIndex((n) => n.key === activeKey) : -1;
    this.lastRange = '';
  }

  setSelection(key: string | null): void {
    this.selectedKey = key;
    if (key) {
      const i = this.rows.findIndex((n) => n.key === key);
      if (i >= 0) {
        this.active = i;
        this.scrollToRow(i);
      }
    }
    this.lastRange = '';
  }

  render(): void {
    this.renderRows(true);
  }

  private renderRows(force: boolean): void {
    const viewH = this.element.clientHeight;
    const first = viewH > 0 ? Math.max(0, Math.floor(this.element.scrollTop / ROW_HEIGHT) - OVERSCAN) : 0;
    const count = viewH > 0 ? Math.ceil(viewH / ROW_HEIGHT) + 2 * OVERSCAN : FALLBACK_ROWS;
    const last = Math.min(this.rows.length, first + count);
    const range = `${first}:${last}:${this.rows.length}:${this.active}`;
    if (!force && range === this.lastRange) return;
    this.lastRange = range;
    const height = `${this.rows.length * ROW_HEIGHT}px`;
    if (this.spacer.style.height !== height) this.spacer.style.height = height;
    const indices = new Set<number>();
    for (let i = first; i < last; i++) indices.add(i);
    if (this.active >= 0) indices.add(this.active); // the active descendant must exist
    // Rows are keyed by node key and updated in place: a live session re-renders often, and a
    // replaced row would lose a press between mousedown and mouseup, and its hover.
    const wanted: HTMLElement[] = [];
    const next = new Map<string, RowRecord>();
    for (const i of [...indices].sort((a, b) => a - b)) {
      const n = this.rows[i];
      const rec = this.rowElements.get(n.key) ?? this.createRow();
      this.updateRow(rec, n, i);
      next.set(n.key, rec);
      wanted.push(rec.el);
    }
    for (const [key, rec] of this.rowElements) if (!next.has(key)) rec.el.remove();
    this.rowElements = next;
    // Row order in the DOM does not matter (rows are absolutely placed): append only the new ones.
    for (const el of wanted) if (el.parentNode !== this.element) this.element.append(el);
    const activeNode = this.active >= 0 ? this.rows[this.active] : undefined;
    if (activeNode) this.element.setAttribute('aria-activedescendant', rowId(activeNode));
    else this.element.removeAttribute('aria-activedescendant');
  }

  private createRow(): RowRecord {
    const caret = h(this.doc, 'span', { class: 'caret', 'aria-hidden': 'true' });
    const label = h(this.doc, 'span', { class: 'node-label' });
    const detail = h(this.doc, 'span', { class: 'node-detail' });
    const el = h(this.doc, 'div', { role: 'option' }, caret, label, detail);
    return { el, caret, label, detail, shown: '' };
  }

  private updateRow(rec: RowRecord, n: GraphNode, i: number): void {
    const level = n.kind === 'thread' || n.kind === 'bus' || n.column === 0 ? 1 : n.kind === 'type' || n.column === 1 ? 2 : 3;
    const kindLabel =
      n.kind === 'group'
        ? n.count > 1
          ? `${n.count} subscriptions`
          : 'subscription'
        : n.kind === 'more'
          ? n.column === 0
            ? 'more dispatch sites'
            : n.column === 1
              ? 'more types'
              : 'more subscriptions'
          : n.kind === 'site'
            ? 'dispatch site'
            : n.kind;
    const attrs: Record<string, string | null> = {
      id: rowId(n),
      class: `node-row kind-${n.kind} tone-${n.tone} level-${level}${n.key === this.selectedKey ? ' selected' : ''}${i === this.active ? ' active' : ''}`,
      'aria-selected': n.key === this.selectedKey ? 'true' : 'false',
      'aria-level': String(level),
      'aria-expanded': n.kind === 'bus' ? String(!n.collapsed) : null,
      'aria-label': visibleText(
        `${n.label}, ${kindLabel}${n.detail ? `, ${n.detail}` : ''}${n.tone === 'warning' ? ', warning' : n.tone === 'error' ? ', errors' : ''}`,
      ),
      'data-index': String(i),
      'data-key': n.key,
      'data-kind': n.kind,
      'data-bus': n.busName,
      'data-type': n.kind === 'type' ? n.label : null,
      'data-thread': n.thread ?? null,
      'data-tone': n.tone,
      title: n.source ? visibleText(`${n.source.file}:${n.source.line}`) : null,
    };
    const caret = n.kind === 'bus' ? (n.collapsed ? '▸' : '▾') : '';
    const shown = JSON.stringify([attrs, caret, n.label, n.detail ?? '']);
    if (shown === rec.shown) return;
    rec.shown = shown;
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null) rec.el.removeAttribute(k);
      else if (rec.el.getAttribute(k) !== v) rec.el.setAttribute(k, v);
    }
    rec.el.style.top = `${i * ROW_HEIGHT}px`;
    setText(rec.caret, caret);
    rec.caret.hidden = caret === '';
    setText(rec.label, n.label);
    setText(rec.detail, n.detail ?? '');
    rec.detail.hidden = !n.detail;
  }

  private rowFromEvent(e: Event): number {
    const el = (e.target as Element).closest?.('[data-index]');
    if (!el) return -1;
    return Number(el.getAttribute('data-index'));
  }

  private setActive(i: number): void {
    this.active = Math.max(0, Math.min(this.rows.length - 1, i));
    this.scrollToRow(this.active);
    this.renderRows(true);
  }

  private scrollToRow(i: number): void {
    const viewH = this.element.clientHeight;
    if (viewH <= 0) return;
    const top = i * ROW_HEIGHT;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + ROW_HEIGHT > this.element.scrollTop + viewH) this.element.scrollTop = top + ROW_HEIGHT - viewH;
  }

  private activate(n: GraphNode): void {
    if (n.kind === 'thread') return;
    if (n.kind === 'bus' || n.kind === 'more') this.events.toggle(n);
    else {
      this.events.select(n);
      if (n.source) this.events.open(n);
    }
  }

  private onKey(e: KeyboardEvent): void {
    if (this.rows.length === 0) return;
    const page = Math.max(1, Math.floor(this.element.clientHeight / ROW_HEIGHT) - 1) || 10;
    const cur = this.active < 0 ? -1 : this.active;
    const node = cur >= 0 ? this.rows[cur] : undefined;
    const act = isActivation(e);
    if (act && node) {
      e.preventDefault();
      if (node.kind === 'thread') return;
      if (act === 'space') this.events.select(node);
      else this.activate(node);
      return;
    }
    switch (e.key) {
      case 'ArrowDown':
        this.setActive(cur + 1);
        break;
      case 'ArrowUp':
        this.setActive(cur <= 0 ? 0 : cur - 1);
        break;
      case 'Home':
        this.setActive(0);
        break;
      case 'End':
        this.setActive(this.rows.length - 1);
        break;
      case 'PageDown':
        this.setActive(cur + page);
        break;
      case 'PageUp':
        this.setActive(cur - page);
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
        if (node?.kind === 'bus') this.events.toggle(node, e.key === 'ArrowRight');
        else return;
        break;
      default:
        return;
    }
    e.preventDefault();
  }
}

function rowId(n: GraphNode): string {
  return `node-${n.key.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}
