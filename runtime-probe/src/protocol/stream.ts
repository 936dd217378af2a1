// The probe → client stream as messages: control messages and decoded record batches in arrival
// order. A live connection and a trace file carry the same frames, so both use this decoder.

import { ByteReader } from './bytes';
import { ProtocolError } from './errors';
import { FrameDecoder, FrameKind, type Frame } from './framing';
import { MAX_PROBE_FRAME_BYTES } from './limits';
import type { ProbeMessage } from './messages';
import { parseProbeMessage } from './probe-messages';
import { RecordDecoder, type RecordDecoderLimits, type RecordSink } from './record-decoder';
import { MAX_STRING_TABLE_BYTES, MAX_STRING_TABLE_ENTRIES } from './limits';
import { RecordCode, type BusRecord } from './records';

/** Worker threads one stream may carry (version 5); more is a malformed stream. */
export const MAX_STREAM_THREADS = 256;
/** Each thread's own tables get this share of the stream's caps, so all of them stay bounded together. */
const THREAD_TABLE_SHARE = 16;

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
  /**
   * Version 5: the worker thread (`threadId` ≥ 1) whose records these are (a `thread-records`
   * record); absent for the main thread's. Its `bus-created` records carry `thread` too.
   */
  readonly thread?: number;
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

  /** Version 5: each worker thread's records use its own string and site ids, so each has its own decoder. */
  private readonly threadDecoders = new Map<number, RecordDecoder>();
  private readonly threadLimits: RecordDecoderLimits;

  constructor(maxFrameBytes = MAX_PROBE_FRAME_BYTES, tableLimits?: RecordDecoderLimits) {
    this.frames = new FrameDecoder(maxFrameBytes);
    this.records = new RecordDecoder(tableLimits);
    const limits = tableLimits ?? { maxEntries: MAX_STRING_TABLE_ENTRIES, maxStringBytes: MAX_STRING_TABLE_BYTES };
    this.threadLimits = {
      maxEntries: Math.max(1, Math.floor(limits.maxEntries / THREAD_TABLE_SHARE)),
      maxStringBytes: Math.max(2, Math.floor(limits.maxStringBytes / THREAD_TABLE_SHARE)),
    };
  }

  /** The decoder of one worker thread's records (created at its first batch). */
  private threadDecoder(thread: number): RecordDecoder {
    let d = this.threadDecoders.get(thread);
    if (d === undefined) {
      if (this.threadDecoders.size >= MAX_STREAM_THREADS) throw new ProtocolError('malformed', `records of more than ${MAX_STREAM_THREADS} threads`);
      d = new RecordDecoder(this.threadLimits);
      this.threadDecoders.set(thread, d);
    }
    d.version = this.records.version;
    d.blockClock.stepNs = this.records.blockClock.stepNs;
    return d;
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
        if (m.type === 'welcome') {
          this.records.version = m.protocolVersion;
          this.records.blockClock.stepNs = Math.round((m.clockStep ?? 0) * 1e6);
        }
        return m;
      }
      case FrameKind.Records: {
        if (frame.body.length > 0 && frame.body[0] === RecordCode.ThreadRecords && this.records.version >= 5) return this.decodeThreadRecords(frame.body, sink);
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

  /**
   * A `thread-records` frame (version 5): code 17, threadId, then the thread's own record batch to
   * the frame's end, decoded with that thread's tables. Its `bus-created` records are tagged with it.
   */
  private decodeThreadRecords(body: Uint8Array, sink?: RecordSink): RecordsMessage {
    const r = new ByteReader(body);
    r.u8();
    const thread = r.uvarint();
    if (thread === 0) throw new ProtocolError('malformed', 'thread-records of thread 0 (the main thread has no wrapper)');
    const inner = body.subarray(r.pos);
    const d = this.threadDecoder(thread);
    const tag = (record: BusRecord): BusRecord => (record.kind === 'bus-created' ? { ...record, thread } : record);
    if (sink !== undefined) {
      const tagging: RecordSink = { dispatch: sink.dispatch.bind(sink), record: (record) => sink.record(tag(record)) };
      if (sink.dispatchRun !== undefined) tagging.dispatchRun = sink.dispatchRun.bind(sink);
      const applied = d.decodeInto(inner, tagging);
      return { type: 'records', records: [], applied, thread };
    }
    const records: BusRecord[] = [];
    d.decode(inner, records);
    for (let i = 0; i < records.length; i++) if (records[i].kind === 'bus-created') records[i] = tag(records[i]);
    return { type: 'records', records, thread };
  }
}
