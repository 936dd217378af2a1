// Timing and formatting helpers shared by bench modules.
import os from 'node:os';

/** Runs `body(iterations)` in growing batches until at least `minMs` have passed; returns calls made and seconds. */
export function timeLoop(body: (iterations: number) => void, minMs: number): { iterations: number; seconds: number } {
  let iterations = 0;
  let batch = 256;
  const start = process.hrtime.bigint();
  for (;;) {
    body(batch);
    iterations += batch;
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (ms >= minMs) return { iterations, seconds: ms / 1000 };
    // Grow batches while they are short, so the clock is read rarely compared with the work.
    if (ms < minMs / 8) batch *= 2;
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Full collections with turns of the event loop in between, so FinalizationRegistry callbacks and
 * WeakRef clearing from earlier work have run and the heap is settled before it is read.
 */
export async function collectGarbage(): Promise<void> {
  const gc = globalThis.gc;
  if (typeof gc !== 'function') throw new Error('run with --expose-gc (npm run bench does)');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export function formatOps(ops: number): string {
  if (!Number.isFinite(ops)) return 'n/a';
  if (ops >= 1e6) return `${(ops / 1e6).toFixed(ops >= 1e8 ? 0 : 1)} M`;
  if (ops >= 1e3) return `${(ops / 1e3).toFixed(1)} k`;
  return ops.toFixed(0);
}

export function formatRatio(r: number): string {
  return Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a';
}

export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

/** One line describing the machine and how busy it was, for the top of a results file. */
export function machineLine(): string {
  const cpus = os.cpus();
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
  return `Node ${process.version}, ${os.platform()} ${os.arch()}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, load average ${load}`;
}
