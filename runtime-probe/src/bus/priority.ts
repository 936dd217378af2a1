// The order a bus calls a type's handlers in: the one definition the bus's dispatch, the model, the
// analyses and the views share. No imports: every layer (browser entry included) may use it.

/** Whether a subscription runs before another: higher priority first; equal priority in subscription order (ids grow with time). */
export function runsBefore(aPriority: number, aId: number, bPriority: number, bId: number): boolean {
  return aPriority > bPriority || (aPriority === bPriority && aId < bId);
}

/** A sort comparator for that order, over anything with a subscription's priority and id. */
export function byExecutionOrder(a: { readonly priority: number; readonly id: number }, b: { readonly priority: number; readonly id: number }): number {
  return runsBefore(a.priority, a.id, b.priority, b.id) ? -1 : runsBefore(b.priority, b.id, a.priority, a.id) ? 1 : 0;
}
