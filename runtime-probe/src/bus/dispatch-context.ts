// Preallocated per-dispatch objects, so a detached dispatch allocates nothing:
//  - one DispatchContext per depth level (depth is process-wide; a level is used by one dispatch at a
//    time, because nested dispatches run strictly inside their parent's handler call);
//  - frozen DispatchResults shared by every dispatch with the same outcome.
import type { DispatchResult } from './types';

/** @internal The object handlers receive as `ctx`; reused per depth level. */
export class DispatchContextImpl {
  type = '';
  subscriptionId = 0;
  /** Set by `consume()`; reset before each handler call. */
  consumed = false;
  constructor(readonly depth: number) {}
  consume(): void {
    this.consumed = true;
  }
}

const PREALLOCATED_DEPTHS = 64;

/** @internal Index = depth. Grows on demand for buses with a large maxDepth. */
export const contexts: DispatchContextImpl[] = [];
for (let d = 0; d < PREALLOCATED_DEPTHS; d++) contexts.push(new DispatchContextImpl(d));

/** @internal The context for `depth`, growing the pool when needed (cold). */
export function contextAt(depth: number): DispatchContextImpl {
  while (contexts.length <= depth) contexts.push(new DispatchContextImpl(contexts.length));
  return contexts[depth];
}

/** Non-consumed results are shared per `delivered` count up to this many handlers. */
const RESULT_CACHE_LIMIT = 1024;
const notConsumed: DispatchResult[] = [];
for (let n = 0; n < 64; n++) notConsumed.push(Object.freeze({ delivered: n, consumed: false }));

/** @internal The shared result for a dispatch that delivered to `delivered` handlers and was not consumed. */
export function notConsumedResult(delivered: number): DispatchResult {
  if (delivered < notConsumed.length) return notConsumed[delivered];
  if (delivered >= RESULT_CACHE_LIMIT) return Object.freeze({ delivered, consumed: false });
  while (notConsumed.length <= delivered) notConsumed.push(Object.freeze({ delivered: notConsumed.length, consumed: false }));
  return notConsumed[delivered];
}

/** @internal A frozen consumed result (the caller caches it per consuming subscription). */
export function makeConsumedResult(delivered: number, consumedBy: number): DispatchResult {
  return Object.freeze({ delivered, consumed: true, consumedBy });
}
