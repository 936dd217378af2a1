// One JSON file per running app (`<pid>-<port>.json`, mode 0600, in a 0700 directory), written when
// the probe listens and removed when it stops or the process exits. Readers skip and delete files
// whose process is gone, so a crash leaves no lasting trace. On POSIX only this user's files in this
// user's directory are trusted (nobody else may write either): a planted file could send our token
// to someone else's port.

import { randomBytes } from 'node:crypto';
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

/** Why a directory or file may not be trusted, or undefined when it may (POSIX; Windows relies on ACLs). */
function untrusted(st: fs.Stats, what: string): string | undefined {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return undefined;
  const uid = process.getuid();
  if (st.uid !== uid) return `${what} is owned by uid ${st.uid}, not by this user (uid ${uid})`;
  // Anyone else who can write there could plant or swap files (another app's token, a symlink).
  if ((st.mode & 0o022) !== 0) return `${what} is writable by group or others (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

function refusing(dir: string, why: string): Error {
  return new Error(`refusing to use the discovery directory ${dir}: ${why}`);
}

/**
 * Creates the missing components of `dir` one by one (0700), checking each one created (or raced
 * into existence) with lstat: a symlink there would make us create, tighten and write through
 * somebody else's path. Existing ancestors are taken as they are (a symlinked /tmp or home is the
 * user's own layout).
 */
function createMissingComponents(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    try {
      fs.lstatSync(d);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      missing.push(d);
    }
    if (path.dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const st = fs.lstatSync(d);
    if (st.isSymbolicLink()) throw refusing(dir, `${d} is a symbolic link`);
    if (!st.isDirectory()) throw refusing(dir, `${d} is not a directory`);
    const why = untrusted(st, d);
    if (why !== undefined) throw refusing(dir, why);
  }
}

const OPEN_DIRECTORY_NOFOLLOW = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);

/**
 * The directory, created private if missing; throws when it exists but is not this user's private
 * directory, or is a symbolic link (never followed, never chmod'ed through: the mode is tightened on
 * a descriptor opened with O_NOFOLLOW, and ownership is checked on that same descriptor).
 */
export function ensurePrivateDirectory(dir: string): void {
  if (process.platform === 'win32') {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    return;
  }
  createMissingComponents(dir);
  const lst = fs.lstatSync(dir);
  if (lst.isSymbolicLink()) throw refusing(dir, 'it is a symbolic link (set BUSSCOPE_DISCOVERY_DIR to a real directory of your own)');
  if (!lst.isDirectory()) throw refusing(dir, 'it is not a directory');
  let fd: number;
  try {
    fd = fs.openSync(dir, OPEN_DIRECTORY_NOFOLLOW);
  } catch (error) {
    // Swapped for a symlink between the lstat and the open.
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw refusing(dir, 'it is a symbolic link');
    throw error;
  }
  try {
    let st = fs.fstatSync(fd);
    if (!st.isDirectory()) throw refusing(dir, 'it is not a directory');
    // mkdir's mode is filtered by umask and ignored for an existing directory: make our own private.
    if (typeof process.getuid === 'function' && st.uid === process.getuid() && (st.mode & 0o077) !== 0) {
      fs.fchmodSync(fd, 0o700);
      st = fs.fstatSync(fd);
    }
    const why = untrusted(st, `the discovery directory ${dir}`);
    if (why !== undefined) throw new Error(`refusing to use ${why}`);
  } finally {
    fs.closeSync(fd);
  }
}

// O_NOFOLLOW where the platform has it: a symlink planted at the path is an error, not followed.
const CREATE_PRIVATE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
const READ_NOFOLLOW = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0);
/** A discovery file is a few hundred bytes; anything far bigger is not one. */
const MAX_DISCOVERY_FILE_BYTES = 64 * 1024;

/**
 * Writes the entry into the private directory (created 0700 if missing) atomically: a fresh temp
 * file created exclusively (0600, never through a symlink), then renamed over the final name.
 * Returns the file path. Throws on failure, including a directory that is not this user's alone.
 */
export function writeDiscoveryFile(entry: DiscoveryEntry, dir: string = discoveryDirectory()): string {
  ensurePrivateDirectory(dir);
  const file = path.join(dir, `${entry.pid}-${entry.port}.json`);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, CREATE_PRIVATE, 0o600);
  try {
    try {
      if (process.platform !== 'win32') fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, JSON.stringify(entry, null, 2) + '\n');
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (error) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // already renamed or gone
    }
    throw error;
  }
  return file;
}

/** The file's text when it is a regular file of this user's that nobody else can write; otherwise undefined. */
export function readTrustedFile(file: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, READ_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_DISCOVERY_FILE_BYTES || untrusted(st, file) !== undefined) return undefined;
    const buf = Buffer.alloc(st.size);
    const n = fs.readSync(fd, buf, 0, st.size, 0);
    return buf.toString('utf8', 0, n);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
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

/**
 * Apps with a live process, newest first. Unreadable files, symlinks, and files or a directory that
 * another user owns or can write to are skipped (POSIX); stale files are removed.
 */
export function listDiscoveredApps(options: ListOptions = {}): DiscoveredApp[] {
  const dir = options.dir ?? discoveryDirectory();
  const clean = options.clean ?? true;
  let names: string[];
  try {
    // A directory someone else owns or can write to may hold planted files (a rogue host and port
    // that would receive our token): list nothing from it.
    if (untrusted(fs.statSync(dir), dir) !== undefined) return [];
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: DiscoveredApp[] = [];
  for (const name of names) {
    if (!FILE_PATTERN.test(name)) continue;
    const file = path.join(dir, name);
    const text = readTrustedFile(file);
    if (text === undefined) continue;
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
