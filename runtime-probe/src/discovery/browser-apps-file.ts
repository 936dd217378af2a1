// Where a dev server finds the browser apps' server: while *Accept Browser Apps* runs, the extension
// writes its URL and token to `browser-apps.json` in the private discovery directory (0600 in a 0700
// directory, like the apps' discovery files; the name does not match theirs, so app listings skip
// it). The Vite plugin (busscope-probe/vite) reads it each time it serves a page.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { discoveryDirectory } from './directory';
import { ensurePrivateDirectory, readTrustedFile } from './discovery-file';

export const BROWSER_APPS_FILE = 'browser-apps.json';

export interface BrowserAppsEntry {
  readonly url: string;
  readonly token: string;
}

/** Writes the entry atomically; returns the file. Throws when the directory is not this user's alone. */
export function writeBrowserAppsFile(entry: BrowserAppsEntry, dir: string = discoveryDirectory()): string {
  ensurePrivateDirectory(dir);
  const file = path.join(dir, BROWSER_APPS_FILE);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ url: entry.url, token: entry.token }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(tmp, file);
  return file;
}

export function removeBrowserAppsFile(dir: string = discoveryDirectory()): void {
  try {
    fs.unlinkSync(path.join(dir, BROWSER_APPS_FILE));
  } catch {
    // gone already
  }
}

/** The entry, or undefined when Busscope is not accepting browser apps (or the file is not trustworthy). */
export function readBrowserAppsFile(dir: string = discoveryDirectory()): BrowserAppsEntry | undefined {
  const text = readTrustedFile(path.join(dir, BROWSER_APPS_FILE));
  if (text === undefined) return undefined;
  try {
    const o = JSON.parse(text) as { url?: unknown; token?: unknown };
    if (typeof o.url !== 'string' || !/^ws:\/\/127\.0\.0\.1:\d+\/$/.test(o.url) || typeof o.token !== 'string' || !/^[0-9a-f]{16,64}$/.test(o.token))
      return undefined;
    return { url: o.url, token: o.token };
  } catch {
    return undefined;
  }
}
