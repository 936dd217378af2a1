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

/**
 * Reported to `onError` — once, by the outermost dispatch, after the stack has unwound — when a handler
 * ran out of JavaScript stack: usually a chain of nested dispatches deeper than the engine's stack
 * (a large `maxDepth`), or a handler recursing on its own. The nested dispatches between the overflow
 * and the outermost one were abandoned (their remaining handlers did not run); the outermost dispatch
 * goes on with its next handler. `cause` is the engine's own error (a `RangeError` in V8).
 */
export class DispatchStackOverflowError extends Error {
  override readonly name = 'DispatchStackOverflowError';
  /** The event being dispatched deepest when the overflow was seen. */
  readonly type: string;
  /** The name of the bus that dispatched it. */
  readonly busName: string;
  /** The nested dispatch depth at which the overflow was seen (0: the handler recursed on its own). */
  readonly depth: number;

  constructor(busName: string, type: string, depth: number, outerBus: string, outerType: string, cause: unknown) {
    super(
      `The JavaScript stack overflowed in a handler of "${type}" on bus "${busName}" at nested dispatch depth ${depth}` +
        (depth > 0 ? `, under the dispatch of "${outerType}" on bus "${outerBus}"` : '') +
        '; the nested dispatches were abandoned (a handler keeps dispatching events that lead back to itself? ' +
        'lower maxDepth to get a DispatchDepthError first)',
      { cause },
    );
    this.type = type;
    this.busName = busName;
    this.depth = depth;
  }
}
