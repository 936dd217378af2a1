// The recorder's dispatch log: the state a dispatch at detail `dispatch` touches (sequence numbers,
// the stack of dispatches in progress, the window clock, the ring), in one object the bus can write
// itself (EventBus.dispatchLogged, the "fused" path) while the recorder is the only dispatch tracer
// and wants nothing else of a dispatch. The recorder's own hooks (dispatchStart/dispatchEnd, for
// what the fused path leaves out: emitters, flushed producer events, due dispatch sites, other
// details) work on the same state, so fused and traced dispatches nest and interleave as one stream.
// The bus calls `start` and `end` on this one class only: monomorphic calls the engine inlines.
// No Node built-ins here (the recorder core runs in pages and workers too).

import { currentTraceIdSource, type DispatchLog, type DispatchTracer, type LogCache } from '../bus/tracer';
import type { ProducedOrigin } from '../bus/runtime';
import { Row } from './dispatch-stack';
import { Code, DispatchSlot, Slot } from './layouts';
import type { WindowClock } from './window-clock';

/** What the log calls its recorder for, off the common path. */
export interface LogOwner extends DispatchTracer {
  /** Fills a list's cache (`DispatchLog.resolve`). */
  resolveList(list: LogCache, type: string | undefined): boolean;
  /** The first record since the ring emptied: it must reach the sinks soon. */
  drainSoon(): void;
  drain(): void;
  /** A dispatch record did not fit the ring: counted. */
  dropDispatch(): void;
}

const INITIAL_ROWS = 64;

export class RecorderLog implements DispatchLog {
  /** See DispatchLog.fused: set by the recorder (`updateInstall`). */
  fused = false;
  key: object = {};
  /** Recording at detail `dispatch` or `handlers`: only then does a dispatch's end write a record. */
  timed = false;
  /** The last sequence number assigned. */
  seq: number;
  /** Dispatches in progress: one row of Row.width doubles per stack position (not the bus's depth); `top` is the innermost. */
  top = -1;
  stack = new Float64Array(INITIAL_ROWS * Row.width);
  /** Per stack row, a traced dispatch's producer-port origin. One entry per row from the start: a read past an array's end can be a slow path. */
  origins: (ProducedOrigin | undefined)[] = new Array<ProducedOrigin | undefined>(INITIAL_ROWS).fill(undefined);
  /** The ring (allocated while recording): `size` slots from `readPos`, wrapping at `capacity`. */
  ring: Float64Array | null = null;
  capacity: number;
  readPos = 0;
  size = 0;
  /** Records after which a dispatch's end drains. */
  highWater = 1;
  draining = false;

  constructor(
    readonly owner: LogOwner,
    readonly clock: WindowClock,
    seq: number,
    capacity: number,
  ) {
    this.seq = seq;
    this.capacity = capacity;
  }

  resolve(list: LogCache, type: string | undefined): boolean {
    return this.owner.resolveList(list, type);
  }

  start(busId: number, typeId: number, depth: number): number {
    // The tick first: a clock read may drain, which resolves the ticked starts of the rows in use.
    const tick = this.clock.next();
    const top = this.top + 1;
    if (top === this.origins.length) this.grow();
    const st = this.stack;
    const b = top * Row.width;
    let parent = 0;
    if (top > 0) {
      // The innermost dispatch running is the row below, whichever copy of the package began it
      // (each copy counts only its own depth).
      parent = st[b - Row.width + Row.seq];
      depth = st[b - Row.width + Row.depth] + 1;
    }
    st[b + Row.seq] = ++this.seq;
    st[b + Row.bus] = busId;
    st[b + Row.type] = typeId;
    st[b + Row.depth] = depth;
    st[b + Row.parent] = parent;
    st[b + Row.sub] = 0;
    st[b + Row.start] = NaN;
    st[b + Row.startTick] = tick;
    this.top = top;
    return top;
  }

  end(top: number, delivered: number, consumedBy: number): void {
    // Something wants more of a dispatch since this one started (a trace id, payloads, another detail,
    // recording stopped): it ends as a traced dispatch would.
    if (!this.fused || currentTraceIdSource() !== undefined) return this.endTraced(top, delivered, consumedBy);
    // The end's tick before the start is read: a drain there resolves the ticked start.
    const endTick = this.clock.next();
    this.top = top - 1;
    const st = this.stack;
    const b = top * Row.width;
    const startTick = st[b + Row.startTick];
    const start = st[b + Row.start];
    if (startTick === 0 && start !== start) return; // began before dispatches were timed
    const size = this.size;
    const cap = this.capacity;
    if (size === cap) return this.owner.dropDispatch();
    if (size === 0) this.owner.drainSoon();
    let pos = this.readPos + size;
    if (pos >= cap) pos -= cap;
    this.size = size + 1;
    const r = pos * Slot.width;
    const ring = this.ring as Float64Array;
    ring[r] = Code.Dispatch;
    ring[r + DispatchSlot.seq] = st[b + Row.seq];
    ring[r + DispatchSlot.startTick] = startTick;
    ring[r + DispatchSlot.endTick] = endTick;
    ring[r + DispatchSlot.start] = start;
    ring[r + DispatchSlot.end] = NaN;
    ring[r + DispatchSlot.startBound] = st[b + Row.startBound];
    ring[r + DispatchSlot.bus] = st[b + Row.bus];
    ring[r + DispatchSlot.type] = st[b + Row.type];
    ring[r + DispatchSlot.delivered] = delivered;
    ring[r + DispatchSlot.consumedBy] = consumedBy;
    ring[r + DispatchSlot.depth] = st[b + Row.depth];
    ring[r + DispatchSlot.parentSeq] = st[b + Row.parent];
    ring[r + DispatchSlot.site] = 0;
    // Drained after the write: this record's ticks must be resolved by the drain that trims the reads they need.
    if (size >= this.highWater - 1 && !this.draining) this.owner.drain();
  }

  /** A fused dispatch ends through the recorder's hook (its row has the fields the hook reads). */
  private endTraced(top: number, delivered: number, consumedBy: number): void {
    const st = this.stack;
    const b = top * Row.width;
    st[b + Row.sample] = 0;
    st[b + Row.site] = 0;
    this.owner.dispatchEnd(st[b + Row.seq], delivered, consumedBy);
  }

  runningSeq(): number {
    const top = this.top;
    return top >= 0 ? this.stack[top * Row.width + Row.seq] : 0;
  }

  /** Doubles the stack's rows. */
  grow(): void {
    const rows = this.origins.length * 2;
    const next = new Float64Array(rows * Row.width);
    next.set(this.stack);
    this.stack = next;
    while (this.origins.length < rows) this.origins.push(undefined);
  }
}
