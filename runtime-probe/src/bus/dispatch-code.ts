// The fast loop's body, one function per handler count. For up to MAX_UNROLLED handlers it is
// generated code with the loop unrolled: each handler gets its own call site, which the engine can
// inline and predict on its own (one call site cycling through N handlers can do neither), so 5 and
// 10 handlers cost about half what the loop costs. The code text is fixed (no user data in it).
//
// Where `new Function` is forbidden (a page's Content-Security-Policy without 'unsafe-eval', or
// `--disallow-code-generation-from-strings`), generation is tried once, fails, and every count uses
// `runLoop`, the same semantics as a plain loop. No Node built-ins here (the browser entry uses it).
import type { Snapshot, StoredHandler } from './subscription';

/** @internal What the generated code calls when a handler throws (the bus's error path). */
export interface FailSink {
  handlerFailedAt(error: unknown, snap: Snapshot, index: number): void;
}

/** @internal
 * Runs the handlers of a snapshot with `snap` as their ctx; returns the index of the handler that
 * consumed the event, or ALL_RAN (-1) when none did (a constant, so the caller's test of it folds
 * away once the body is inlined). Keeps the running index in `snap.index`
 * (ctx.subscriptionId and unsubscribe-before-its-turn read it), so when an error escapes the caller
 * knows where it stopped. The unrolled bodies start and end at index 0 (the caller resets it when
 * they stop early), so the first handler's turn needs no store: with one handler, none at all.
 */
export type RunHandlers = (handlers: StoredHandler[], payload: unknown, snap: Snapshot, sink: FailSink) => number;

/** @internal What a body returns when no handler consumed. */
export const ALL_RAN = -1;

/** @internal The generic body: any handler count, and every count where code generation is not allowed. */
export function runLoop(handlers: StoredHandler[], payload: unknown, snap: Snapshot, sink: FailSink): number {
  const n = handlers.length;
  for (let i = 0; i < n; i++) {
    snap.index = i;
    try {
      if (handlers[i](payload, snap) === true || snap.consumed) return i;
    } catch (error) {
      snap.consumed = false; // a throwing handler never consumes
      sink.handlerFailedAt(error, snap, i);
    }
  }
  return ALL_RAN;
}

/** Longer lists take the loop: the code grows with the count, the gain does not. */
const MAX_UNROLLED = 12;

/** @internal The source of the unrolled body for `n` handlers (same semantics as `runLoop`). */
export function unrolledSource(n: number): string {
  let body = '';
  for (let k = 0; k < n; k++) {
    body +=
      (k ? `snap.index = ${k};` : '') +
      `try { if (handlers[${k}](payload, snap) === true || snap.consumed) return ${k}; }\n` +
      `catch (error) { snap.consumed = false; sink.handlerFailedAt(error, snap, ${k}); }\n`;
  }
  return `${body}${n > 1 ? 'snap.index = 0;' : ''}return ${ALL_RAN};`;
}

let generationAllowed = true;

function generate(n: number): RunHandlers {
  if (!generationAllowed) return runLoop;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    return new Function('handlers', 'payload', 'snap', 'sink', unrolledSource(n)) as RunHandlers;
  } catch {
    // EvalError under a Content-Security-Policy (or code generation disabled): loop from now on.
    generationAllowed = false;
    return runLoop;
  }
}

/** Index = handler count; filled on first use, so an app never generates code for counts it does not have (0: nothing to unroll). */
const bodies: RunHandlers[] = [runLoop];

/** @internal The body for `n` handlers (generated when a snapshot first has `n` handlers; see `Snapshot.run`). */
export function runHandlersFor(n: number): RunHandlers {
  return n > MAX_UNROLLED ? runLoop : (bodies[n] ??= generate(n));
}

/** @internal For tests: whether generated bodies are in use (false after generation failed once). */
export function codeGenerationInUse(): boolean {
  return generationAllowed;
}
