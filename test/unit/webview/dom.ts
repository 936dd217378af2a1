// jsdom setup for the renderer tests: a window with requestAnimationFrame (pretendToBeVisual) and
// a root element, plus event helpers. The canvas has no 2D
// context in jsdom; the renderer then skips drawing and keeps its DOM (lists, labels, summaries),
// which is what these tests assert on. Pixels are checked in Chromium (test/webview).

import { JSDOM, VirtualConsole } from 'jsdom';

export interface TestDom {
  readonly window: Window;
  readonly document: Document;
  readonly root: HTMLElement;
  close(): void;
}

export function createDom(): TestDom {
  const virtualConsole = new VirtualConsole();
  // jsdom reports "Not implemented: HTMLCanvasElement.prototype.getContext": expected here.
  virtualConsole.on('jsdomError', (e) => {
    if (!String(e.message).includes('Not implemented')) console.error(e);
  });
  const dom = new JSDOM('<!doctype html><html><body class="vscode-dark"><div id="inspector-root"></div></body></html>', {
    pretendToBeVisual: true,
    virtualConsole,
  });
  const window = dom.window as unknown as Window;
  return {
    window,
    document: window.document,
    root: window.document.getElementById('inspector-root')!,
    close: () => dom.window.close(),
  };
}

export function click(el: Element, init: MouseEventInit = {}): void {
  const win = el.ownerDocument.defaultView!;
  el.dispatchEvent(new win.MouseEvent('click', { bubbles: true, cancelable: true, view: win, ...init }));
}

export function dblclick(el: Element, init: MouseEventInit = {}): void {
  const win = el.ownerDocument.defaultView!;
  el.dispatchEvent(new win.MouseEvent('dblclick', { bubbles: true, cancelable: true, view: win, ...init }));
}

export function key(el: Element, key: string, init: KeyboardEventInit = {}): void {
  const win = el.ownerDocument.defaultView!;
  el.dispatchEvent(new win.KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }));
}
