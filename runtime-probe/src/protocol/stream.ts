// The probe → client stream as messages: control messages and decoded record batches in arrival
// order. A live connection and a trace file carry the same frames, so both use this decoder.

import { ProtocolError } from './errors';
import { FrameDecoder, FrameKind, type Frame } from './framing';
import { MAX_PROBE_FRAME_BYTES } from './limits';
import { parseProbeMessage, type ProbeMessage } from './messages';
import { RecordDecoder } from './record-decoder';
import type { BusRecord } from './records';

/** One decoded record batch. */
export interface RecordsMessage {
  readonly type: 'records';
  readonly records: BusRecord[];
}

export type StreamMessage = ProbeMessage | RecordsMessage;

export class StreamDecoder {
  private readonly frames: FrameDecoder;
  readonly records = new RecordDecoder();

  constructor(maxFrameBytes = MAX_PROBE_FRAME_BYTES) {
    this.frames = new FrameDecoder(maxFrameBytes);
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

  /** Throws `truncated` when the stream ended inside a frame. */
  finish(): void {
    this.frames.finish();
  }

  decodeFrame(frame: Frame): StreamMessage {
    switch (frame.kind) {
      case FrameKind.Control:
        return parseProbeMessage(frame.body);
      case FrameKind.Records: {
        const records: BusRecord[] = [];
        this.records.decode(frame.body, records);
        return { type: 'records', records };
      }
      default: {
        const unknown: never = frame.kind;
        throw new ProtocolError('unknown-kind', `unknown frame kind ${String(unknown)}`);
      }
    }
  }
}
