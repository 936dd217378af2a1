// The timeline's time axis on the canvas: tick positions, tick labels, grid lines, the brushed range and the follow-live dot on the axis band.

import { scaleLinear } from 'd3';
import { withAlpha, type Theme } from '../ui/theme';
import { AXIS_HEIGHT, type TimelineViewport } from './viewport';

interface Ticks {
  readonly scale: ReturnType<typeof scaleLinear<number, number>>;
  readonly values: number[];
  readonly step: number;
}

function ticks(vp: TimelineViewport): Ticks {
  // Labels are record time: seconds since the probe started (the same clock as every detail).
  const scale = scaleLinear().domain([vp.from, vp.to]).range([0, vp.size.width]);
  const values = scale.ticks(Math.max(2, Math.floor(vp.size.width / 110)));
  const step = values.length > 1 ? values[1] - values[0] : vp.to - vp.from;
  return { scale, values, step };
}

export function drawGrid(ctx: CanvasRenderingContext2D, theme: Theme, vp: TimelineViewport): void {
  const { scale, values } = ticks(vp);
  ctx.fillStyle = theme.grid;
  for (const v of values) ctx.fillRect(Math.round(scale(v)), AXIS_HEIGHT, 1, vp.size.height - AXIS_HEIGHT);
}

export function drawAxis(ctx: CanvasRenderingContext2D, theme: Theme, vp: TimelineViewport): void {
  const { width } = vp.size;
  ctx.fillStyle = theme.nodeFill;
  ctx.fillRect(0, 0, width, AXIS_HEIGHT);
  ctx.fillStyle = theme.border;
  ctx.fillRect(0, AXIS_HEIGHT - 1, width, 1);
  const { scale, values, step } = ticks(vp);
  ctx.fillStyle = theme.muted;
  ctx.font = `${Math.max(10, theme.fontSize - 2)}px ${theme.fontFamily}`;
  ctx.textBaseline = 'middle';
  for (const v of values) {
    const x = Math.round(scale(v));
    ctx.fillRect(x, AXIS_HEIGHT - 6, 1, 6);
    ctx.fillText(axisLabel(v, step), x + 3, AXIS_HEIGHT / 2 - 1);
  }
  if (vp.brush) {
    const bx0 = vp.xOf(vp.brush.from);
    const bx1 = vp.xOf(vp.brush.to);
    ctx.fillStyle = withAlpha(theme.focus, 0.45);
    ctx.fillRect(bx0, 0, bx1 - bx0, AXIS_HEIGHT - 1);
  }
  if (vp.followLive) {
    ctx.fillStyle = theme.info;
    ctx.beginPath();
    ctx.arc(width - 8, AXIS_HEIGHT / 2, 3.5, 0, Math.PI * 2);
    ctx.fill();
  }
}

export function axisLabel(v: number, step: number): string {
  const a = Math.abs(step);
  // Seconds once the values are large, with as many decimals as the step needs.
  if (Math.abs(v) >= 1000 && a >= 1) {
    const decimals = Math.max(0, Math.min(3, Math.ceil(-Math.log10(a / 1000) - 1e-9)));
    return `${(v / 1000).toFixed(decimals)} s`;
  }
  if (a >= 1) return `${v.toFixed(0)} ms`;
  if (a >= 0.1) return `${v.toFixed(1)} ms`;
  if (a >= 0.01) return `${v.toFixed(2)} ms`;
  return `${(v * 1000).toFixed(a >= 0.001 ? 0 : 2)} µs`;
}
