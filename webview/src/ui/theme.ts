// Colours for the canvases, read from VS Code's theme variables (--vscode-*), so the inspector
// follows light, dark and high-contrast themes. The fallbacks only matter outside VS Code
// (jsdom, a bare test page); the stylesheet uses the same variables for the DOM parts.

export interface Theme {
  readonly kind: 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';
  readonly background: string;
  readonly foreground: string;
  readonly muted: string;
  readonly border: string;
  /** Set only in high-contrast themes: every shape gets this outline. */
  readonly contrastBorder: string;
  readonly nodeFill: string;
  readonly focus: string;
  readonly selection: string;
  readonly warning: string;
  readonly error: string;
  readonly info: string;
  readonly consumed: string;
  readonly grid: string;
  readonly fontFamily: string;
  readonly monoFamily: string;
  readonly fontSize: number;
  /** Lane colours, one per bus in turn. */
  readonly palette: readonly string[];
}

const FALLBACK_DARK = {
  background: '#1e1e1e',
  foreground: '#cccccc',
  muted: '#8b8b8b',
  border: '#454545',
  nodeFill: '#252526',
  focus: '#007fd4',
  selection: '#04395e',
  warning: '#cca700',
  error: '#f14c4c',
  info: '#3794ff',
  consumed: '#b180d7',
  grid: '#3c3c3c',
};
const FALLBACK_LIGHT = {
  background: '#ffffff',
  foreground: '#3b3b3b',
  muted: '#717171',
  border: '#c8c8c8',
  nodeFill: '#f3f3f3',
  focus: '#0090f1',
  selection: '#cce6ff',
  warning: '#bf8803',
  error: '#e51400',
  info: '#1a85ff',
  consumed: '#652d90',
  grid: '#e5e5e5',
};

export function readTheme(doc: Document): Theme {
  const body = doc.body;
  const kind: Theme['kind'] = body?.classList.contains('vscode-high-contrast-light')
    ? 'high-contrast-light'
    : body?.classList.contains('vscode-high-contrast')
      ? 'high-contrast'
      : body?.classList.contains('vscode-light')
        ? 'light'
        : 'dark';
  const style = doc.defaultView?.getComputedStyle(doc.documentElement);
  const fb = kind === 'light' || kind === 'high-contrast-light' ? FALLBACK_LIGHT : FALLBACK_DARK;
  const v = (name: string, fallback: string): string => {
    const value = style?.getPropertyValue(name).trim();
    return value ? value : fallback;
  };
  const fontSize = parseFloat(v('--vscode-font-size', '13')) || 13;
  return {
    kind,
    background: v('--vscode-editor-background', fb.background),
    foreground: v('--vscode-editor-foreground', v('--vscode-foreground', fb.foreground)),
    muted: v('--vscode-descriptionForeground', fb.muted),
    border: v('--vscode-panel-border', v('--vscode-editorWidget-border', fb.border)),
    contrastBorder: v('--vscode-contrastBorder', ''),
    nodeFill: v('--vscode-editorWidget-background', fb.nodeFill),
    focus: v('--vscode-focusBorder', fb.focus),
    selection: v('--vscode-editor-selectionBackground', fb.selection),
    warning: v('--vscode-editorWarning-foreground', v('--vscode-charts-yellow', fb.warning)),
    error: v('--vscode-editorError-foreground', v('--vscode-charts-red', fb.error)),
    info: v('--vscode-editorInfo-foreground', v('--vscode-charts-blue', fb.info)),
    consumed: v('--vscode-charts-purple', fb.consumed),
    grid: v('--vscode-editorIndentGuide-background1', v('--vscode-editorIndentGuide-background', fb.grid)),
    fontFamily: v('--vscode-font-family', 'system-ui, sans-serif'),
    monoFamily: v('--vscode-editor-font-family', 'monospace'),
    fontSize,
    palette: [
      v('--vscode-charts-blue', '#3794ff'),
      v('--vscode-charts-green', '#89d185'),
      v('--vscode-charts-orange', '#d18616'),
      v('--vscode-charts-purple', '#b180d7'),
      v('--vscode-charts-yellow', '#cca700'),
      v('--vscode-terminal-ansiCyan', '#29b8db'),
      v('--vscode-terminal-ansiMagenta', '#bc3fbc'),
      v('--vscode-terminal-ansiGreen', '#0dbc79'),
    ],
  };
}

/** Calls `onChange` when VS Code switches theme (body class or the html style attribute changes). */
export function watchTheme(doc: Document, onChange: () => void): { dispose(): void } {
  const MO = doc.defaultView?.MutationObserver;
  if (!MO) return { dispose() {} };
  const observer = new MO(() => onChange());
  if (doc.body) observer.observe(doc.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(doc.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
  return { dispose: () => observer.disconnect() };
}

/** `color` with alpha, for canvas (works for #rgb, #rrggbb, rgb(), rgba() and named colours via fallback). */
export function withAlpha(color: string, alpha: number): string {
  const c = color.trim();
  if (c.startsWith('#')) {
    let hex = c.slice(1);
    if (hex.length === 3 || hex.length === 4) hex = [...hex].map((ch) => ch + ch).join('');
    const r = parseInt(hex.slice(0, 2), 16);
    const g = parseInt(hex.slice(2, 4), 16);
    const b = parseInt(hex.slice(4, 6), 16);
    const a0 = hex.length === 8 ? parseInt(hex.slice(6, 8), 16) / 255 : 1;
    if ([r, g, b].some(Number.isNaN)) return c;
    return `rgba(${r},${g},${b},${+(alpha * a0).toFixed(3)})`;
  }
  const m = /^rgba?\(([^)]+)\)$/.exec(c);
  if (m) {
    const parts = m[1].split(',').map((p) => p.trim());
    const a0 = parts.length > 3 ? parseFloat(parts[3]) : 1;
    return `rgba(${parts[0]},${parts[1]},${parts[2]},${+(alpha * a0).toFixed(3)})`;
  }
  return c;
}
