// The recorder under Node: the core (recorder-core.ts, no Node built-ins) with Node's host —
// `performance` as the clock, `util.types.isProxy`, source maps through `node:module`, and the
// inspector gate for event breakpoints — and the dispatch log the buses write through at detail
// `dispatch`, and at `handlers` for the dispatches whose handlers are not timed (their fused path,
// bus/fused-dispatch.ts): Node only, so pages and workers, whose bundles are size-budgeted, keep the
// traced path.

import { types as utilTypes } from 'node:util';
// Event-break conditions (and producer ports) for every bus the Node probe records, whichever entry made it.
import '../bus/optional-parts';
// This copy's buses write their own dispatch records while a recorder publishes its log (the fused path).
import '../bus/fused-dispatch';
import { installTracers, runtime } from '../bus/runtime';
import { currentTraceIdSource, primaryDispatchTracer, type DispatchLog, type LogCache, type TracedBus, type TracedSubscription } from '../bus/tracer';
import type { RecordingConfig } from '../protocol/messages';
import { watchInspector } from '../debug/inspector-gate';
import { encodeDispatchBlock } from './dispatch-block-encoder';
import { encodeColumns } from './dispatch-columns';
import { Row, rowToSlot } from './dispatch-stack';
import { Code, Slot } from './layouts';
import { capturePayload, type PayloadSanitizer } from './payload';
import { RecorderCore, type RecorderHost, type RecorderOptions } from './recorder-core';
import { untimedLeft } from './handler-sampler';
import { reserveSites } from './site-sampler';
import { sourceMapper } from './source-map';

export {
  DEFAULT_MAX_BUFFERED_RECORDS,
  DEFAULT_RECORDING_CONFIG,
  RecorderCore,
  type RecorderClock,
  type RecorderCoreOptions,
  type RecorderHost,
  type RecorderOptions,
} from './recorder-core';

export const NODE_RECORDER_HOST: RecorderHost = Object.freeze({
  clock: performance,
  isProxy: utilTypes.isProxy,
  capturePayload,
  sourceMaps: sourceMapper,
  watchDebugger: watchInspector,
  encodeColumns,
  encodeBlock: encodeDispatchBlock,
});

/**
 * The recorder with the probe's controls that only Node uses (kept out of RecorderCore, which pages
 * and workers ship): the ring size and sanitizer from `probe.start()` options, the focus the
 * process-wide emitters read, dispatch tracking for an attached debugger, and the dispatch log.
 */
export class Recorder extends RecorderCore implements DispatchLog {
  /**
   * The buses write dispatch records themselves (DispatchLog, bus/tracer.ts; `startLogged`/`endLogged`)
   * while a dispatch needs nothing but its record: set by `updateInstall`.
   */
  fused = false;
  /** Replaced when the lists' cached type ids and site reservations may be stale (a new recording or site sampler). */
  logKey: object = {};

  constructor(options: RecorderOptions) {
    super({ ...options, host: NODE_RECORDER_HOST });
  }

  /** Ring size in records; takes effect the next time recording starts. */
  setCapacity(maxBufferedRecords: number): void {
    this.nextCapacity = maxBufferedRecords;
  }

  setSanitizer(sanitize: PayloadSanitizer | undefined): void {
    this.sanitize = sanitize;
  }

  get focus(): ReadonlySet<number> {
    return this.focusBuses;
  }

  setTracking(on: boolean): void {
    this.tracking = on;
    this.updateModes();
    this.updateInstall();
  }

  override configure(patch: Partial<RecordingConfig>): RecordingConfig {
    const sampler = this.siteSampler;
    const config = super.configure(patch);
    if (this.siteSampler !== sampler) this.logKey = {}; // the lists' reservations were the old sampler's
    return config;
  }

  protected override startRecording(): void {
    this.logKey = {};
    super.startRecording();
  }

  /** Published while installed, fused while a dispatch needs nothing but its record. */
  protected override updateInstall(): void {
    super.updateInstall();
    const installed = primaryDispatchTracer() === this;
    // At detail `handlers` too: the dispatches whose handlers are not timed (most of a busy type's).
    const fused = installed && this.timed && !this.payloads && !this.tracking && this.breakTypes.size === 0;
    const log = runtime.dispatchLog;
    if (installed ? log !== this || fused !== this.fused : log === this) {
      this.fused = fused;
      runtime.dispatchLog = installed ? this : undefined;
      installTracers();
    }
  }

  /**
   * A handler of a fused dispatch threw: its bus has no sequence number for it (0), and it is the
   * innermost dispatch running here (nested ones have ended).
   */
  override handlerError(seq: number, bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    super.handlerError(seq === 0 && this.top >= 0 ? this.stack[this.top * Row.width + Row.seq] : seq, bus, sub, error);
  }

  // ------------------------------------------------------------------------------------------
  // DispatchLog: the buses' fused path (hot)

  /** A fused dispatch starts: a tick and a stack row (DispatchLog.startLogged). */
  startLogged(busId: number, typeId: number, depth: number): number {
    // The tick first: a clock read may drain, which resolves the ticked starts of the rows in use.
    const startTick = this.windowClock.next();
    const top = this.top + 1;
    if (top >= this.stackCap) this.growStack();
    const st = this.stack;
    const b = top * Row.width;
    // The parent is the row below, whatever the bus says: a bus of another copy of the package (ESM
    // vs CJS build) may be dispatching around this one, and each copy counts only its own depth.
    let parent = 0;
    if (top > 0) {
      parent = st[b - Row.width + Row.seq];
      depth = st[b - Row.width + Row.depth] + 1;
    }
    st[b + Row.seq] = ++this.lastSeq;
    st[b + Row.bus] = busId;
    st[b + Row.type] = typeId;
    st[b + Row.depth] = depth;
    st[b + Row.parent] = parent;
    st[b + Row.sub] = 0;
    st[b + Row.site] = 0;
    st[b + Row.sample] = 0;
    // Row.handlerStart and Row.startBound are read only once set (a resolved start).
    st[b + Row.start] = NaN;
    st[b + Row.startTick] = startTick;
    this.top = top;
    return top;
  }

  /** The fused dispatch at stack position `top` ended (DispatchLog.endLogged). */
  endLogged(top: number, delivered: number, consumedBy: number): void {
    // Something wants more of a dispatch since it started (a trace id, payloads, another detail,
    // recording stopped): it ends as a traced one does.
    if (!this.fused || currentTraceIdSource() !== undefined) return this.dispatchEnd(this.stack[top * Row.width + Row.seq], delivered, consumedBy);
    // Rows above this one whose end failed (out of stack, unwinding an overflow): recorded now.
    if (this.top !== top) this.endAbandoned(top);
    // The end's tick before the start is read (a drain there resolves the ticked start). Popped once
    // written: if anything before throws, the row stays for an outer end to record.
    const written = this.writeDispatch(top * Row.width, this.windowClock.next(), delivered, consumedBy);
    this.top = top - 1;
    if (written && this.size >= this.highWater && !this.draining) this.drain();
  }

  /** Dispatches above stack position `top` that never ended: recorded, as delivering to nobody, innermost first. */
  private endAbandoned(top: number): void {
    for (let t = this.top; t > top; t--) {
      this.writeDispatch(t * Row.width, this.windowClock.next(), 0, 0);
      this.top = t - 1;
      this.origins[t] = undefined;
    }
  }

  /**
   * Writes the dispatch record of stack row `b`, ended at `endTick` (the fused path's part of
   * RecorderCore.dispatchEnd): false when it began before dispatches were timed or the ring is full (counted).
   */
  private writeDispatch(b: number, endTick: number, delivered: number, consumedBy: number): boolean {
    const st = this.stack;
    // Read after the end's tick: a drain there resolves a ticked start (then `start` is known, the tick 0).
    const start = st[b + Row.start];
    const startTick = st[b + Row.startTick];
    if (startTick === 0 && start !== start) return false; // began before dispatches were timed
    const size = this.size;
    const cap = this.capacity;
    if (size === cap) {
      this.dropFull(true);
      return false;
    }
    // The first record since the ring emptied: it must reach the sinks within DRAIN_INTERVAL_MS.
    if (size === 0) this.drainSoon();
    let pos = this.readPos + size;
    if (pos >= cap) pos -= cap;
    const r = pos * Slot.width;
    const ring = this.ring as Float64Array;
    rowToSlot(ring, r, st, b, startTick, endTick, start, NaN, delivered, consumedBy);
    // The code and the size last: a slot left half-written (out of stack while unwinding an overflow,
    // where even a deoptimization can throw) is never read, and its dispatch's row stays for an outer end.
    ring[r] = Code.Dispatch;
    this.size = size + 1;
    return true;
  }

  /** DispatchLog.resolveList: a list's type id, and how many of its dispatches need no site and no handler timings. */
  resolveList(stale: LogCache | null, type: string): LogCache | null {
    // A type not interned yet (the traced path does, unless the table is full: a name with the
    // overflow id is counted at each of its dispatches).
    const id = this.strings.idOf(type);
    if (id === 0) return null;
    const handlersTimed = this.handlersTimed;
    const left = reserveSites(this.siteSampler, id, handlersTimed ? untimedLeft(this.sampler, id) : 0x3fffffff);
    if (left <= 0) return null;
    if (handlersTimed) this.sampler.countdown[id] -= left;
    if (stale !== null && stale.key === this.logKey) {
      stale.left = left;
      return stale;
    }
    return { key: this.logKey, type: id, left };
  }
}
