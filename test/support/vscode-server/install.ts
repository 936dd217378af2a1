// Where scripts/setup-vscode-server.mjs put code-server, Node 24 and chromium: it writes
// <cache>/vscode-server.json, cache = $BUSSCOPE_CACHE or ~/.cache/busscope.
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface VscodeServerInstall {
  readonly cacheDir: string;
  readonly codeServerVersion: string;
  /** Node 24, which code-server requires. */
  readonly node: string;
  /** code-server's CLI entry, run as `node <entry> …`. */
  readonly codeServerEntry: string;
  readonly chromium: string;
}

export type InstallLookup =
  | { readonly found: true; readonly install: VscodeServerInstall }
  | { readonly found: false; readonly reason: string };

export const INSTALL_COMMAND = 'node scripts/setup-vscode-server.mjs';

export function cacheDir(): string {
  return path.resolve(process.env.BUSSCOPE_CACHE || path.join(os.homedir(), '.cache', 'busscope'));
}

export function findVscodeServerInstall(): InstallLookup {
  const dir = cacheDir();
  const manifestFile = path.join(dir, 'vscode-server.json');
  let manifest: Partial<VscodeServerInstall>;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Partial<VscodeServerInstall>;
  } catch {
    return { found: false, reason: `${manifestFile} does not exist` };
  }
  const { node, codeServerEntry, chromium, codeServerVersion } = manifest;
  if (!node || !codeServerEntry || !chromium || !codeServerVersion) return { found: false, reason: `${manifestFile} is incomplete` };
  for (const file of [node, codeServerEntry, chromium]) {
    if (!existsSync(file)) return { found: false, reason: `${file} is missing` };
  }
  return { found: true, install: { cacheDir: dir, node, codeServerEntry, chromium, codeServerVersion } };
}

/** The banner a test prints when it cannot run for lack of the install. */
export function missingInstallMessage(reason: string): string {
  return [
    '',
    '!'.repeat(100),
    `!! VS Code server tests SKIPPED: code-server/Node 24/chromium are not installed (${reason}).`,
    `!! Install them once (about 4 minutes; cached in ${cacheDir()}):`,
    `!!     ${INSTALL_COMMAND}`,
    '!! (`bash .ci/run` does this too; with CI=true a missing install FAILS these tests instead.)',
    '!'.repeat(100),
    '',
  ].join('\n');
}
