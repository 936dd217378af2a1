// Dispatch records as columns: the entries of one dispatch block, decoded by `RecordDecoder` for a
// `RecordSink.dispatchRun`, handed over in one call instead of one call per record. A per-record
// call with ~15 arguments could not be inlined across the reader's layers, so every fractional
// time passed along was boxed (a heap number per argument per layer): at millions of dispatches
// per second that allocation and the calls were a third of the reader's time. Columns are reused:
// valid only during the call. No Node built-ins here.

import type { SiteInfo } from './records';

export class DispatchColumns {
  /** Rows filled (0 … count − 1). */
  count = 0;
  // Float64Array throughout: exact for any integer a varint can carry (a reader may fill a row from
  // a varint record too), and for the fractional times (ms).
  seq: Float64Array;
  bus: Float64Array;
  /** The stream's string id of `type` (see `RecordSink.dispatch`). */
  typeId: Float64Array;
  /** ms, as `DispatchRecord.start`. */
  start: Float64Array;
  /** ms; 0 when exact or unknown. */
  startBound: Float64Array;
  duration: Float64Array;
  /** ms; 0 when not stated. */
  durationBound: Float64Array;
  delivered: Float64Array;
  consumedBy: Float64Array;
  depth: Float64Array;
  /** 0: no parent. */
  parentSeq: Float64Array;
  // Filled up to the capacity from the start: stores stay in bounds and of one elements kind (an
  // empty array starts as small integers, and its first string made each new decoder's code deoptimize).
  type: string[];
  site: (SiteInfo | null)[];

  constructor(capacity = 256) {
    this.seq = new Float64Array(capacity);
    this.bus = new Float64Array(capacity);
    this.typeId = new Float64Array(capacity);
    this.start = new Float64Array(capacity);
    this.startBound = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.durationBound = new Float64Array(capacity);
    this.delivered = new Float64Array(capacity);
    this.consumedBy = new Float64Array(capacity);
    this.depth = new Float64Array(capacity);
    this.parentSeq = new Float64Array(capacity);
    this.type = new Array<string>(capacity).fill('');
    this.site = new Array<SiteInfo | null>(capacity).fill(null);
  }

  /** Rows the columns hold without growing. */
  get capacity(): number {
    return this.seq.length;
  }

  /** Empties the columns and makes room for `n` rows. */
  reset(n: number): void {
    this.count = 0;
    if (n <= this.seq.length) return;
    let cap = this.seq.length * 2;
    while (cap < n) cap *= 2;
    this.seq = new Float64Array(cap);
    this.bus = new Float64Array(cap);
    this.typeId = new Float64Array(cap);
    this.start = new Float64Array(cap);
    this.startBound = new Float64Array(cap);
    this.duration = new Float64Array(cap);
    this.durationBound = new Float64Array(cap);
    this.delivered = new Float64Array(cap);
    this.consumedBy = new Float64Array(cap);
    this.depth = new Float64Array(cap);
    this.parentSeq = new Float64Array(cap);
    for (let i = this.type.length; i < cap; i++) {
      this.type.push('');
      this.site.push(null);
    }
  }
}
