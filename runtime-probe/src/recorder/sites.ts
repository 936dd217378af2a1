// Subscribe and dispatch sites: the app's own call, never a frame of the bus or the probe.
//
// Hot path (every subscribe, every sampled dispatch): V8 call sites, not stack text. For a moment
// `Error.prepareStackTrace` returns the structured CallSite objects and `Error.stackTraceLimit` is
// small; both are restored in a `finally`. Each frame's raw position is looked up in the site table
// (one map hit for a site seen before), so no frame is formatted and nothing is source-mapped here.
// Mapping happens once per distinct site, off the hot path (tables.ts, source-map.ts).
//
// Fallback (a runtime without V8's stack API, or an app that installed its own
// `Error.prepareStackTrace`, e.g. a source-map hook): the stack text, parsed line by line.

import { isInternalFrame, parseStackLine } from './frames';
import type { RawFrame, ResolvedFrame, V8CallSite } from './frames';
import { NOT_A_SITE, type SiteEntry, type SiteTable } from './tables';

export { isInternalFrame, parseStackLine, type ParsedFrame } from './frames';

type CaptureStackTrace = (target: object, constructorOpt?: Function) => void;
type PrepareStackTrace = (error: Error, frames: V8CallSite[]) => unknown;
interface V8ErrorConstructor {
  captureStackTrace?: CaptureStackTrace;
  prepareStackTrace?: PrepareStackTrace;
  stackTraceLimit: number;
}

/**
 * Frames taken on the hot path: the bus's own (one for subscribe, two for dispatch) and the app's
 * call. Each frame costs, so as few as that.
 */
const FIRST_LIMIT = 3;
/** For a position not seen before (or only internal frames): as many as the text form used. */
const FULL_LIMIT = 24;

const returnCallSites: PrepareStackTrace = (_error, frames) => frames;

/** Node's own formatter (`Error.prepareStackTrace` as Node ≥ 20 installs it); undefined before that. */
function isRuntimeDefault(prepare: unknown): boolean {
  return prepare === undefined || (typeof prepare === 'function' && prepare.name === 'ErrorPrepareStackTrace');
}

/**
 * The first app frame below `above` (a function on the current stack, excluded with everything above
 * it), interned in `sites`; undefined when the runtime gives no usable stack. `above` is the tracer
 * method the bus calls directly, so the frame right below it is the bus's own.
 */
export function captureSite(above: Function, sites: SiteTable, skipCache: Map<string, number>): SiteEntry | undefined {
  const E = Error as unknown as V8ErrorConstructor;
  const capture = E.captureStackTrace;
  if (typeof capture !== 'function') return undefined;
  if (presetFrames !== undefined) {
    // The subscriber read the stack already (process-wide emitters): its frames start at the
    // app's call, so the first one is a candidate too. Read again only if they held no site.
    const site = scan(presetFrames, sites, true, 0);
    if (site !== undefined && site !== NEW_POSITION) return site;
  }
  if (!isRuntimeDefault(E.prepareStackTrace)) return captureSiteFromText(capture, above, sites, skipCache);
  // Usually every frame's position is known: a map hit, and done. A new position (cold), or only
  // internal frames, takes the full stack once.
  const frames = callSites(E, capture, above, FIRST_LIMIT);
  if (frames === undefined) return captureSiteFromText(capture, above, sites, skipCache);
  const found = scan(frames, sites, false, 1);
  if (found !== NEW_POSITION && (found !== undefined || frames.length < FIRST_LIMIT)) return found;
  const full = callSites(E, capture, above, FULL_LIMIT);
  if (full === undefined) return undefined;
  const site = scan(full, sites, true, 1);
  return site === NEW_POSITION ? undefined : site;
}

/**
 * Frames a subscriber captured above its own `on` for this subscribe, which `captureSite` reads
 * instead of the stack: one stack read per subscribe, shared by the origin (emitters/caller-origin.ts)
 * and the site. Set only around the synchronous report of that subscribe.
 */
let presetFrames: readonly V8CallSite[] | undefined;

/** See `presetFrames`; `undefined` clears it. */
export function presetSubscribeFrames(frames: readonly CallSiteLike[] | undefined): void {
  presetFrames = frames as readonly V8CallSite[] | undefined;
}

/** What a capture yields: V8's structured call sites (only the methods used outside this file). */
export interface CallSiteLike {
  getFileName(): unknown;
}

/**
 * The structured call sites below `above` (`limit` of them), or undefined when the runtime's stack
 * API is missing or the app installed its own `Error.prepareStackTrace` (then only text is safe).
 */
export function captureCallSites(above: Function, limit: number): CallSiteLike[] | undefined {
  const E = Error as unknown as V8ErrorConstructor;
  const capture = E.captureStackTrace;
  if (typeof capture !== 'function' || !isRuntimeDefault(E.prepareStackTrace)) return undefined;
  try {
    return callSites(E, capture, above, limit);
  } catch {
    return undefined;
  }
}

function callSites(E: V8ErrorConstructor, capture: CaptureStackTrace, above: Function, limit: number): V8CallSite[] | undefined {
  const holder: { stack?: unknown } = {};
  const prepare = E.prepareStackTrace;
  const stackTraceLimit = E.stackTraceLimit;
  let stack: unknown;
  try {
    E.prepareStackTrace = returnCallSites;
    E.stackTraceLimit = limit;
    capture(holder, above);
    stack = holder.stack; // formatted now, by returnCallSites
  } finally {
    E.prepareStackTrace = prepare;
    E.stackTraceLimit = stackTraceLimit;
  }
  return Array.isArray(stack) ? (stack as V8CallSite[]) : undefined;
}

/** The script name V8 prints for a frame, or undefined when its stack line has no file position. */
function scriptName(cs: V8CallSite): string | undefined {
  const name = typeof cs.getScriptNameOrSourceURL === 'function' ? cs.getScriptNameOrSourceURL() : cs.getFileName();
  if (typeof name === 'string' && name !== '') return name;
  // No name: an eval prints "eval at …" (no site); anything else "<anonymous>:line:column".
  return cs.isEval() ? undefined : '<anonymous>';
}

/** `scan` found a position not seen before, and was not to add it. */
const NEW_POSITION = 1;

/**
 * The first frame that is a site: a known one, or (with `add`) a new one.
 *
 * Frames before `first` are never the site: in a capture made by the tracer, the first frame is the
 * bus's own (the tracer is called directly by the bus), and its file holds the bus's code; preset
 * frames (`first` 0) start at the app's call. When that file is not recognisable as the
 * package (an app bundle that includes the bus, minified), a new position in it may be the bus or
 * the app: with source maps it is resolved at once (once per position) to tell; everywhere else
 * resolution waits until the site is first sent or read.
 */
function scan(frames: readonly V8CallSite[], sites: SiteTable, add: boolean, first: 0 | 1): SiteEntry | undefined | typeof NEW_POSITION {
  let busFile: string | undefined;
  for (let i = 0; i < frames.length; i++) {
    const cs = frames[i];
    const line = cs.getLineNumber();
    if (line === null || line === undefined) continue; // native, no position
    const file = scriptName(cs);
    if (file === undefined) continue;
    if (i === 0 && first === 1) busFile = file;
    const column = cs.getColumnNumber() ?? 0;
    const known = sites.atPosition(file, line, column);
    if (known === NOT_A_SITE) continue;
    if (known !== undefined) return known;
    if (!add) return NEW_POSITION;
    // First time at this position (cold): read it as the stack text would show it, and classify it.
    const raw = i < first ? undefined : rawFrame(cs, file, line, column, frames[i + 1], sites);
    if (raw === undefined || isInternalFrame(raw.unmapped)) {
      sites.skipPosition(file, line, column);
      continue;
    }
    let resolved: ResolvedFrame | null = null;
    if (file === busFile) {
      resolved = sites.resolveFrame(raw);
      if (isInternalFrame(resolved)) {
        sites.skipPosition(file, line, column);
        continue;
      }
    }
    return sites.addRaw(raw, resolved);
  }
  return undefined;
}

/** The frame as stack text shows it (V8's own serialization, parsed): undefined when that has no site. */
function rawFrame(cs: V8CallSite, file: string, line: number, column: number, caller: V8CallSite | undefined, sites: SiteTable): RawFrame | undefined {
  const text = parseStackLine(`at ${String(cs)}`);
  if (text === undefined) return undefined;
  return { file, line, column, unmapped: text, mapKeys: sites.mapper?.readKeys(cs, caller) };
}

/** Marks stack lines already classified as not-the-site (internal or unparseable). */
const SKIP = 0;

/** The text form: as the runtime (or the app's own `prepareStackTrace`) prints the stack. */
function captureSiteFromText(capture: CaptureStackTrace, above: Function, sites: SiteTable, skipCache: Map<string, number>): SiteEntry | undefined {
  const holder: { stack?: unknown } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = FULL_LIMIT;
  try {
    capture(holder, above);
  } finally {
    Error.stackTraceLimit = limit;
  }
  const stack = holder.stack;
  if (typeof stack !== 'string') return undefined;
  let start = stack.indexOf('\n') + 1;
  while (start > 0 && start < stack.length) {
    let end = stack.indexOf('\n', start);
    if (end < 0) end = stack.length;
    const line = stack.slice(start, end);
    start = end + 1;
    const known = sites.get(line);
    if (known !== undefined) return known;
    if (skipCache.has(line)) continue;
    const frame = parseStackLine(line);
    if (frame === undefined || isInternalFrame(frame)) {
      if (skipCache.size < 10_000) skipCache.set(line, SKIP);
      continue;
    }
    return sites.add(line, frame.file, frame.line, frame.column, frame.functionName);
  }
  return undefined;
}
