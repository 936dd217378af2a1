// Who is subscribing: the file whose code called `on` / `addEventListener`, for the app / library /
// node split (protocol/site-origin.ts). The recorder's subscribe site skips Node's frames (a site is
// the app's line), which cannot tell a socket's internal `end` listener (all frames Node's) from the
// app's; so process-wide instrumentation reads the stack itself: the first frame that is neither the
// probe's nor Node's decides; a stack of Node's frames only is Node's, and so is one that reaches
// Node's module loader first (a built-in module subscribing while it loads — `http`'s global Agent —
// under the app's `require` line).
//
// Cost: reading the stack is the one real cost of an instrumented subscribe, so it is read once per
// subscribe and the same frames serve the recorder's subscribe site (`presetSubscribeFrames`). A
// short read first (the caller of `on` is usually the app's line); deeper only when those frames are
// all Node's (a socket's internal subscribes), and those are cached per listener by the caller.

import { isProbeFile } from '../recorder/frames';
import { captureCallSites, type CallSiteLike } from '../recorder/sites';
import { siteOrigin } from '../protocol/site-origin';

/** What `callerFile` returns when every frame is Node's own (or the stack says nothing). */
export const NODE_INTERNAL_FILE = 'node:internal';

/** Frames read first: the caller of `on` (usually the app's line, or a library's). */
const SHORT = 1;
/** Frames read when the short read saw Node's frames only: enough to get past stream → net → http. */
const DEPTH = 12;

/** A subscribe's caller: its origin file and the frames read to find it (undefined: none usable). */
export interface Caller {
  readonly file: string;
  readonly frames: readonly CallSiteLike[] | undefined;
}

const UNKNOWN: Caller = { file: NODE_INTERNAL_FILE, frames: undefined };

/** The first caller of `above` that is neither the probe's nor Node's (see the file comment). */
export function callerOf(above: Function): Caller {
  const short = captureCallSites(above, SHORT);
  if (short === undefined) return UNKNOWN;
  const found = firstOutside(short);
  if (found !== undefined || short.length < SHORT) return { file: found ?? nodeFileOf(short), frames: short };
  const deep = captureCallSites(above, DEPTH);
  if (deep === undefined) return { file: nodeFileOf(short), frames: short };
  return { file: firstOutside(deep) ?? nodeFileOf(deep), frames: deep };
}

/** The file of the first caller of `above` that is neither the probe's nor Node's, else a Node file. */
export function callerFile(above: Function): string {
  return callerOf(above).file;
}

const PROBE = 0;
const NODE = 1;
const OTHER = 2;
/** File → PROBE / NODE / OTHER: a process has few script files, and each subscribe asked two regexes. */
const fileKinds = new Map<string, number>();
const MAX_FILE_KINDS = 10_000;

function fileKind(file: string): number {
  let kind = fileKinds.get(file);
  if (kind === undefined) {
    kind = isProbeFile(file) ? PROBE : siteOrigin(file) === 'node' ? NODE : OTHER;
    if (fileKinds.size < MAX_FILE_KINDS) fileKinds.set(file, kind);
  }
  return kind;
}

function fileOf(cs: CallSiteLike): string | undefined {
  try {
    const file = cs.getFileName();
    return typeof file === 'string' && file !== '' && fileKind(file) !== PROBE ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Node's module loader and bootstrap: a subscribe below them (before any outside frame) is a built-in module's. */
const LOADER = /^node:internal\/(?:modules|bootstrap)\//;

/** The first outside frame's file; undefined when there is none, null when Node's loader comes first. */
function firstOutside(frames: readonly CallSiteLike[]): string | null | undefined {
  for (const cs of frames) {
    const file = fileOf(cs);
    if (file === undefined) continue;
    const kind = fileKind(file);
    if (kind === OTHER) return file;
    if (kind === NODE && LOADER.test(file)) return null;
  }
  return undefined;
}

function nodeFileOf(frames: readonly CallSiteLike[]): string {
  for (const cs of frames) {
    const file = fileOf(cs);
    if (file !== undefined) return file;
  }
  return NODE_INTERNAL_FILE;
}
