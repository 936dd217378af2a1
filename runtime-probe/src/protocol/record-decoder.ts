// Decodes record batches into `BusRecord`s, resolving interned strings and sites. One decoder per
// stream (connection or trace file): it holds the definitions announced so far — at most
// MAX_STRING_TABLE_ENTRIES strings (and as many sites) and MAX_STRING_TABLE_BYTES of text, so a
// buggy or hostile probe that keeps defining names cannot grow the reader's heap without bound.
// Definitions past the cap are counted, not kept: the names resolve to OVERFLOW_NAME and such sites
// to none (PROTOCOL.md, "String table caps").

import { ByteReader } from './bytes';
import {
  BLOCK_AT,
  BLOCK_ENTRY_BYTES,
  BlockClock,
  DISPATCH_COLUMNS,
  DURATION_BOUND_STATED_NS,
  MAX_BLOCK_FIELD,
  MAX_COLUMN_ENTRIES,
  MIN_TICK_BOUND_NS,
} from './dispatch-block';
import { DispatchColumns } from './dispatch-columns';
import { ProtocolError } from './errors';
import { MAX_STRING_TABLE_BYTES, MAX_STRING_TABLE_ENTRIES, OVERFLOW_NAME } from './limits';
import { PROTOCOL_VERSION } from './version';
import {
  BUS_EXTENSION,
  BUS_KINDS,
  DISPATCH_EXTENSION,
  DROP_REASONS,
  RecordCode,
  UNSUBSCRIBE_REASONS,
  type BusKind,
  type BusRecord,
  type DispatchRecord,
  type SiteInfo,
} from './records';
import { SITE_ORIGINS } from './site-origin';

const MS_PER_NS = 1e-6;
// Wire codes as module-local constants: the decode loop's `case`s then compare against literals
// (a cross-module property read per case costs measurably under some loaders).
const STRING = RecordCode.String;
const SITE = RecordCode.Site;
const BUS_CREATED = RecordCode.BusCreated;
const BUS_DISPOSED = RecordCode.BusDisposed;
const SUBSCRIBE = RecordCode.Subscribe;
const UNSUBSCRIBE = RecordCode.Unsubscribe;
const DISPATCH = RecordCode.Dispatch;
const HANDLER = RecordCode.Handler;
const HANDLER_ERROR = RecordCode.HandlerError;
const PAYLOAD = RecordCode.Payload;
const ENQUEUE = RecordCode.Enqueue;
const FLUSH = RecordCode.Flush;
const DEPTH_LIMIT = RecordCode.DepthLimit;
const OWNER_COLLECTED = RecordCode.OwnerCollected;
const DROPS = RecordCode.Drops;
const DISPATCH_BLOCK = RecordCode.DispatchBlock;
const DISPATCH_COLUMNS_CODE = RecordCode.DispatchColumns;
const BUS_COLUMN = DISPATCH_COLUMNS.indexOf('bus');
const EXT_DURATION_BOUND = DISPATCH_EXTENSION.durationBound;
const EXT_THREAD_ID = DISPATCH_EXTENSION.threadId;
const EXT_TRACE_ID = DISPATCH_EXTENSION.traceId;
const EXT_ENQUEUED_AT = DISPATCH_EXTENSION.enqueuedAt;
const EXT_BUS_KIND = BUS_EXTENSION.kind;
const EXT_CLASS_NAME = BUS_EXTENSION.className;

/**
 * Takes a stream's records as they are decoded, instead of an array of record objects: dispatch
 * records arrive as fields (no object per dispatch — the high-volume record), every other record
 * as its object, all in stream order. For readers that keep their own columns (the extension's
 * model), with their optional extension fields (`traceId`, and `threadId`/`enqueuedAt` of an event from a producer port).
 */
export interface RecordSink {
  /**
   * One dispatch record. Times in ms as in `DispatchRecord`; `startBound` and `durationBound` are 0
   * when absent. `typeId` is the stream's string id of `type` (stable for the decoder's life: a
   * reader may cache by it, checking the name it resolved to).
   */
  dispatch(
    seq: number,
    bus: number,
    type: string,
    typeId: number,
    start: number,
    startBound: number,
    duration: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    site: SiteInfo | null,
    durationBound: number,
    /** The distributed-tracing trace id (extension key 2), when the record carries one. */
    traceId?: string,
    /** The producing thread (extension key 1) of an event posted through a producer port. */
    threadId?: number,
    /** When that thread enqueued it (extension key 4; ms, session clock). */
    enqueuedAt?: number,
  ): void;
  /** Any other record. */
  record(record: BusRecord): void;
  /**
   * Optional: the entries of a dispatch block (either layout), all at once as columns (rows in stream
   * order), instead of a `dispatch` call each. `columns` is the decoder's, reused: read it during the call only.
   */
  dispatchRun?(columns: DispatchColumns): void;
}

/** Bounds of a decoder's tables (tests use small ones). */
export interface RecordDecoderLimits {
  /** Strings kept, and separately sites kept. */
  readonly maxEntries: number;
  /** Text kept, at 2 bytes per UTF-16 code unit. */
  readonly maxStringBytes: number;
}

export class RecordDecoder {
  /** Index = string id; [0] is unused (0 means "none"). Holds ids 1 … keptStrings only. */
  private readonly strings: (string | undefined)[] = [undefined];
  private readonly sites: (SiteInfo | undefined)[] = [undefined];
  /** Highest id defined so far (ids past the kept ones are defined, but folded into the overflow bucket). */
  private definedStrings = 0;
  private definedSites = 0;
  /** Once a table is full it stays full: every later definition is folded (ids stay dense). */
  private stringsFull = false;
  private sitesFull = false;
  private stringChars = 0;
  private folded = 0;
  private appFull = false;
  private readonly maxEntries: number;
  private readonly maxStringChars: number;
  /**
   * The protocol version of the records (the stream's `welcome` says; StreamDecoder sets it). Version
   * 1 dispatch records have no bound and no extension block.
   */
  version: number = PROTOCOL_VERSION;
  /** The reads of the dispatch block being decoded (reused); its `stepNs` is the stream's `welcome.clockStep`. */
  readonly blockClock = new BlockClock();
  /** The block being decoded: its entries and seqBase (set by `blockHead`). */
  private blockCount = 0;
  private blockSeqBase = 0;
  /**
   * Dispatch-columns values, column after column (reused; grows). Unsigned 32-bit, as a writer keeps
   * every field: decoded fields are then small integers, not doubles (record objects stay unboxed).
   */
  private columnValues = new Uint32Array(0);
  /** The entries of the block being decoded, for a sink that takes runs (reused). */
  private readonly run = new DispatchColumns();
  /** `run` while the block being decoded goes to a sink that takes runs, else null. */
  private activeRun: DispatchColumns | null = null;

  constructor(limits: RecordDecoderLimits = { maxEntries: MAX_STRING_TABLE_ENTRIES, maxStringBytes: MAX_STRING_TABLE_BYTES }) {
    this.maxEntries = limits.maxEntries;
    this.maxStringChars = Math.floor(limits.maxStringBytes / 2);
  }

  /**
   * The head of a dispatch block or dispatch-columns record, from after its code: its count, seqBase
   * and clock reads (loaded into `blockClock`, ticks relative to the first read, times in ns).
   */
  private blockHead(r: ByteReader): void {
    const count = r.uvarint();
    this.blockSeqBase = r.uvarint();
    const reads = r.uvarint();
    if (count === 0 || reads === 0) throw new ProtocolError('malformed', `dispatch block of ${count} entries and ${reads} clock reads`);
    if (reads > r.remaining) throw new ProtocolError('truncated', `dispatch block of ${reads} clock reads past the batch's end`);
    this.blockCount = count;
    const clock = this.blockClock;
    clock.reset(reads);
    const ticks = clock.ticks;
    const times = clock.times;
    r.uvarint(); // the first read's absolute tick: entries are relative to it
    let tick = 0;
    let time = r.svarint();
    ticks[0] = 0;
    times[0] = time;
    for (let i = 1; i < reads; i++) {
      tick += r.uvarint();
      time += r.svarint();
      ticks[i] = tick;
      times[i] = time;
    }
  }

  /**
   * One dispatch block (dispatch-block.ts), from after its code: each entry as a dispatch record, to
   * `sink` or `list`. Returns the entries. Touches neither cursor of the batch.
   */
  private decodeBlock(r: ByteReader, list: BusRecord[] | null, sink: RecordSink | null): number {
    this.blockHead(r);
    const count = this.blockCount;
    const seqBase = this.blockSeqBase;
    if (count * BLOCK_ENTRY_BYTES > r.remaining) throw new ProtocolError('truncated', `dispatch block of ${count} entries past the batch's end`);
    const view = r.view;
    let e = r.pos;
    r.pos += count * BLOCK_ENTRY_BYTES;
    this.beginRun(count, sink);
    for (let i = 0; i < count; i++, e += BLOCK_ENTRY_BYTES) {
      const seq = seqBase + view.getUint32(e + BLOCK_AT.seq, true);
      this.blockEntry(
        seq,
        view.getUint32(e + BLOCK_AT.startTick, true),
        view.getUint32(e + BLOCK_AT.endTick, true),
        view.getUint32(e + BLOCK_AT.bus, true),
        view.getUint32(e + BLOCK_AT.type, true),
        view.getUint32(e + BLOCK_AT.delivered, true),
        view.getUint32(e + BLOCK_AT.consumedBy, true),
        view.getUint32(e + BLOCK_AT.depth, true),
        view.getUint32(e + BLOCK_AT.parentDelta, true),
        view.getUint32(e + BLOCK_AT.site, true),
        list,
        sink,
      );
    }
    if (this.activeRun !== null) this.deliverRun(sink as RecordSink);
    return count;
  }

  /** One dispatch-columns record (version 6, dispatch-block.ts), from after its code; like `decodeBlock`. */
  private decodeColumns(r: ByteReader, list: BusRecord[] | null, sink: RecordSink | null): number {
    this.blockHead(r);
    const count = this.blockCount;
    const seqBase = this.blockSeqBase;
    if (count > MAX_COLUMN_ENTRIES) throw new ProtocolError('malformed', `dispatch columns of ${count} entries (at most ${MAX_COLUMN_ENTRIES})`);
    const columns = DISPATCH_COLUMNS.length;
    if (this.columnValues.length < columns * count) this.columnValues = new Uint32Array(columns * Math.max(count, 1024));
    const c = this.columnValues;
    const buf = r.buf;
    // The bus column's base, beyond the u32 values when it is (a page's Web Workers' bus ids are > 2^32).
    let busBase = 0;
    for (let k = 0, at = 0; k < columns; k++, at += count) {
      const width = r.u8();
      const base = r.uvarint();
      if (width === 0 && k === BUS_COLUMN) {
        busBase = base;
        c.fill(0, at, at + count);
        continue;
      }
      // Elsewhere a field is a u32, as in a dispatch block: a larger base would be cut.
      if (base > MAX_BLOCK_FIELD) throw new ProtocolError('malformed', `dispatch column ${DISPATCH_COLUMNS[k]} of base ${base}`);
      if (width === 0) {
        c.fill(base, at, at + count);
        continue;
      }
      if (width !== 1 && width !== 2 && width !== 4) throw new ProtocolError('malformed', `dispatch column ${DISPATCH_COLUMNS[k]} of width ${width}`);
      if (width * count > r.remaining) throw new ProtocolError('truncated', `dispatch columns of ${count} entries past the batch's end`);
      let p = r.pos;
      r.pos += width * count;
      const to = at + count;
      if (width === 1) {
        // a widening copy, then the base (a byte loop with the add was the decode's slowest line)
        c.set(buf.subarray(p, p + count), at);
        if (base !== 0) for (let i = at; i < to; i++) c[i] += base;
      } else if (width === 2) for (let i = at; i < to; i++, p += 2) c[i] = base + (buf[p] | (buf[p + 1] << 8));
      else for (let i = at; i < to; i++, p += 4) c[i] = base + (buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16)) + buf[p + 3] * 0x1000000;
    }
    this.beginRun(count, sink);
    if (this.activeRun !== null) {
      this.columnsToRun(count, seqBase, busBase, this.activeRun);
      this.deliverRun(sink as RecordSink);
      return count;
    }
    let tick = 0;
    for (let i = 0; i < count; i++) {
      // zigzag, in 32-bit integer arithmetic (a writer keeps these columns within u32)
      const zs = c[i];
      const zt = c[count + i];
      tick += (zt >>> 1) ^ -(zt & 1);
      this.blockEntry(
        seqBase + i + ((zs >>> 1) ^ -(zs & 1)),
        tick,
        tick + c[2 * count + i],
        busBase + c[3 * count + i],
        c[4 * count + i],
        c[5 * count + i],
        c[6 * count + i],
        c[7 * count + i],
        c[8 * count + i],
        c[9 * count + i],
        list,
        sink,
      );
    }
    if (this.activeRun !== null) this.deliverRun(sink as RecordSink);
    return count;
  }

  /**
   * The decoded columns of a dispatch-columns record (in `columnValues`) as rows of `run`, as
   * `blockEntry` would fill them: the columns a row takes as they are in one copy each, the rest
   * row by row. `run.count` counts the rows done, so an error in a row leaves the ones before it.
   */
  private columnsToRun(count: number, seqBase: number, busBase: number, run: DispatchColumns): void {
    const c = this.columnValues;
    // A bus base beyond the u32 values comes only with a width-0 bus column (decodeColumns).
    if (busBase === 0) run.bus.set(c.subarray(3 * count, 4 * count));
    else run.bus.fill(busBase, 0, count);
    run.typeId.set(c.subarray(4 * count, 5 * count));
    run.delivered.set(c.subarray(5 * count, 6 * count));
    run.consumedBy.set(c.subarray(6 * count, 7 * count));
    run.depth.set(c.subarray(7 * count, 8 * count));
    const clock = this.blockClock;
    const { ticks, times, count: reads, stepNs } = clock;
    const exactBound = MIN_TICK_BOUND_NS + stepNs;
    const {
      seq: seqs,
      start: starts,
      startBound: startBounds,
      duration: durations,
      durationBound: durationBounds,
      parentSeq: parents,
      type: types,
      site: sites,
    } = run;
    const strings = this.strings;
    let tick = 0;
    for (let i = 0; i < count; i++) {
      const zs = c[i];
      const zt = c[count + i];
      const typeId = c[4 * count + i];
      const siteId = c[9 * count + i];
      const parentDelta = c[8 * count + i];
      tick += (zt >>> 1) ^ -(zt & 1);
      const seq = seqBase + i + ((zs >>> 1) ^ -(zs & 1));
      // As blockEntry: times rounded to whole ns, the duration's bound stated past a threshold. Each
      // tick as `clock.resolve` would resolve it, inline while it lies in the hinted segment between
      // two reads (nearly always; ticks nearly increase): locals instead of the clock's fields.
      // Twice (start, end) on purpose: one helper for both (its bound through a Float64Array cell,
      // or a loop over the two ticks) decoded dispatch columns 6–8% slower into a bare run sink
      // (best of 20 rounds: 15.8–16.7 against 17.3–17.9 M rows/s, 5 of 6 alternating processes each).
      let k = tick;
      let hi = clock.hint;
      let time: number;
      let bound: number;
      if (hi < reads && ticks[hi] >= k && ticks[hi - 1] < k) {
        if (ticks[hi] === k) {
          time = times[hi];
          bound = exactBound;
        } else {
          const kLo = ticks[hi - 1];
          const tLo = times[hi - 1];
          const tHi = times[hi];
          time = tLo + ((tHi - tLo) * (k - kLo)) / (ticks[hi] - kLo);
          const b = time - tLo > tHi - time ? time - tLo : tHi - time;
          bound = (b > MIN_TICK_BOUND_NS ? b : MIN_TICK_BOUND_NS) + stepNs;
        }
      } else {
        clock.resolve(k);
        time = clock.time;
        bound = clock.bound;
      }
      const startNs = Math.round(time);
      const startBoundNs = Math.round(bound);
      k = tick + c[2 * count + i];
      hi = clock.hint;
      if (hi < reads && ticks[hi] >= k && ticks[hi - 1] < k) {
        if (ticks[hi] === k) {
          time = times[hi];
          bound = exactBound;
        } else {
          const kLo = ticks[hi - 1];
          const tLo = times[hi - 1];
          const tHi = times[hi];
          time = tLo + ((tHi - tLo) * (k - kLo)) / (ticks[hi] - kLo);
          const b = time - tLo > tHi - time ? time - tLo : tHi - time;
          bound = (b > MIN_TICK_BOUND_NS ? b : MIN_TICK_BOUND_NS) + stepNs;
        }
      } else {
        clock.resolve(k);
        time = clock.time;
        bound = clock.bound;
      }
      const endNs = Math.round(time);
      const boundsNs = startBoundNs + Math.round(bound);
      const known = strings[typeId];
      const type = known !== undefined ? known : this.str(typeId);
      const site = siteId === 0 ? null : this.optSite(siteId);
      seqs[i] = seq;
      starts[i] = startNs * MS_PER_NS;
      startBounds[i] = startBoundNs * MS_PER_NS;
      durations[i] = (endNs > startNs ? endNs - startNs : 0) * MS_PER_NS;
      durationBounds[i] = boundsNs > DURATION_BOUND_STATED_NS ? boundsNs * MS_PER_NS : 0;
      parents[i] = parentDelta === 0 ? 0 : seq - parentDelta;
      types[i] = type;
      sites[i] = site;
      run.count = i + 1;
    }
  }

  /**
   * A sink that takes runs gets a block's entries as columns, in one call (dispatch-columns.ts says
   * why); `blockEntry` fills them.
   */
  private beginRun(count: number, sink: RecordSink | null): void {
    const run = sink !== null && sink.dispatchRun !== undefined ? this.run : null;
    if (run !== null) run.reset(count);
    this.activeRun = run;
  }

  /** Hands the columns filled so far to the sink (all of a block, or the entries before an error in it). */
  private deliverRun(sink: RecordSink): void {
    const run = this.run;
    if (this.activeRun !== null && run.count > 0) sink.dispatchRun?.(run);
    run.count = 0;
    this.activeRun = null;
  }

  /** One entry of a dispatch block or dispatch-columns record: its ticks resolved, as a dispatch record. */
  private blockEntry(
    seq: number,
    startTick: number,
    endTick: number,
    bus: number,
    typeId: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentDelta: number,
    siteId: number,
    list: BusRecord[] | null,
    sink: RecordSink | null,
  ): void {
    const clock = this.blockClock;
    clock.resolve(startTick);
    const startNs = Math.round(clock.time);
    const startBoundNs = Math.round(clock.bound);
    clock.resolve(endTick);
    const endNs = Math.round(clock.time);
    const boundsNs = startBoundNs + Math.round(clock.bound);
    const type = this.str(typeId);
    const site = this.optSite(siteId);
    const parentSeq = parentDelta === 0 ? 0 : seq - parentDelta;
    const start = startNs * MS_PER_NS;
    const startBound = startBoundNs * MS_PER_NS;
    const duration = (endNs > startNs ? endNs - startNs : 0) * MS_PER_NS;
    // Stated only when an end fell in a long window, as the varint form does.
    const durationBound = boundsNs > DURATION_BOUND_STATED_NS ? boundsNs * MS_PER_NS : 0;
    const run = this.activeRun;
    if (run !== null) {
      const i = run.count;
      run.seq[i] = seq;
      run.bus[i] = bus;
      run.typeId[i] = typeId;
      run.type[i] = type;
      run.start[i] = start;
      run.startBound[i] = startBound;
      run.duration[i] = duration;
      run.durationBound[i] = durationBound;
      run.delivered[i] = delivered;
      run.consumedBy[i] = consumedBy;
      run.depth[i] = depth;
      run.parentSeq[i] = parentSeq;
      run.site[i] = site;
      run.count = i + 1;
    } else if (sink !== null) {
      sink.dispatch(seq, bus, type, typeId, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site, durationBound);
    } else if (durationBound === 0) {
      (list as BusRecord[]).push({ kind: 'dispatch', seq, bus, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site });
    } else {
      (list as BusRecord[]).push({
        kind: 'dispatch',
        seq,
        bus,
        type,
        start,
        startBound,
        duration,
        delivered,
        consumedBy,
        depth,
        parentSeq,
        site,
        durationBound,
      });
    }
  }

  /** Number of strings defined so far (ids 1 … n are valid when defined densely). */
  get stringCount(): number {
    return this.definedStrings;
  }

  /** Strings held in memory (≤ maxEntries), and their text in bytes (2 per UTF-16 code unit). */
  get keptStrings(): { readonly count: number; readonly bytes: number } {
    return { count: this.strings.length - 1, bytes: this.stringChars * 2 };
  }

  /** String and site definitions folded into the overflow bucket because this table was full. */
  get overflowedDefinitions(): number {
    return this.folded;
  }

  /** True once the probe itself defined OVERFLOW_NAME: its own table (in the app) is full. */
  get appTableFull(): boolean {
    return this.appFull;
  }

  /** The definition of string `id`, if announced (OVERFLOW_NAME for a folded one). */
  stringById(id: number): string | undefined {
    return id > 0 && id <= this.definedStrings ? this.str(id) : undefined;
  }

  /**
   * Appends the records of one batch body (the frame body, after the kind byte) to `out`.
   * Throws `ProtocolError` on truncation, unknown record codes or undefined ids; records decoded
   * before the error are already in `out`.
   */
  decode(body: Uint8Array, out: BusRecord[]): void {
    this.decodeTo(body, out, null);
  }

  /**
   * Hands the records of one batch body to `sink`, in order, dispatch records as fields (see
   * `RecordSink`). Returns the number of records. Throws like `decode`; records before the error
   * have reached the sink.
   */
  decodeInto(body: Uint8Array, sink: RecordSink): number {
    return this.decodeTo(body, null, sink);
  }

  private decodeTo(body: Uint8Array, list: BusRecord[] | null, sink: RecordSink | null): number {
    const r = new ByteReader(body);
    let n = 0;
    // Every non-dispatch record goes through here; dispatch records go to the sink as fields.
    const out = { push: (record: BusRecord): void => void (list !== null ? list.push(record) : (sink as RecordSink).record(record)) };
    const v1 = this.version === 1;
    const v3 = this.version >= 3;
    let timeNs = 0;
    let seq = 0;
    while (r.pos < r.end) {
      const code = r.u8();
      n++;
      switch (code) {
        case STRING: {
          const id = r.uvarint();
          const text = this.defineString(id, r.string());
          out.push({ kind: 'string', id, text });
          break;
        }
        case SITE: {
          const id = r.uvarint();
          const file = this.str(r.uvarint());
          const line = r.uvarint();
          const column = r.uvarint();
          const functionName = this.optStr(r.uvarint());
          const site: SiteInfo = Object.freeze({ file, line, column, functionName });
          this.defineSite(id, site);
          out.push({ kind: 'site', id, site });
          break;
        }
        case BUS_CREATED: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const name = this.str(r.uvarint());
          if (!v3) {
            out.push({ kind: 'bus-created', time: timeNs * MS_PER_NS, bus, name });
            break;
          }
          let busKind: BusKind | undefined;
          let className: string | undefined;
          const extensions = r.uvarint();
          for (let i = 0; i < extensions; i++) {
            const key = r.uvarint();
            const length = r.uvarint();
            if (length > r.remaining) throw new ProtocolError('truncated', `extension field ${key} of ${length} bytes past the batch's end`);
            const end = r.pos + length;
            if (key === EXT_BUS_KIND) {
              const code = r.uvarint();
              busKind = code < BUS_KINDS.length ? BUS_KINDS[code] : undefined; // a kind from a newer probe: not said
            } else if (key === EXT_CLASS_NAME) className = this.str(r.uvarint());
            if (r.pos > end) throw new ProtocolError('malformed', `extension field ${key} runs past its ${length} bytes`);
            r.pos = end; // unknown keys (and any rest of a known one) are skipped
          }
          out.push({
            kind: 'bus-created',
            time: timeNs * MS_PER_NS,
            bus,
            name,
            ...(busKind !== undefined ? { busKind } : {}),
            ...(className !== undefined ? { className } : {}),
          });
          break;
        }
        case BUS_DISPOSED: {
          timeNs += r.svarint();
          out.push({ kind: 'bus-disposed', time: timeNs * MS_PER_NS, bus: r.uvarint() });
          break;
        }
        case SUBSCRIBE: {
          timeNs += r.svarint();
          const subscriptionId = r.uvarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          const priority = r.f64();
          const label = this.optStr(r.uvarint());
          const flags = r.uvarint();
          const once = (flags & 1) === 1;
          const owner = (flags & 2) === 2 ? r.string() : null;
          const site = this.optSite(r.uvarint());
          // Above bits 0–1: the owner's id (0 = not sent), or without an owner the subscriber's origin
          // (SITE_ORIGINS index + 1; 0, or a code from a newer probe: not said). Arithmetic: flags may exceed 32 bits.
          const upper = Math.floor(flags / 4);
          const ownerId = owner === null ? 0 : upper;
          const origin = owner === null && upper >= 1 && upper <= SITE_ORIGINS.length ? SITE_ORIGINS[upper - 1] : undefined;
          const time = timeNs * MS_PER_NS;
          if (ownerId !== 0) out.push({ kind: 'subscribe', time, subscriptionId, bus, type, priority, label, owner, once, site, ownerId });
          else if (origin !== undefined) out.push({ kind: 'subscribe', time, subscriptionId, bus, type, priority, label, owner, once, site, origin });
          else out.push({ kind: 'subscribe', time, subscriptionId, bus, type, priority, label, owner, once, site });
          break;
        }
        case UNSUBSCRIBE: {
          timeNs += r.svarint();
          const subscriptionId = r.uvarint();
          const reasonCode = r.uvarint();
          const reason = UNSUBSCRIBE_REASONS[reasonCode];
          if (reason === undefined) throw new ProtocolError('malformed', `unknown unsubscribe reason code ${reasonCode}`);
          out.push({ kind: 'unsubscribe', time: timeNs * MS_PER_NS, subscriptionId, reason, calls: r.uvarint() });
          break;
        }
        case DISPATCH: {
          seq += r.svarint();
          timeNs += r.svarint();
          const duration = r.uvarint() * MS_PER_NS;
          if (v1) {
            const bus = r.uvarint();
            const typeId = r.uvarint();
            const type = this.str(typeId);
            const delivered = r.uvarint();
            const consumedBy = r.uvarint();
            const depth = r.uvarint();
            const parentDelta = r.uvarint();
            const site = this.optSite(r.uvarint());
            const parentSeq = parentDelta === 0 ? 0 : seq - parentDelta;
            if (sink !== null) sink.dispatch(seq, bus, type, typeId, timeNs * MS_PER_NS, 0, duration, delivered, consumedBy, depth, parentSeq, site, 0);
            else
              (list as BusRecord[]).push({
                kind: 'dispatch',
                seq,
                bus,
                type,
                start: timeNs * MS_PER_NS,
                duration,
                delivered,
                consumedBy,
                depth,
                parentSeq,
                site,
              });
            break;
          }
          // A coarse clock (`welcome.clockStep`): each read the probe made may be off by a step.
          const stepNs = this.blockClock.stepNs;
          const startBound = (r.uvarint() + stepNs) * MS_PER_NS;
          const bus = r.uvarint();
          const typeId = r.uvarint();
          const type = this.str(typeId);
          const delivered = r.uvarint();
          const consumedBy = r.uvarint();
          const depth = r.uvarint();
          const parentDelta = r.uvarint();
          const site = this.optSite(r.uvarint());
          const parentSeq = parentDelta === 0 ? 0 : seq - parentDelta;
          const extensions = r.uvarint();
          const start = timeNs * MS_PER_NS;
          let durationBound = -1; // absent
          let threadId: number | undefined;
          let traceId: string | undefined;
          let enqueuedAt: number | undefined;
          for (let i = 0; i < extensions; i++) {
            const key = r.uvarint();
            const length = r.uvarint();
            if (length > r.remaining) throw new ProtocolError('truncated', `extension field ${key} of ${length} bytes past the batch's end`);
            const end = r.pos + length;
            // Read in place (no reader per field); a value that runs past its declared length is malformed.
            if (key === EXT_DURATION_BOUND) durationBound = r.uvarint() * MS_PER_NS;
            else if (key === EXT_THREAD_ID) threadId = r.uvarint();
            else if (key === EXT_TRACE_ID) traceId = r.string();
            else if (key === EXT_ENQUEUED_AT) enqueuedAt = (timeNs - r.uvarint()) * MS_PER_NS;
            if (r.pos > end) throw new ProtocolError('malformed', `extension field ${key} runs past its ${length} bytes`);
            r.pos = end; // unknown keys (and any rest of a known one) are skipped
          }
          // the start's and the end's reads each a step off; an absent bound was at most DURATION_BOUND_STATED_NS
          if (stepNs > 0) durationBound = (durationBound < 0 ? DURATION_BOUND_STATED_NS * MS_PER_NS : durationBound) + 2 * stepNs * MS_PER_NS;
          if (sink !== null) {
            sink.dispatch(
              seq,
              bus,
              type,
              typeId,
              start,
              startBound,
              duration,
              delivered,
              consumedBy,
              depth,
              parentSeq,
              site,
              durationBound < 0 ? 0 : durationBound,
              traceId,
              threadId,
              enqueuedAt,
            );
            break;
          }
          const list_ = list as BusRecord[];
          if (durationBound < 0 && threadId === undefined && traceId === undefined && enqueuedAt === undefined) {
            list_.push({ kind: 'dispatch', seq, bus, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site });
            break;
          }
          const record: { -readonly [K in keyof DispatchRecord]: DispatchRecord[K] } = {
            kind: 'dispatch',
            seq,
            bus,
            type,
            start,
            startBound,
            duration,
            delivered,
            consumedBy,
            depth,
            parentSeq,
            site,
          };
          if (durationBound >= 0) record.durationBound = durationBound;
          if (threadId !== undefined) record.threadId = threadId;
          if (traceId !== undefined) record.traceId = traceId;
          if (enqueuedAt !== undefined) record.enqueuedAt = enqueuedAt;
          list_.push(record);
          break;
        }
        case DISPATCH_BLOCK:
        case DISPATCH_COLUMNS_CODE: {
          // A run of dispatch records: a block (version 4 on) or columns (version 6 on).
          const columns = code === DISPATCH_COLUMNS_CODE;
          if (this.version < (columns ? 6 : 4)) throw new ProtocolError('unknown-kind', `unknown record code ${code} at byte ${r.pos - 1} of a batch`);
          try {
            n += (columns ? this.decodeColumns(r, list, sink) : this.decodeBlock(r, list, sink)) - 1;
          } catch (error) {
            // Entries decoded before the error reach the sink too, as records do.
            if (sink !== null) this.deliverRun(sink);
            throw error;
          }
          break;
        }
        case HANDLER: {
          seq += r.svarint();
          const subscriptionId = r.uvarint();
          timeNs += r.svarint();
          const duration = r.uvarint() * MS_PER_NS;
          const flags = r.uvarint();
          const consumed = (flags & 1) === 1;
          // Above bit 0: `sampleEvery` (0 = not said: the call stands for itself). Arithmetic: may exceed 32 bits.
          const sampleEvery = Math.floor(flags / 2);
          if (sampleEvery > 1) out.push({ kind: 'handler', seq, subscriptionId, start: timeNs * MS_PER_NS, duration, consumed, sampleEvery });
          else out.push({ kind: 'handler', seq, subscriptionId, start: timeNs * MS_PER_NS, duration, consumed });
          break;
        }
        case HANDLER_ERROR: {
          seq += r.svarint();
          const subscriptionId = r.uvarint();
          timeNs += r.svarint();
          const message = r.string();
          const stack = (r.uvarint() & 1) === 1 ? r.string() : null;
          out.push({ kind: 'handler-error', seq, subscriptionId, time: timeNs * MS_PER_NS, message, stack });
          break;
        }
        case PAYLOAD: {
          seq += r.svarint();
          const truncated = (r.uvarint() & 1) === 1;
          out.push({ kind: 'payload', seq, json: r.string(), truncated });
          break;
        }
        case ENQUEUE: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          out.push({ kind: 'enqueue', time: timeNs * MS_PER_NS, bus, type, queueLength: r.uvarint() });
          break;
        }
        case FLUSH: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          out.push({ kind: 'flush', time: timeNs * MS_PER_NS, bus, dispatched: r.uvarint() });
          break;
        }
        case DEPTH_LIMIT: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          const depth = r.uvarint();
          seq += r.svarint();
          out.push({ kind: 'depth-limit', time: timeNs * MS_PER_NS, bus, type, depth, parentSeq: seq });
          break;
        }
        case OWNER_COLLECTED: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const hasOwner = r.uvarint();
          const owner = (hasOwner & 1) === 1 ? r.string() : null;
          const removed = r.uvarint();
          // Above bit 0: the owner's id (0 = not sent).
          const ownerId = owner === null ? 0 : Math.floor(hasOwner / 2);
          if (ownerId === 0) out.push({ kind: 'owner-collected', time: timeNs * MS_PER_NS, bus, owner, removed });
          else out.push({ kind: 'owner-collected', time: timeNs * MS_PER_NS, bus, owner, removed, ownerId });
          break;
        }
        case DROPS: {
          const count = r.uvarint();
          const dispatches = r.uvarint();
          const reasonCode = r.uvarint();
          const reason = DROP_REASONS[reasonCode];
          if (reason === undefined) throw new ProtocolError('malformed', `unknown drop reason code ${reasonCode}`);
          out.push({ kind: 'drops', count, dispatches, reason });
          break;
        }
        default:
          throw new ProtocolError('unknown-kind', `unknown record code ${code} at byte ${r.pos - 1} of a batch`);
      }
    }
    return n;
  }

  /** Ids are dense and announced in order; a gap means the stream lost definitions. */
  private checkId(id: number, defined: number, what: string): void {
    if (id === 0) throw new ProtocolError('malformed', `${what} id 0 is reserved`);
    if (id > defined + 1) throw new ProtocolError('malformed', `${what} id ${id} defined before id ${defined + 1}`);
  }

  /** Stores a string definition, or folds it into the overflow bucket; returns the text it resolves to. */
  private defineString(id: number, text: string): string {
    this.checkId(id, this.definedStrings, 'string');
    if (text === OVERFLOW_NAME) this.appFull = true;
    if (id <= this.strings.length - 1) {
      // A redefinition of a kept id replaces it (and its share of the budget).
      const old = this.strings[id] as string;
      if (this.stringChars - old.length + text.length <= this.maxStringChars) {
        this.stringChars += text.length - old.length;
        this.strings[id] = text;
        return text;
      }
      this.folded++;
      return old;
    }
    if (id > this.definedStrings) this.definedStrings = id;
    if (!this.stringsFull && id < this.maxEntries + 1 && this.stringChars + text.length <= this.maxStringChars) {
      this.strings.push(text);
      this.stringChars += text.length;
      return text;
    }
    this.stringsFull = true;
    this.folded++;
    return OVERFLOW_NAME;
  }

  private defineSite(id: number, site: SiteInfo): void {
    this.checkId(id, this.definedSites, 'site');
    if (id <= this.sites.length - 1) {
      this.sites[id] = site;
      return;
    }
    if (id > this.definedSites) this.definedSites = id;
    if (!this.sitesFull && id < this.maxEntries + 1) {
      this.sites.push(site);
      return;
    }
    this.sitesFull = true;
    this.folded++;
  }

  private str(id: number): string {
    const s = this.strings[id];
    if (s !== undefined) return s;
    if (id > 0 && id <= this.definedStrings) return OVERFLOW_NAME;
    throw new ProtocolError('undefined-reference', `string id ${id} used before its definition`);
  }

  private optStr(id: number): string | null {
    return id === 0 ? null : this.str(id);
  }

  private optSite(id: number): SiteInfo | null {
    if (id === 0) return null;
    const s = this.sites[id];
    if (s !== undefined) return s;
    // A site past the cap is known to exist but not kept: the record shows no site.
    if (id <= this.definedSites) return null;
    throw new ProtocolError('undefined-reference', `site id ${id} used before its definition`);
  }
}
