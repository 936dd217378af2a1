// Who may connect to the browser apps' server: the `Host` header must name the loopback interface
// with the server's own port (a page on another site that re-points its DNS name at 127.0.0.1 sends
// its own name: DNS rebinding), and the `Origin` header must match the allowlist. No `vscode` here.

/** The default allowlist: pages served from this machine, any port. */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = Object.freeze([
  'http://localhost:*',
  'https://localhost:*',
  'http://127.0.0.1:*',
  'https://127.0.0.1:*',
]);

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when `host` (the Host header) is a loopback name with exactly `port`. */
export function isLoopbackHostHeader(host: string | undefined, port: number): boolean {
  if (typeof host !== 'string') return false;
  const m = /^(\[[^\]]*\]|[^:]+):(\d+)$/.exec(host.trim().toLowerCase());
  if (m === null) return false;
  return LOOPBACK_NAMES.has(m[1]) && Number(m[2]) === port;
}

/**
 * Checks a pattern of the allowlist setting: `scheme://host` with `:port` or `:*` (any port, or
 * none). Returns a message saying what is wrong, or undefined.
 */
export function checkOriginPattern(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'not a string';
  if (!/^https?:\/\/[^/:*\s]+(:(\d+|\*))?$/.test(pattern)) return 'expected scheme://host, scheme://host:port or scheme://host:* (e.g. http://myapp.test:*)';
  return undefined;
}

/** True when `origin` (the Origin header) matches one of `patterns`. */
export function isAllowedOrigin(origin: string | undefined, patterns: readonly string[]): boolean {
  if (typeof origin !== 'string' || origin === '' || origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An Origin is scheme://host[:port] and nothing else.
  if (url.origin !== origin.toLowerCase().replace(/\/$/, '')) return false;
  for (const pattern of patterns) {
    const m = /^(https?):\/\/([^/:]+)(?::(\d+|\*))?$/.exec(pattern.toLowerCase());
    if (m === null) continue;
    if (url.protocol !== `${m[1]}:` || url.hostname !== m[2]) continue;
    const port = m[3];
    if (port === '*') return true;
    const defaultPort = url.protocol === 'https:' ? '443' : '80';
    if ((url.port || defaultPort) === (port ?? defaultPort)) return true;
  }
  return false;
}
