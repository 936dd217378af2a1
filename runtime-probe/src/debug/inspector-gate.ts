// Whether a debugger could be listening: Node's inspector is open (`--inspect`, `inspector.open()`,
// or SIGUSR1 at run time). Without it an event breakpoint's `debugger` statement can stop nothing,
// yet executing one still costs a runtime call; the bus then skips the break (event-breaks.ts), so
// `breakOn` costs nothing in an app nobody can debug. The bus reads a variable: it is refreshed by a
// timer (unref'd, once a second) only while some type is to break on (the recorder's `setBreakOn`),
// so an inspector opened later is noticed within a second. (Reading the clock per dispatch would cost
// more than the break.) Outside Node nothing calls this, and breaks always run.
// Worker threads: `inspector.url()` there is undefined even while the main thread's inspector is
// open, yet a debugger attached to the main thread reaches every worker (CDP's NodeWorker domain,
// which js-debug uses to debug workers). So the main thread publishes its state in shared memory
// (threads/environment.ts) and a worker's gate is open when its own inspector or the main thread's is.
import inspector from 'node:inspector';
import { setDebuggerPossible } from './event-breaks';

const RECHECK_MS = 1000;
let open = false;
let timer: ReturnType<typeof setInterval> | undefined;
/** Int32 [main thread's inspector open]: this thread writes it (main) or reads it (worker). */
let shared: { readonly flag: Int32Array; readonly role: 'main' | 'worker' } | undefined;

function ownInspectorOpen(): boolean {
  try {
    return inspector.url() !== undefined;
  } catch {
    return false; // a runtime without an inspector
  }
}

function check(): void {
  open = ownInspectorOpen();
  if (shared?.role === 'main') Atomics.store(shared.flag, 0, open ? 1 : 0);
  else if (shared?.role === 'worker' && !open) open = Atomics.load(shared.flag, 0) === 1;
  setDebuggerPossible(open);
}

/**
 * Joins the main thread's inspector state (threads/environment.ts, once per thread): the main thread
 * writes `flag` on every check, a worker reads it. Checks at once, so the flag is current for the
 * workers the main thread creates from now on.
 */
export function shareInspectorState(flag: Int32Array, role: 'main' | 'worker'): void {
  shared = { flag, role };
  if (role === 'main') Atomics.store(flag, 0, ownInspectorOpen() ? 1 : 0);
}

/** True when Node's inspector is open (as of the last check); in a worker, its own or the main thread's. */
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
