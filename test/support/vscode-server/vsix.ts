// The Busscope VSIX for tests: reuse busscope-<version>.vsix when it is newer than everything that
// goes into it (the test command packages it before the tests), else run `npm run package`
// (scripts/package.mjs) once, across test processes; and read a VSIX's file list (a VSIX is a zip).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { withPidLock } from '../../../scripts/lib/pid-lock.mjs';
import { busscopeVsixPath as vsixPathIn, isVsixFresh as isVsixFreshIn } from '../../../scripts/lib/vsix-freshness.mjs';
import { repoRoot } from './artifacts';

export interface ZipEntry {
  readonly name: string;
  readonly size: number;
  readonly compressedSize: number;
}

interface CentralEntry extends ZipEntry {
  readonly method: number;
  readonly localHeader: number;
}

/** Walks a zip's central directory (found through the end-of-central-directory record). */
function centralDirectory(file: string, buf: Buffer): CentralEntry[] {
  // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file} is not a zip file`);
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries: CentralEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${n}`);
    const nameLen = buf.readUInt16LE(at + 28);
    entries.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLen),
      method: buf.readUInt16LE(at + 10),
      compressedSize: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      localHeader: buf.readUInt32LE(at + 42),
    });
    at += 46 + nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
  }
  return entries;
}

/** The entries of a zip file (a VSIX is one). */
export function listZipEntries(file: string): ZipEntry[] {
  return centralDirectory(file, readFileSync(file)).map(({ name, size, compressedSize }) => ({ name, size, compressedSize }));
}

/** The contents of one entry of a zip file (stored or deflated). */
export function readZipEntry(file: string, name: string): Buffer {
  const buf = readFileSync(file);
  const entry = centralDirectory(file, buf).find((e) => e.name === name);
  if (!entry) throw new Error(`${file} has no entry ${name}`);
  const at = entry.localHeader;
  const dataStart = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const data = buf.subarray(dataStart, dataStart + entry.compressedSize);
  if (entry.method === 0) return Buffer.from(data);
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`${file}: ${name} uses unsupported compression method ${entry.method}`);
}

export function busscopeVsixPath(): string {
  return vsixPathIn(repoRoot);
}

export function isVsixFresh(vsix = busscopeVsixPath()): boolean {
  return isVsixFreshIn(repoRoot, vsix);
}

/** The path of a fresh busscope-<version>.vsix, packaging it when needed (serialized across processes). */
export async function ensureBusscopeVsix(log: (m: string) => void = () => {}): Promise<string> {
  const vsix = busscopeVsixPath();
  return withPidLock(path.join(repoRoot, '.test-output', 'package.lock'), { timeoutMs: 180_000, pollMs: 250 }, () => {
    if (isVsixFresh(vsix)) {
      log(`reusing ${path.basename(vsix)} (newer than its sources)`);
      return vsix;
    }
    log('packaging the VSIX (npm run package)');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'package.mjs')], { cwd: repoRoot, encoding: 'utf8' });
    if (r.status !== 0 || !existsSync(vsix)) {
      throw new Error(`npm run package failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    }
    return vsix;
  });
}
