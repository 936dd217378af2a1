// The top bar: text filter, bus filter, graph layout actions, and the current focus (with a way
// out). Filtering applies to the graph, the node list and the timeline lanes alike.

import { h, setText } from './dom';

export interface ToolbarEvents {
  filterText(text: string): void;
  busFilter(bus: string): void;
  relayout(): void;
  collapseAll(): void;
  expandAll(): void;
  clearFocus(): void;
}

export class Toolbar {
  readonly element: HTMLElement;
  readonly filterInput: HTMLInputElement;
  readonly busSelect: HTMLSelectElement;
  private readonly counts: HTMLElement;
  private readonly focusChip: HTMLElement;
  private readonly focusLabel: HTMLElement;
  private busNames: string[] = [];
  private debounce: number | null = null;

  constructor(
    private readonly doc: Document,
    private readonly events: ToolbarEvents,
  ) {
    const win = doc.defaultView!;
    this.filterInput = h(doc, 'input', {
      type: 'search',
      class: 'filter',
      placeholder: 'Filter: bus, event type, label, owner, file',
      'aria-label': 'Filter the graph and the timeline',
      'data-testid': 'filter',
    });
    this.filterInput.addEventListener('input', () => {
      if (this.debounce !== null) win.clearTimeout(this.debounce);
      this.debounce = win.setTimeout(() => {
        this.debounce = null;
        this.events.filterText(this.filterInput.value);
      }, 120);
    });
    this.filterInput.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        if (this.debounce !== null) win.clearTimeout(this.debounce);
        this.debounce = null;
        this.events.filterText(this.filterInput.value);
      }
    });
    this.busSelect = h(doc, 'select', { 'aria-label': 'Show one bus', 'data-testid': 'bus-filter' });
    this.busSelect.addEventListener('change', () => this.events.busFilter(this.busSelect.value));
    const btn = (label: string, title: string, fn: () => void): HTMLButtonElement => {
      const b = h(doc, 'button', { type: 'button', title }, label);
      b.addEventListener('click', fn);
      return b;
    };
    this.counts = h(doc, 'span', { class: 'counts', 'data-testid': 'graph-counts' });
    this.focusLabel = h(doc, 'span', {});
    this.focusChip = h(
      doc,
      'span',
      { class: 'focus-chip', hidden: true },
      this.focusLabel,
      btn('×', 'Clear focus (Esc)', () => this.events.clearFocus()),
    );
    this.element = h(
      doc,
      'header',
      { class: 'toolbar', role: 'toolbar', 'aria-label': 'Inspector' },
      this.filterInput,
      this.busSelect,
      btn('Re-layout', 'Lay the graph out afresh (positions otherwise stay put as it updates)', () => this.events.relayout()),
      btn('Collapse all', 'Collapse every bus into one node', () => this.events.collapseAll()),
      btn('Expand all', 'Show every event type', () => this.events.expandAll()),
      this.focusChip,
      this.counts,
    );
  }

  setBuses(names: string[], selected: string): void {
    const sorted = [...new Set(names)].sort();
    if (sorted.join('\n') !== this.busNames.join('\n')) {
      this.busNames = sorted;
      this.busSelect.textContent = '';
      this.busSelect.append(h(this.doc, 'option', { value: '' }, 'All buses'));
      for (const n of sorted) this.busSelect.append(h(this.doc, 'option', { value: n }, n));
    }
    this.busSelect.value = sorted.includes(selected) ? selected : '';
  }

  setFilterText(text: string): void {
    if (this.filterInput.value !== text) this.filterInput.value = text;
  }

  setFocus(label: string | null): void {
    this.focusChip.hidden = label === null;
    setText(this.focusLabel, label ? `Focus: ${label} ` : '');
  }

  setCounts(text: string): void {
    if (this.counts.textContent !== text) this.counts.textContent = text;
  }
}
