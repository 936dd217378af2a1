// The warnings list, grouped by kind (most severe group first), each with the model's explanation,
// evidence, source links and a Focus toggle that highlights its subjects in the graph and timeline.
// Keyboard: Tab reaches the list, ↑/↓ move between warnings, Enter or Space toggles focus.

import type { Severity, SiteInfo, Warning, WarningKind } from '../messages';
import type { InspectorStore } from '../store/inspectorStore';
import { clear, h, isActivation } from '../ui/dom';
import { plural } from '../ui/format';
import { evidenceLines, KIND_TITLES } from './evidence';

export interface WarningsEvents {
  focus(warning: Warning | null): void;
  open(site: SiteInfo): void;
}

const SEVERITY_RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
const SEVERITY_ICON: Record<Severity, string> = { error: '✖', warning: '⚠', info: 'ℹ' };
const MAX_PER_GROUP = 200;

export function kindTitle(kind: WarningKind): string {
  return KIND_TITLES[kind];
}

function basename(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}

export class WarningsView {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly collapsedKinds = new Set<WarningKind>();
  private focusedId: string | null = null;
  private store: InspectorStore | null = null;

  constructor(
    private readonly doc: Document,
    private readonly events: WarningsEvents,
  ) {
    this.heading = h(doc, 'h2', { class: 'section-title' }, 'Warnings');
    this.list = h(doc, 'div', { class: 'warnings-list', 'data-testid': 'warnings' });
    this.element = h(doc, 'section', { class: 'warnings', 'aria-label': 'Warnings' }, this.heading, this.list);
    this.list.addEventListener('keydown', (e) => this.onKey(e));
  }

  setFocused(id: string | null): void {
    this.focusedId = id;
  }

  render(store: InspectorStore): void {
    this.store = store;
    const doc = this.doc;
    const active = doc.activeElement as HTMLElement | null;
    const activeId = active?.closest?.('[data-warning-id]')?.getAttribute('data-warning-id') ?? null;
    clear(this.list);
    const groups = new Map<WarningKind, Warning[]>();
    for (const w of store.warnings.values()) {
      let g = groups.get(w.kind);
      if (!g) groups.set(w.kind, (g = []));
      g.push(w);
    }
    this.heading.textContent = `Warnings (${store.warnings.size})`;
    if (groups.size === 0) {
      this.list.append(h(doc, 'p', { class: 'empty-note' }, store.hasSnapshot ? 'No warnings: nothing looks leaked, starved, slow or misspelled.' : 'Warnings appear here once an app is attached.'));
      return;
    }
    const ordered = [...groups.entries()].map(([kind, ws]) => {
      ws.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.since - a.since);
      return { kind, ws, rank: SEVERITY_RANK[ws[0].severity] };
    });
    ordered.sort((a, b) => a.rank - b.rank || b.ws.length - a.ws.length || a.kind.localeCompare(b.kind));
    for (const { kind, ws } of ordered) {
      const collapsed = this.collapsedKinds.has(kind);
      const toggle = h(doc, 'button', { type: 'button', class: 'group-toggle', 'aria-expanded': String(!collapsed) }, `${collapsed ? '▸' : '▾'} ${kindTitle(kind)} `, h(doc, 'span', { class: 'count' }, String(ws.length)));
      toggle.addEventListener('click', () => {
        if (this.collapsedKinds.has(kind)) this.collapsedKinds.delete(kind);
        else this.collapsedKinds.add(kind);
        this.render(store);
      });
      const group = h(doc, 'div', { class: 'warning-group', role: 'group', 'aria-label': kindTitle(kind), 'data-kind': kind }, h(doc, 'h3', {}, toggle));
      if (!collapsed) {
        for (const w of ws.slice(0, MAX_PER_GROUP)) group.append(this.item(w));
        if (ws.length > MAX_PER_GROUP) group.append(h(doc, 'p', { class: 'empty-note' }, `${plural(ws.length - MAX_PER_GROUP, 'more warning')} of this kind not listed`));
      }
      this.list.append(group);
    }
    if (activeId) (this.list.querySelector(`[data-warning-id="${cssEscape(activeId)}"]`) as HTMLElement | null)?.focus();
  }

  private item(w: Warning): HTMLElement {
    const doc = this.doc;
    const focused = w.id === this.focusedId;
    const focusBtn = h(doc, 'button', { type: 'button', class: 'focus-btn', 'aria-pressed': String(focused), title: 'Highlight its subjects in the graph and timeline' }, focused ? 'Unfocus' : 'Focus');
    focusBtn.addEventListener('click', (e) => {
      e.stopPropagation();
      this.events.focus(focused ? null : w);
    });
    const sources = w.sites.slice(0, 6).map((s) => {
      const b = h(doc, 'button', { type: 'button', class: 'link', title: `${s.file}:${s.line}:${s.column}`, 'data-file': s.file, 'data-line': s.line }, `${basename(s.file)}:${s.line}`);
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        this.events.open(s);
      });
      return b;
    });
    const subjects = this.subjectsText(w);
    const evidence = evidenceLines(w);
    const el = h(
      doc,
      'article',
      {
        class: `warning sev-${w.severity}${focused ? ' focused' : ''}`,
        tabindex: 0,
        'data-warning-id': w.id,
        'data-kind': w.kind,
        'aria-label': `${w.severity}: ${w.title}`,
      },
      h(doc, 'div', { class: 'warning-title' }, h(doc, 'span', { class: `sev-icon sev-${w.severity}`, 'aria-hidden': 'true' }, SEVERITY_ICON[w.severity]), w.title),
      h(doc, 'p', { class: 'explanation' }, w.explanation),
      evidence.length > 0 ? h(doc, 'ul', { class: 'evidence' }, ...evidence.map((e) => h(doc, 'li', {}, e))) : null,
      subjects ? h(doc, 'div', { class: 'subjects' }, subjects) : null,
      h(doc, 'div', { class: 'warning-actions' }, focusBtn, ...sources),
    );
    return el;
  }

  private subjectsText(w: Warning): string {
    const parts: string[] = [];
    if (w.subjects.types.length) parts.push(w.subjects.types.slice(0, 4).map((t) => `${t.busName} · ${t.type}`).join(', ') + (w.subjects.types.length > 4 ? '…' : ''));
    if (w.subjects.subscriptions.length) parts.push(plural(w.subjects.subscriptions.length, 'subscription'));
    return parts.join(' · ');
  }

  private onKey(e: KeyboardEvent): void {
    const target = e.target as HTMLElement;
    const item = target.closest?.('article.warning') as HTMLElement | null;
    if (!item) return;
    const items = [...this.list.querySelectorAll<HTMLElement>('article.warning')];
    const idx = items.indexOf(item);
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      const next = items[idx + (e.key === 'ArrowDown' ? 1 : -1)];
      if (next) next.focus();
      e.preventDefault();
      return;
    }
    if (e.key === 'Home' || e.key === 'End') {
      items[e.key === 'Home' ? 0 : items.length - 1]?.focus();
      e.preventDefault();
      return;
    }
    // Enter/Space on the article itself (buttons inside handle their own).
    if (target !== item || !isActivation(e)) return;
    e.preventDefault();
    const w = this.store?.warnings.get(item.getAttribute('data-warning-id') ?? '');
    if (w) this.events.focus(w.id === this.focusedId ? null : w);
  }
}

function cssEscape(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
