// A handler call through a tracer's `callHandler` (the OpenTelemetry bridge runs it inside the
// span's context) that a failing tracer cannot lose: when the tracer throws or returns before it
// called the handler, the failure is reported (as any tracer failure) and the handler is called
// directly. No allocation: the handler waits in a module slot for the trampoline to take it.
// No Node built-ins here (the bus-only entry includes this file).
import type { DispatchTracer, HandlerCall, TracedSubscription } from './tracer';

type Call = (this: unknown, a: unknown, b: unknown) => unknown;

let pending: Call | null = null;
/** True once the handler of the innermost scoped call was entered (and after every scoped call). */
let entered = true;

function enter(this: unknown, a: unknown, b: unknown): unknown {
  const fn = pending as Call;
  pending = null;
  entered = true;
  return fn.call(this, a, b);
}

/** `fn.call(thisArg, a, b)` inside `tracer.callHandler`; see above. `failed` reports a tracer error. */
export function callInScope(
  tracer: DispatchTracer,
  seq: number,
  sub: TracedSubscription,
  fn: HandlerCall,
  thisArg: unknown,
  a: unknown,
  b: unknown,
  failed: (error: unknown) => void,
): unknown {
  pending = fn as Call;
  entered = false;
  let result: unknown;
  try {
    result = (tracer.callHandler as NonNullable<DispatchTracer['callHandler']>)(seq, sub, enter as HandlerCall, thisArg, a, b);
  } catch (error) {
    if (entered) throw error; // the handler's own error (or the tracer's after it ran)
    failed(error);
  }
  if (entered) return result;
  pending = null;
  entered = true;
  return (fn as Call).call(thisArg, a, b);
}
