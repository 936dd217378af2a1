// The exhaustiveness check for switches over discriminated unions: the one definition the protocol,
// the model, the host and the webview use. No imports (the webview bundle takes it alone).

/** Compile-time: `value` must be `never` (every case handled). Run time: a value from a newer peer or a bug. */
export function assertNever(value: never, what = 'value'): never {
  throw new TypeError(`unexpected ${what}: ${JSON.stringify(value)}`);
}
