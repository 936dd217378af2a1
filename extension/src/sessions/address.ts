// Parsing what the user types into *Attach to Address…*. Plain functions (no `vscode`), so the input
// boxes can validate as the user types and the tests can cover every rejection.

import { isLoopbackHost } from '../../../runtime-probe/src/probe/options';

export { isLoopbackHost };

export interface ProbeAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `host:port`, `:port`, a bare `port` or `[v6]:port`. Returns the address, or a message that
 * says what is wrong in words the input box can show.
 */
export function parseAddress(text: string): ProbeAddress | { readonly error: string } {
  if (typeof text !== 'string') throw new TypeError(`parseAddress: text must be a string, got ${typeof text}`);
  const input = text.trim();
  if (input === '') return { error: 'Enter an address as host:port, for example 127.0.0.1:53123.' };
  let host = '127.0.0.1';
  let portText: string;
  const v6 = /^\[([^\]]+)\]:(.*)$/.exec(input);
  if (v6) {
    host = v6[1];
    portText = v6[2];
  } else {
    const colon = input.lastIndexOf(':');
    if (colon === -1) portText = input;
    else {
      if (input.indexOf(':') !== colon) return { error: 'Put IPv6 hosts in brackets, for example [::1]:53123.' };
      if (colon > 0) host = input.slice(0, colon);
      portText = input.slice(colon + 1);
    }
  }
  if (!/^\d+$/.test(portText)) return { error: `"${portText}" is not a port number.` };
  const port = Number(portText);
  if (port < 1 || port > 65535) return { error: `Port ${port} is outside 1–65535.` };
  if (!/^[A-Za-z0-9.\-:%]+$/.test(host)) return { error: `"${host}" is not a host name or IP address.` };
  return { host, port };
}

export function isAddressError(value: ProbeAddress | { readonly error: string }): value is { readonly error: string } {
  return 'error' in value;
}

/**
 * What to tell the user before attaching to `host`, or undefined for a loopback address: beyond
 * this machine the token and every record travel unencrypted.
 */
export function nonLoopbackWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return (
    `${host} is not this machine. Busscope sends the token and receives the app's events unencrypted over the network, ` +
    'and anyone on the path can read them. Attach only on a network you trust.'
  );
}

/** How long ago, in words short enough for a quick pick description ("12 s", "5 min", "3 h", "2 d"). */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return 'just now';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.floor(h / 24)} d`;
}
