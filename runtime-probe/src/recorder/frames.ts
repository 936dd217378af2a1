// Stack frames as text: V8 stack lines ("    at fn (file:line:col)") and which frames belong to the
// bus and the probe themselves (skipped, so a site is the app's own call).

export interface ParsedFrame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly functionName: string | undefined;
}

// Files of this package that can appear on a stack between the app and the tracer: the bundles
// (dist/index.*, dist/bus.*, dist/register.*) and, when run from source, the bus/delegates/probe folders.
const INTERNAL_FILE =
  /[\\/](?:runtime-probe|busscope-probe)[\\/](?:dist[\\/](?:index|bus|register)\.(?:c|m)?js|src[\\/](?:bus|delegates|emitters|recorder|probe|server|trace)[\\/])/;
/**
 * Further files of the probe, named at run time: the register script as a tool bundles it (the
 * VS Code extension ships it under its own folder), which the pattern above cannot know.
 */
const probeFiles = new Set<string>();

/** Marks `file` (a path as stacks show it) as the probe's own code. */
export function addProbeFile(file: string): void {
  probeFiles.add(file);
}

/** Whether frames in `file` are the probe's own (never a site). */
export function isProbeFile(file: string): boolean {
  return INTERNAL_FILE.test(file) || (probeFiles.size !== 0 && probeFiles.has(file));
}
// When an app bundles the package into its own file, the bus's methods are recognisable by name.
const INTERNAL_FUNCTION = /^(?:EventBus|Recorder|RecorderCore|BusTracerMux|DispatchTracerMux)\./;

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

/** `file:///a/b%20c.mjs` → `/a/b c.mjs`, `file:///C:/x` → `C:/x` (as the stack parser always did). */
export function fileUrlToPath(url: string): string {
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

export function isInternalFrame(frame: { readonly file: string; readonly functionName: string | undefined }): boolean {
  return isProbeFile(frame.file) || frame.file.startsWith('node:') || (frame.functionName !== undefined && INTERNAL_FUNCTION.test(frame.functionName));
}

/** The part of V8's CallSite API used here (https://v8.dev/docs/stack-trace-api). */
export interface V8CallSite {
  getScriptNameOrSourceURL?(): unknown;
  getFileName(): unknown;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getFunctionName(): string | null;
  getMethodName(): string | null;
  getTypeName(): string | null;
  isToplevel(): boolean;
  isConstructor(): boolean;
  isEval(): boolean;
  isAsync?(): boolean;
  getEnclosingLineNumber?(): number | null;
  getEnclosingColumnNumber?(): number | null;
}

/** A call site as captured on the hot path: V8's raw position and what is needed to map and name it. */
export interface RawFrame {
  /** The script name V8 reports (a path, or a file:// URL for ES modules): the position cache's key. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  /** The frame as an unmapped stack line shows it (parsed from V8's own serialization). */
  readonly unmapped: ResolvedFrame;
  /** What the host's source mapping read of the call site (undefined without one). */
  readonly mapKeys: SourceMapKeys | undefined;
}

/** What mapping a frame needs of its V8 call site, read when the site is captured (the call site itself is not kept). */
export interface SourceMapKeys {
  /** `getFileName()`: what Node's source map cache is keyed by. */
  readonly mapKey: string | undefined;
  readonly isConstructor: boolean;
  /** `getTypeName()`. */
  readonly typeName: string | null;
  /** `getFunctionName() ?? getMethodName()`. */
  readonly functionOrMethod: string | null;
  /** Position of the enclosing function (1-based), 0 when the runtime does not say. */
  readonly enclosingLine: number;
  readonly enclosingColumn: number;
  /** The calling frame's `getFileName()` and position (for the name fallback), undefined at the bottom. */
  readonly callerMapKey: string | undefined;
  readonly callerLine: number;
  readonly callerColumn: number;
}

/** A site as a stack line shows it. */
export interface ResolvedFrame {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly functionName: string | undefined;
}

/**
 * Source mapping of captured sites (Node: source-map.ts). A host without one (pages, workers) ships
 * none of it: its sites are the frames as the runtime printed them.
 */
export interface FrameMapper {
  /** On the hot path, once per new position: what `resolve` will need of the call site. */
  readKeys(site: V8CallSite, caller: V8CallSite | undefined): SourceMapKeys;
  /** Off the hot path: the site a stack line shows for `raw`. Never throws. */
  resolve(raw: RawFrame): ResolvedFrame;
}
