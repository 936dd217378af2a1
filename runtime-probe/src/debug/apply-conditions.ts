// A worker's copy of the payload conditions a debugger installed in its main thread (Node's
// worker_threads, a page's Web Workers): the worker's globals are its own, so the main thread passes
// the conditions' sources on and each worker compiles them into its own hook, as the debugger
// compiled them there. No Node built-ins here.

import { eventBreaks, type BreakConditionTest } from './event-breaks';

/**
 * Compiles `[type, source]` conditions (the extension's conditions.ts: `return (source\n);` over
 * `payload` and `type`) into this thread's hook and mutes `muted`. One that does not compile here
 * (code generation from strings disallowed: Node's flag, a page's CSP) throws when tested: such a
 * dispatch breaks and the paused view says why, as for any throwing condition.
 */
export function applyConditions(conditions: readonly (readonly [string, string])[], muted: readonly string[]): void {
  const entries: [string, string, BreakConditionTest][] = [];
  for (const entry of conditions) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') continue;
    const [type, source] = entry;
    let test: BreakConditionTest;
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the condition a debugger installed in the main thread
      test = new Function('payload', 'type', `return (${source}\n);`) as BreakConditionTest;
    } catch (error) {
      test = () => {
        throw error;
      };
    }
    entries.push([type, source, test]);
  }
  const hook = eventBreaks();
  hook.setConditions(entries);
  hook.mute(muted.filter((t) => typeof t === 'string'));
}
