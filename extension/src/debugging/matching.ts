// Which debug session does a running Busscope app belong to? In order of certainty:
//   1. the app's pid is a debug target's pid (js-debug debugs every Node process it launches);
//   2. a debug target's pid is among the app's ancestors (a child process nobody attached to);
//   3. fallback, when a target's pid is unknown: the same working folder, started after the debug
//      session, and only one such target and app.
// No `vscode` here; the process tree comes from /proc on Linux.
import fs from 'node:fs';

export interface DebugTargetFacts {
  /** VS Code's debug session id. */
  readonly id: string;
  /** The process it debugs, when known. */
  readonly pid: number | undefined;
  /** Epoch ms when the debug session started. */
  readonly startedAt: number;
  /** The debuggee's working folder when the configuration says (launch `cwd`, else the workspace folder). */
  readonly cwd: string | undefined;
}

export interface AppFacts {
  readonly pid: number;
  readonly cwd: string;
  /** Epoch ms when the probe started. */
  readonly startTime: number;
}

export type MatchReason = 'pid' | 'descendant' | 'cwd-and-time';

export interface AppMatch<T extends DebugTargetFacts> {
  readonly target: T;
  readonly reason: MatchReason;
}

/** How far up the process tree to look. */
const MAX_ANCESTRY = 32;
/** Clock slack between the debug session's start and the probe's start. */
const START_SLACK_MS = 2000;

/** The parent pid of `pid` from /proc (Linux); undefined elsewhere or when the process is gone. */
export function linuxParentPid(pid: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may contain spaces and parentheses, so split after the last ')'.
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
}

/** The pids above `pid`, nearest first (bounded, cycle-safe). */
export function ancestorsOf(pid: number, parentOf: (pid: number) => number | undefined = linuxParentPid): number[] {
  const out: number[] = [];
  const seen = new Set<number>([pid]);
  let at = pid;
  for (let i = 0; i < MAX_ANCESTRY; i++) {
    const parent = parentOf(at);
    if (parent === undefined || parent <= 1 || seen.has(parent)) break;
    out.push(parent);
    seen.add(parent);
    at = parent;
  }
  return out;
}

/** The debug target an app belongs to, if any (see the order above). */
export function matchApp<T extends DebugTargetFacts>(
  app: AppFacts,
  targets: readonly T[],
  parentOf: (pid: number) => number | undefined = linuxParentPid,
): AppMatch<T> | undefined {
  const exact = targets.find((t) => t.pid === app.pid);
  if (exact !== undefined) return { target: exact, reason: 'pid' };
  const withPid = targets.filter((t) => t.pid !== undefined);
  if (withPid.length > 0) {
    for (const ancestor of ancestorsOf(app.pid, parentOf)) {
      const t = withPid.find((x) => x.pid === ancestor);
      if (t !== undefined) return { target: t, reason: 'descendant' };
    }
  }
  const unknown = targets.filter(
    (t) => t.pid === undefined && t.cwd !== undefined && samePath(t.cwd, app.cwd) && app.startTime + START_SLACK_MS >= t.startedAt,
  );
  if (unknown.length === 1) return { target: unknown[0], reason: 'cwd-and-time' };
  return undefined;
}

function samePath(a: string, b: string): boolean {
  const norm = (p: string): string => p.replace(/[\\/]+$/, '');
  return process.platform === 'win32' ? norm(a).toLowerCase() === norm(b).toLowerCase() : norm(a) === norm(b);
}

/** js-debug names a Node target `app.js [1234]` (and its child sessions `app.js [1234] « Launch`). */
export function pidFromTargetName(name: string): number | undefined {
  const m = /\[(\d+)\]/.exec(name);
  if (m === null) return undefined;
  const pid = Number(m[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
