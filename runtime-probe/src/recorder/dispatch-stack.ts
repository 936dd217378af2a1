// The recorder's stack of dispatches in progress (recorder-core.ts): one row of ST doubles per
// stack position, in one Float64Array so the hot path touches one object. The offsets live in their
// own module so a bundler writes them into the recorder's code as numbers.
// No Node built-ins here (the recorder core runs in pages and workers too).

/** Doubles per row of the dispatch stack (see the ST_ offsets). */
export const ST = 12;
export const ST_SEQ = 0;
export const ST_BUS = 1;
export const ST_TYPE = 2;
export const ST_DEPTH = 3;
export const ST_PARENT = 4;
/** NaN when the dispatch is not timed (detail `lifecycle`, or tracking without recording). */
export const ST_START = 5;
export const ST_SUB = 6;
export const ST_SITE = 7;
export const ST_HANDLER_START = 8;
/** Window-clock tick of the start (0: the start is `ST_START`, or untimed when that is NaN too). */
export const ST_START_TICK = 9;
/** Error bound (ms) of `ST_START` once known. */
export const ST_START_BOUND = 10;
/** Detail `handlers`: N when this dispatch's handlers are timed (it stands for N dispatches), else 0. */
export const ST_SAMPLE = 11;
