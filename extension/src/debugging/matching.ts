// Which debug session does a running Busscope app belong to? For a Node app, in order of certainty:
//   1. the app's pid is a debug target's pid (js-debug debugs every Node process it launches);
//   2. a debug target's pid is among the app's ancestors (a child process nobody attached to);
//   3. fallback, when a target's pid is unknown: the same working folder, started after the debug
//      session, and only one such target and app.
// For a browser app (a page that connected itself), the page target with its tab id, else its origin
// (`matchPage`).
// No `vscode` here; the process tree comes from /proc on Linux.
import fs from 'node:fs';

/**
 * Debug types of VS Code's JavaScript debugger for a browser: the launch/attach the user starts, and
 * the child session per page (and worker) target, which carries the same type.
 */
export const BROWSER_DEBUG_TYPES: readonly string[] = ['chrome', 'pwa-chrome', 'msedge', 'pwa-msedge'];

export function isBrowserDebugType(type: string): boolean {
  return BROWSER_DEBUG_TYPES.includes(type);
}

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

/** What a page's debug target says about itself (evaluated in it: debugTargets.ts `pageIdentityExpression`). */
export interface PageTargetFacts {
  readonly id: string;
  /** `location.origin` of the page the target shows; undefined until read. */
  readonly origin: string | undefined;
  /** The tab id `busscope-probe/browser` keeps in the page's sessionStorage; '' when it has none (yet). */
  readonly tabId: string;
}

/** A browser app's identity, as its connection gave it (the checked `Origin` header and the `tab` it sent). */
export interface PageAppFacts {
  readonly origin: string;
  readonly tabId: string;
}

export type PageMatchReason = 'tab' | 'origin';

export interface PageMatch<T extends PageTargetFacts> {
  readonly target: T;
  readonly reason: PageMatchReason;
}

/**
 * The debug target of a browser app's page:
 *   1. the target's tab id (sessionStorage) is the app's: that tab, whatever else is open;
 *   2. fallback, for a target whose tab id could not be read: the only such target of the app's
 *      origin, when the app is the only live page of that origin (`pagesOfOrigin`).
 * A target whose tab id is known and different is another tab, never this page.
 */
export function matchPage<T extends PageTargetFacts>(app: PageAppFacts, targets: readonly T[], pagesOfOrigin: number): PageMatch<T> | undefined {
  if (app.tabId !== '') {
    const byTab = targets.find((t) => t.tabId === app.tabId);
    if (byTab !== undefined) return { target: byTab, reason: 'tab' };
  }
  if (pagesOfOrigin !== 1) return undefined;
  const sameOrigin = targets.filter((t) => t.tabId === '' && t.origin !== undefined && t.origin === app.origin);
  return sameOrigin.length === 1 ? { target: sameOrigin[0], reason: 'origin' } : undefined;
}

/** The expression that reads a page target's identity: `P<tab id> <origin>` ("P " plus the origin without a tab id). */
export const PAGE_IDENTITY_EXPRESSION = `(() => {
  let tab = '';
  try { tab = String(globalThis.sessionStorage.getItem('busscope.tabId') || ''); } catch (e) { tab = ''; }
  const loc = globalThis.location;
  return 'P' + tab + ' ' + (loc && typeof loc.origin === 'string' ? loc.origin : '');
})()`;

/** Parses the answer to PAGE_IDENTITY_EXPRESSION (the debugger may quote it); undefined when it is not one. */
export function parsePageIdentity(result: string): { tabId: string; origin: string } | undefined {
  const text = result.length >= 2 && /^['"`]/.test(result) && result[result.length - 1] === result[0] ? result.slice(1, -1) : result;
  const m = /^P([0-9a-f]{16})? (\S*)$/.exec(text);
  if (m === null) return undefined;
  return { tabId: m[1] ?? '', origin: m[2] };
}
