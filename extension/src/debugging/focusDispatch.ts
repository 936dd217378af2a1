// After an event break, moves VS Code's focus from the probe's `debugger` statement to the code that
// dispatched (dispatchingFrame.ts), so the editor shows the app's own line. `debug.activeStackItem` is
// read-only, so this steps with the call stack's own navigation command ("Debug: Navigate Down Call
// Stack"), which focuses the next frame and opens it, until the focused frame is the dispatching one.
import * as vscode from 'vscode';
import { dispatchingFrame, isProbeFrame, stepsTo, type DapStackFrame } from './dispatchingFrame';

const CALL_STACK_DOWN = 'workbench.action.debug.callStackDown';
/** Frames asked for: the dispatch is within the first few; deeper stacks are not walked. */
const STACK_LEVELS = 20;
/** How long VS Code may take to focus the stopped frame (it fetches the stack first), and each step to land. */
const FOCUS_WAIT_MS = 15_000;
const STEP_WAIT_MS = 5_000;

export type FocusOutcome =
  /** `by`: the focused frame was recognised by its id, or reached by counting steps. */
  | { readonly kind: 'focused'; readonly frame: DapStackFrame; readonly steps: number; readonly by: 'id' | 'count' }
  | { readonly kind: 'opened'; readonly frame: DapStackFrame }
  /** The stop's top frame is not the probe's: not an event break. */
  | { readonly kind: 'not-event-break' }
  | { readonly kind: 'no-app-frame' }
  | { readonly kind: 'stale' };

function isFrameOf(
  item: vscode.DebugThread | vscode.DebugStackFrame | undefined,
  session: vscode.DebugSession,
  threadId: number,
): item is vscode.DebugStackFrame {
  return item instanceof vscode.DebugStackFrame && item.session.id === session.id && item.threadId === threadId;
}

/** Resolves on the next change of the active stack item, or after `ms` (undefined either way). */
function nextActiveItemChange(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    const listener = vscode.debug.onDidChangeActiveStackItem(done);
    function done(): void {
      clearTimeout(timer);
      listener.dispose();
      resolve();
    }
  });
}

/**
 * Focuses the dispatching frame when `session` is stopped on `threadId` in the probe's code (an event
 * break's `debugger` statement). `isCurrent()` turns false once the app ran again (nothing is moved then).
 */
export async function focusDispatchingFrame(
  session: vscode.DebugSession,
  threadId: number,
  isCurrent: () => boolean,
  probeFiles: ReadonlySet<string>,
): Promise<FocusOutcome> {
  const trace = (await session.customRequest('stackTrace', { threadId, startFrame: 0, levels: STACK_LEVELS })) as { stackFrames?: DapStackFrame[] };
  const frames = trace.stackFrames ?? [];
  if (frames[0] === undefined || !isProbeFrame(frames[0], probeFiles)) return { kind: 'not-event-break' };
  const target = dispatchingFrame(frames, probeFiles);
  if (target === undefined) return { kind: 'no-app-frame' };
  // VS Code focuses the stopped thread's top frame by itself once it has its stack; step from there.
  const deadline = Date.now() + FOCUS_WAIT_MS;
  while (!isFrameOf(vscode.debug.activeStackItem, session, threadId) && Date.now() < deadline) {
    if (!isCurrent()) return { kind: 'stale' };
    await nextActiveItemChange(deadline - Date.now());
  }
  if (!isCurrent()) return { kind: 'stale' };
  const start = vscode.debug.activeStackItem;
  if (!isFrameOf(start, session, threadId)) return openAt(target);
  // Where the focus is, by frame id: VS Code's ids are the adapter's. Should they ever differ, the
  // steps are counted from the top frame instead.
  const indexOf = (frameId: number): number => frames.findIndex((f) => f.id === frameId);
  const targetIndex = frames.indexOf(target);
  // Someone focused a frame further down already: leave it there.
  if (indexOf(start.frameId) > targetIndex) return { kind: 'stale' };
  let steps = 0;
  const maxSteps = stepsTo(frames, target);
  for (;;) {
    const item = vscode.debug.activeStackItem;
    if (!isFrameOf(item, session, threadId)) return { kind: 'stale' };
    const index = indexOf(item.frameId);
    if (index === targetIndex) return { kind: 'focused', frame: target, steps, by: 'id' };
    if (steps >= maxSteps) return { kind: 'focused', frame: target, steps, by: 'count' };
    if (index > targetIndex) return { kind: 'stale' };
    const changed = nextActiveItemChange(STEP_WAIT_MS);
    await vscode.commands.executeCommand(CALL_STACK_DOWN);
    await changed;
    if (!isCurrent()) return { kind: 'stale' };
    steps++;
  }
}

/** When the focus cannot be moved: the dispatching line in an editor at least. */
async function openAt(target: DapStackFrame): Promise<FocusOutcome> {
  const file = target.source?.path;
  if (file === undefined || file.startsWith('<')) return { kind: 'no-app-frame' };
  // Paths may arrive as URIs (a remote window converts them: vscode-remote://host/path).
  const uri = /^[a-z][\w+.-]+:\/\//i.test(file) ? vscode.Uri.parse(file) : vscode.Uri.file(file);
  const line = Math.max(0, target.line - 1);
  const column = Math.max(0, target.column - 1);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(line, column, line, column), preserveFocus: true });
  return { kind: 'opened', frame: target };
}
