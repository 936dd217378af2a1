// Process bookkeeping through /proc (Linux): which processes belong to a process group or descend from
// a pid, and stopping a group so that nothing we started survives (code-server's launcher leaves
// children such as its file watcher behind when only the launcher is killed).
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** R, S, D, Z (zombie: exited, not yet reaped — not a running stray), … */
  readonly state: string;
  /** Start time in clock ticks since boot: with the pid, identifies a process (pids get reused). */
  readonly startTime: number;
  readonly command: string;
}

export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // An empty cmdline (a process between fork and exec, or one that rewrote its title): use comm.
      const command =
        readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() || `[${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}]`;
      out.push({ pid: Number(name), state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), startTime: Number(rest[19]), command });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

const running = (p: ProcessInfo): boolean => p.state !== 'Z' && p.state !== 'X';

/** Live (non-zombie) members of process group `pgid`. */
export function processGroupMembers(pgid: number): ProcessInfo[] {
  return listProcesses().filter((p) => p.pgid === pgid && running(p));
}

/** Live descendants of `pid` (children, grandchildren, …), whatever their process group. */
export function descendantsOf(pid: number): ProcessInfo[] {
  const all = listProcesses();
  const found: ProcessInfo[] = [];
  let frontier = [pid];
  while (frontier.length) {
    const children = all.filter((p) => frontier.includes(p.ppid));
    found.push(...children);
    frontier = children.map((p) => p.pid);
  }
  return found.filter(running);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

export interface StopResult {
  /** What was running when the stop began (the group and its descendants). */
  readonly stopped: ProcessInfo[];
  /** Processes still alive afterwards: empty when everything stopped. */
  readonly strays: ProcessInfo[];
  /** SIGTERM was not enough within the grace period; SIGKILL was sent. */
  readonly forced: boolean;
}

/**
 * Stops process group `pgid` (started with `spawn(…, { detached: true })`, so pgid = the child's pid)
 * and any descendant that left the group: SIGTERM, then SIGKILL after `graceMs`.
 */
export async function stopProcessGroup(pgid: number, graceMs = 5000): Promise<StopResult> {
  const tracked = new Map<number, ProcessInfo>();
  const track = (): void => {
    for (const p of [...processGroupMembers(pgid), ...descendantsOf(pgid)]) tracked.set(p.pid, p);
  };
  track();
  signal(-pgid, 'SIGTERM');
  for (const p of tracked.values()) if (p.pgid !== pgid) signal(p.pid, 'SIGTERM');
  const alive = (): ProcessInfo[] => {
    const live = new Map(
      listProcesses()
        .filter(running)
        .map((p) => [p.pid, p]),
    );
    // Same pid and same start time: not a new process that reused the number.
    return [...tracked.values()].filter((p) => live.get(p.pid)?.startTime === p.startTime);
  };
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    track();
    if (alive().length === 0 && processGroupMembers(pgid).length === 0) return { stopped: [...tracked.values()], strays: [], forced: false };
    await new Promise((r) => setTimeout(r, 100));
  }
  signal(-pgid, 'SIGKILL');
  for (const p of alive()) signal(p.pid, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 500));
  const strays = [...alive(), ...processGroupMembers(pgid)].filter((p, i, a) => a.findIndex((q) => q.pid === p.pid) === i);
  return { stopped: [...tracked.values()], strays, forced: true };
}

/** Live processes whose command line mentions `text` (e.g. a run's temp dir): what a run left behind. */
export function processesMentioning(text: string): ProcessInfo[] {
  return listProcesses().filter((p) => running(p) && p.pid !== process.pid && p.command.includes(text));
}

export function describeProcesses(ps: readonly ProcessInfo[]): string {
  return ps.map((p) => `  pid ${p.pid} (pgid ${p.pgid}, ${p.state}): ${p.command.slice(0, 200)}`).join('\n');
}
