// Statistics of the brushed range, as the model computes them (`rangeStatistics`): counts, rates,
// the busiest types, the slowest dispatches and handlers (each clickable), with Export (the host
// saves them) and Clear.

import type { RangeStatistics, SelectionRef } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { InspectorStore } from '../store/inspectorStore';
import { clear, h } from '../ui/dom';
import { fmtInt, fmtMs, fmtRate, fmtTime, plural } from '../ui/format';

export interface RangeStatsEvents {
  select(ref: SelectionRef): void;
  export(range: { from: number; to: number }): void;
  clear(): void;
}

export type RangeStatsState = { readonly from: number; readonly to: number; readonly stats: RangeStatistics | 'pending' | null } | null;

export class RangeStatsView {
  readonly element: HTMLElement;
  private note = '';
  /** What the panel shows now, so a redraw of the timeline does not rebuild it. */
  private shown: { state: RangeStatsState; note: string; origin: number; version: number } | null = null;

  constructor(
    private readonly doc: Document,
    private readonly events: RangeStatsEvents,
  ) {
    this.element = h(doc, 'section', { class: 'range-stats', 'aria-label': 'Selected range', 'data-testid': 'range-stats', hidden: true });
  }

  setNote(note: string): void {
    this.note = note;
  }

  render(store: InspectorStore, state: RangeStatsState, origin: number): void {
    const s = this.shown;
    if (s && s.state === state && s.note === this.note && s.origin === origin && s.version === store.structureVersion) return;
    this.shown = { state, note: this.note, origin, version: store.structureVersion };
    const doc = this.doc;
    clear(this.element);
    this.element.hidden = state === null;
    if (!state) return;
    const exportBtn = h(doc, 'button', { type: 'button', title: 'Save these statistics as JSON' }, 'Export…');
    exportBtn.addEventListener('click', () => this.events.export({ from: state.from, to: state.to }));
    const clearBtn = h(doc, 'button', { type: 'button', title: 'Clear the selection (Esc)' }, 'Clear');
    clearBtn.addEventListener('click', () => this.events.clear());
    const range = `${fmtTime(state.from, origin)} – ${fmtTime(state.to, origin)} (${fmtMs(state.to - state.from)})`;
    const stats = state.stats;
    this.element.setAttribute('data-state', stats === 'pending' ? 'pending' : stats ? 'ready' : 'unavailable');
    if (stats === 'pending' || stats === null) {
      this.element.append(
        h(
          doc,
          'div',
          { class: 'range-head' },
          h(doc, 'strong', {}, 'Selected range: '),
          range,
          ' · ',
          stats === 'pending' ? 'computing…' : 'no statistics (no app attached)',
          h(doc, 'span', { class: 'range-actions' }, clearBtn),
        ),
      );
      return;
    }
    this.element.setAttribute('data-dispatches', String(stats.dispatches));
    const headline = [
      range,
      `${plural(stats.dispatches, 'dispatch', 'dispatches')} · ${fmtRate(stats.ratePerSecond)}`,
      stats.consumed ? `${fmtInt(stats.consumed)} consumed` : '',
      stats.unheard ? `${fmtInt(stats.unheard)} unheard` : '',
      stats.maxDepth ? `max depth ${stats.maxDepth}` : '',
      `busy ${fmtMs(stats.busyMs)}`,
      stats.complete ? '' : 'partly older than the timeline keeps',
    ].filter(Boolean);
    this.element.append(
      h(
        doc,
        'div',
        { class: 'range-head' },
        h(doc, 'strong', {}, 'Selected range: '),
        headline.join(' · '),
        h(doc, 'span', { class: 'range-actions' }, exportBtn, clearBtn),
      ),
    );
    if (this.note) this.element.append(h(doc, 'div', { class: 'muted' }, this.note));
    const types = h(
      doc,
      'table',
      { class: 'stats-table' },
      h(doc, 'caption', {}, 'Busiest types'),
      h(doc, 'tr', {}, h(doc, 'th', {}, 'type'), h(doc, 'th', {}, 'count'), h(doc, 'th', {}, 'rate'), h(doc, 'th', {}, 'total'), h(doc, 'th', {}, 'max')),
    );
    for (const t of stats.byType.slice(0, 8)) {
      const index = store.typeIndexOf(t.bus, t.type);
      const name = index >= 0 ? this.link(t.type, { kind: 'type', index }) : t.type;
      types.append(
        h(
          doc,
          'tr',
          {},
          h(doc, 'td', {}, name),
          h(doc, 'td', {}, fmtInt(t.count)),
          h(doc, 'td', {}, fmtRate(t.ratePerSecond)),
          h(doc, 'td', {}, fmtMs(t.totalMs)),
          h(doc, 'td', {}, fmtMs(t.maxMs)),
        ),
      );
    }
    const handlers = h(
      doc,
      'table',
      { class: 'stats-table' },
      h(doc, 'caption', {}, 'Slowest handlers (total time)'),
      h(doc, 'tr', {}, h(doc, 'th', {}, 'handler'), h(doc, 'th', {}, 'calls'), h(doc, 'th', {}, 'total'), h(doc, 'th', {}, 'max'), h(doc, 'th', {}, 'errors')),
    );
    for (const s of stats.slowestHandlers) {
      const label = s.label ?? store.subscriptionLabel(s.subscriptionId);
      handlers.append(
        h(
          doc,
          'tr',
          {},
          h(doc, 'td', {}, this.link(label, { kind: 'subscription', id: s.subscriptionId })),
          h(doc, 'td', {}, fmtInt(s.calls)),
          h(doc, 'td', {}, fmtMs(s.totalMs)),
          h(doc, 'td', {}, fmtMs(s.maxMs)),
          h(doc, 'td', {}, s.errors ? fmtInt(s.errors) : ''),
        ),
      );
    }
    const slow = h(
      doc,
      'table',
      { class: 'stats-table' },
      h(doc, 'caption', {}, 'Slowest dispatches'),
      h(doc, 'tr', {}, h(doc, 'th', {}, 'dispatch'), h(doc, 'th', {}, 'type'), h(doc, 'th', {}, 'took')),
    );
    for (const d of stats.slowestDispatches.slice(0, 8))
      slow.append(
        h(
          doc,
          'tr',
          {},
          h(doc, 'td', {}, this.link(`#${d.seq}`, { kind: 'dispatch', seq: d.seq })),
          h(doc, 'td', {}, d.type),
          h(doc, 'td', {}, fmtMs(d.duration)),
        ),
      );
    this.element.append(
      h(
        doc,
        'div',
        { class: 'range-tables' },
        types,
        stats.slowestHandlers.length ? handlers : h(doc, 'p', { class: 'muted' }, 'No handler timings in this range.'),
        stats.slowestDispatches.length ? slow : null,
      ),
    );
  }

  private link(text: string, ref: SelectionRef): HTMLElement {
    const b = h(this.doc, 'button', { type: 'button', class: 'link' }, text);
    b.addEventListener('click', () => this.events.select(ref));
    return b;
  }
}
