// The recorder's stack of dispatches in progress (recorder-core.ts): one row of `Row.width` doubles
// per stack position, in one Float64Array so the hot path touches one object. An enum, not
// constants: a bundler writes its members into the recorder's code as numbers (a module constant
// would be a load from the module's scope at every use on the hot path).
// No Node built-ins here (the recorder core runs in pages and workers too).

import { DispatchSlot } from './layouts';

export enum Row {
  seq = 0,
  bus,
  type,
  depth,
  parent,
  /**
   * Known only when `startTick` is 0: NaN when the dispatch is not timed (detail `lifecycle`, or
   * tracking without recording). A ticked start leaves it unwritten (the drain resolves the tick).
   */
  start,
  sub,
  site,
  handlerStart,
  /** Window-clock tick of the start (0: the start is `start`, or untimed when that is NaN too). */
  startTick,
  /** Error bound (ms) of `start` once known. */
  startBound,
  /** Detail `handlers`: N when this dispatch's handlers are timed (it stands for N dispatches), else 0. */
  sample,
  /** Doubles per row. */
  width,
}

/**
 * The dispatch record of stack row `b` into ring slot `r`, every field but the code (the traced end
 * writes it first, the fused end last): the one copy both ends share.
 */
export function rowToSlot(
  ring: Float64Array,
  r: number,
  st: Float64Array,
  b: number,
  startTick: number,
  endTick: number,
  start: number,
  end: number,
  delivered: number,
  consumedBy: number,
): void {
  ring[r + DispatchSlot.seq] = st[b + Row.seq];
  ring[r + DispatchSlot.startTick] = startTick;
  ring[r + DispatchSlot.endTick] = endTick;
  ring[r + DispatchSlot.start] = start;
  ring[r + DispatchSlot.end] = end;
  // Read only for a known start (the drain resolves a tick's).
  ring[r + DispatchSlot.startBound] = st[b + Row.startBound];
  ring[r + DispatchSlot.bus] = st[b + Row.bus];
  ring[r + DispatchSlot.type] = st[b + Row.type];
  ring[r + DispatchSlot.delivered] = delivered;
  ring[r + DispatchSlot.consumedBy] = consumedBy;
  ring[r + DispatchSlot.depth] = st[b + Row.depth];
  ring[r + DispatchSlot.parentSeq] = st[b + Row.parent];
  ring[r + DispatchSlot.site] = st[b + Row.site];
}
