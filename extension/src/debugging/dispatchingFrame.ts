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

/**
 * Where the frame's code lives: the source's path, else its name ('' without a source). A remote
 * window (code-server, Remote SSH) hands extensions paths as URIs (`vscode-remote://host/tmp/app.js`):
 * their path part is the file.
 */
function fileOf(frame: DapStackFrame): string {
  const file = frame.source?.path ?? frame.source?.name ?? '';
  const uri = /^[a-z][\w+.-]*:\/\/[^/]*(\/.*)$/i.exec(file);
  if (uri === null) return file;
  try {
    return decodeURIComponent(uri[1]);
  } catch {
    return uri[1];
  }
}

/**
 * The page entries of the package (`busscope-probe/browser`, its worker entry), which the recorder's
 * pattern leaves out (a page has no call sites to skip them for): as shipped in dist/, or as Vite's
 * dev server pre-bundles them (`node_modules/.vite/deps/busscope-probe_browser.js`).
 */
const PAGE_PROBE_FILE =
  /[\\/](?:(?:runtime-probe|busscope-probe)[\\/]dist[\\/]browser(?:-worker)?\.m?js|\.vite[\\/]deps[\\/]busscope-probe_browser(?:_worker)?\.js)(?:\?.*)?$/;

function isPageProbeFile(file: string): boolean {
  return PAGE_PROBE_FILE.test(file);
}

/** Node's own modules: js-debug names them `node:events` or `<node_internals>/events`. */
function isNodeInternal(file: string): boolean {
  return file.startsWith('node:') || file.startsWith('<node_internals>');
}

/** Frames VS Code's call-stack navigation steps over: de-emphasised by the debugger (skipFiles, internals) or subtle. */
export function isHiddenFromNavigation(frame: DapStackFrame): boolean {
  return frame.presentationHint === 'subtle' || frame.presentationHint === 'deemphasize' || frame.source?.presentationHint === 'deemphasize';
}

/** Frames a user can land on: not hidden, not a separator ("label"), with a source. */
function isNavigable(frame: DapStackFrame): boolean {
  if (isHiddenFromNavigation(frame) || frame.presentationHint === 'label') return false;
  return frame.source !== undefined && fileOf(frame) !== '';
}

/** Whether a frame is the probe's own code: the recorder's test (package files, the bus's method names) or one of `probeFiles`. */
export function isProbeFrame(frame: DapStackFrame, probeFiles: ReadonlySet<string> = new Set()): boolean {
  const file = fileOf(frame);
  return !isNodeInternal(file) && (probeFiles.has(file) || isPageProbeFile(file) || isInternalFrame({ file, functionName: frame.name }));
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
  const topIsProbe = isProbeFile(topFile) || isPageProbeFile(topFile) || probeFiles.has(topFile);
  return frames.slice(1).find((f) => {
    const file = fileOf(f);
    if (!isNavigable(f) || isNodeInternal(file)) return false;
    if (topIsProbe && file === topFile) return false;
    return !isProbeFrame(f, probeFiles);
  });
}

/** How many "Navigate Down Call Stack" steps lead from the top frame to `target` (the command steps over hidden frames). */
export function stepsTo(frames: readonly DapStackFrame[], target: DapStackFrame): number {
  const index = frames.indexOf(target);
  return index < 0 ? 0 : frames.slice(1, index + 1).filter((f) => !isHiddenFromNavigation(f)).length;
}
