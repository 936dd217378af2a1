/**
 * Thrown by a nested `dispatch` when the dispatch depth (counted across every bus in the process)
 * exceeds the dispatching bus's `maxDepth`. Inside a handler it is isolated like any other error:
 * it goes to the outer bus's `onError`, and the outer dispatch continues.
 */
export class DispatchDepthError extends Error {
  override readonly name = 'DispatchDepthError';
  /** The event whose dispatch was refused. */
  readonly type: string;
  /** The depth the refused dispatch would have run at (maxDepth + 1 for the bus that refused it). */
  readonly depth: number;
  /** The name of the bus that refused it. */
  readonly busName: string;
  /** That bus's `maxDepth`. */
  readonly maxDepth: number;

  constructor(busName: string, type: string, depth: number, maxDepth: number) {
    super(
      `Dispatch of "${type}" on bus "${busName}" refused: nested dispatch depth ${depth} exceeds maxDepth ${maxDepth} ` +
        '(a handler keeps dispatching events that lead back to itself?)',
    );
    this.type = type;
    this.depth = depth;
    this.busName = busName;
    this.maxDepth = maxDepth;
  }
}
