// Cleanup on normal exit and on the terminating signals a user or a terminal sends (SIGINT, SIGTERM,
// and on POSIX SIGHUP — the terminal closed — and SIGQUIT), without changing how the app reacts to
// them: Node's default for those signals is to terminate (it resets inherited dispositions at
// startup), but adding a listener cancels that default. So when our listener is the only one, it
// removes itself and re-raises the signal, and the process still terminates the way it would have.
// When the app has its own listener, the app decides. (Windows only emulates SIGINT/SIGTERM-like
// events for consoles and cannot re-raise SIGHUP or SIGQUIT, so those are left alone there.)

type Cleanup = () => void;

const cleanups = new Set<Cleanup>();
const SIGNALS: readonly NodeJS.Signals[] = process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
let installed = false;

function runAll(): void {
  for (const c of [...cleanups]) {
    try {
      c();
    } catch {
      // best effort: the process is going away
    }
  }
  cleanups.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  // Another listener means the app handles this signal itself (maybe without exiting): leave the
  // cleanup to the 'exit' event, which fires if and when it does exit.
  if (process.listenerCount(signal) !== 1) return;
  runAll();
  uninstall();
  process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runAll);
  for (const s of SIGNALS) process.on(s, onSignal);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.removeListener('exit', runAll);
  for (const s of SIGNALS) process.removeListener(s, onSignal);
}

/** Runs `cleanup` once at exit or on a terminating signal (see SIGNALS); the returned function unregisters it. */
export function onProcessExit(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  install();
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) uninstall();
  };
}
