// Whether a debugger could be listening: Node's inspector is open (`--inspect`, `inspector.open()`,
// or SIGUSR1 at run time). Without it an event breakpoint's `debugger` statement can stop nothing,
// yet executing one still costs a runtime call; the bus then skips the break (event-breaks.ts), so
// `breakOn` costs nothing in an app nobody can debug. The bus reads a variable: it is refreshed by a
// timer (unref'd, once a second) only while some type is to break on (the recorder's `setBreakOn`),
// so an inspector opened later is noticed within a second. (Reading the clock per dispatch would cost
// more than the break.) Outside Node nothing calls this, and breaks always run.
import inspector from 'node:inspector';
import { setDebuggerPossible } from './event-breaks';

const RECHECK_MS = 1000;
let open = false;
let timer: ReturnType<typeof setInterval> | undefined;

function check(): void {
  try {
    open = inspector.url() !== undefined;
  } catch {
    open = false; // a runtime without an inspector
  }
  setDebuggerPossible(open);
}

/** True when Node's inspector is open (as of the last check). */
export function inspectorOpen(): boolean {
  return open;
}

/** Keeps `inspectorOpen()` current while `on` (someone asked to break on some type). */
export function watchInspector(on: boolean): void {
  if (on && timer === undefined) {
    check();
    timer = setInterval(check, RECHECK_MS);
    (timer as { unref?: () => void }).unref?.();
  } else if (!on && timer !== undefined) {
    clearInterval(timer);
    timer = undefined;
  }
}
