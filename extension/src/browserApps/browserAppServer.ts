/// <reference path="../types/ws.d.ts" />
// The WebSocket server browser apps dial (*Busscope: Accept Browser Apps*): 127.0.0.1 only; the
// upgrade is refused unless `Host` is a loopback name with this port and `Origin` is on the
// allowlist; the page's first message must be `hello` with the token, within 3 s, in a frame of at
// most MAX_PREAUTH_FRAME_BYTES. After that the connection is a byte stream like a probe's socket and
// the page is handed over (`onApp`): the session code runs the protocol's client side on it
// unchanged. Garbage from a page closes that page's connection only. No `vscode` here.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { ClientTransport } from '../../../runtime-probe/src/client/index';
import {
  FrameDecoder,
  FrameKind,
  HANDSHAKE_TIMEOUT_MS,
  MAX_PREAUTH_FRAME_BYTES,
  MAX_PROBE_FRAME_BYTES,
  ProtocolError,
  SUPPORTED_PROTOCOL_VERSIONS,
  encodeControlFrame,
  negotiateProtocolVersion,
  parseClientMessage,
  type ErrorCode,
} from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_ALLOWED_ORIGINS, isAllowedOrigin, isLoopbackHostHeader } from './origin';

/** A page that proved the token: its identity and its connection. */
export interface BrowserApp {
  /** The name the page gave `connect` (its `hello.clientName`). */
  readonly name: string;
  /** The page's origin (the checked `Origin` header). */
  readonly origin: string;
  /** The token the page proved (a page checks that the extension's own hello carries it too). */
  readonly token: string;
  /**
   * The page's per-tab id (kept in its sessionStorage: the same across reloads), or for a shared or
   * service worker a hash of its script URL and name (the same when it starts again); '' when it sent none.
   */
  readonly tabId: string;
  /**
   * The tab id is a shared or service worker's: the browser runs one per script URL and name in each
   * profile, so a live session with this id is another browser's (or profile's), not an earlier run.
   */
  readonly workerIdentity: boolean;
  readonly transport: ClientTransport;
  /** Starts delivering the connection's bytes and its end (ProbeClient.over calls it). */
  wire(events: { data(chunk: Uint8Array): void; closed(): void }): void;
  /**
   * Closes the connection for good (the user detached the page): the page is told not to dial again
   * until it is reloaded. Without it the page would be back, as a "reload", within seconds.
   */
  dismiss(): void;
}

/** Why a connection was turned away (for the output channel; the page sees a close). */
export interface Refusal {
  readonly reason: 'host' | 'origin' | ErrorCode;
  readonly message: string;
}

export interface BrowserAppServerOptions {
  /** 0 (default): a free port. */
  readonly port?: number;
  /** Default: 32 random hex characters. */
  readonly token?: string;
  /** Origins accepted besides DEFAULT_ALLOWED_ORIGINS (patterns, see origin.ts). */
  readonly extraOrigins?: readonly string[];
  readonly handshakeTimeoutMs?: number;
  readonly onApp: (app: BrowserApp) => void;
  readonly onRefused?: (refusal: Refusal) => void;
}

/** Close code for refusals (RFC 6455: policy violation). */
const CLOSE_POLICY = 1008;

export class BrowserAppServer {
  readonly token: string;
  private readonly origins: readonly string[];

  private constructor(
    private readonly wss: WebSocketServer,
    readonly port: number,
    private readonly options: BrowserAppServerOptions,
  ) {
    this.token = options.token ?? randomBytes(16).toString('hex');
    this.origins = [...DEFAULT_ALLOWED_ORIGINS, ...(options.extraOrigins ?? [])];
  }

  /** Listens on 127.0.0.1 (rejects when the port cannot be used). */
  static listen(options: BrowserAppServerOptions): Promise<BrowserAppServer> {
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError(`BrowserAppServer: port must be an integer in 0…65535 (got ${String(port)})`);
    if (options.token !== undefined && (typeof options.token !== 'string' || options.token.length < 16))
      throw new TypeError('BrowserAppServer: token must be a string of at least 16 characters');
    return new Promise((resolve, reject) => {
      let server: BrowserAppServer | undefined;
      const wss = new WebSocketServer({
        host: '127.0.0.1',
        port,
        // A page's frame is one WebSocket message: the probe's frame limit plus the frame header.
        maxPayload: MAX_PROBE_FRAME_BYTES + 4,
        perMessageDeflate: false,
        verifyClient: (info, done) => {
          const s = server;
          if (s === undefined) return done(false, 503);
          const refusal = s.checkUpgrade(info.req, info.origin);
          if (refusal === undefined) return done(true);
          s.options.onRefused?.(refusal);
          done(false, 403, refusal.message);
        },
      });
      wss.on('error', (error) => {
        if (server === undefined) reject(error);
      });
      wss.on('listening', () => {
        const a = wss.address();
        server = new BrowserAppServer(wss, typeof a === 'object' && a !== null ? a.port : port, options);
        wss.on('connection', (socket, req) => server?.accept(socket, req));
        resolve(server);
      });
    });
  }

  /** The URL pages pass to `connect`. */
  get url(): string {
    return `ws://127.0.0.1:${this.port}/`;
  }

  /** Stops listening and closes every page's connection. */
  close(): Promise<void> {
    for (const socket of this.wss.clients) socket.terminate();
    return new Promise((resolve) => this.wss.close(() => resolve()));
  }

  /** Checks done before the upgrade: a refused page never gets a WebSocket. */
  private checkUpgrade(req: IncomingMessage, origin: string | undefined): Refusal | undefined {
    if (!isLoopbackHostHeader(req.headers.host, this.port)) {
      return { reason: 'host', message: `Host header ${JSON.stringify(req.headers.host ?? '')} is not localhost, 127.0.0.1 or [::1] with port ${this.port}` };
    }
    if (!isAllowedOrigin(origin, this.origins)) {
      return { reason: 'origin', message: `Origin ${JSON.stringify(origin ?? '')} is not allowed (setting busscope.browserApps.allowedOrigins)` };
    }
    return undefined;
  }

  private accept(socket: WebSocket, req: IncomingMessage): void {
    const origin = String(req.headers.origin ?? '');
    let tabId = '';
    let workerIdentity = false;
    try {
      const tab = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('tab');
      tabId = tabIdOf(tab);
      workerIdentity = tabId !== '' && tabId !== tab;
    } catch {
      // no usable tab id: the page is its own app
    }
    let state: 'handshake' | 'open' | 'closed' = 'handshake';
    const refuse = (code: ErrorCode, message: string): void => {
      if (state !== 'handshake') return;
      state = 'closed';
      clearTimeout(timer);
      this.options.onRefused?.({ reason: code, message });
      try {
        socket.send(encodeControlFrame({ type: 'error', code, message, supportedVersions: SUPPORTED_PROTOCOL_VERSIONS }));
      } catch {
        // closing anyway
      }
      socket.close(CLOSE_POLICY, code);
      // A page that does not complete the close handshake is cut off.
      setTimeout(() => socket.terminate(), 1000).unref();
    };
    const timer = setTimeout(
      () => refuse('handshake-timeout', `no hello within ${this.options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS} ms of connecting`),
      this.options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    );
    timer.unref();
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      clearTimeout(timer);
      if (state === 'handshake') state = 'closed';
    });
    socket.on('message', (data, isBinary) => {
      if (state !== 'handshake') return;
      const hello = this.readHello(data, isBinary);
      if ('refuse' in hello) return refuse(hello.refuse, hello.message);
      state = 'open';
      clearTimeout(timer);
      socket.removeAllListeners('message');
      socket.removeAllListeners('close');
      this.options.onApp(this.appOf(socket, hello.name, origin, tabId, workerIdentity));
    });
  }

  /** The page's first message: one control frame holding `hello` with the token and a common version. */
  private readHello(data: RawData, isBinary: boolean): { name: string } | { refuse: ErrorCode; message: string } {
    if (!isBinary) return { refuse: 'handshake-required', message: 'the first message must be a binary hello frame' };
    const bytes = toBytes(data);
    try {
      const decoder = new FrameDecoder(MAX_PREAUTH_FRAME_BYTES, 256);
      decoder.push(bytes);
      const frame = decoder.next();
      if (frame === undefined || decoder.bufferedBytes !== 0) return { refuse: 'malformed', message: 'the first message must be exactly one hello frame' };
      if (frame.kind !== FrameKind.Control) return { refuse: 'handshake-required', message: 'the first message must be hello (got a record frame)' };
      const message = parseClientMessage(frame.body);
      if (message.type !== 'hello') return { refuse: 'handshake-required', message: `the first message must be hello (got ${message.type})` };
      if (!this.checkToken(message.token)) return { refuse: 'bad-token', message: 'wrong token (Busscope: Accept Browser Apps shows it)' };
      if (negotiateProtocolVersion(message.protocolVersions, SUPPORTED_PROTOCOL_VERSIONS) === undefined) {
        return {
          refuse: 'unsupported-version',
          message: `no common protocol version: the page speaks ${message.protocolVersions.join(', ') || 'none'}, Busscope ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
        };
      }
      return { name: message.clientName.trim() === '' ? 'browser app' : message.clientName };
    } catch (error) {
      const code: ErrorCode = error instanceof ProtocolError && error.code === 'frame-too-large' ? 'frame-too-large' : 'malformed';
      return { refuse: code, message: error instanceof Error ? error.message : String(error) };
    }
  }

  private checkToken(token: string): boolean {
    const a = Buffer.from(token, 'utf8');
    const b = Buffer.from(this.token, 'utf8');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private appOf(socket: WebSocket, name: string, origin: string, tabId: string, workerIdentity: boolean): BrowserApp {
    let closed = false;
    let dismissed = false;
    const transport: ClientTransport = {
      write(bytes) {
        if (!closed && socket.readyState === 1) socket.send(bytes);
      },
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      destroy() {
        if (closed) return;
        closed = true;
        // A dismissed page is sent its `detached` and a close: cutting the socket now could lose them.
        if (!dismissed) socket.terminate();
      },
    };
    return {
      name,
      origin,
      tabId,
      workerIdentity,
      token: this.token,
      transport,
      wire(events) {
        let ended = false;
        const end = (): void => {
          if (ended) return;
          ended = true;
          closed = true;
          events.closed();
        };
        socket.on('message', (data, isBinary) => {
          // After the hello the page sends frames only: text is garbage, and closes this page alone.
          if (!isBinary) {
            socket.terminate();
            return end();
          }
          events.data(toBytes(data));
        });
        socket.on('close', end);
        if (socket.readyState !== 1) end();
      },
      dismiss() {
        if (dismissed || closed) return;
        dismissed = true;
        // The page takes an `error` from the extension as a refusal: it stops dialling (PROTOCOL.md).
        socket.send(
          encodeControlFrame({
            type: 'error',
            code: 'detached',
            message: 'detached in Busscope; reload the page to connect again',
            supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
          }),
        );
        socket.close(1000, 'detached');
        // A page that does not complete the close handshake is cut off.
        setTimeout(() => socket.terminate(), 1000).unref();
      },
    };
  }
}

/** Longest `tab` taken (a worker's script URL and name); a longer one is no identity. */
const MAX_TAB_CHARS = 4096;

/**
 * 16 hex digits as the page sent them (its sessionStorage id); anything else — a shared or service
 * worker sends its script URL and name, which the browser runs once — hashed into 16 hex digits.
 * The URL counts without its query and fragment: a bundler's cache-busting `?v=…` or a dev server's
 * `?t=…` changes between loads, and the worker that comes back with it is still the same app.
 */
export function tabIdOf(tab: string | null): string {
  if (tab === null || tab === '' || tab.length > MAX_TAB_CHARS) return '';
  if (/^[0-9a-f]{16}$/.test(tab)) return tab;
  // `<script URL> <name>`: the URL is percent-encoded, so its end is the first space.
  const space = tab.indexOf(' ');
  const url = space < 0 ? tab : tab.slice(0, space);
  const identity = url.replace(/[?#].*$/s, '') + (space < 0 ? '' : tab.slice(space));
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
