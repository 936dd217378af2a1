// The one disposal idiom shared by the bus and the delegates: `dispose()` (the VS Code idiom) plus
// `[Symbol.dispose]()` so `using` works. Node 18 has no `Symbol.dispose`; the registered symbol is
// what the TypeScript/`using` polyfills agree on, so handles stay usable there too.

/** Something that can be released. Calling `dispose()` more than once is harmless. */
export interface Disposable {
  /** Releases the resource. Idempotent. */
  dispose(): void;
}

/** `Symbol.dispose`, or its registered stand-in where the runtime lacks it (Node 18). */
export const disposeSymbol: typeof Symbol.dispose = (Symbol.dispose ?? Symbol.for('Symbol.dispose')) as typeof Symbol.dispose;

/** @internal Describes a value for a TypeError message without calling user code. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return value.length === 0 ? 'an empty string' : `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number':
    case 'bigint':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    case 'undefined':
      return 'undefined';
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    case 'object':
      return 'an object';
    default:
      return typeof value;
  }
}

/** @internal Reports an error from a listener when no `onError` was given. */
export function defaultListenerError(error: unknown, where: string): void {
  try {
    console.error(`[busscope] a listener of ${where} threw:`, error);
  } catch {
    // console itself failed; nothing sensible is left to do, and the caller must keep going
  }
}
