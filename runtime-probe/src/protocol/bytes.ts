// Byte-level primitives shared by frames, record batches and trace files. No Node built-ins:
// Uint8Array/DataView/TextEncoder/TextDecoder only, so browsers and the extension bundle can use it.
//
// Integers on the wire are LEB128 varints (7 bits per byte, low groups first) covering
// 0 … 2^53-1, the integers a JS number holds exactly; signed values are zigzag-mapped first.
// Floats are IEEE-754 binary64, little-endian. Strings are a varint byte length then UTF-8.

import { ProtocolError } from './errors';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** 2^53 - 1. */
export const MAX_VARINT = Number.MAX_SAFE_INTEGER;
const TWO_POW_28 = 0x10000000;

export function utf8Encode(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

export function utf8Decode(bytes: Uint8Array): string {
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw new ProtocolError('malformed', 'invalid UTF-8 in a string');
  }
}

/** zigzag: 0, -1, 1, -2, … → 0, 1, 2, 3, … (arithmetic, so values beyond 32 bits stay exact). */
export function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}
export function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

/**
 * Writes `value` (an integer in 0 … 2^53-1) as an unsigned varint at `pos` of `buf`, which has room
 * for 8 more bytes; returns the position after it. A plain function over locals, for encoders that
 * write a whole record before storing the position once (see `ByteWriter.reserve`).
 */
export function putUvarint(buf: Uint8Array, pos: number, value: number): number {
  if (value < 0x80) {
    buf[pos] = value;
    return pos + 1;
  }
  // Above 2^28 bit operations would overflow int32: peel 7-bit groups arithmetically first.
  while (value >= TWO_POW_28) {
    buf[pos++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  while (value >= 0x80) {
    buf[pos++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  buf[pos] = value;
  return pos + 1;
}

/** `putUvarint` of the zigzag of `value` (an integer, |value| ≤ 2^52). */
export function putSvarint(buf: Uint8Array, pos: number, value: number): number {
  return putUvarint(buf, pos, value >= 0 ? value * 2 : -value * 2 - 1);
}

/** A growable byte buffer. Reuse one with `reset()` to avoid allocating per batch. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  /** Bytes written so far. */
  length = 0;

  constructor(initialCapacity = 4096) {
    this.buf = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buf.buffer);
  }

  reset(): void {
    this.length = 0;
  }

  /** Make room for `n` more bytes. */
  ensure(n: number): void {
    const need = this.length + n;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  /**
   * Makes room for `n` more bytes and returns the buffer to write them into, from `length` on; the
   * caller then sets `length` past what it wrote. (The buffer is replaced when it grows: use the
   * returned one, and only until the next call.)
   */
  reserve(n: number): Uint8Array {
    if (this.length + n > this.buf.length) this.ensure(n);
    return this.buf;
  }

  u8(value: number): void {
    this.ensure(1);
    this.buf[this.length++] = value;
  }

  u32le(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  /** Overwrite 4 bytes at `offset` (used to patch a frame's length once its body is known). */
  patchU32le(offset: number, value: number): void {
    this.view.setUint32(offset, value, true);
  }

  f64(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** Unsigned varint; `value` must be an integer in 0 … 2^53-1 (callers guarantee it). */
  uvarint(value: number): void {
    this.ensure(8);
    this.uvarintUnchecked(value);
  }

  /** `uvarint` without the capacity check: the caller has `ensure`d room for 8 bytes. */
  uvarintUnchecked(value: number): void {
    this.length = putUvarint(this.buf, this.length, value);
  }

  svarint(value: number): void {
    this.ensure(8);
    this.uvarintUnchecked(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.length);
    this.length += data.length;
  }

  /** varint byte length, then UTF-8. */
  string(text: string): void {
    // Short ASCII strings (type names, paths) skip the encoder's allocation.
    const n = text.length;
    if (n < 128) {
      this.ensure(1 + n);
      const buf = this.buf;
      const start = this.length;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 1 + i] = c;
      }
      if (i === n) {
        buf[start] = n;
        this.length = start + 1 + n;
        return;
      }
    }
    const encoded = utf8Encoder.encode(text);
    this.uvarint(encoded.length);
    this.bytes(encoded);
  }

  /** A view of the bytes written (valid until the next write or reset). */
  written(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }

  /** A copy of the bytes written. */
  toBytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** Reads what `ByteWriter` wrote; every read past `end` throws `ProtocolError('truncated')`. */
export class ByteReader {
  pos: number;
  readonly end: number;
  /** The bytes as a DataView (fixed-width fields, e.g. dispatch blocks). */
  readonly view: DataView;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    end = buf.length,
  ) {
    this.pos = start;
    this.end = end;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private truncated(what: string): never {
    throw new ProtocolError('truncated', `input ended inside ${what} at byte ${this.pos}`);
  }

  u8(): number {
    if (this.pos >= this.end) this.truncated('a byte');
    return this.buf[this.pos++];
  }

  f64(): number {
    if (this.pos + 8 > this.end) this.truncated('a float');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  // The one- and two-byte cases stay small enough to be inlined into decode loops (most record
  // fields are ids, counts and short deltas); longer varints take the out-of-line path.
  uvarint(): number {
    const pos = this.pos;
    const buf = this.buf;
    if (pos + 1 < this.end) {
      const b0 = buf[pos];
      if (b0 < 0x80) {
        this.pos = pos + 1;
        return b0;
      }
      const b1 = buf[pos + 1];
      if (b1 < 0x80) {
        this.pos = pos + 2;
        return (b0 & 0x7f) | (b1 << 7);
      }
    }
    return this.uvarintLong();
  }

  private uvarintLong(): number {
    const buf = this.buf;
    const end = this.end;
    let pos = this.pos;
    if (pos >= end) this.truncated('a varint');
    let byte = buf[pos++];
    if (byte < 0x80) {
      this.pos = pos;
      return byte;
    }
    let result = byte & 0x7f;
    let scale = 0x80;
    for (let i = 1; ; i++) {
      if (pos >= end) {
        this.pos = pos;
        this.truncated('a varint');
      }
      byte = buf[pos++];
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) break;
      scale *= 0x80;
      if (i >= 7) {
        this.pos = pos;
        throw new ProtocolError('malformed', `varint longer than 8 bytes at byte ${pos}`);
      }
    }
    if (result > MAX_VARINT) throw new ProtocolError('malformed', `varint beyond 2^53-1 at byte ${pos}`);
    this.pos = pos;
    return result;
  }

  svarint(): number {
    const v = this.uvarint();
    return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
  }

  string(): string {
    const n = this.uvarint();
    if (n > this.end - this.pos) this.truncated(`a ${n}-byte string`);
    const start = this.pos;
    this.pos += n;
    // ASCII fast path: most strings are type names and paths.
    if (n < 64) {
      const buf = this.buf;
      let ascii = true;
      for (let i = start; i < start + n; i++) {
        if (buf[i] >= 0x80) {
          ascii = false;
          break;
        }
      }
      if (ascii) return String.fromCharCode.apply(null, buf.subarray(start, start + n) as unknown as number[]);
    }
    return utf8Decode(this.buf.subarray(start, start + n));
  }
}
