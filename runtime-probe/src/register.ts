// `node --require busscope-probe/register app.js` (or `--import busscope-probe/register` for ESM):
// starts the probe in a process that does not load busscope-probe itself — socket and discovery
// file as with BUSSCOPE=1, every EventEmitter and EventTarget instrumented (BUSSCOPE_EMITTERS=all
// unless set otherwise). The other BUSSCOPE_* variables apply as usual (probe/environment.ts).
//
// NODE_OPTIONS is inherited by every child process (npm, tsc, a dev server): the first process to
// load this records its pid in BUSSCOPE_REGISTER_ROOT, and a process that finds another pid there
// stays off, silently, unless BUSSCOPE_CHILDREN=1 (it still passes the variable on). Worker threads
// share the pid, so they start their own probe (on their own port).
//
// Never breaks the app: anything that fails here is reported in one line on stderr, with how to turn
// it off, and the app runs as if the hook was not there. An app with its own busscope-probe gets one
// probe: every copy shares one runtime (bus/runtime.ts), and the first copy to read the environment
// starts it.

import { isMainThread } from 'node:worker_threads';
import { autoStartFromEnvironment } from './probe/auto-start';
import { parseSwitch } from './probe/environment';
import { addProbeFile } from './recorder/frames';
import { uninstallProcessWide } from './emitters/process-wide';

export const REGISTER_ROOT_VARIABLE = 'BUSSCOPE_REGISTER_ROOT';

/** Whether this process is the launched one (or one of its workers), or a child that asked to start. */
function isLaunchedProcess(env: NodeJS.ProcessEnv): boolean {
  const root = env[REGISTER_ROOT_VARIABLE];
  if (root === undefined || root.trim() === '') {
    env[REGISTER_ROOT_VARIABLE] = String(process.pid);
    return true;
  }
  if (root.trim() === String(process.pid) || !isMainThread) return true;
  const children = parseSwitch('BUSSCOPE_CHILDREN', env.BUSSCOPE_CHILDREN, 'child processes stay off');
  return children.ok && children.value;
}

function register(): void {
  try {
    // Frames of this bundle are the probe's own wherever a tool puts it (never a subscribe site).
    if (typeof __filename === 'string') addProbeFile(__filename);
    const env = process.env;
    if (!isLaunchedProcess(env)) return;
    autoStartFromEnvironment(env, 'register');
  } catch (error) {
    try {
      uninstallProcessWide();
    } catch {
      // nothing more to undo
    }
    try {
      const reason = error instanceof Error ? error.message : String(error);
      process.stderr.write(
        `[busscope] busscope-probe/register could not start (${reason}); the app runs without it. ` +
          'To turn it off, remove busscope-probe/register from NODE_OPTIONS / --require / --import, or set BUSSCOPE=0.\n',
      );
    } catch {
      // no stderr: nothing left to tell
    }
  }
}

register();
