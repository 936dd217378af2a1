// The webview's timeline data: the model's own typed-array rings (DispatchRing, HandlerRing) plus
// two columns the drawing needs — the dispatch flags and the lane each dispatch is drawn in — and a
// bounded queue of markers. Everything is fixed-size: a session of any length costs the same memory.
//
// Lanes: one per event type. A nested dispatch is drawn in the lane of its top-level ancestor, one
// row further down per depth, so it sits under its parent (a flame chart per lane). Records arrive
// in completion order (children before their parent), so a child whose parent has not arrived yet
// waits in a bounded pending list and is re-homed when the parent comes.

import { DispatchRing } from '../../../runtime-probe/src/analysis/model/dispatchRing';
import { HandlerRing } from '../../../runtime-probe/src/analysis/model/handlerRing';
import type { DispatchColumns, HandlerColumns, TimelineMarker } from '../../../runtime-probe/src/analysis/inspector-messages';
import { DispatchFlag } from '../../../runtime-probe/src/analysis/inspector-messages';
import { BoundedMap, BoundedQueue } from './boundedQueue';

export interface TimelineLimits {
  readonly dispatches: number;
  readonly handlers: number;
  readonly markers: number;
}

/** Deepest row a lane grows to; deeper dispatches share the last row. */
export const MAX_LANE_ROWS = 8;

export class TimelineStore {
  readonly dispatches: DispatchRing;
  readonly handlers: HandlerRing;
  /** `DispatchFlag` bits, by the ring's physical index. */
  readonly flags: Uint8Array;
  /** Lane (type index of the top-level ancestor) by physical index; -1 until the ancestor is known. */
  readonly lane: Int32Array;
  /** Thread whose producer enqueued the event (worker_threads), by physical index; -1: dispatched where it was raised. */
  readonly fromThread: Int32Array;
  /** When that producer enqueued it, ms (record time); read only where `fromThread` ≥ 0. */
  readonly enqueuedAt: Float64Array;
  readonly markers: BoundedQueue<TimelineMarker>;
  /** Deepest depth seen per lane (bounded by the number of types). */
  readonly laneDepth = new Map<number, number>();
  /** Bumped on every change, so views know when to redraw. */
  version = 0;
  /**
   * Bumped when `laneDepth` changed (a new lane, a deeper one, a clear): only then do the lanes need
   * laying out again — with 100,000 types not on every delta.
   */
  laneVersion = 0;
  /** Newest end time seen, ms (record time). */
  latest = -Infinity;

  /** Running max of handler end times by physical index (non-decreasing in logical order). */
  private readonly handlerMaxEnd: Float64Array;
  private handlerRunningMaxEnd = -Infinity;
  private handlerRunningMaxStart = -Infinity;
  private handlerMaxSkew = 0;
  private readonly recent: BoundedMap<number, number>;
  private readonly pending: BoundedMap<number, number[]>;

  constructor(limits: TimelineLimits) {
    this.dispatches = new DispatchRing(limits.dispatches);
    this.handlers = new HandlerRing(limits.handlers);
    this.flags = new Uint8Array(limits.dispatches);
    this.lane = new Int32Array(limits.dispatches);
    this.fromThread = new Int32Array(limits.dispatches);
    this.enqueuedAt = new Float64Array(limits.dispatches);
    this.handlerMaxEnd = new Float64Array(limits.handlers);
    this.markers = new BoundedQueue<TimelineMarker>(limits.markers);
    // Parents complete within a few thousand records of their children in any realistic app.
    this.recent = new BoundedMap(Math.min(limits.dispatches, 65_536));
    this.pending = new BoundedMap(4_096);
  }

  get size(): number {
    return this.dispatches.size;
  }

  /** Start time of the oldest retained dispatch, or +Infinity when empty. */
  get earliest(): number {
    return this.dispatches.size === 0 ? Infinity : this.dispatches.start[this.dispatches.physicalIndex(0)];
  }

  appendDispatches(cols: DispatchColumns): void {
    const ring = this.dispatches;
    for (let r = 0; r < cols.count; r++) {
      const seq = cols.seq[r];
      const type = cols.type[r];
      const depth = cols.depth[r];
      const parent = cols.parentSeq[r];
      ring.push(
        seq,
        cols.bus[r],
        type,
        cols.start[r],
        cols.duration[r],
        cols.delivered[r],
        cols.consumedBy[r],
        depth,
        parent,
        cols.site[r],
        (cols.startBound?.[r] ?? 0) / 1000,
      );
      const i = ring.physicalIndex(ring.size - 1);
      this.flags[i] = cols.flags[r];
      const from = cols.fromThread?.[r] ?? -1;
      this.fromThread[i] = from;
      this.enqueuedAt[i] = from >= 0 ? (cols.enqueuedAt?.[r] ?? cols.start[r]) : 0;
      const end = cols.start[r] + cols.duration[r];
      if (end > this.latest) this.latest = end;
      this.recent.set(seq, i);
      let lane = -1;
      if (depth === 0 || parent === 0) lane = type;
      else {
        const p = this.recent.get(parent);
        if (p !== undefined && ring.seq[p] === parent && this.lane[p] >= 0) lane = this.lane[p];
      }
      this.lane[i] = lane;
      if (lane >= 0) {
        this.noteDepth(lane, depth);
        this.resolveChildren(seq, lane);
      } else {
        const waiting = this.pending.get(parent);
        if (waiting) waiting.push(i, seq);
        else this.pending.set(parent, [i, seq]);
        this.noteDepth(type, depth);
      }
    }
    if (cols.count > 0) this.version++;
  }

  appendHandlers(cols: HandlerColumns): void {
    for (let r = 0; r < cols.count; r++) {
      const start = cols.start[r];
      const i = this.handlers.push(cols.seq[r], cols.subscription[r], start, cols.duration[r], cols.flags[r]);
      const end = start + cols.duration[r];
      if (end > this.handlerRunningMaxEnd) this.handlerRunningMaxEnd = end;
      this.handlerMaxEnd[i] = this.handlerRunningMaxEnd;
      if (start > this.handlerRunningMaxStart) this.handlerRunningMaxStart = start;
      else if (this.handlerRunningMaxStart - start > this.handlerMaxSkew) this.handlerMaxSkew = this.handlerRunningMaxStart - start;
    }
    if (cols.count > 0) this.version++;
  }

  addMarkers(markers: readonly TimelineMarker[]): void {
    for (const m of markers) {
      this.markers.push(m);
      if (m.at > this.latest) this.latest = m.at;
    }
    if (markers.length > 0) this.version++;
  }

  /** The lane a row is drawn in (its own type while its ancestor is unknown). */
  laneOf(i: number): number {
    const l = this.lane[i];
    return l >= 0 ? l : this.dispatches.typeIndex[i];
  }

  /** Physical index of a retained dispatch by sequence number, or -1. */
  indexOfSeq(seq: number): number {
    const i = this.recent.get(seq);
    if (i !== undefined && this.dispatches.seq[i] === seq && this.dispatches.size > 0) return i;
    // Older than the lookup map: binary search would need ordered seqs; scan is bounded by the ring.
    const ring = this.dispatches;
    for (let k = ring.size - 1; k >= 0; k--) {
      const j = ring.physicalIndex(k);
      if (ring.seq[j] === seq) return j;
    }
    return -1;
  }

  /**
   * Visits the physical indices of handler slices overlapping [from, to], oldest first (the same
   * bounded scan as DispatchRing.forEachInRange: handlers also complete out of start order).
   */
  forEachHandlerInRange(from: number, to: number, visit: (physicalIndex: number) => boolean | void): void {
    const ring = this.handlers;
    if (ring.size === 0 || to < from) return;
    let lo = 0;
    let hi = ring.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.handlerMaxEnd[ring.physicalIndex(mid)] < from) lo = mid + 1;
      else hi = mid;
    }
    const stopAfter = to + this.handlerMaxSkew;
    for (let k = lo; k < ring.size; k++) {
      const i = ring.physicalIndex(k);
      const s = ring.start[i];
      if (s > stopAfter) break;
      if (s <= to && s + ring.duration[i] >= from && visit(i) === false) return;
    }
  }

  hasFlag(i: number, flag: number): boolean {
    return (this.flags[i] & flag) !== 0;
  }

  clear(): void {
    this.dispatches.clear();
    this.handlers.clear();
    this.markers.clear();
    this.laneDepth.clear();
    this.laneVersion++;
    this.recent.clear();
    this.pending.clear();
    this.latest = -Infinity;
    this.handlerRunningMaxEnd = -Infinity;
    this.handlerRunningMaxStart = -Infinity;
    this.handlerMaxSkew = 0;
    this.version++;
  }

  private noteDepth(lane: number, depth: number): void {
    const d = Math.min(depth, MAX_LANE_ROWS - 1);
    if ((this.laneDepth.get(lane) ?? -1) < d) {
      this.laneDepth.set(lane, d);
      this.laneVersion++;
    }
  }

  private resolveChildren(seq: number, lane: number): void {
    const waiting = this.pending.get(seq);
    if (!waiting) return;
    this.pending.delete(seq);
    for (let k = 0; k < waiting.length; k += 2) {
      const ci = waiting[k];
      const cseq = waiting[k + 1];
      if (this.dispatches.seq[ci] !== cseq) continue; // overwritten meanwhile
      this.lane[ci] = lane;
      this.noteDepth(lane, this.dispatches.depth[ci]);
      this.resolveChildren(cseq, lane);
    }
  }
}

export { DispatchFlag };
