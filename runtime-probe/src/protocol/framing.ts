// Framing: every frame is
//   u32 little-endian `length` (bytes that follow: the kind byte plus the body, so ≥ 1)
//   u8  `kind` (FrameKind)
//   body (length - 1 bytes)
// The receiver checks `length` against its limit before buffering the body, so an oversized or
// garbage length is rejected at once instead of waiting for bytes that never come.

import { ProtocolError } from './errors';

export const FrameKind = {
  /** Body: one UTF-8 JSON control message (messages.ts). */
  Control: 1,
  /** Body: a record batch (records.ts). Probe → client only. */
  Records: 2,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

export const FRAME_HEADER_BYTES = 5;

/** Frames up to this size get their whole buffer when their header arrives; larger ones grow as bytes come. */
const PREGROW_LIMIT = 1024 * 1024;

export interface Frame {
  readonly kind: FrameKind;
  /** A view into the decoder's buffer: valid until the next `push`. Decode it (or copy it) at once. */
  readonly body: Uint8Array;
}

export function isFrameKind(k: number): k is FrameKind {
  return k === FrameKind.Control || k === FrameKind.Records;
}

/** One complete frame around `body`. */
export function encodeFrame(kind: FrameKind, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(FRAME_HEADER_BYTES + body.length);
  new DataView(out.buffer).setUint32(0, body.length + 1, true);
  out[4] = kind;
  out.set(body, FRAME_HEADER_BYTES);
  return out;
}

/**
 * Splits a byte stream into frames. Push chunks as they arrive, then call `next()` until it returns
 * `undefined`. Throws `ProtocolError` (`frame-too-large`, `malformed`, `unknown-kind`) as soon as a
 * header is wrong; after an error the decoder is unusable (close the connection). What a page needs
 * (page-link.ts); FrameDecoder adds what the Node side asks of a stream.
 */
export class FrameSplitter {
  protected buf: Uint8Array;
  protected start = 0;
  protected end = 0;
  protected failed: ProtocolError | undefined;

  constructor(
    /**
     * Largest acceptable `length` field. A reader may change it between frames (the probe raises
     * it once a client has authenticated); it applies to every header read afterwards.
     */
    public maxFrameBytes: number,
    initialCapacity = 64 * 1024,
  ) {
    this.buf = new Uint8Array(initialCapacity);
  }

  /** Drops the buffer (the connection is over): a half-received frame is not kept alive by a lingering reference. */
  release(): void {
    this.buf = new Uint8Array(0);
    this.start = 0;
    this.end = 0;
  }

  push(chunk: Uint8Array): void {
    if (this.failed) throw this.failed;
    const n = chunk.length;
    if (this.end + n > this.buf.length) {
      const pending = this.end - this.start;
      if (pending + n <= this.buf.length && this.start > 0) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        let cap = Math.max(this.buf.length * 2, 1024);
        while (cap < pending + n) cap *= 2;
        const next = new Uint8Array(cap);
        next.set(this.buf.subarray(this.start, this.end));
        this.buf = next;
      }
      this.start = 0;
      this.end = pending;
    }
    this.buf.set(chunk, this.end);
    this.end += n;
  }

  next(): Frame | undefined {
    if (this.failed) throw this.failed;
    const available = this.end - this.start;
    if (available < 4) return undefined;
    const b = this.buf;
    const s = this.start;
    const length = (b[s] | (b[s + 1] << 8) | (b[s + 2] << 16)) + b[s + 3] * 0x1000000;
    if (length > this.maxFrameBytes) {
      return this.fail(
        new ProtocolError(
          'frame-too-large',
          `frame of ${length} bytes exceeds the limit of ${this.maxFrameBytes} bytes` +
            (length > 0x10000000 ? ' (this does not look like a Busscope peer)' : ''),
        ),
      );
    }
    if (length === 0) return this.fail(new ProtocolError('malformed', 'frame with length 0 (no kind byte)'));
    const kind = b[s + 4];
    if (available >= 5 && !isFrameKind(kind)) {
      return this.fail(new ProtocolError('unknown-kind', `unknown frame kind ${kind}`));
    }
    if (available < 4 + length) {
      // Grow once to the frame's size so a large frame does not cost a doubling per chunk — but
      // only up to PREGROW_LIMIT: a frame announced and never sent must not cost its full size.
      if (4 + length > this.buf.length && length <= PREGROW_LIMIT) {
        const next = new Uint8Array(Math.max(4 + length, this.buf.length * 2));
        next.set(this.buf.subarray(this.start, this.end));
        this.end -= this.start;
        this.start = 0;
        this.buf = next;
      }
      return undefined;
    }
    this.start = s + 4 + length;
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
      // The body view stays valid: the next push writes from 0 only after this frame is consumed.
    }
    return { kind: kind as FrameKind, body: b.subarray(s + 5, s + 4 + length) };
  }

  private fail(error: ProtocolError): never {
    this.failed = error;
    throw error;
  }
}

/**
 * A FrameSplitter that also tells how much of a frame is pending and whether a stream ended inside
 * one: for the probe server's stall watch, the client and trace files.
 */
export class FrameDecoder extends FrameSplitter {
  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.end - this.start;
  }

  /** The `length` announced by a frame whose header arrived but whose body has not (0 when none). */
  get partialFrameLength(): number {
    if (this.end - this.start < 4) return 0;
    const b = this.buf;
    const s = this.start;
    return (b[s] | (b[s + 1] << 8) | (b[s + 2] << 16)) + b[s + 3] * 0x1000000;
  }

  /** Throws `truncated` when a partial frame is left (end of a file or of a closed stream). */
  finish(): void {
    if (this.failed) throw this.failed;
    const left = this.end - this.start;
    if (left > 0) throw new ProtocolError('truncated', `stream ended inside a frame (${left} bytes left over)`);
  }
}
