// One JSON file per running app (`<pid>-<port>.json`, mode 0600, in a 0700 directory), written when
// the probe listens and removed when it stops or the process exits. Readers skip and delete files
// whose process is gone, so a crash leaves no lasting trace.

import fs from 'node:fs';
import path from 'node:path';
import { discoveryDirectory } from './directory';

export interface DiscoveryEntry {
  readonly pid: number;
  readonly name: string;
  readonly cwd: string;
  readonly host: string;
  readonly port: number;
  readonly token: string;
  readonly protocolVersion: number;
  readonly probeVersion: string;
  /** Epoch ms when the probe started. */
  readonly startTime: number;
}

export interface DiscoveredApp extends DiscoveryEntry {
  /** The discovery file it came from. */
  readonly file: string;
}

const FILE_PATTERN = /^\d+-\d+\.json$/;

/** Creates the directory (0700) and writes the entry atomically (0600). Returns the file path. Throws on failure. */
export function writeDiscoveryFile(entry: DiscoveryEntry, dir: string = discoveryDirectory()): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') {
    // mkdir's mode is filtered by umask and ignored for an existing directory: make it private.
    const st = fs.statSync(dir);
    if (typeof process.getuid === 'function' && st.uid === process.getuid() && (st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
  }
  const file = path.join(dir, `${entry.pid}-${entry.port}.json`);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(entry, null, 2) + '\n', { mode: 0o600 });
  if (process.platform !== 'win32') fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

/** Removes a discovery file; a missing file is fine. */
export function removeDiscoveryFile(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** True when a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseEntry(text: string): DiscoveryEntry | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const int = (k: string) => typeof o[k] === 'number' && Number.isInteger(o[k]) && (o[k] as number) >= 0;
  const str = (k: string) => typeof o[k] === 'string';
  if (!int('pid') || !int('port') || !int('protocolVersion') || !str('token') || !str('host') || !str('name') || !str('cwd')) return undefined;
  return {
    pid: o.pid as number,
    name: o.name as string,
    cwd: o.cwd as string,
    host: o.host as string,
    port: o.port as number,
    token: o.token as string,
    protocolVersion: o.protocolVersion as number,
    probeVersion: str('probeVersion') ? (o.probeVersion as string) : 'unknown',
    startTime: typeof o.startTime === 'number' ? o.startTime : 0,
  };
}

export interface ListOptions {
  readonly dir?: string;
  /** Delete files of processes that are gone (default true). */
  readonly clean?: boolean;
}

/** Apps with a live process, newest first. Unreadable or foreign files are skipped, stale ones removed. */
export function listDiscoveredApps(options: ListOptions = {}): DiscoveredApp[] {
  const dir = options.dir ?? discoveryDirectory();
  const clean = options.clean ?? true;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: DiscoveredApp[] = [];
  for (const name of names) {
    if (!FILE_PATTERN.test(name)) continue;
    const file = path.join(dir, name);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const entry = parseEntry(text);
    if (entry === undefined) continue;
    if (!isProcessAlive(entry.pid)) {
      if (clean) {
        try {
          removeDiscoveryFile(file);
        } catch {
          // someone else's problem; it is skipped either way
        }
      }
      continue;
    }
    out.push({ ...entry, file });
  }
  return out.sort((a, b) => b.startTime - a.startTime || b.pid - a.pid);
}
