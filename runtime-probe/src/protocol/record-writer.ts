// Encodes record batches. One `RecordWriter` is reused for every batch: `begin()`, one call per
// record, `finish()` → a complete frame. Arguments are already interned ids, so the probe's drain
// loop encodes straight from its ring buffer without building record objects.
//
// Field encodings (see PROTOCOL.md, "Records"):
//   u  unsigned varint            s  zigzag varint           f  float64 LE      str  varint length + UTF-8
//   t  time: zigzag varint of (this time − previous time in this batch), in integer nanoseconds;
//      the first time of a batch is relative to 0, i.e. absolute nanoseconds since the time origin
//   d  duration: unsigned varint, integer nanoseconds
//   q  sequence: zigzag varint of (this seq − previous seq field in this batch; starts at 0)
//   p  parent sequence: unsigned varint, 0 when there is no parent, else (seq − parentSeq)
//   x  extension block (dispatch: version 2; bus-created: version 3): unsigned varint count, then per
//      field: u key, u byte length, that many bytes. Readers skip keys they do not know
//      (DISPATCH_EXTENSION, BUS_EXTENSION).
// Dispatch blocks (version 4, dispatch-block.ts) are written raw by the probe's drain.
// This writer writes protocol version 4 (PROTOCOL_VERSION); RecordDecoder reads 1 to 4.

import { ByteWriter, putSvarint, putUvarint, utf8Encode } from './bytes';
import { FRAME_HEADER_BYTES, FrameKind } from './framing';
import { BUS_EXTENSION, DISPATCH_EXTENSION, RecordCode } from './records';
import { SITE_ORIGINS } from './site-origin';

const NS_PER_MS = 1e6;
/** Largest `sampleEvery` a handler record carries (the flags stay a safe varint). */
const MAX_SAMPLE_EVERY_SENT = 2 ** 40;
const MAX_NS = Number.MAX_SAFE_INTEGER;

export function toNs(ms: number): number {
  const ns = Math.round(ms * NS_PER_MS);
  return ns > MAX_NS ? MAX_NS : ns < -MAX_NS ? -MAX_NS : ns;
}
function durationNs(ms: number): number {
  const ns = Math.round(ms * NS_PER_MS);
  return ns > 0 ? (ns > MAX_NS ? MAX_NS : ns) : 0;
}

/** Bytes of `value` as an unsigned varint. */
function uvarintSize(value: number): number {
  let n = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    n++;
  }
  return n;
}

/** An owner id as the flags carry it: a positive integer below 2^50 (so the flags stay a safe varint), else 0. */
function ownerFlag(ownerId: number): number {
  return Number.isInteger(ownerId) && ownerId > 0 && ownerId < 2 ** 50 ? ownerId : 0;
}

function originFlag(code: number): number {
  return code >= 1 && code <= SITE_ORIGINS.length ? code : 0;
}

export class RecordWriter {
  private readonly w: ByteWriter;
  /** Time (ns) and sequence the next `t`/`q` field is relative to (see the header). */
  private timeCursor = 0;
  private seqCursor = 0;
  /** Records in the current batch, `drops` records excluded. */
  records = 0;
  /** Dispatch records in the current batch (for exact drop accounting). */
  dispatches = 0;

  constructor(initialCapacity = 128 * 1024) {
    this.w = new ByteWriter(initialCapacity);
    this.begin();
  }

  /** Starts a new batch (discarding an unfinished one). */
  begin(): void {
    this.w.reset();
    this.w.u32le(0);
    this.w.u8(FrameKind.Records);
    this.timeCursor = 0;
    this.seqCursor = 0;
    this.records = 0;
    this.dispatches = 0;
  }

  /** Bytes of the current batch, header included. */
  get byteLength(): number {
    return this.w.length;
  }

  get isEmpty(): boolean {
    return this.w.length === FRAME_HEADER_BYTES;
  }

  /**
   * The batch as one complete frame: a copy, as sinks may hold it while the writer moves on; or, with
   * `view`, a view of the writer's buffer, valid until `begin()`, which the caller then calls (for
   * sinks that copy what they are given, as a WebSocket's `send` does: no second copy).
   */
  finish(view = false): Uint8Array {
    this.w.patchU32le(0, this.w.length - 4);
    if (view) return this.w.written();
    const frame = this.w.toBytes();
    this.begin();
    return frame;
  }

  /**
   * Raw access for an encoder specialised to one record kind (the probe's drain writes runs of
   * dispatch records straight from its ring): room for `n` more bytes, written from `position` on,
   * then `commitRaw` stores the position and the counts. What is written in between must not use
   * the time or sequence cursors (dispatch blocks do not).
   */
  reserveRaw(n: number): Uint8Array {
    return this.w.reserve(n);
  }

  get position(): number {
    return this.w.length;
  }

  commitRaw(position: number, records: number, dispatches: number): void {
    this.w.length = position;
    this.records += records;
    this.dispatches += dispatches;
  }

  private time(ms: number): void {
    const ns = toNs(ms);
    this.w.svarint(ns - this.timeCursor);
    this.timeCursor = ns;
  }
  private seq(seq: number): void {
    this.w.svarint(seq - this.seqCursor);
    this.seqCursor = seq;
  }

  stringDef(id: number, text: string): void {
    const w = this.w;
    w.u8(RecordCode.String);
    w.uvarint(id);
    w.string(text);
    this.records++;
  }

  siteDef(id: number, fileId: number, line: number, column: number, functionId: number): void {
    const w = this.w;
    w.u8(RecordCode.Site);
    w.uvarint(id);
    w.uvarint(fileId);
    w.uvarint(line);
    w.uvarint(column);
    w.uvarint(functionId);
    this.records++;
  }

  /**
   * `kindCode`: BUS_KINDS index + 1, 0 when not said; `classNameId` 0 when none. Both go to the
   * record's extension block (version 3), only when given.
   */
  busCreated(time: number, bus: number, nameId: number, kindCode = 0, classNameId = 0): void {
    const w = this.w;
    w.u8(RecordCode.BusCreated);
    this.time(time);
    w.uvarint(bus);
    w.uvarint(nameId);
    const fields = (kindCode > 0 ? 1 : 0) + (classNameId > 0 ? 1 : 0);
    w.uvarint(fields);
    if (kindCode > 0) {
      w.uvarint(BUS_EXTENSION.kind);
      w.uvarint(uvarintSize(kindCode - 1));
      w.uvarint(kindCode - 1);
    }
    if (classNameId > 0) {
      w.uvarint(BUS_EXTENSION.className);
      w.uvarint(uvarintSize(classNameId));
      w.uvarint(classNameId);
    }
    this.records++;
  }

  busDisposed(time: number, bus: number): void {
    this.w.u8(RecordCode.BusDisposed);
    this.time(time);
    this.w.uvarint(bus);
    this.records++;
  }

  /**
   * `owner` is written inline (descriptions like `Widget#17` are per instance: interning them would
   * grow the table with every leak). `ownerId` (0: unknown) rides in the flags above bits 0–1, where
   * readers that predate it do not look. Without an owner those bits carry `originCode` instead
   * (SITE_ORIGINS index + 1, 0: not said), which readers that predate it ignore as well.
   */
  subscribe(
    time: number,
    subscriptionId: number,
    bus: number,
    typeId: number,
    priority: number,
    labelId: number,
    owner: string | null,
    once: boolean,
    siteId: number,
    ownerId = 0,
    originCode = 0,
  ): void {
    const w = this.w;
    w.u8(RecordCode.Subscribe);
    this.time(time);
    w.uvarint(subscriptionId);
    w.uvarint(bus);
    w.uvarint(typeId);
    w.f64(priority);
    w.uvarint(labelId);
    w.uvarint((once ? 1 : 0) + (owner !== null ? 2 + ownerFlag(ownerId) * 4 : originFlag(originCode) * 4));
    if (owner !== null) w.string(owner);
    w.uvarint(siteId);
    this.records++;
  }

  /** `reasonCode`: index in UNSUBSCRIBE_REASONS. */
  unsubscribe(time: number, subscriptionId: number, reasonCode: number, calls: number): void {
    const w = this.w;
    w.u8(RecordCode.Unsubscribe);
    this.time(time);
    w.uvarint(subscriptionId);
    w.uvarint(reasonCode);
    w.uvarint(calls);
    this.records++;
  }

  /**
   * `startBound`: the start's error bound (ms, ≥ 0). The optional fields go to the extension block:
   * `durationBound` (ms; 0 = not sent), `threadId` (0 = none), `traceId` (null = none), `queued` (ms
   * from a producer port's enqueue to `start`; 0 = not sent, sent only with a `threadId`).
   */
  dispatch(
    seq: number,
    start: number,
    duration: number,
    startBound: number,
    bus: number,
    typeId: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    siteId: number,
    durationBound = 0,
    threadId = 0,
    traceId: string | null = null,
    queued = 0,
  ): void {
    // Hot: one capacity check for the whole record (13 fields, at most 8 bytes each), then every
    // field written through a local position, stored once.
    const w = this.w;
    const buf = w.reserve(112);
    let p = w.length;
    buf[p++] = RecordCode.Dispatch;
    p = putSvarint(buf, p, seq - this.seqCursor);
    this.seqCursor = seq;
    const ns = toNs(start);
    p = putSvarint(buf, p, ns - this.timeCursor);
    this.timeCursor = ns;
    p = putUvarint(buf, p, durationNs(duration));
    p = putUvarint(buf, p, durationNs(startBound));
    p = putUvarint(buf, p, bus);
    p = putUvarint(buf, p, typeId);
    p = putUvarint(buf, p, delivered);
    p = putUvarint(buf, p, consumedBy);
    p = putUvarint(buf, p, depth);
    p = putUvarint(buf, p, parentSeq === 0 ? 0 : seq - parentSeq);
    p = putUvarint(buf, p, siteId);
    if (durationBound === 0 && threadId === 0 && traceId === null) {
      buf[p++] = 0; // no extension fields
      w.length = p;
    } else {
      w.length = p;
      this.dispatchExtensions(durationBound, threadId, traceId, threadId === 0 ? 0 : queued);
    }
    this.records++;
    this.dispatches++;
  }

  /** The extension block: count, then (key, byte length, bytes) per field (rare: off the common path). */
  private dispatchExtensions(durationBound: number, threadId: number, traceId: string | null, queued: number): void {
    const w = this.w;
    w.uvarint((durationBound !== 0 ? 1 : 0) + (threadId !== 0 ? 1 : 0) + (traceId !== null ? 1 : 0) + (queued !== 0 ? 1 : 0));
    if (durationBound !== 0) {
      const ns = durationNs(durationBound);
      w.uvarint(DISPATCH_EXTENSION.durationBound);
      w.uvarint(uvarintSize(ns));
      w.uvarint(ns);
    }
    if (threadId !== 0) {
      w.uvarint(DISPATCH_EXTENSION.threadId);
      w.uvarint(uvarintSize(threadId));
      w.uvarint(threadId);
    }
    if (traceId !== null) {
      const bytes = utf8Encode(traceId);
      w.uvarint(DISPATCH_EXTENSION.traceId);
      w.uvarint(uvarintSize(bytes.length) + bytes.length);
      w.uvarint(bytes.length);
      w.bytes(bytes);
    }
    if (queued !== 0) {
      const ns = durationNs(queued);
      w.uvarint(DISPATCH_EXTENSION.enqueuedAt);
      w.uvarint(uvarintSize(ns));
      w.uvarint(ns);
    }
  }

  /**
   * `sampleEvery`: the call was timed on 1 dispatch in N of its type and stands for N calls (0 or 1:
   * every call). Carried above bit 0 of the flags, so readers that predate it still read `consumed`.
   */
  handler(seq: number, subscriptionId: number, start: number, duration: number, consumed: boolean, sampleEvery = 0): void {
    const w = this.w;
    const buf = w.reserve(56);
    let p = w.length;
    buf[p++] = RecordCode.Handler;
    p = putSvarint(buf, p, seq - this.seqCursor);
    this.seqCursor = seq;
    p = putUvarint(buf, p, subscriptionId);
    const ns = toNs(start);
    p = putSvarint(buf, p, ns - this.timeCursor);
    this.timeCursor = ns;
    p = putUvarint(buf, p, durationNs(duration));
    const flags = consumed ? 1 : 0;
    if (sampleEvery > 1) p = putUvarint(buf, p, flags + 2 * Math.min(Math.floor(sampleEvery), MAX_SAMPLE_EVERY_SENT));
    else buf[p++] = flags;
    w.length = p;
    this.records++;
  }

  handlerError(seq: number, subscriptionId: number, time: number, message: string, stack: string | null): void {
    const w = this.w;
    w.u8(RecordCode.HandlerError);
    this.seq(seq);
    w.uvarint(subscriptionId);
    this.time(time);
    w.string(message);
    w.uvarint(stack === null ? 0 : 1);
    if (stack !== null) w.string(stack);
    this.records++;
  }

  payload(seq: number, json: string, truncated: boolean): void {
    const w = this.w;
    w.u8(RecordCode.Payload);
    this.seq(seq);
    w.uvarint(truncated ? 1 : 0);
    w.string(json);
    this.records++;
  }

  enqueue(time: number, bus: number, typeId: number, queueLength: number): void {
    const w = this.w;
    w.u8(RecordCode.Enqueue);
    this.time(time);
    w.uvarint(bus);
    w.uvarint(typeId);
    w.uvarint(queueLength);
    this.records++;
  }

  flush(time: number, bus: number, dispatched: number): void {
    const w = this.w;
    w.u8(RecordCode.Flush);
    this.time(time);
    w.uvarint(bus);
    w.uvarint(dispatched);
    this.records++;
  }

  depthLimit(time: number, bus: number, typeId: number, depth: number, parentSeq: number): void {
    const w = this.w;
    w.u8(RecordCode.DepthLimit);
    this.time(time);
    w.uvarint(bus);
    w.uvarint(typeId);
    w.uvarint(depth);
    this.seq(parentSeq);
    this.records++;
  }

  /** `ownerId` (0: unknown) rides in the has-owner field above bit 0, like in `subscribe`. */
  ownerCollected(time: number, bus: number, owner: string | null, removed: number, ownerId = 0): void {
    const w = this.w;
    w.u8(RecordCode.OwnerCollected);
    this.time(time);
    w.uvarint(bus);
    w.uvarint(owner !== null ? 1 + ownerFlag(ownerId) * 2 : 0);
    if (owner !== null) w.string(owner);
    w.uvarint(removed);
    this.records++;
  }

  /** `reasonCode`: index in DROP_REASONS. Not counted in `records` (it describes other records). */
  drops(count: number, dispatches: number, reasonCode: number): void {
    const w = this.w;
    w.u8(RecordCode.Drops);
    w.uvarint(count);
    w.uvarint(dispatches);
    w.uvarint(reasonCode);
  }
}
