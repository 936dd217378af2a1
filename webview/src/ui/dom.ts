// Tiny DOM helpers: every element is created from the root's own document, so the renderer runs
// in any window (VS Code's webview, a jsdom window in tests, a plain Chromium page). Text and the
// attributes people read (title, aria-label) show bidi controls escaped (runtime-probe/src/analysis/visibleText.ts); data-*
// attributes keep the raw name, which is what the page looks things up by.

import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';

export type Attrs = Record<string, string | number | boolean | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k === 'text') el.textContent = visibleText(String(v));
    else el.setAttribute(k, v === true ? '' : READ_ATTRIBUTES.has(k) ? visibleText(String(v)) : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? doc.createTextNode(visibleText(c)) : c);
  }
  return el;
}

/** Attributes shown to people (tooltips, screen readers), as opposed to the page's own keys. */
const READ_ATTRIBUTES: ReadonlySet<string> = new Set(['title', 'aria-label', 'placeholder', 'alt']);

/** Sets an element's text (only when it changed), with bidi controls shown escaped. */
export function setText(el: Element, text: string): void {
  const shown = visibleText(text);
  if (el.textContent !== shown) el.textContent = shown;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** Enter and Space activate, like a native button (for focusable non-button elements). */
export function isActivation(e: KeyboardEvent): 'enter' | 'space' | null {
  if (e.key === 'Enter') return 'enter';
  if (e.key === ' ' || e.key === 'Spacebar') return 'space';
  return null;
}
