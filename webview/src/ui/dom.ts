// Tiny DOM helpers: every element is created from the root's own document, so the renderer runs
// in any window (VS Code's webview, a jsdom window in tests, a plain Chromium page).

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
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? doc.createTextNode(c) : c);
  }
  return el;
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
