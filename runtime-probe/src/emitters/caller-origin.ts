// Who is subscribing: the file whose code called `on` / `addEventListener`, for the app / library /
// node split (protocol/site-origin.ts). The recorder's subscribe site skips Node's frames (a site is
// the app's line), which cannot tell a socket's internal `end` listener (all frames Node's) from the
// app's; so process-wide instrumentation reads the stack itself: the first frame that is neither the
// probe's nor Node's decides; a stack of Node's frames only is Node's.
// Cost: one V8 structured stack capture of a few frames per subscribe (never per emit).

import { isProbeFile } from '../recorder/frames';
import { siteOrigin } from '../protocol/site-origin';

interface CallSiteLike {
  getFileName(): unknown;
}
interface V8ErrorConstructor {
  captureStackTrace?: (target: object, constructorOpt?: Function) => void;
  prepareStackTrace?: unknown;
  stackTraceLimit: number;
}

/** What `callerFile` returns when every frame is Node's own (or the stack says nothing). */
export const NODE_INTERNAL_FILE = 'node:internal';

/** Frames read: enough to get past Node's own layers (stream → net → http) to the app's call. */
const DEPTH = 12;
const returnFrames = (_error: unknown, frames: CallSiteLike[]): CallSiteLike[] => frames;

/** The file of the first caller of `above` that is neither the probe's nor Node's, else a Node file. */
export function callerFile(above: Function): string {
  const E = Error as unknown as V8ErrorConstructor;
  const capture = E.captureStackTrace;
  if (typeof capture !== 'function') return NODE_INTERNAL_FILE;
  const holder: { stack?: unknown } = {};
  const prepare = E.prepareStackTrace;
  const limit = E.stackTraceLimit;
  let frames: unknown;
  try {
    E.prepareStackTrace = returnFrames;
    E.stackTraceLimit = DEPTH;
    capture(holder, above);
    frames = holder.stack;
  } catch {
    frames = undefined;
  } finally {
    E.prepareStackTrace = prepare;
    E.stackTraceLimit = limit;
  }
  if (!Array.isArray(frames)) return NODE_INTERNAL_FILE;
  let nodeFile: string | undefined;
  for (const cs of frames as CallSiteLike[]) {
    let file: unknown;
    try {
      file = cs.getFileName();
    } catch {
      continue;
    }
    if (typeof file !== 'string' || file === '' || isProbeFile(file)) continue;
    if (siteOrigin(file) === 'node') {
      nodeFile ??= file;
      continue;
    }
    return file;
  }
  return nodeFile ?? NODE_INTERNAL_FILE;
}
