// `node --require busscope-probe/register app.js` (or `--import busscope-probe/register` for ESM):
// starts the probe in a process that does not load busscope-probe itself — socket and discovery
// file as with BUSSCOPE=1, every EventEmitter and EventTarget instrumented (BUSSCOPE_EMITTERS=all
// unless set otherwise). The other BUSSCOPE_* variables apply as usual (probe/environment.ts).
//
// NODE_OPTIONS is inherited by every child process (npm, tsc, a dev server): the first process to
// run the user's own code records its pid in BUSSCOPE_REGISTER_ROOT, and a process that finds another
// pid there stays off, silently, unless BUSSCOPE_CHILDREN=1 (it still passes the variable on).
// Launchers in front of the app (`npm start`, nodemon, tsx's CLI) neither start nor claim it
// (probe/launchers.ts).
//
// Worker threads inherit the hook too (execArgv / NODE_OPTIONS) and share the pid: a probe per
// worker would be a second Apps entry for the same pid and name per thread (a pool of eight: eight
// entries), each gone when its worker ends, and the main thread's probe cannot see a worker's
// emitters (another V8 isolate). So the hook stays off in worker threads, and the main thread says
// so once on stderr when the app starts its first worker (seeing workers' emitters is issue #16).
//
// Never breaks the app: anything that fails here is reported in one line on stderr, with how to turn
// it off, and the app runs as if the hook was not there. An app with its own busscope-probe gets one
// probe: every copy shares one runtime (bus/runtime.ts), and the first copy to read the environment
// starts it.

import { realpathSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { autoStartFromEnvironment } from './probe/auto-start';
import { installThreads } from './threads/environment';
import { parseSwitch } from './probe/environment';
import { watchToolEsmImports } from './probe/esm-user-imports';
import { isUserModule, mainScriptKind } from './probe/launchers';
import { addProbeFile, isProbeFile } from './recorder/frames';
import { uninstallProcessWide } from './emitters/process-wide';

export const REGISTER_ROOT_VARIABLE = 'BUSSCOPE_REGISTER_ROOT';

/** What this process does with the hook: start the probe, stay off, or decide once its main script ran. */
type Role = 'start' | 'off' | 'after-main';

/** The main script's real path (`npm` on PATH is a symlink to npm-cli.js), as given when unresolvable. */
function realMainScript(): string | undefined {
  const main = process.argv[1];
  if (typeof main !== 'string' || main === '') return undefined;
  try {
    return realpathSync(main);
  } catch {
    return main;
  }
}

/**
 * The launched process (or one of its workers) starts; a child of it stays off unless it asked
 * (BUSSCOPE_CHILDREN=1). A launcher in front of the app (npm, nodemon, tsx's CLI: launchers.ts)
 * neither starts nor claims the root, so the app it spawns is the launched process.
 */
function roleOf(env: NodeJS.ProcessEnv): Role {
  const root = env[REGISTER_ROOT_VARIABLE];
  if (root === undefined || root.trim() === '') {
    if (isMainThread) {
      const kind = mainScriptKind(realMainScript());
      if (kind === 'package-manager') return 'off';
      if (kind === 'tool') return 'after-main';
    }
    env[REGISTER_ROOT_VARIABLE] = String(process.pid);
    return 'start';
  }
  if (root.trim() === String(process.pid)) return 'start';
  const children = parseSwitch('BUSSCOPE_CHILDREN', env.BUSSCOPE_CHILDREN, 'child processes stay off');
  return children.ok && children.value ? 'start' : 'off';
}

/**
 * A tool under node_modules is the app when, once its main script has run, it has loaded a module of
 * the user's own (ts-node's CLI running app.ts in its process); one that spawned the app has not.
 * Modules already loaded now (the user's own --require hooks) do not count. ES modules the tool
 * imports itself (a test runner importing specs, a CLI importing app.mjs) count whenever they are
 * imported (probe/esm-user-imports.ts).
 */
function decideAfterMain(env: NodeJS.ProcessEnv): void {
  let decided = false;
  const claim = (): void => {
    if (decided) return;
    decided = true;
    try {
      const root = env[REGISTER_ROOT_VARIABLE];
      if (root !== undefined && root.trim() !== '') return;
      env[REGISTER_ROOT_VARIABLE] = String(process.pid);
      if (autoStartFromEnvironment(env, 'register')) noteWorkersOnce();
    } catch (error) {
      failed(error);
    }
  };
  try {
    watchToolEsmImports((file) => isUserModule(file) && !isProbeFile(file), claim);
  } catch {
    // No loader hooks here: CommonJS detection only.
  }
  const cache = typeof require === 'function' ? require.cache : undefined;
  if (cache === undefined) return;
  const before = new Set(Object.keys(cache));
  setImmediate(() => {
    try {
      if (Object.keys(cache).some((file) => !before.has(file) && isUserModule(file) && !isProbeFile(file))) claim();
    } catch (error) {
      failed(error);
    }
  });
}

function failed(error: unknown): void {
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

/** One line on stderr when the app starts its first worker thread (see the file comment). */
function noteWorkersOnce(): void {
  process.once('worker', () => {
    try {
      process.stderr.write(
        "[busscope] worker threads are not instrumented: busscope-probe/register stays off in them, and this probe sees the main thread's emitters only.\n",
      );
    } catch {
      // no stderr: nothing left to tell
    }
  });
}

function register(): void {
  try {
    // Frames of this bundle are the probe's own wherever a tool puts it (never a subscribe site).
    if (typeof __filename === 'string') addProbeFile(__filename);
    // Worker threads share the id counters and forward their buses to the main thread's probe.
    installThreads();
    if (!isMainThread) return; // see the file comment
    const env = process.env;
    const role = roleOf(env);
    switch (role) {
      case 'off':
        return;
      case 'start':
        if (autoStartFromEnvironment(env, 'register')) noteWorkersOnce();
        return;
      case 'after-main':
        decideAfterMain(env);
        return;
      default: {
        const never: never = role;
        throw new Error(`unknown role ${String(never)}`);
      }
    }
  } catch (error) {
    failed(error);
  }
}

register();
