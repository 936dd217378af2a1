// Turning a raw V8 call site into the site a stack trace would show, off the hot path. Without
// source maps that is the V8 position as is. With them (node --enable-source-maps, or a loader that
// turns them on, like tsx), it is what Node's own stack formatting prints: the original file, line
// and column from `module.findSourceMap(file).findEntry(…)`, and the original function name. The
// rules below mirror Node's `serializeJSStackFrame` (lib/internal/source_map/prepare_stack_trace.js)
// followed by our parse of a stack line, so a site is exactly what reading `new Error().stack` gave.

import { findSourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fileUrlToPath } from './frames';

export type { RawFrame, ResolvedFrame } from './frames';
import type { FrameMapper, RawFrame, ResolvedFrame, SourceMapKeys, V8CallSite } from './frames';

interface SourceMapEntry {
  readonly originalSource?: string;
  readonly originalLine?: number;
  readonly originalColumn?: number;
  readonly name?: string;
}
interface SourceMapLike {
  findEntry(lineOffset: number, columnOffset: number): SourceMapEntry;
}

/** True when Node formats stack traces through source maps. */
export function sourceMapsEnabled(): boolean {
  const p = (globalThis as { process?: { sourceMapsEnabled?: unknown; execArgv?: readonly string[]; env?: Record<string, string | undefined> } }).process;
  if (p === undefined) return false;
  if (typeof p.sourceMapsEnabled === 'boolean') return p.sourceMapsEnabled;
  // Node < 20.7 has no `process.sourceMapsEnabled`.
  return (p.execArgv ?? []).includes('--enable-source-maps') || /(?:^|\s)--enable-source-maps(?:\s|$)/.test(p.env?.NODE_OPTIONS ?? '');
}

const mapCache = new Map<string, SourceMapLike | null>();
const MAX_CACHED_MAPS = 1024;

function mapFor(key: string | undefined): SourceMapLike | undefined {
  if (key === undefined) return undefined;
  let sm = mapCache.get(key);
  if (sm === undefined) {
    let found: SourceMapLike | undefined;
    try {
      found = (findSourceMap as (path: string) => SourceMapLike | undefined)(key);
    } catch {
      found = undefined;
    }
    sm = found ?? null;
    if (mapCache.size < MAX_CACHED_MAPS) mapCache.set(key, sm);
  }
  return sm ?? undefined;
}

/** What `mappedFrame` needs of a call site, read when its site is first captured. */
function readSourceMapKeys(cs: V8CallSite, caller: V8CallSite | undefined): SourceMapKeys {
  const mapKey = cs.getFileName();
  const callerKey = caller?.getFileName();
  const isAsync = typeof cs.isAsync === 'function' && cs.isAsync();
  return {
    mapKey: typeof mapKey === 'string' ? mapKey : undefined,
    isConstructor: !isAsync && cs.isConstructor(),
    typeName: cs.getTypeName(),
    functionOrMethod: cs.getFunctionName() ?? cs.getMethodName(),
    enclosingLine: (typeof cs.getEnclosingLineNumber === 'function' ? cs.getEnclosingLineNumber() : 0) ?? 0,
    enclosingColumn: (typeof cs.getEnclosingColumnNumber === 'function' ? cs.getEnclosingColumnNumber() : 0) ?? 0,
    callerMapKey: typeof callerKey === 'string' ? callerKey : undefined,
    callerLine: caller?.getLineNumber() ?? 0,
    callerColumn: caller?.getColumnNumber() ?? 0,
  };
}

/** The frame through its source map, as Node prints it; undefined when it has no mapping. */
function mappedFrame(raw: RawFrame, keys: SourceMapKeys, sm: SourceMapLike): ResolvedFrame | undefined {
  const entry = sm.findEntry(raw.line - 1, raw.column - 1);
  const source = entry.originalSource;
  if (source === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
  // Transpilers may have renamed the function: the enclosing function's name in the map, else the
  // name at the call in the caller (same file only).
  let symbol: string | undefined;
  if (keys.enclosingLine > 0) symbol = sm.findEntry(keys.enclosingLine - 1, keys.enclosingColumn - 1).name;
  if (!symbol && keys.callerMapKey !== undefined && keys.callerMapKey === keys.mapKey) {
    symbol = sm.findEntry(keys.callerLine - 1, keys.callerColumn - 1).name;
  }
  const typeName = keys.typeName;
  const original = `${typeName !== null && typeName !== 'global' ? `${typeName}.` : ''}${keys.functionOrMethod || '<anonymous>'}`;
  let name = symbol && symbol !== original ? symbol : original;
  if (keys.isConstructor) name = `new ${name}`;
  // What parsing "name (file:line:column)" keeps of the name.
  const alias = name.indexOf(' [as ');
  if (alias >= 0) name = name.slice(0, alias);
  // (A URL Node cannot convert makes it print the frame unmapped: the throw does the same here.)
  let file = source.startsWith('file://') ? fileURLToPath(source) : source;
  if (file.startsWith('file://')) file = fileUrlToPath(file);
  return {
    file,
    line: entry.originalLine + 1,
    column: entry.originalColumn + 1,
    functionName: name === '<anonymous>' || name === '' ? undefined : name,
  };
}

/**
 * The site a stack line shows for `raw`: through its source map when Node formats stacks with
 * source maps and the file has one, else as V8 gives it. Never throws (Node prints a frame it fails
 * to map unmapped, and so do we).
 */
export function resolveRawFrame(raw: RawFrame): ResolvedFrame {
  try {
    if (!sourceMapsEnabled()) return raw.unmapped;
    const keys = raw.mapKeys;
    const sm = keys === undefined ? undefined : mapFor(keys.mapKey);
    return (sm === undefined || keys === undefined ? undefined : mappedFrame(raw, keys, sm)) ?? raw.unmapped;
  } catch {
    return raw.unmapped;
  }
}

/** Node's source mapping of captured sites (the recorder host's `sourceMaps`). */
export const sourceMapper: FrameMapper = { readKeys: readSourceMapKeys, resolve: resolveRawFrame };
