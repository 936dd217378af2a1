// A trace file as a record sink: the trace header, then the same frames a client receives.
// Writes are synchronous to the page cache, so a trace is complete even when the app never yields
// (a tight loop, or records produced just before exit) and is readable right after `stop()`.

import fs from 'node:fs';
import { PROTOCOL_VERSION, encodeTraceHeader } from '../protocol/index';
import { reportProbeFailure } from '../probe/report';
import { RecordSink } from '../recorder/sink';
import { openTraceFile } from './open-trace-file';

export class FileSink extends RecordSink {
  override protocolVersion = PROTOCOL_VERSION;
  /** `writeSync` is done with a frame once it returns: the recorder need not copy each batch for it. */
  override readonly copiesFrames = true;
  private fd: number | null;
  failed = false;

  /**
   * Creates `file` (mode 0600; an existing regular file is replaced, never written through) and
   * writes the header. Throws when the file cannot be created or something other than a regular
   * file is at the path (see openTraceFile).
   */
  constructor(readonly file: string) {
    super();
    this.fd = openTraceFile(file);
    this.write(encodeTraceHeader(PROTOCOL_VERSION));
  }

  canAccept(): boolean {
    return !this.failed && this.fd !== null;
  }

  write(frame: Uint8Array): void {
    const fd = this.fd;
    if (fd === null || this.failed) return;
    try {
      let off = 0;
      while (off < frame.length) off += fs.writeSync(fd, frame, off, frame.length - off);
    } catch (error) {
      this.failed = true;
      reportProbeFailure(`writing trace file ${this.file}`, error);
    }
  }

  close(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd === null) return;
    try {
      fs.closeSync(fd);
    } catch (error) {
      reportProbeFailure(`closing trace file ${this.file}`, error);
    }
  }
}
