// Arguments the commands accept besides "ask the user": tree nodes (context menus, clicks) and plain
// objects from programmatic callers (`executeCommand('busscope.attach', { pid })`). Malformed
// arguments throw a TypeError naming the field; nothing here imports `vscode`.
import type { DiscoveredApp } from '../sessions/discoveryWatcher';

export type AttachArg =
  { readonly kind: 'pick' } | { readonly kind: 'pid'; readonly pid: number; readonly waitMs: number } | { readonly kind: 'app'; readonly app: DiscoveredApp };

/** Default wait for a just-started app's discovery file when attaching by pid. */
export const DEFAULT_PID_WAIT_MS = 10_000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export function parseAttachArg(arg: unknown): AttachArg {
  if (arg === undefined || arg === null) return { kind: 'pick' };
  if (!isObject(arg)) throw new TypeError(`busscope.attach: expected { pid } or an app, got ${typeof arg}`);
  if (isObject(arg.app)) {
    const app = arg.app;
    if (typeof app.pid !== 'number' || typeof app.port !== 'number' || typeof app.token !== 'string' || typeof app.host !== 'string') {
      throw new TypeError('busscope.attach: app must be a discovered app (pid, host, port, token)');
    }
    return { kind: 'app', app: app as unknown as DiscoveredApp };
  }
  if (arg.pid !== undefined) {
    if (typeof arg.pid !== 'number' || !Number.isInteger(arg.pid) || arg.pid <= 0)
      throw new TypeError(`busscope.attach: pid must be a positive integer, got ${String(arg.pid)}`);
    const waitMs = arg.waitMs === undefined ? DEFAULT_PID_WAIT_MS : arg.waitMs;
    if (typeof waitMs !== 'number' || !Number.isFinite(waitMs) || waitMs < 0)
      throw new TypeError(`busscope.attach: waitMs must be a non-negative number, got ${String(arg.waitMs)}`);
    return { kind: 'pid', pid: arg.pid, waitMs };
  }
  // Anything else (e.g. a tree node of another kind): ask.
  return { kind: 'pick' };
}

export interface AddressArg {
  readonly host: string;
  readonly port: number;
  readonly token: string;
}

export function parseAddressArg(arg: unknown): AddressArg | undefined {
  if (arg === undefined || arg === null) return undefined;
  if (!isObject(arg)) throw new TypeError(`busscope.attachToAddress: expected { host, port, token }, got ${typeof arg}`);
  const host = arg.host === undefined ? '127.0.0.1' : arg.host;
  if (typeof host !== 'string' || host === '') throw new TypeError('busscope.attachToAddress: host must be a non-empty string');
  if (typeof arg.port !== 'number' || !Number.isInteger(arg.port) || arg.port < 1 || arg.port > 65535) {
    throw new TypeError(`busscope.attachToAddress: port must be an integer in 1…65535, got ${String(arg.port)}`);
  }
  if (typeof arg.token !== 'string') throw new TypeError('busscope.attachToAddress: token must be a string');
  return { host, port: arg.port, token: arg.token };
}

/** A file path from a string, `{ file }`, or a Uri-like `{ fsPath }` (explorer context menus pass Uris). */
export function parseFileArg(arg: unknown, field = 'file'): string | undefined {
  if (arg === undefined || arg === null) return undefined;
  if (typeof arg === 'string') return arg === '' ? undefined : arg;
  if (!isObject(arg)) return undefined;
  const v = arg[field];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof arg.fsPath === 'string' && arg.scheme === 'file') return arg.fsPath;
  return undefined;
}
