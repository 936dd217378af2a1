// `npm run bench`: builds, then runs every bench/*.bench.ts module in sequence (alphabetical), in this
// one process (started with --expose-gc), and writes everything they reported to
// bench/results/latest.md (git-ignored) so the tables can be pasted into an issue note.
//
// Convention for a bench module (bench/<name>.bench.ts):
//   export async function run(): Promise<void>
// It measures side by side within its own run, reports Markdown through `report()` from ./lib/report
// (printed at once and collected for the results file), and throws if a correctness check fails —
// a benchmark whose handlers were not really called measures nothing.
//
// `npm run bench -- dispatch` runs only the modules whose file name contains one of the arguments.
// BENCH_ROUNDS and BENCH_MS shrink or grow a run (modules read them through ./lib/settings).
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { machineLine } from './lib/measure';
import { report, reportedSections } from './lib/report';

interface BenchModule {
  run(): Promise<void>;
}

function isBenchModule(m: unknown): m is BenchModule {
  return typeof m === 'object' && m !== null && typeof (m as { run?: unknown }).run === 'function';
}

async function main(): Promise<void> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const files = readdirSync(here)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
    .sort();
  if (files.length === 0) throw new Error(`no bench/*.bench.ts module matches ${filters.join(', ') || '(all)'}`);

  const started = Date.now();
  report(`# Busscope benchmarks\n\n${new Date().toISOString()} — ${machineLine()}`);
  for (const file of files) {
    const mod: unknown = await import(pathToFileURL(path.join(here, file)).href);
    if (!isBenchModule(mod)) throw new Error(`${file} does not export \`async function run(): Promise<void>\``);
    const t0 = Date.now();
    await mod.run();
    console.log(`[bench] ${file} took ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  }
  report(`_Whole run: ${((Date.now() - started) / 1000).toFixed(1)} s; at the end: ${machineLine()}._`);

  const resultsDir = path.join(here, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const out = path.join(resultsDir, 'latest.md');
  writeFileSync(out, `${reportedSections().join('\n\n')}\n`);
  console.log(`[bench] wrote ${path.relative(process.cwd(), out)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
