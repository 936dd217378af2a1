// Canvas plumbing shared by the graph and the timeline: device-pixel sizing, a bounded cache of
// truncated labels (measureText is the expensive part of drawing text), and a 2D context that may
// be missing (jsdom has no canvas; the views then keep their DOM summaries and skip drawing).

import { visibleText } from '../../../runtime-probe/src/analysis/visibleText';

export interface CanvasSize {
  readonly width: number;
  readonly height: number;
  readonly dpr: number;
}

/** Resizes the backing store to the element's CSS size × devicePixelRatio; returns the CSS size. */
export function fitCanvas(canvas: HTMLCanvasElement, fallback: { width: number; height: number }): CanvasSize {
  const win = canvas.ownerDocument.defaultView;
  const dpr = Math.max(1, Math.min(3, win?.devicePixelRatio || 1));
  const parent = canvas.parentElement;
  const width = Math.floor(parent?.clientWidth || canvas.clientWidth || fallback.width);
  const height = Math.floor(parent?.clientHeight || canvas.clientHeight || fallback.height);
  const bw = Math.max(1, Math.round(width * dpr));
  const bh = Math.max(1, Math.round(height * dpr));
  if (canvas.width !== bw) canvas.width = bw;
  if (canvas.height !== bh) canvas.height = bh;
  return { width, height, dpr };
}

export function context2d(canvas: HTMLCanvasElement): CanvasRenderingContext2D | null {
  try {
    return canvas.getContext('2d');
  } catch {
    return null;
  }
}

const ELLIPSIS = '…';

export class TextFitter {
  private readonly cache = new Map<string, string>();

  constructor(private readonly capacity = 8_000) {}

  /** `text` cut with an ellipsis to fit `maxWidth` in the context's current font (bidi controls escaped). */
  fit(ctx: CanvasRenderingContext2D, raw: string, maxWidth: number): string {
    if (maxWidth <= 0) return '';
    const text = visibleText(raw);
    const w = Math.floor(maxWidth);
    const key = `${ctx.font}|${w}|${text}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    let out = text;
    if (ctx.measureText(text).width > w) {
      let lo = 0;
      let hi = text.length;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (ctx.measureText(text.slice(0, mid) + ELLIPSIS).width <= w) lo = mid;
        else hi = mid - 1;
      }
      out = lo > 0 ? text.slice(0, lo) + ELLIPSIS : '';
    }
    if (this.cache.size >= this.capacity) this.cache.clear();
    this.cache.set(key, out);
    return out;
  }
}
