// Number and time formatting for labels, tooltips and the statistics panel.

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtInt(n: number): string {
  return int.format(n);
}

export function fmtRate(perSec: number): string {
  if (perSec === 0) return '0/s';
  if (perSec < 0.1) return `${perSec.toFixed(3)}/s`;
  if (perSec < 10) return `${perSec.toFixed(1)}/s`;
  if (perSec >= 1e6) return `${(perSec / 1e6).toFixed(1)}M/s`;
  if (perSec >= 1e4) return `${(perSec / 1e3).toFixed(1)}k/s`;
  return `${Math.round(perSec)}/s`;
}

/** Durations in ms, with a unit that keeps 2–3 significant digits. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  const a = Math.abs(ms);
  if (a === 0) return '0 ms';
  if (a < 0.001) return `${(ms * 1e6).toFixed(0)} ns`;
  if (a < 1) return `${(ms * 1000).toFixed(a < 0.01 ? 2 : a < 0.1 ? 1 : 0)} µs`;
  if (a < 1000) return `${ms.toFixed(a < 10 ? 2 : a < 100 ? 1 : 0)} ms`;
  if (a < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${((ms % 60_000) / 1000).toFixed(0)} s`;
}

/** The N of "sampled 1 in N" (an average over samples taken at different N): "80", "2.5". */
export function fmtSampleEvery(every: number): string {
  return every >= 10 ? fmtInt(every) : String(Math.round(every * 10) / 10);
}

/** A start's error bound, e.g. "±38 µs" (empty when there is none). */
export function fmtBound(ms: number | undefined): string {
  if (ms === undefined || !(ms > 0)) return '';
  return ms < 1 ? `±${Math.max(1, Math.round(ms * 1000))} µs` : `±${fmtMs(ms)}`;
}

/** A record time relative to the session's first record, e.g. "12.345 s". */
export function fmtTime(ms: number, origin: number): string {
  const t = ms - origin;
  if (Math.abs(t) < 1000) return `${t.toFixed(Math.abs(t) < 10 ? 3 : 1)} ms`;
  return `${(t / 1000).toFixed(3)} s`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${fmtInt(n)} ${n === 1 ? one : many}`;
}
