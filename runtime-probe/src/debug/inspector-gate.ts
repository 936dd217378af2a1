// Whether a debugger could be listening: Node's inspector is open (`--inspect`, `inspector.open()`,
// or SIGUSR1 at run time). Without it an event breakpoint's `debugger` statement can stop nothing,
// yet executing one still costs a runtime call; the probe skips the break then, so `breakOn` costs
// nothing in an app nobody can debug. Reading the answer is a variable read: it is refreshed by a
// timer (unref'd, once a second) only while some type is to break on, so an inspector opened later
// is noticed within a second. (Reading the clock per dispatch would cost more than the break.)
import inspector from 'node:inspector';

const RECHECK_MS = 1000;
let open = false;
let timer: ReturnType<typeof setInterval> | undefined;

function check(): void {
  try {
    open = inspector.url() !== undefined;
  } catch {
    open = false; // a runtime without an inspector
  }
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
