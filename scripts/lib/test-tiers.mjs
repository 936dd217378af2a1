// The test command's tiers: which test files belong to which, what each needs, provisioning what npm
// can give (Node 24 and code-server, through scripts/provision.mjs) before the tests run, and the
// one-line summary of which tiers ran and which were skipped and why.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { provisionVscodeServer } from '../provision.mjs';
import { findChromium, findVscodeServer } from './test-env.mjs';

/** In run order of cost; the first whose folder holds a file is its tier. */
const TIERS = [
  { name: 'code-server', dir: 'test/e2e/' }, // the packaged extension in a real VS Code (code-server + Chromium)
  { name: 'chromium', dir: 'test/webview/' }, // the built inspector and browser apps in headless Chromium
  { name: 'jsdom', dir: 'test/unit/webview/' }, // the inspector's DOM code on jsdom
  { name: 'package', dir: 'test/package/' }, // the npm tarball and the VSIX as shipped
  { name: 'integration', dir: 'test/integration/' }, // real app processes and sockets
  { name: 'unit', dir: 'test/' },
];
const ORDER = ['unit', 'integration', 'jsdom', 'package', 'chromium', 'code-server'];

export function tierOf(root, file) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  return TIERS.find((t) => rel.startsWith(t.dir)).name;
}

/** The tiers whose tests use the packaged VSIX (the test command packages it first when stale). */
export const needsVsix = (root, files) => files.some((f) => ['code-server', 'package'].includes(tierOf(root, f)));

/**
 * For each tier: ran (selected and able to run), skipped (selected, cannot run here: `reason`, and
 * `fix`, the command that would let it), missing (the same under CI=true, where its tests run and fail)
 * or not selected (a filter left none of its files). Provisions the real-VS-Code tier first when selected.
 * @returns {Promise<Array<{ name: string, state: 'ran' | 'skipped' | 'missing' | 'not selected', reason?: string, fix?: string }>>}
 */
export async function prepareTiers(root, files, log) {
  const selected = new Set(files.map((f) => tierOf(root, f)));
  /** tier → { reason, fix? } */
  const unavailable = new Map();
  const chromium = findChromium();
  if (selected.has('chromium') && !chromium.found) unavailable.set('chromium', chromium);
  // The workbench opens in Chromium: without one, provisioning code-server (minutes) would be wasted.
  if (selected.has('code-server') && !chromium.found) unavailable.set('code-server', chromium);
  else if (selected.has('code-server')) {
    const provisioned = await provisionVscodeServer({ log: (line) => log(`provision: ${line}`) });
    const lookup = findVscodeServer();
    if (!provisioned.ok) unavailable.set('code-server', provisioned);
    else if (!lookup.found) unavailable.set('code-server', lookup);
  }
  const ci = process.env.CI === 'true';
  // One line per cause, saying what to install: the chromium and code-server tiers often share one.
  const byCause = new Map();
  for (const [name, cause] of unavailable) {
    const key = `${cause.reason}\0${cause.fix ?? ''}`;
    byCause.set(key, { ...cause, names: [...(byCause.get(key)?.names ?? []), name] });
  }
  for (const { reason, fix, names } of byCause.values()) {
    const many = names.length > 1;
    const what = `${names.join(' and ')} tier${many ? 's' : ''} ${ci ? `cannot run (${many ? 'their' : 'its'} tests fail under CI)` : 'skipped'}`;
    log(`${what}: ${reason}${fix ? `; to run ${many ? 'them' : 'it'}: ${fix}` : ''}`);
  }
  return ORDER.map((name) => {
    if (!selected.has(name)) return { name, state: 'not selected' };
    const cause = unavailable.get(name);
    if (cause === undefined) return { name, state: 'ran' };
    return { name, state: ci ? 'missing' : 'skipped', reason: cause.reason, ...(cause.fix ? { fix: cause.fix } : {}) };
  });
}

/** `tiers: unit ✓, …, chromium skipped (why)` — what the test command prints before its final line. */
export function tierSummary(tiers) {
  const shown = tiers.filter((t) => t.state !== 'not selected');
  const notSelected = tiers.filter((t) => t.state === 'not selected').map((t) => t.name);
  const parts = shown.map((t) => (t.state === 'ran' ? `${t.name} ✓` : `${t.name} ${t.state === 'missing' ? '✗' : 'skipped'} (${t.reason})`));
  if (notSelected.length) parts.push(`not selected: ${notSelected.join(' ')}`);
  return `tiers: ${parts.join(', ')}`;
}

/** The same as JSON, for tools and for test/package/fresh-clone.test.ts. */
export function writeTierReport(file, tiers) {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(tiers, null, 2) + '\n');
}
