// The README's test command: lint, check the formatting and the layering, build, type-check every part (including the
// compile-time API tests), then run every test file under test/ in Node's built-in runner. Before that it provisions what the
// browser and real-VS-Code tiers need and npm can give (scripts/lib/test-tiers.mjs; cached, stats only
// when present) and packages the VSIX when stale. Output ends with the runner's summary, a `tiers: …`
// line (which tiers ran, which were skipped and why) and a plain `N passed, N failed, N skipped` line
// (lint and the format check count as one test each).
//   node scripts/test.mjs [substring…]   only the test files whose path contains one of them (no lint, no format check)
//   node scripts/test.mjs --tiers        provision and report the tiers (.test-output/tiers.json); run nothing
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareTiers, tierSummary, writeTierReport, needsVsix } from './lib/test-tiers.mjs';
import { isVsixFresh } from './lib/vsix-freshness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tiersOnly = process.argv.includes('--tiers');
const filter = process.argv.slice(2).filter((a) => a !== '--tiers');
const outDir = path.join(root, '.test-output');
mkdirSync(outDir, { recursive: true });

function run(cmd, args, extra = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...extra });
  return r.status ?? 1;
}
function step(title, cmd, args) {
  console.log(`\n[busscope test] ${title}`);
  const status = run(cmd, args);
  if (status !== 0) {
    console.log(`[busscope test] ${title} failed (exit ${status})`);
    console.log(`${checksPassed()} passed, ${checksFailed() + 1} failed`);
    process.exit(status);
  }
}

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (name === 'node_modules' || name === 'fixtures') continue;
    // test/vscode holds the mocha suite that runs inside VS Code (test/e2e/vscode-server.test.ts runs it).
    if (p === path.join(root, 'test', 'vscode')) continue;
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

let files = findTests(path.join(root, 'test'));
if (filter.length) files = files.filter((f) => filter.some((s) => f.includes(s)));
const tiers = await prepareTiers(root, files, (line) => console.log(`[busscope test] ${line}`));
writeTierReport(path.join(outDir, 'tiers.json'), tiers);
if (tiersOnly) {
  console.log(tierSummary(tiers));
  process.exit(0);
}

// Lint and formatting come first (no build needed). Each counts as one test in the final line and a
// failure fails the run, yet the tests still run, so one run reports everything that is wrong. A
// filtered run is a quick loop over a few files and skips both (`npm run lint`, `npm run format:check`).
const checks = [];
const checksPassed = () => checks.filter(Boolean).length;
const checksFailed = () => checks.length - checksPassed();
function check(title, args) {
  console.log(`\n[busscope test] ${title}`);
  const status = run(process.execPath, args);
  checks.push(status === 0);
  console.log(`[busscope test] ${title}: ${status === 0 ? 'passed' : `FAILED (exit ${status})`}`);
}
if (filter.length) {
  console.log('\n[busscope test] lint and format check skipped (filtered run)');
} else {
  check('lint (eslint)', ['node_modules/eslint/bin/eslint.js', '.']);
  check('format (prettier --check)', ['node_modules/prettier/bin/prettier.cjs', '--check', '.']);
}

// Then, since it needs no build: runtime-probe ↛ extension/webview, webview ↛ extension, the model
// and analyses free of vscode, Node and the DOM (scripts/check-layers.mjs says why each rule exists).
step('layering', process.execPath, ['scripts/check-layers.mjs']);
// Before the build: packaging rebuilds dist/ minified, which must not happen while tests read it.
if (needsVsix(root, files) && !isVsixFresh(root)) step('package the VSIX', process.execPath, ['scripts/package.mjs']);
step('build', process.execPath, ['scripts/build.mjs']);
step('typecheck', process.execPath, ['scripts/typecheck.mjs']);

console.log(`\n[busscope test] ${files.length} test files`);
const countsFile = path.join(outDir, 'counts.json');
rmSync(countsFile, { force: true });
// No test file may hold the run open: --test-timeout bounds each file as a whole (the runner cancels
// it and counts it failed; the longest, the real VS Code suite, takes a few minutes), and
// --test-force-exit ends a file whose tests are done even if a handle it left (a socket, a timer)
// would keep it alive. Without them one wedged browser ran CI into its time limit with no result.
// Force-exit also ends the runner before a reporter writing to a file finishes, so the counts come
// from a reporter that writes them synchronously (scripts/lib/count-reporter.mjs).
const FILE_TIMEOUT_MS = Number(process.env.BUSSCOPE_TEST_FILE_TIMEOUT_MS) || 20 * 60_000;
const status = run(
  process.execPath,
  [
    '--import',
    'tsx',
    '--expose-gc',
    '--test',
    `--test-timeout=${FILE_TIMEOUT_MS}`,
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts', 'lib', 'count-reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files,
  ],
  { env: { ...process.env, BUSSCOPE_TEST_COUNTS: countsFile } },
);
const counts = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : { passed: 0, failed: 0, skipped: 0 };
// A runner that failed without a failed test (it crashed, or could not start) still fails the line.
if (status !== 0 && counts.failed === 0) counts.failed = 1;
console.log(tierSummary(tiers));
console.log(`${counts.passed + checksPassed()} passed, ${counts.failed + checksFailed()} failed, ${counts.skipped} skipped`);
process.exit(status !== 0 ? status : checksFailed() ? 1 : 0);
