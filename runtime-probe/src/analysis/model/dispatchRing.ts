// The timeline store: the most recent dispatches in a ring of typed-array columns. One row costs
// 68 bytes whatever the rate, nothing is allocated per dispatch, and the canvas timeline can read
// the columns directly (`physicalIndex` maps a logical row, oldest first, to a column index).

import type { DispatchColumns } from '../../protocol/index';

/** Bytes per retained dispatch (sum of the column element sizes below). */
export const DISPATCH_ROW_BYTES = 8 * 5 + 4 * 7;

export interface DispatchRow {
  readonly seq: number;
  /** The probe's bus id. */
  readonly bus: number;
  /** The model's event-type index (see `Model.typeAt`). */
  readonly typeIndex: number;
  /** Record time, milliseconds. */
  readonly start: number;
  /** Milliseconds. */
  readonly duration: number;
  readonly delivered: number;
  /** Subscription id that consumed the dispatch; 0 when nobody did. */
  readonly consumedBy: number;
  readonly depth: number;
  /** 0 for a top-level dispatch. */
  readonly parentSeq: number;
  /** The model's site index, -1 when the dispatch site was not sampled. */
  readonly siteIndex: number;
  /** Error bound of `start` (ms; protocol v2 interpolates starts), 0 when exact or unknown. */
  readonly startBound: number;
}

export class DispatchRing {
  readonly capacity: number;
  readonly seq: Float64Array;
  readonly start: Float64Array;
  /**
   * Running maximum of `start + duration` over all rows written so far (non-decreasing), which
   * makes the lower bound of a time-range query a binary search even though nested dispatches
   * are recorded out of start order.
   */
  readonly maxEndSoFar: Float64Array;
  readonly parentSeq: Float64Array;
  readonly duration: Float64Array;
  /** Bus ids: a page's Web Workers' pass 2^32, so not a 32-bit column. */
  readonly bus: Float64Array;
  readonly typeIndex: Uint32Array;
  readonly delivered: Uint32Array;
  readonly consumedBy: Uint32Array;
  readonly depth: Uint32Array;
  readonly siteIndex: Int32Array;
  /** Error bound of the start, ms (float32: µs precision is all a bound needs). */
  readonly startBound: Float32Array;
  /** Trace ids by column index (rows of dispatches that carried one; at most `capacity`). */
  private readonly traceIds = new Map<number, string>();
  /** [producer thread, enqueue time (ms)] by column index: rows of events posted through a producer port (sparse, like trace ids). */
  private readonly produced = new Map<number, readonly [thread: number, enqueuedAt: number]>();

  /** Rows currently held (≤ capacity). */
  size = 0;
  /** Rows ever written; `written - size` rows have been overwritten. */
  written = 0;
  private next = 0;
  private runningMaxEnd = -Infinity;
  private runningMaxStart = -Infinity;
  /** How far back in time a row started relative to rows written before it (for range scans). */
  private maxSkew = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`DispatchRing: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.seq = new Float64Array(capacity);
    this.start = new Float64Array(capacity);
    this.maxEndSoFar = new Float64Array(capacity);
    this.parentSeq = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.bus = new Float64Array(capacity);
    this.typeIndex = new Uint32Array(capacity);
    this.delivered = new Uint32Array(capacity);
    this.consumedBy = new Uint32Array(capacity);
    this.depth = new Uint32Array(capacity);
    this.siteIndex = new Int32Array(capacity);
    this.startBound = new Float32Array(capacity);
  }

  /** Bytes held by the columns (fixed at construction). */
  get byteLength(): number {
    return this.capacity * DISPATCH_ROW_BYTES;
  }

  /** Rows lost to wrap-around. */
  get overwritten(): number {
    return this.written - this.size;
  }

  push(
    seq: number,
    bus: number,
    typeIndex: number,
    start: number,
    duration: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    siteIndex: number,
    startBound = 0,
    traceId?: string,
    fromThread?: number,
    enqueuedAt?: number,
  ): void {
    const i = this.next;
    if (fromThread !== undefined) this.produced.set(i, [fromThread, enqueuedAt ?? start]);
    else if (this.produced.size !== 0) this.produced.delete(i);
    // Sparse: only dispatches traced by OpenTelemetry carry one; an overwritten row loses its own.
    if (traceId !== undefined) this.traceIds.set(i, traceId);
    else if (this.traceIds.size !== 0) this.traceIds.delete(i);
    this.startBound[i] = startBound;
    this.seq[i] = seq;
    this.bus[i] = bus;
    this.typeIndex[i] = typeIndex;
    this.start[i] = start;
    this.duration[i] = duration;
    this.delivered[i] = delivered;
    this.consumedBy[i] = consumedBy;
    this.depth[i] = depth;
    this.parentSeq[i] = parentSeq;
    this.siteIndex[i] = siteIndex;
    this.maxEndSoFar[i] = this.advanceMaxima(start, duration);
    this.next = i + 1 === this.capacity ? 0 : i + 1;
    if (this.size < this.capacity) this.size++;
    this.written++;
  }

  /**
   * `push` of row `k` of `c` (a decoded dispatch block, or one record), its type and site as the
   * model's indices: nothing is boxed on the way (dispatch-columns.ts).
   */
  pushRow(c: DispatchColumns, k: number, typeIndex: number, siteIndex: number, traceId?: string, fromThread?: number, enqueuedAt?: number): void {
    this.push(
      c.seq[k],
      c.bus[k],
      typeIndex,
      c.start[k],
      c.duration[k],
      c.delivered[k],
      c.consumedBy[k],
      c.depth[k],
      c.parentSeq[k],
      siteIndex,
      c.startBound[k],
      traceId,
      fromThread,
      enqueuedAt,
    );
  }

  /**
   * `pushRow` of rows `from` … `to − 1` of `c` (none with a trace id or a producer thread), their
   * type and site indices in `typeIndex` / `siteIndex` from index 0: the columns as copies of a
   * stretch (at most two, around the ring's end), the running maxima row by row.
   */
  pushRun(c: DispatchColumns, from: number, to: number, typeIndex: Uint32Array, siteIndex: Int32Array): void {
    const capacity = this.capacity;
    // A run longer than the ring: only its last `capacity` rows stay (the maxima still see every row).
    const keepFrom = to - from > capacity ? to - capacity : from;
    for (let k = from; k < keepFrom; k++) this.advanceMaxima(c.start[k], c.duration[k]);
    this.written += keepFrom - from;
    // …and land where row-by-row pushes would have put them.
    this.next = (this.next + (keepFrom - from)) % capacity;
    let k = keepFrom;
    while (k < to) {
      const i = this.next;
      const m = Math.min(to - k, capacity - i);
      const end = k + m;
      // Rows overwritten here lose their sparse fields.
      if (this.produced.size !== 0) for (let j = i; j < i + m; j++) this.produced.delete(j);
      if (this.traceIds.size !== 0) for (let j = i; j < i + m; j++) this.traceIds.delete(j);
      // Same element types: copies. The integer columns (float64 in `c`) convert in the row loop
      // below, which is cheaper than `set`'s converting copy.
      this.startBound.set(c.startBound.subarray(k, end), i);
      this.seq.set(c.seq.subarray(k, end), i);
      this.typeIndex.set(typeIndex.subarray(k - from, end - from), i);
      this.start.set(c.start.subarray(k, end), i);
      this.duration.set(c.duration.subarray(k, end), i);
      this.parentSeq.set(c.parentSeq.subarray(k, end), i);
      this.siteIndex.set(siteIndex.subarray(k - from, end - from), i);
      const { start, duration, bus, delivered, consumedBy, depth } = c;
      const { maxEndSoFar, bus: toBus, delivered: toDelivered, consumedBy: toConsumedBy, depth: toDepth } = this;
      for (let j = k, at = i; j < end; j++, at++) {
        toBus[at] = bus[j];
        toDelivered[at] = delivered[j];
        toConsumedBy[at] = consumedBy[j];
        toDepth[at] = depth[j];
        maxEndSoFar[at] = this.advanceMaxima(start[j], duration[j]);
      }
      this.next = i + m === capacity ? 0 : i + m;
      this.size = Math.min(capacity, this.size + m);
      this.written += m;
      k = end;
    }
  }

  /** Takes a row's start and duration into the running maxima; returns the running max end. */
  private advanceMaxima(start: number, duration: number): number {
    const end = start + duration;
    if (end > this.runningMaxEnd) this.runningMaxEnd = end;
    if (start > this.runningMaxStart) this.runningMaxStart = start;
    else if (this.runningMaxStart - start > this.maxSkew) this.maxSkew = this.runningMaxStart - start;
    return this.runningMaxEnd;
  }

  /** The distributed-tracing trace id of the row at column index `i`, or null. */
  traceIdAt(i: number): string | null {
    return this.traceIds.get(i) ?? null;
  }

  /** The thread whose producer port posted the event of the row at column index `i`, or -1 (dispatched where it was enqueued). */
  fromThreadAt(i: number): number {
    return this.produced.get(i)?.[0] ?? -1;
  }

  /** When that producer enqueued it (ms, session clock), or NaN for a local event. */
  enqueuedAtAt(i: number): number {
    return this.produced.get(i)?.[1] ?? NaN;
  }

  /** Column index of logical row `k` (0 = oldest retained). */
  physicalIndex(k: number): number {
    const i = this.next - this.size + k;
    return i < 0 ? i + this.capacity : i >= this.capacity ? i - this.capacity : i;
  }

  row(k: number): DispatchRow {
    if (!Number.isInteger(k) || k < 0 || k >= this.size) throw new RangeError(`DispatchRing.row: ${k} is outside 0..${this.size - 1}`);
    const i = this.physicalIndex(k);
    return {
      seq: this.seq[i],
      bus: this.bus[i],
      typeIndex: this.typeIndex[i],
      start: this.start[i],
      duration: this.duration[i],
      delivered: this.delivered[i],
      consumedBy: this.consumedBy[i],
      depth: this.depth[i],
      parentSeq: this.parentSeq[i],
      siteIndex: this.siteIndex[i],
      startBound: this.startBound[i],
    };
  }

  /**
   * Visits, oldest first, the physical indices of retained rows that overlap [from, to]
   * (start ≤ to and start + duration ≥ from). Stops early when `visit` returns false.
   */
  forEachInRange(from: number, to: number, visit: (physicalIndex: number) => boolean | void): void {
    if (this.size === 0 || to < from) return;
    // First logical row whose running max end reaches `from`: no earlier row can overlap.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.maxEndSoFar[this.physicalIndex(mid)] < from) lo = mid + 1;
      else hi = mid;
    }
    // Rows start at most `maxSkew` before rows written earlier, so once a row starts later than
    // `to + maxSkew` no later row can start at or before `to`.
    const stopAfter = to + this.maxSkew;
    for (let k = lo; k < this.size; k++) {
      const i = this.physicalIndex(k);
      const s = this.start[i];
      if (s > stopAfter) break;
      if (s <= to && s + this.duration[i] >= from && visit(i) === false) return;
    }
  }

  clear(): void {
    this.size = 0;
    this.written = 0;
    this.next = 0;
    this.runningMaxEnd = -Infinity;
    this.runningMaxStart = -Infinity;
    this.maxSkew = 0;
    this.traceIds.clear();
    this.produced.clear();
  }
}
