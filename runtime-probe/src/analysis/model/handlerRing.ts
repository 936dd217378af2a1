// Handler slices of recent dispatches (which subscription ran inside which dispatch, when, for
// how long, whether it consumed or threw), in a ring of typed-array columns like the dispatches.

export const HANDLER_ROW_BYTES = 8 * 3 + 4 + 1;

export const HandlerFlag = {
  consumed: 1,
  threw: 2,
} as const;

export interface HandlerSlice {
  /** The dispatch it ran in. */
  readonly seq: number;
  readonly subscription: number;
  /** Record time, milliseconds. */
  readonly start: number;
  /** Milliseconds. */
  readonly duration: number;
  readonly consumed: boolean;
  readonly threw: boolean;
}

export class HandlerRing {
  readonly capacity: number;
  readonly seq: Float64Array;
  readonly start: Float64Array;
  readonly duration: Float64Array;
  readonly subscription: Uint32Array;
  readonly flags: Uint8Array;
  size = 0;
  written = 0;
  private next = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new TypeError(`HandlerRing: capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.seq = new Float64Array(capacity);
    this.start = new Float64Array(capacity);
    this.duration = new Float64Array(capacity);
    this.subscription = new Uint32Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  get byteLength(): number {
    return this.capacity * HANDLER_ROW_BYTES;
  }

  /** Returns the physical index written, so an error record can mark the slice afterwards. */
  push(seq: number, subscription: number, start: number, duration: number, flags: number): number {
    const i = this.next;
    this.seq[i] = seq;
    this.subscription[i] = subscription;
    this.start[i] = start;
    this.duration[i] = duration;
    this.flags[i] = flags;
    this.next = i + 1 === this.capacity ? 0 : i + 1;
    if (this.size < this.capacity) this.size++;
    this.written++;
    return i;
  }

  physicalIndex(k: number): number {
    const i = this.next - this.size + k;
    return i < 0 ? i + this.capacity : i >= this.capacity ? i - this.capacity : i;
  }

  slice(k: number): HandlerSlice {
    if (!Number.isInteger(k) || k < 0 || k >= this.size) throw new RangeError(`HandlerRing.slice: ${k} is outside 0..${this.size - 1}`);
    return this.sliceAt(this.physicalIndex(k));
  }

  sliceAt(i: number): HandlerSlice {
    const f = this.flags[i];
    return {
      seq: this.seq[i],
      subscription: this.subscription[i],
      start: this.start[i],
      duration: this.duration[i],
      consumed: (f & HandlerFlag.consumed) !== 0,
      threw: (f & HandlerFlag.threw) !== 0,
    };
  }

  /**
   * Marks the most recent slice of (seq, subscription) as thrown, looking back at most `lookback`
   * rows (errors are recorded right after their handler's timing). Returns whether one was found.
   */
  markThrew(seq: number, subscription: number, lookback = 64): boolean {
    for (let k = this.size - 1, n = 0; k >= 0 && n < lookback; k--, n++) {
      const i = this.physicalIndex(k);
      if (this.seq[i] === seq && this.subscription[i] === subscription) {
        this.flags[i] |= HandlerFlag.threw;
        return true;
      }
    }
    return false;
  }

  /** Slices of one dispatch, oldest first, searching back from the newest rows (bounded by `lookback`). */
  slicesOf(seq: number, lookback = this.size): HandlerSlice[] {
    const out: HandlerSlice[] = [];
    for (let k = this.size - 1, n = 0; k >= 0 && n < lookback; k--, n++) {
      const i = this.physicalIndex(k);
      if (this.seq[i] === seq) out.push(this.sliceAt(i));
    }
    return out.reverse();
  }

  clear(): void {
    this.size = 0;
    this.written = 0;
    this.next = 0;
  }
}
