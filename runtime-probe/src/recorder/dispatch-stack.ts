// The recorder's stack of dispatches in progress (recorder-core.ts): one row of `Row.width` doubles
// per stack position, in one Float64Array so the hot path touches one object. An enum, not
// constants: a bundler writes its members into the recorder's code as numbers (a module constant
// would be a load from the module's scope at every use on the hot path).
// No Node built-ins here (the recorder core runs in pages and workers too).

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
