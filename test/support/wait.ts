// Waiting in tests, defined once: a plain delay, polling a condition with a deadline, and a deadline
// on a promise. Prefer waiting on the event itself (a message, a record, a promise); poll only what
// has no event to wait on (another process's files, a page's state), and sleep only where time
// itself is what a test checks.

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `check` (sync or async) every `everyMs` until it holds; rejects naming `what` once `ms` have
 * passed. Poll slowly (`everyMs`) when a check is costly (a process listing, a page evaluation).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string, everyMs = 10): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** `p`, or a rejection naming `what` when it has not settled within `ms`. */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A promise and the function that resolves it: for waiting on a callback (`onMessage`, a listener) instead of polling. */
export function deferred<T = void>(): { readonly promise: Promise<T>; readonly resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
