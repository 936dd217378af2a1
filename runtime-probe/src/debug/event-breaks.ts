// The part of event breakpoints that lives in the app, next to the bus's `debugger` statement:
//  - payload conditions: "break on `combat.hit` only when payload.damage > 50";
//  - which event break the app is stopped at (bus, type, payload), so a debugger can say so and
//    reach the payload without knowing the bundle's local variable names.
// Both are installed and read by a debugger through its own evaluate, never through the probe's
// socket: a condition is JavaScript, and only a debugger attached to the process — which can run any
// code there anyway — may add code to it. Without a debugger there are no conditions, and the
// `debugger` statement is a no-op, so none of this runs except for types someone asked to break on.
// No Node built-ins here: the bus-only (browser) entry includes this file.

/** Where a debugger finds this module's hook: `globalThis[Symbol.for('busscope.eventBreaks')]`. */
export const EVENT_BREAKS_GLOBAL_KEY = Symbol.for('busscope.eventBreaks');

/** A payload condition, compiled by the debugger in the app: truthy means "break". */
export type BreakConditionTest = (payload: unknown, type: string) => unknown;

/** The event break the app is stopped at (set right before the `debugger` statement, cleared after it). */
export interface EventBreakHit {
  readonly busId: number;
  readonly bus: string;
  readonly type: string;
  readonly payload: unknown;
}

/** What a debugger evaluates against (the object at EVENT_BREAKS_GLOBAL_KEY). */
export interface EventBreaksHook {
  readonly version: 1;
  /**
   * Replaces every condition: `[type, source, test]` per type (source is what the user wrote, kept
   * for display). Types without a condition break on every dispatch. Returns how many were set.
   * @throws TypeError on a malformed entry (nothing is changed then).
   */
  setConditions(entries: readonly (readonly [string, string, BreakConditionTest])[]): number;
  clearConditions(): void;
  /**
   * Types that must not break even though a client still asks for them: breakpoints the user just
   * removed, muted by the debugger at once (the probe's socket hears of it only when the app runs).
   */
  mute(types: readonly string[]): void;
  muted(): string[];
  /** type → condition source. */
  conditions(): Record<string, string>;
  /** type → message of the last error its condition threw (such a dispatch breaks). */
  errors(): Record<string, string>;
  /** The event break the app is stopped at, or null. */
  readonly current: EventBreakHit | null;
}

interface Condition {
  readonly source: string;
  readonly test: BreakConditionTest;
}

/**
 * The hook's state other copies of the package read (a later copy shares the first copy's hook):
 * these names are a contract between copies. Conditions, failures and mutes stay in the closure of
 * `createHook`, which keeps this file small for pages (it ships in `busscope-probe/browser`).
 */
interface EventBreaks extends EventBreaksHook {
  /** Breaks in progress, innermost last (code evaluated while stopped may dispatch and break again). */
  readonly hits: EventBreakHit[];
  /** False when no debugger can be listening (Node without an open inspector): breaks are skipped. */
  debuggerPossible: boolean;
  /** Told after conditions or mutes change (the main thread passes them on to its workers: threads/thread-hub.ts). */
  onChange: (() => void) | undefined;
  /** True when the condition of `type` (if any) holds. A condition that throws counts as true. */
  holds(type: string, payload: unknown): boolean;
}

function createHook(): EventBreaks {
  let byType = new Map<string, Condition>();
  const failures = new Map<string, string>();
  let muteSet: ReadonlySet<string> = new Set();
  const changed = (): void => {
    try {
      hook.onChange?.();
    } catch {
      // passing conditions on must never fail the debugger's call
    }
  };
  const hook: EventBreaks = {
    version: 1,
    hits: [],
    debuggerPossible: true,
    onChange: undefined,
    setConditions(entries) {
      if (!Array.isArray(entries)) throw new TypeError('setConditions: expected an array of [type, source text, test function]');
      const next = new Map<string, Condition>();
      entries.forEach((entry, i) => {
        const [type, source, test] = (Array.isArray(entry) ? entry : []) as unknown[];
        if (typeof type !== 'string' || type === '' || typeof source !== 'string' || typeof test !== 'function') {
          throw new TypeError(`setConditions: entry ${i} must be [type, source text, test function] with a non-empty type`);
        }
        next.set(type, { source, test: test as BreakConditionTest });
      });
      byType = next;
      failures.clear();
      changed();
      return next.size;
    },
    clearConditions() {
      hook.setConditions([]);
    },
    mute(types) {
      if (!Array.isArray(types) || types.some((t) => typeof t !== 'string')) throw new TypeError('mute: expected an array of type names');
      muteSet = new Set(types);
      changed();
    },
    muted: () => [...muteSet],
    conditions: () => Object.fromEntries([...byType].map(([type, c]) => [type, c.source])),
    errors: () => Object.fromEntries(failures),
    get current() {
      const n = this.hits.length;
      return n === 0 ? null : this.hits[n - 1];
    },
    holds(type, payload) {
      if (muteSet.size !== 0 && muteSet.has(type)) return false;
      const c = byType.size === 0 ? undefined : byType.get(type);
      if (c === undefined) return true;
      try {
        return Boolean(c.test(payload, type));
      } catch (error) {
        // Breaking shows the user the dispatch their condition failed on; never breaking would hide it.
        failures.set(type, error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        return true;
      }
    },
  };
  return hook;
}

function isHook(value: unknown): value is EventBreaks {
  return (
    typeof value === 'object' && value !== null && (value as { version?: unknown }).version === 1 && typeof (value as { holds?: unknown }).holds === 'function'
  );
}

/**
 * One instance per process: the first copy of the package loaded installs it, later copies share it.
 * Pure for bundlers: a page bundle that imports the emitter adapters without using them drops it.
 */
const shared: EventBreaks = /* @__PURE__ */ (() => {
  const g = globalThis as { [EVENT_BREAKS_GLOBAL_KEY]?: unknown };
  const existing = g[EVENT_BREAKS_GLOBAL_KEY];
  if (isHook(existing)) return existing;
  const own = createHook();
  try {
    // Not enumerable, not writable (the defaults).
    Object.defineProperty(g, EVENT_BREAKS_GLOBAL_KEY, { value: own, configurable: true });
  } catch {
    // a frozen global: conditions cannot be installed, plain event breakpoints still work
  }
  return own;
})();

/**
 * @internal Called by `dispatch` only when a client asked to break on `type`. Returns whether to
 * stop; when it does, the hit is noted until `eventBreakDone()`.
 */
export function eventBreakWanted(busId: number, bus: string, type: string, payload: unknown): boolean {
  if (!shared.debuggerPossible || !shared.holds(type, payload)) return false;
  // Popped right after the `debugger` statement, so the stack is as deep as nested dispatches at most.
  shared.hits.push({ busId, bus, type, payload });
  return true;
}

/** @internal Called by `dispatch` right after its `debugger` statement. */
export function eventBreakDone(): void {
  shared.hits.pop();
}

/** @internal The Node probe says whether a debugger can be listening (debug/inspector-gate.ts). */
export function setDebuggerPossible(possible: boolean): void {
  shared.debuggerPossible = possible;
}

/**
 * @internal The main thread's probe passes conditions and mutes on to its workers, whose globals are
 * their own: `listener` is told after every change (one listener; undefined removes it). A hook made
 * by an older copy of the package never calls it.
 */
export function onEventBreaksChange(listener: (() => void) | undefined): void {
  shared.onChange = listener;
}

/** The process's hook (tests and in-process tools; a debugger uses the global). */
export function eventBreaks(): EventBreaksHook {
  return shared;
}
