// Names come from the app (bus and type names, labels, owners, file paths). A bidirectional control
// in one — U+202E RIGHT-TO-LEFT OVERRIDE, an isolate, a mark — reorders what follows it on screen,
// so `admin\u202Egnp.js` can read as another name (visual spoofing). Wherever a name is shown — the
// inspector page and the VS Code trees — the controls appear escaped (`\u202E`), visibly; the raw
// name stays the key everywhere else (selection, breakpoints, filters). No DOM, no `vscode`.

/** The bidi controls: embeddings and overrides, isolates, LRM/RLM and the Arabic letter mark. */
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

export function hasBidiControls(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/** `text` with every bidi control written as `\uXXXX`; the same string when it has none. */
export function visibleText(text: string): string {
  if (!BIDI_CONTROL.test(text)) return text;
  return text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
