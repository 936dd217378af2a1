// The fused dispatch, Node only (the Node recorder imports this; pages and workers never do, which
// keeps it out of their size budget): while the recorder is the one dispatch tracer and wants nothing
// but each dispatch's record (a DispatchLog, tracer.ts, published as `runtime.dispatchLog`), a bus of
// this copy writes the record through the log itself around its untraced loops instead of calling the
// tracer's hooks. Per copy of the package: a copy that never loaded this module keeps the traced path,
// whose records interleave with these (the log shares the recorder's stack, sequence and clock).
import { depthNow, NO_SUBSCRIBERS, setFusedDispatch, type FusableBus } from './event-bus';
import { runtime, type TracerSlots } from './runtime';
import type { DispatchLog } from './tracer';
import type { DispatchResult } from './types';

/** The log while this copy's buses write through it (then `setFusedDispatch` has `dispatchLogged`). */
let log: DispatchLog | undefined;

/**
 * The dispatch while the log is on: a tick and a stack row at the start, the record at the end, the
 * handlers in the untraced loops. What the log leaves out goes through the tracer: a type whose
 * dispatch site is due (or that the log does not cache), a producer port's event (only a flushing bus
 * has one: the tracer takes its origin), and a dispatch the depth limit refuses (never started).
 */
function dispatchLogged(bus: FusableBus, type: string, payload: unknown): DispatchResult {
  const l = log as DispatchLog; // installed only with a log
  const typed = type === bus.lastType ? bus.lastList : bus.lookup(type);
  const depth = depthNow();
  let c = typed.log;
  if (
    bus.flushing ||
    depth > bus.maxDepth ||
    ((c === null || c.key !== l.logKey || c.left <= 0) && (typed === NO_SUBSCRIBERS || (c = typed.log = l.resolveList(c, type)) === null))
  ) {
    return bus.dispatchTraced(l, type, payload);
  }
  c.left--;
  const top = l.startLogged(bus.busId, c.type, depth);
  let result: DispatchResult;
  try {
    result = bus.dispatchUntraced(type, payload);
  } catch (error) {
    // An error escaping the handlers' error path (out of stack): the dispatch ended all the same.
    l.endLogged(top, 0, 0);
    throw error;
  }
  l.endLogged(top, result.delivered, result.consumedBy ?? 0);
  return result;
}

/** Refreshed with every copy's tracer slots: the log while it is the one dispatch tracer, fused, and no trace id source wants each dispatch's id. */
const refresh: TracerSlots = (_tracer, dispatchTracer) => {
  const published = runtime.dispatchLog;
  log = published !== undefined && published === dispatchTracer && published.fused && runtime.traceIdSource === undefined ? published : undefined;
  setFusedDispatch(log === undefined ? undefined : dispatchLogged);
};
runtime.copies.push(refresh);
refresh(runtime.tracer, runtime.dispatchTracer);

/** @internal For tests: the log this copy's buses write through right now (undefined: the traced path). */
export function currentDispatchLog(): DispatchLog | undefined {
  return log;
}
