// Dispatch blocks (protocol version 4, PROTOCOL.md "Dispatch blocks"): a run of dispatch records in
// fixed-width entries, with the clock reads their times are interpolated from. The probe's drain
// writes one with a few stores per record (no varints, no time arithmetic: the reader interpolates),
// and the reader decodes it without a branch per byte. Declared here once for both sides.
//
//   u8  RecordCode.DispatchBlock
//   u   count            entries (≥ 1)
//   u   seqBase          every entry's seq is seqBase + its `seq` field
//   u   reads            clock reads (≥ 1), then per read:
//         u  tick delta  (from the previous read's tick; the first is absolute)
//         s  time delta  ns (from the previous read's time; the first is absolute ns since the origin)
//   count × ENTRY_BYTES  entries: DISPATCH_BLOCK_FIELDS, each a u32 little-endian
//
// A tick's time is interpolated between the reads around it; its error bound is the larger distance
// to them (at least MIN_TICK_BOUND_NS), plus the probe's clock step (`welcome.clockStep`): the true
// time lies between the two reads, each of which is within a step of the true time. A tick equal to a
// read's is that read's time. Every tick of a block lies between its first and last read.
// Blocks touch neither the batch's time cursor nor its sequence cursor.
// No Node built-ins here.

/** Entry fields, in order: offset = index × 4. */
export const DISPATCH_BLOCK_FIELDS = [
  /** seq − seqBase */
  'seq',
  /** Ticks, as tick − the block's first read's tick. */
  'startTick',
  'endTick',
  'bus',
  'type',
  'delivered',
  'consumedBy',
  'depth',
  /** seq − parentSeq; 0: no parent. */
  'parentDelta',
  'site',
] as const;

type BlockField = (typeof DISPATCH_BLOCK_FIELDS)[number];

/** Byte offset of each field in an entry. Marked pure: a bundle that writes no blocks (a page's) leaves it out. */
export const BLOCK_AT: { readonly [F in BlockField]: number } = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ Object.fromEntries(/* @__PURE__ */ DISPATCH_BLOCK_FIELDS.map((f, i) => [f, i * 4])) as { [F in BlockField]: number },
);

/** 4 bytes a field; a literal (checked against the fields' count), so a page's bundle ships no field names. */
export const BLOCK_ENTRY_BYTES: (typeof DISPATCH_BLOCK_FIELDS)['length'] extends 10 ? 40 : never = 40;

/** Smallest error bound of an interpolated time (ns): a clock read is itself not instantaneous. */
export const MIN_TICK_BOUND_NS = 1000;

/** A duration's bound is stated when the start's and end's bounds add up to more than this (ns). */
export const DURATION_BOUND_STATED_NS = 100_000;

/** Largest value of an entry field (u32); a record that does not fit goes as a plain dispatch record. */
export const MAX_BLOCK_FIELD = 0xffff_ffff;

// Dispatch columns (version 6, record code 18): the same runs, the same reads, in columns of the
// width each needs. Most fields of a run are constant or small (one bus, a few types, depth 0 or 1,
// delivered fixed per type), so an entry takes ~6 bytes instead of 40: less to copy, write and read.
//
//   u8  RecordCode.DispatchColumns
//   u   count, seqBase, reads, and the reads, as in a dispatch block (count ≤ MAX_COLUMN_ENTRIES)
//   per column of DISPATCH_COLUMNS, in order: u8 width (0, 1, 2 or 4 bytes), u base, then count values
//   of `width` bytes each, little-endian; a field is base + value (a width-0 column: base for every entry)
//
// Columns: `seq` zigzag(seq − seqBase − index); `startTick` zigzag(this start tick − the previous
// entry's, the first entry's from the first read's tick); `span` end tick − start tick; then bus,
// type, delivered, consumedBy, depth, parentDelta and site as in a dispatch block. Fields are u32
// but the bus: the run's one bus, at width 0, its base any varint (a page's workers' ids pass 2^32).

/** Column order of a dispatch-columns record. */
export const DISPATCH_COLUMNS = ['seq', 'startTick', 'span', 'bus', 'type', 'delivered', 'consumedBy', 'depth', 'parentDelta', 'site'] as const;

/** Most entries a dispatch-columns record may hold (a width-0 column takes no bytes, so the count is capped). */
export const MAX_COLUMN_ENTRIES = 65_536;

/**
 * Resolves ticks against one block's reads (ticks relative to the first read, times in ns). Reused
 * per block: `load` the reads, then `resolve` each tick (nearly increasing: the last segment is
 * tried first).
 */
export class BlockClock {
  ticks = new Float64Array(64);
  times = new Float64Array(64);
  count = 0;
  /** The segment `resolve` tries first (read index; the decoder's inline fast path reads it too). */
  hint = 1;
  /** Output of `resolve`. */
  time = 0.5;
  bound = 0.5;
  /** The probe's clock step (ns, `welcome.clockStep`), added to every bound: each read may be off by it. */
  stepNs = 0;

  /** Room for `n` reads. */
  reset(n: number): void {
    if (n > this.ticks.length) {
      this.ticks = new Float64Array(n);
      this.times = new Float64Array(n);
    }
    this.count = n;
    this.hint = 1;
  }

  /** Sets `time` (ns) and `bound` (ns) for tick `k` (relative to the first read). */
  resolve(k: number): void {
    const ticks = this.ticks;
    const times = this.times;
    const n = this.count;
    // first read at or after k
    let hi = this.hint;
    if (!(hi < n && ticks[hi] >= k && ticks[hi - 1] < k)) {
      if (k <= 0) hi = 0;
      else if (k >= ticks[n - 1]) hi = k === ticks[n - 1] ? n - 1 : n;
      else {
        let lo = 1;
        hi = n - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (ticks[mid] < k) lo = mid + 1;
          else hi = mid;
        }
      }
      if (hi > 0 && hi < n) this.hint = hi;
    }
    if (hi === n) {
      // after the last read (a writer that broke the rule): a lower bound only
      this.time = times[n - 1];
      this.bound = MIN_TICK_BOUND_NS + this.stepNs;
      return;
    }
    if (ticks[hi] === k || hi === 0) {
      this.time = times[hi];
      this.bound = MIN_TICK_BOUND_NS + this.stepNs;
      return;
    }
    const kLo = ticks[hi - 1];
    const tLo = times[hi - 1];
    const tHi = times[hi];
    const t = tLo + ((tHi - tLo) * (k - kLo)) / (ticks[hi] - kLo);
    const bound = t - tLo > tHi - t ? t - tLo : tHi - t;
    this.time = t;
    this.bound = (bound > MIN_TICK_BOUND_NS ? bound : MIN_TICK_BOUND_NS) + this.stepNs;
  }
}
