// Which frame of an event break the user wants to see: the probe's `debugger` statement sits inside the
// bus's `dispatch` (or an instrumented emitter's `emit`), so the stop's top frame is library code; the
// code that dispatched is the first frame below it that is neither the probe's nor Node's own.
// Pure over DAP stack frames. No `vscode` here.
import { isInternalFrame, isProbeFile } from '../../../runtime-probe/src/recorder/frames';

/** The part of a DAP `StackFrame` this needs. */
export interface DapStackFrame {
  readonly id: number;
  readonly name: string;
  readonly line: number;
  readonly column: number;
  readonly source?: { readonly path?: string; readonly name?: string; readonly presentationHint?: string };
  readonly presentationHint?: string;
}

/** Where the frame's code lives: the source's path, else its name ('' without a source). */
function fileOf(frame: DapStackFrame): string {
  return frame.source?.path ?? frame.source?.name ?? '';
}

/** Node's own modules: js-debug names them `node:events` or `<node_internals>/events`. */
function isNodeInternal(file: string): boolean {
  return file.startsWith('node:') || file.startsWith('<node_internals>');
}

/** Frames a user cannot land on: separators ("label"), no source, or hidden by the debugger (skipFiles, internals). */
function isNavigable(frame: DapStackFrame): boolean {
  if (frame.presentationHint === 'label' || frame.presentationHint === 'subtle' || frame.presentationHint === 'deemphasize') return false;
  if (frame.source === undefined || frame.source.presentationHint === 'deemphasize') return false;
  return fileOf(frame) !== '';
}

/**
 * The dispatching frame of an event break: below the top frame (the `debugger` statement), the first
 * navigable frame that is neither Node's nor the probe's. The probe's frames are those the recorder
 * skips for call sites (the package's files, the bus's method names), files in `probeFiles` (the
 * register script the extension injects, which lives under the extension's folder), and — when the top
 * frame's file is one of those — any frame in that same file. An app that bundled the probe into its
 * own file keeps its frames there. Undefined when no frame qualifies (the user stays on the stop).
 */
export function dispatchingFrame(frames: readonly DapStackFrame[], probeFiles: ReadonlySet<string> = new Set()): DapStackFrame | undefined {
  const top = frames[0];
  if (top === undefined) return undefined;
  const topFile = fileOf(top);
  const topIsProbe = isProbeFile(topFile) || probeFiles.has(topFile);
  return frames.slice(1).find((f) => {
    const file = fileOf(f);
    if (!isNavigable(f) || isNodeInternal(file)) return false;
    if (topIsProbe && file === topFile) return false;
    return !probeFiles.has(file) && !isInternalFrame({ file, functionName: f.name });
  });
}
