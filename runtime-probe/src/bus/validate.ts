// Argument checks shared by the bus's methods. Every check runs before the bus changes, so a
// rejected call leaves it exactly as it was.
import { describeValue } from '../delegates/disposable';

/** @internal A non-empty string; `'*'` only where `allowWildcard`. */
export function checkTypeName(method: string, type: unknown, allowWildcard: boolean): asserts type is string {
  if (typeof type !== 'string' || type.length === 0) {
    throw new TypeError(`EventBus.${method}: type must be a non-empty string (got ${describeValue(type)})`);
  }
  if (!allowWildcard && type === '*') {
    throw new TypeError(`EventBus.${method}: type '*' only subscribes to every event; dispatch a concrete event name`);
  }
}

/** @internal */
export function checkFunction(where: string, name: string, value: unknown): void {
  if (typeof value !== 'function') throw new TypeError(`${where}: ${name} must be a function (got ${describeValue(value)})`);
}

/** @internal */
export function checkOptionsObject(where: string, value: unknown): asserts value is object | undefined {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new TypeError(`${where}: options must be an object (got ${describeValue(value)})`);
  }
}

/** @internal Objects and functions can own subscriptions (they can be held weakly). */
export function isOwnerObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** @internal Duck-typed so signals from another realm (or a polyfill) work too. */
export function isAbortSignal(value: unknown): value is AbortSignal {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown };
  return typeof s.aborted === 'boolean' && typeof s.addEventListener === 'function' && typeof s.removeEventListener === 'function';
}
