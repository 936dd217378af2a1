// Event breakpoints in a page (and its Web Workers): the extension's `breakOn` names the types, and
// the bus runs its `debugger` statement at their dispatches, with the payload conditions and mutes
// a debugger installed through the hook (debug/event-breaks.ts), as in Node. A page cannot tell
// whether DevTools or VS Code's debugger is attached, so there is no gate: without a debugger the
// statement is a no-op (≈0.3 µs per dispatch of a break type; other types cost nothing).
// No Node built-ins here.

import { runtime } from '../bus/runtime';
import { eventBreakDone, eventBreakWanted } from '../debug/event-breaks';
import type { RecorderCore } from '../recorder/recorder-core';

/** Breaks on `types` from now on (none: no break); returns them without repeats (the `breakpoints` answer). */
export function setPageBreakOn(recorder: RecorderCore, types: readonly string[]): string[] {
  // Registered here, not by bus/optional-parts.ts (which `busscope-probe/browser` leaves out for size).
  const parts = (runtime.optional ??= {});
  parts.eventBreakWanted ??= eventBreakWanted;
  parts.eventBreakDone ??= eventBreakDone;
  const set = new Set(types);
  recorder.setBreakOn(set);
  runtime.pageThreads?.changed?.(); // the page's Web Workers break on the same types
  return [...set];
}
