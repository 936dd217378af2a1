// The probe → client stream as messages: control messages and decoded record batches in arrival
// order. A live connection and a trace file carry the same frames, so both use this decoder.

import { ProtocolError } from './errors';
import { FrameDecoder, FrameKind, type Frame } from './framing';
import { MAX_PROBE_FRAME_BYTES } from './limits';
import type { ProbeMessage } from './messages';
import { parseProbeMessage } from './probe-messages';
import { RecordDecoder, type RecordDecoderLimits, type RecordSink } from './record-decoder';
import type { BusRecord } from './records';

/** One decoded record batch. */
export interface RecordsMessage {
  readonly type: 'records';
  readonly records: BusRecord[];
  /**
   * Present when the batch was decoded into a `RecordSink` (`decodeFrame(frame, sink)`): its records
   * (this many) went to the sink, and `records` is empty.
   */
  readonly applied?: number;
  /** Present only when this batch ran into a string table cap (PROTOCOL.md, "String table caps"). */
  readonly nameOverflow?: NameOverflow;
}

export interface NameOverflow {
  /** Definitions in this batch that this reader folded into the overflow bucket (its table is full). */
  readonly folded: number;
  /** The probe defined OVERFLOW_NAME in this batch: the app's own table is full. */
  readonly appTableFull: boolean;
}

export type StreamMessage = ProbeMessage | RecordsMessage;

export class StreamDecoder {
  private readonly frames: FrameDecoder;
  readonly records: RecordDecoder;

  constructor(maxFrameBytes = MAX_PROBE_FRAME_BYTES, tableLimits?: RecordDecoderLimits) {
    this.frames = new FrameDecoder(maxFrameBytes);
    this.records = new RecordDecoder(tableLimits);
  }

  get bufferedBytes(): number {
    return this.frames.bufferedBytes;
  }

  /** Feeds bytes; returns the messages completed by them. Throws `ProtocolError`. */
  push(chunk: Uint8Array, out: StreamMessage[] = []): StreamMessage[] {
    this.frames.push(chunk);
    for (let f = this.frames.next(); f !== undefined; f = this.frames.next()) out.push(this.decodeFrame(f));
    return out;
  }

  /** Feeds bytes without decoding them: take the messages with `next`. */
  feed(chunk: Uint8Array): void {
    this.frames.push(chunk);
  }

  /**
   * Decodes the next complete frame fed, if any. With `sink`, record batches after the welcome go
   * into it (see `decodeFrame`): apply each message before asking for the next, so that control
   * messages and records reach the reader in stream order. Throws `ProtocolError`.
   */
  next(sink?: RecordSink): StreamMessage | undefined {
    const f = this.frames.next();
    if (f === undefined) return undefined;
    const m = this.decodeFrame(f, this.welcomed ? sink : undefined);
    if (m.type === 'welcome') this.welcomed = true;
    return m;
  }
  private welcomed = false;

  /** Throws `truncated` when the stream ended inside a frame. */
  finish(): void {
    this.frames.finish();
  }

  /**
   * Decodes one frame. With `sink`, a record batch's records go to it as they are decoded (no record
   * objects for dispatches) and the message carries only their count (`applied`).
   */
  decodeFrame(frame: Frame, sink?: RecordSink): StreamMessage {
    switch (frame.kind) {
      case FrameKind.Control: {
        const m = parseProbeMessage(frame.body);
        // The welcome names the version of every record batch that follows (live or from a trace).
        if (m.type === 'welcome') this.records.version = m.protocolVersion;
        return m;
      }
      case FrameKind.Records: {
        const records: BusRecord[] = [];
        const d = this.records;
        const foldedBefore = d.overflowedDefinitions;
        const appFullBefore = d.appTableFull;
        const applied = sink === undefined ? -1 : d.decodeInto(frame.body, sink);
        if (applied < 0) d.decode(frame.body, records);
        const folded = d.overflowedDefinitions - foldedBefore;
        const appTableFull = d.appTableFull && !appFullBefore;
        const nameOverflow = folded === 0 && !appTableFull ? undefined : { folded, appTableFull };
        if (applied < 0) return nameOverflow === undefined ? { type: 'records', records } : { type: 'records', records, nameOverflow };
        return nameOverflow === undefined ? { type: 'records', records, applied } : { type: 'records', records, applied, nameOverflow };
      }
      default: {
        const unknown: never = frame.kind;
        throw new ProtocolError('unknown-kind', `unknown frame kind ${String(unknown)}`);
      }
    }
  }
}
