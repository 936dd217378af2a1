// Cleanup on normal exit and on SIGINT/SIGTERM, without changing how the app reacts to signals:
// Node's default for those signals is to terminate, but adding a listener cancels that default. So
// when our listener is the only one, it removes itself and re-raises the signal, and the process
// still terminates the way it would have. When the app has its own listener, the app decides.

type Cleanup = () => void;

const cleanups = new Set<Cleanup>();
const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];
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

/** Runs `cleanup` once at exit or on SIGINT/SIGTERM; the returned function unregisters it. */
export function onProcessExit(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  install();
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) uninstall();
  };
}
