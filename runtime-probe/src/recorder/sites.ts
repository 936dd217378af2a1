// Source sites from V8 stack traces ("    at fn (file:line:col)"). The string form is used on purpose:
// with --enable-source-maps (or a source-map hook) it already carries the original paths.
// Frames of the bus and the probe themselves are skipped, so the site is the app's own call.

import type { SiteEntry, SiteTable } from './tables';

export interface ParsedFrame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly functionName: string | undefined;
}

// Files of this package that can appear on a stack between the app and the tracer: the bundles
// (dist/index.*, dist/bus.*) and, when run from source, the bus/delegates/probe folders.
const INTERNAL_FILE =
  /[\\/](?:runtime-probe|busscope-probe)[\\/](?:dist[\\/](?:index|bus)\.(?:c|m)?js|src[\\/](?:bus|delegates|recorder|probe|server|trace)[\\/])/;
// When an app bundles the package into its own file, the bus's methods are recognisable by name.
const INTERNAL_FUNCTION = /^(?:EventBus|Recorder)\./;

/** Parses one V8 stack line; undefined for lines without a file position (native, eval, <anonymous>). */
export function parseStackLine(raw: string): ParsedFrame | undefined {
  let s = raw.trim();
  if (!s.startsWith('at ')) return undefined;
  s = s.slice(3);
  if (s.startsWith('async ')) s = s.slice(6);
  let functionName: string | undefined;
  let location = s;
  if (s.endsWith(')')) {
    const open = s.indexOf(' (');
    if (open < 0) return undefined;
    functionName = s.slice(0, open);
    location = s.slice(open + 2, -1);
    const alias = functionName.indexOf(' [as ');
    if (alias >= 0) functionName = functionName.slice(0, alias);
    if (functionName === '<anonymous>' || functionName === '') functionName = undefined;
  }
  if (location.startsWith('eval at ')) return undefined;
  const m = /^(.*):(\d+):(\d+)$/.exec(location);
  if (m === null) return undefined;
  let file = m[1];
  if (file.startsWith('file://')) file = fileUrlToPath(file);
  return { file, line: Number(m[2]), column: Number(m[3]), functionName };
}

function fileUrlToPath(url: string): string {
  let p = url.slice('file://'.length);
  try {
    p = decodeURIComponent(p);
  } catch {
    // keep it encoded
  }
  // file:///C:/x → C:/x
  if (/^\/[A-Za-z]:\//.test(p)) p = p.slice(1);
  return p;
}

export function isInternalFrame(frame: ParsedFrame): boolean {
  return (
    INTERNAL_FILE.test(frame.file) ||
    frame.file.startsWith('node:') ||
    (frame.functionName !== undefined && INTERNAL_FUNCTION.test(frame.functionName))
  );
}

/** Marks stack lines already classified as not-the-site (internal or unparseable). */
const SKIP = 0;

type CaptureStackTrace = (target: object, constructorOpt?: Function) => void;

/**
 * The first app frame below `above` (a function on the current stack, excluded with everything above
 * it), interned in `sites`; undefined when the runtime gives no usable stack.
 */
export function captureSite(above: Function, sites: SiteTable, skipCache: Map<string, number>): SiteEntry | undefined {
  const capture = (Error as unknown as { captureStackTrace?: CaptureStackTrace }).captureStackTrace;
  if (typeof capture !== 'function') return undefined;
  const holder: { stack?: unknown } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 24;
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
