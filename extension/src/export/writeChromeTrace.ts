// Writes a model's Chrome trace to a file in chunks (a model at its default ring sizes makes a trace
// of tens of megabytes; no single string of that size is built). Written next to the target and
// renamed, so a failed export never leaves half a file where the user asked for one.
import { open, rename, rm } from 'node:fs/promises';
import type { Model } from '../../../runtime-probe/src/analysis/model/index';
import { chromeTraceChunks } from './chromeTrace';

export interface WrittenTrace {
  readonly file: string;
  readonly bytes: number;
}

export async function writeChromeTraceFile(model: Model, file: string): Promise<WrittenTrace> {
  if (typeof file !== 'string' || file === '') throw new TypeError('writeChromeTraceFile: file must be a non-empty path');
  const tmp = `${file}.${process.pid}.tmp`;
  const handle = await open(tmp, 'w');
  let bytes = 0;
  try {
    for (const chunk of chromeTraceChunks(model)) {
      const buffer = Buffer.from(chunk, 'utf8');
      for (let offset = 0; offset < buffer.length;) {
        const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset);
        offset += bytesWritten;
      }
      bytes += buffer.length;
    }
    await handle.close();
    await rename(tmp, file);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw error;
  }
  return { file, bytes };
}
