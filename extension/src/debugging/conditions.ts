// Payload conditions of event breakpoints: a JavaScript expression over `payload` (and `type`),
// e.g. `payload.damage > 50`. The probe's socket never carries code; conditions are compiled in the
// app by the debugger (the one party that may run code there), through the hook of
// runtime-probe/src/debug/event-breaks.ts. Without a debugger a condition has nothing to filter:
// the `debugger` statement is a no-op then. No `vscode` here.

/** Longest condition accepted (it is an expression, not a program). */
export const MAX_CONDITION_LENGTH = 1000;

/**
 * Checks a condition's syntax without running it (compiling a function never calls it). Returns the
 * problem in words, or undefined when it is fine.
 */
export function conditionProblem(source: string): string | undefined {
  if (typeof source !== 'string') return 'a condition must be text';
  const text = source.trim();
  if (text === '') return 'the condition is empty';
  if (text.length > MAX_CONDITION_LENGTH) return `the condition is longer than ${MAX_CONDITION_LENGTH} characters`;
  try {
    // Parses as the body the app will compile; never called here.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled to be parsed, never run
    new Function('payload', 'type', conditionBody(text));
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return undefined;
}

/** The function body a condition becomes (the newline ends a trailing `//` comment). */
function conditionBody(source: string): string {
  return `return (${source}\n);`;
}

/**
 * The debugger expression that installs exactly these conditions in the app (replacing earlier ones)
 * and mutes `muted` types (breakpoints just removed: the probe's socket may hear of it only after the
 * paused app runs again, and it should not stop there meanwhile).
 */
export function installConditionsExpression(
  conditions: readonly { readonly type: string; readonly condition: string }[],
  muted: readonly string[] = [],
): string {
  const entries = conditions.map(
    (c) => `[${JSON.stringify(c.type)}, ${JSON.stringify(c.condition)}, function (payload, type) { ${conditionBody(c.condition)} }]`,
  );
  return `(() => {
  const hook = globalThis[Symbol.for('busscope.eventBreaks')];
  if (!hook || hook.version !== 1 || typeof hook.setConditions !== 'function') return 'no-hook';
  if (typeof hook.mute === 'function') hook.mute(${JSON.stringify(muted)});
  return 'set:' + hook.setConditions([${entries.join(',\n    ')}]);
})()`;
}

/** What the app answered to `installConditionsExpression` (the debugger's display text). */
export type InstallOutcome = { readonly kind: 'set'; readonly count: number } | { readonly kind: 'no-hook' };

export function parseInstallResult(text: string): InstallOutcome | undefined {
  const t = text.length >= 2 && /^['"`]/.test(text) && text[text.length - 1] === text[0] ? text.slice(1, -1) : text;
  if (t === 'no-hook') return { kind: 'no-hook' };
  const m = /^set:(\d+)$/.exec(t);
  return m === null ? undefined : { kind: 'set', count: Number(m[1]) };
}
