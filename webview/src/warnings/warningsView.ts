// The warnings list, grouped by kind (most severe group first), each with the model's explanation,
// evidence, source links and a Focus toggle that highlights its subjects in the graph and timeline.
// Keyboard: Tab reaches the list, ↑/↓ move between warnings, Enter or Space toggles focus.

import { analysisPartialText, type Severity, type SiteInfo, type Warning, type WarningKind } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { InspectorStore } from '../store/inspectorStore';
import { h, isActivation, setText } from '../ui/dom';
import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';
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

/** One warning's element and the parts a later render updates in place. */
interface ItemRecord {
  readonly el: HTMLElement;
  readonly icon: HTMLElement;
  readonly title: Text;
  readonly explanation: HTMLElement;
  readonly evidence: HTMLElement;
  readonly subjects: HTMLElement;
  readonly focusBtn: HTMLButtonElement;
  readonly sources: HTMLElement;
  warning: Warning;
  focused: boolean;
  /** What the element shows, to skip unchanged warnings without touching the DOM. */
  shown: string;
  sourcesShown: string;
}

interface GroupRecord {
  readonly el: HTMLElement;
  readonly toggle: HTMLButtonElement;
  readonly label: Text;
  readonly count: HTMLElement;
  readonly more: HTMLElement;
}

export class WarningsView {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly emptyNote: HTMLElement;
  /** "Analysis partial: …" while the host's near-miss search is still catching up. */
  private readonly partialNote: HTMLElement;
  private readonly collapsedKinds = new Set<WarningKind>();
  // Keyed by warning id / kind: a live session re-renders the list often, and replacing elements
  // would lose a press between mousedown and mouseup, hover, focus and the scroll position.
  private readonly items = new Map<string, ItemRecord>();
  private readonly groups = new Map<WarningKind, GroupRecord>();
  private focusedId: string | null = null;
  private store: InspectorStore | null = null;

  constructor(
    private readonly doc: Document,
    private readonly events: WarningsEvents,
  ) {
    this.heading = h(doc, 'h2', { class: 'section-title' }, 'Warnings');
    this.list = h(doc, 'div', { class: 'warnings-list', 'data-testid': 'warnings' });
    this.emptyNote = h(doc, 'p', { class: 'empty-note' });
    this.partialNote = h(doc, 'p', { class: 'partial-note', 'data-testid': 'analysis-partial', role: 'status' });
    this.partialNote.hidden = true;
    this.element = h(doc, 'section', { class: 'warnings', 'aria-label': 'Warnings' }, this.heading, this.partialNote, this.list);
    this.list.addEventListener('keydown', (e) => this.onKey(e));
  }

  setFocused(id: string | null): void {
    this.focusedId = id;
  }

  render(store: InspectorStore): void {
    this.store = store;
    const groups = new Map<WarningKind, Warning[]>();
    for (const w of store.warnings.values()) {
      let g = groups.get(w.kind);
      if (!g) groups.set(w.kind, (g = []));
      g.push(w);
    }
    setText(this.heading, `Warnings (${store.warnings.size})`);
    const partial = analysisPartialText(store.session.analysis);
    setText(this.partialNote, partial);
    this.partialNote.hidden = partial === '';
    if (groups.size === 0) {
      for (const g of this.groups.values()) g.el.remove();
      this.groups.clear();
      this.items.clear();
      setText(
        this.emptyNote,
        store.hasSnapshot ? 'No warnings: nothing looks leaked, starved, slow or misspelled.' : 'Warnings appear here once an app is attached.',
      );
      if (this.list.firstChild !== this.emptyNote || this.list.childNodes.length !== 1) placeChildren(this.list, [this.emptyNote]);
      return;
    }
    this.emptyNote.remove();
    const ordered = [...groups.entries()].map(([kind, ws]) => {
      ws.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.since - a.since || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return { kind, ws, rank: SEVERITY_RANK[ws[0].severity] };
    });
    ordered.sort((a, b) => a.rank - b.rank || b.ws.length - a.ws.length || a.kind.localeCompare(b.kind));
    const liveItems = new Set<string>();
    const groupEls: HTMLElement[] = [];
    for (const { kind, ws } of ordered) {
      const group = this.groupRecord(kind);
      const collapsed = this.collapsedKinds.has(kind);
      group.toggle.setAttribute('aria-expanded', String(!collapsed));
      setData(group.label, `${collapsed ? '▸' : '▾'} ${kindTitle(kind)} `);
      setText(group.count, String(ws.length));
      const children: HTMLElement[] = [group.toggle.parentElement as HTMLElement];
      if (!collapsed) {
        for (const w of ws.slice(0, MAX_PER_GROUP)) {
          liveItems.add(w.id);
          children.push(this.itemRecord(w).el);
        }
        if (ws.length > MAX_PER_GROUP) {
          setText(group.more, `${plural(ws.length - MAX_PER_GROUP, 'more warning')} of this kind not listed`);
          children.push(group.more);
        }
      }
      placeChildren(group.el, children);
      groupEls.push(group.el);
    }
    for (const [id, rec] of this.items) {
      if (!liveItems.has(id)) {
        rec.el.remove();
        this.items.delete(id);
      }
    }
    for (const [kind, g] of this.groups) {
      if (!groups.has(kind)) {
        g.el.remove();
        this.groups.delete(kind);
      }
    }
    placeChildren(this.list, groupEls);
  }

  private groupRecord(kind: WarningKind): GroupRecord {
    const existing = this.groups.get(kind);
    if (existing) return existing;
    const doc = this.doc;
    const label = doc.createTextNode('');
    const count = h(doc, 'span', { class: 'count' });
    const toggle = h(doc, 'button', { type: 'button', class: 'group-toggle' }, label, count);
    toggle.addEventListener('click', () => {
      if (this.collapsedKinds.has(kind)) this.collapsedKinds.delete(kind);
      else this.collapsedKinds.add(kind);
      if (this.store) this.render(this.store);
    });
    const el = h(doc, 'div', { class: 'warning-group', role: 'group', 'aria-label': kindTitle(kind), 'data-kind': kind }, h(doc, 'h3', {}, toggle));
    const rec: GroupRecord = { el, toggle, label, count, more: h(doc, 'p', { class: 'empty-note' }) };
    this.groups.set(kind, rec);
    return rec;
  }

  /** The warning's element, created once and updated in place when the warning changes. */
  private itemRecord(w: Warning): ItemRecord {
    const focused = w.id === this.focusedId;
    let rec = this.items.get(w.id);
    if (rec && rec.warning === w && rec.focused === focused) return rec;
    if (!rec) rec = this.createItem(w);
    rec.warning = w;
    rec.focused = focused;
    const evidence = evidenceLines(w);
    const subjects = this.subjectsText(w);
    const shown = JSON.stringify([w.severity, w.title, w.explanation, w.kind, evidence, subjects, focused]);
    if (shown !== rec.shown) {
      rec.shown = shown;
      rec.el.className = `warning sev-${w.severity}${focused ? ' focused' : ''}`;
      rec.el.setAttribute('data-kind', w.kind);
      rec.el.setAttribute('aria-label', visibleText(`${w.severity}: ${w.title}`));
      rec.icon.className = `sev-icon sev-${w.severity}`;
      setText(rec.icon, SEVERITY_ICON[w.severity]);
      setData(rec.title, w.title);
      setText(rec.explanation, w.explanation);
      const lis = rec.evidence.children;
      if (lis.length !== evidence.length || evidence.some((e, i) => lis[i].textContent !== e)) {
        placeChildren(
          rec.evidence,
          evidence.map((e, i) => {
            const li = (lis[i] as HTMLElement | undefined) ?? h(this.doc, 'li');
            setText(li, e);
            return li;
          }),
        );
      }
      rec.evidence.hidden = evidence.length === 0;
      setText(rec.subjects, subjects);
      rec.subjects.hidden = !subjects;
      rec.focusBtn.setAttribute('aria-pressed', String(focused));
      setText(rec.focusBtn, focused ? 'Unfocus' : 'Focus');
    }
    const sites = w.sites.slice(0, 6);
    const sourcesShown = sites.map((s) => `${s.file}:${s.line}:${s.column}`).join('\n');
    if (sourcesShown !== rec.sourcesShown) {
      rec.sourcesShown = sourcesShown;
      placeChildren(
        rec.sources,
        sites.map((s) => this.sourceLink(s)),
      );
    }
    return rec;
  }

  private createItem(w: Warning): ItemRecord {
    const doc = this.doc;
    const icon = h(doc, 'span', { class: 'sev-icon', 'aria-hidden': 'true' });
    const title = doc.createTextNode('');
    const focusBtn = h(doc, 'button', { type: 'button', class: 'focus-btn', title: 'Highlight its subjects in the graph and timeline' });
    const sources = h(doc, 'span', { class: 'warning-sources' });
    const explanation = h(doc, 'p', { class: 'explanation' });
    const evidence = h(doc, 'ul', { class: 'evidence' });
    const subjects = h(doc, 'div', { class: 'subjects' });
    const el = h(
      doc,
      'article',
      { class: 'warning', tabindex: 0, 'data-warning-id': w.id },
      h(doc, 'div', { class: 'warning-title' }, icon, title),
      explanation,
      evidence,
      subjects,
      h(doc, 'div', { class: 'warning-actions' }, focusBtn, sources),
    );
    const rec: ItemRecord = { el, icon, title, explanation, evidence, subjects, focusBtn, sources, warning: w, focused: false, shown: '', sourcesShown: '' };
    // Reads the record at click time: the element outlives the warning object it was made for.
    focusBtn.addEventListener('click', (e) => {
      e.stopPropagation();
      this.events.focus(rec.focused ? null : rec.warning);
    });
    this.items.set(w.id, rec);
    return rec;
  }

  private sourceLink(s: SiteInfo): HTMLElement {
    const b = h(
      this.doc,
      'button',
      { type: 'button', class: 'link', title: `${s.file}:${s.line}:${s.column}`, 'data-file': s.file, 'data-line': s.line },
      `${basename(s.file)}:${s.line}`,
    );
    b.addEventListener('click', (e) => {
      e.stopPropagation();
      this.events.open(s);
    });
    return b;
  }

  private subjectsText(w: Warning): string {
    const parts: string[] = [];
    if (w.subjects.types.length)
      parts.push(
        w.subjects.types
          .slice(0, 4)
          .map((t) => `${t.busName} · ${t.type}`)
          .join(', ') + (w.subjects.types.length > 4 ? '…' : ''),
      );
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

function setData(node: Text, text: string): void {
  if (node.data !== text) node.data = text;
}

/**
 * Makes `parent`'s children exactly `children`, in order, moving only what is out of place (moving
 * an element would blur it and end a press on it).
 */
function placeChildren(parent: HTMLElement, children: readonly Node[]): void {
  // Leavers go first, so that the ones staying are already in order and are not moved.
  const wanted = new Set(children);
  for (let c = parent.firstChild; c;) {
    const next = c.nextSibling;
    if (!wanted.has(c)) c.remove();
    c = next;
  }
  let cursor: ChildNode | null = parent.firstChild;
  for (const child of children) {
    if (cursor === child) cursor = cursor.nextSibling;
    else parent.insertBefore(child, cursor);
  }
  while (cursor) {
    const next: ChildNode | null = cursor.nextSibling;
    cursor.remove();
    cursor = next;
  }
}
