// Opening a trace file without trusting what is already at its path. A trace file is created
// exclusively (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), so a symlink planted at the path is never
// followed and a FIFO or device is never opened (opening a FIFO would block until a reader comes).
// An existing regular file is replaced, not truncated: a fresh 0600 file is created beside it and
// renamed over it, which swaps the directory entry and never writes through a link or into another
// file's inode. Anything else at the path (symlink, FIFO, directory, device, socket) is refused.

import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

const CREATE_EXCLUSIVE = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

function kindOf(st: fs.Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Creates `file` for writing (mode 0600) and returns its descriptor. An existing regular file is
 * replaced atomically; anything else at the path makes it throw, with a message saying what is there.
 */
export function openTraceFile(file: string): number {
  try {
    return fs.openSync(file, CREATE_EXCLUSIVE, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const st = fs.lstatSync(file);
  if (!st.isFile()) throw new Error(`${file} is ${kindOf(st)}; a trace is only written to a new or regular file`);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, CREATE_EXCLUSIVE, 0o600);
  try {
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.closeSync(fd);
    try {
      fs.unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw error;
  }
  return fd;
}
