// Run-size knobs shared by bench modules: BENCH_ROUNDS (interleaved rounds per measurement) and
// BENCH_MS (milliseconds per candidate per round). Defaults keep `npm run bench` under about a minute.
function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new TypeError(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return n;
}

export const benchRounds = (fallback: number): number => Math.max(1, Math.round(positive('BENCH_ROUNDS', fallback)));
export const benchMs = (fallback: number): number => positive('BENCH_MS', fallback);
