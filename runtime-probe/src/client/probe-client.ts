// The Node client of the probe protocol (used by the extension and the CLI; no `vscode` here):
// connects, performs the handshake, and delivers every message — control messages and decoded
// record batches with strings resolved — to `onMessage`, in arrival order.

import net from 'node:net';
import {
  CLIENT_FEATURES,
  FRAME_HEADER_BYTES,
  FRAME_STALL_TIMEOUT_MS,
  FrameDecoder,
  FrameStallWatch,
  MAX_PROBE_FRAME_BYTES,
  ProtocolError,
  SUPPORTED_PROTOCOL_VERSIONS,
  StreamDecoder,
  encodeControlFrame,
  type ClientMessage,
  type ErrorCode,
  type ProbeMessage,
  type ProbeSnapshot,
  type ProtocolErrorCode,
  type RecordSink,
  type RecordingConfig,
  type StreamMessage,
  type WelcomeMessage,
} from '../protocol/index';

export type ProbeClientErrorCode =
  | ErrorCode
  | ProtocolErrorCode
  /** TCP connect failed (nothing listening, refused). */
  | 'connect-failed'
  /** No welcome within the timeout. */
  | 'timeout'
  /** The connection closed before the welcome, or while a request was pending. */
  | 'closed'
  /** A frame started and made no progress for `frameStallTimeoutMs`. */
  | 'frame-stalled';

export class ProbeClientError extends Error {
  override readonly name = 'ProbeClientError';
  constructor(
    readonly code: ProbeClientErrorCode | string,
    message: string,
  ) {
    super(message);
  }
}

export interface ProbeClientOptions {
  readonly host?: string;
  /** `connect` only. */
  readonly port?: number;
  readonly token: string;
  readonly clientName?: string;
  /** Versions offered in `hello` (default: every version this client speaks). */
  readonly protocolVersions?: readonly number[];
  /** Connect + handshake timeout (default 5000 ms). */
  readonly timeoutMs?: number;
  /**
   * A frame whose header arrived must progress within this time, or the connection is closed with
   * `frame-stalled` (default FRAME_STALL_TIMEOUT_MS).
   */
  readonly frameStallTimeoutMs?: number;
  /** Every message from the welcome on, in order (records decoded, strings resolved). */
  readonly onMessage?: (message: StreamMessage) => void;
  /**
   * Optional: record batches after the welcome are decoded straight into this sink (dispatch records
   * as fields, no object each); their messages then carry `applied` and an empty `records`.
   */
  readonly recordSink?: RecordSink;
  /** Every raw frame from the welcome on (header included), e.g. to write a trace file. */
  readonly onFrame?: (frame: Uint8Array) => void;
  /** Called once when the connection ends; `error` is set when it ended because of one. */
  readonly onClose?: (error: ProbeClientError | undefined) => void;
}

/** The bytes both ways of one connection (a TCP socket, or a browser app's WebSocket). */
export interface ClientTransport {
  write(bytes: Uint8Array): void;
  /** Stop / start delivering incoming bytes (back-pressure on the sender). */
  pause(): void;
  resume(): void;
  /** Closes the connection now (idempotent). */
  destroy(): void;
}

function checkOptions(caller: string, options: ProbeClientOptions): void {
  if (typeof options.token !== 'string') throw new TypeError(`${caller}: token must be a string`);
  const stallMs = options.frameStallTimeoutMs;
  if (stallMs !== undefined && (!Number.isFinite(stallMs) || stallMs <= 0)) {
    throw new TypeError(`${caller}: frameStallTimeoutMs must be a positive number (got ${String(stallMs)})`);
  }
}

interface Pending {
  readonly expect: 'snapshot' | 'configured' | 'breakpoints' | 'pong';
  readonly resolve: (m: ProbeMessage) => void;
  readonly reject: (e: ProbeClientError) => void;
}

export class ProbeClient {
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  private readonly stream = new StreamDecoder(MAX_PROBE_FRAME_BYTES);
  private readonly pending = new Map<number, Pending>();
  private nextRequestId = 1;
  private welcomeMessage: WelcomeMessage | undefined;
  private ended = false;
  private closeError: ProbeClientError | undefined;
  private resolveClosed!: (e: ProbeClientError | undefined) => void;
  /** Resolves when the connection is over (with the error that ended it, if any). */
  readonly closed: Promise<ProbeClientError | undefined> = new Promise((r) => (this.resolveClosed = r));

  private readonly stall: FrameStallWatch;

  private constructor(
    private readonly socket: ClientTransport,
    private readonly options: ProbeClientOptions,
  ) {
    this.stall = new FrameStallWatch(options.frameStallTimeoutMs ?? FRAME_STALL_TIMEOUT_MS, () => this.onStall());
  }

  /** Connects and completes the handshake. Rejects with ProbeClientError (code says why). */
  static connect(options: ProbeClientOptions & { readonly port: number }): Promise<ProbeClient> {
    if (!Number.isInteger(options.port) || options.port <= 0 || options.port > 65535) {
      throw new TypeError(`ProbeClient.connect: port must be an integer in 1…65535 (got ${String(options.port)})`);
    }
    checkOptions('ProbeClient.connect', options);
    const host = options.host ?? '127.0.0.1';
    const socket = net.connect({ host, port: options.port, noDelay: true });
    const transport: ClientTransport = {
      write: (bytes) => void socket.write(bytes),
      pause: () => void socket.pause(),
      resume: () => void socket.resume(),
      destroy: () => {
        if (!socket.destroyed) socket.destroy();
      },
    };
    return ProbeClient.handshake(transport, options, `${host}:${options.port}`, (client, sendHello) => {
      socket.once('connect', sendHello);
      socket.on('error', (e: NodeJS.ErrnoException) => {
        const error =
          client.welcomeMessage === undefined && (e.code === 'ECONNREFUSED' || e.code === 'EHOSTUNREACH' || e.code === 'ENOTFOUND')
            ? new ProbeClientError('connect-failed', `cannot connect to ${host}:${options.port}: ${e.message}`)
            : new ProbeClientError('closed', `connection to ${host}:${options.port} failed: ${e.message}`);
        client.shutdown(error);
      });
      socket.on('close', () => client.shutdown(undefined));
      socket.on('data', (chunk: Buffer) => client.onData(chunk));
    });
  }

  /**
   * The same client over a connection someone else opened (the browser apps' WebSocket: the page
   * dialled, so the extension holds the connection): sends `hello` at once and resolves on the
   * welcome. Feed the connection's bytes to `events.data` and its end to `events.closed`.
   */
  static over(
    transport: ClientTransport,
    options: ProbeClientOptions,
    what: string,
    wire: (events: { data(chunk: Uint8Array): void; closed(): void }) => void,
  ): Promise<ProbeClient> {
    checkOptions('ProbeClient.over', options);
    return ProbeClient.handshake(transport, options, what, (client, sendHello) => {
      wire({ data: (chunk) => client.onData(chunk), closed: () => client.shutdown(undefined) });
      sendHello();
    });
  }

  private static handshake(
    transport: ClientTransport,
    options: ProbeClientOptions,
    what: string,
    start: (client: ProbeClient, sendHello: () => void) => void,
  ): Promise<ProbeClient> {
    const versions = options.protocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS;
    return new Promise((resolve, reject) => {
      const client = new ProbeClient(transport, options);
      let settled = false;
      const settle = (error: ProbeClientError | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error === undefined) resolve(client);
        else {
          client.shutdown(error);
          reject(error);
        }
      };
      const timeoutMs = options.timeoutMs ?? 5000;
      const timer = setTimeout(() => settle(new ProbeClientError('timeout', `no welcome from ${what} within ${timeoutMs} ms`)), timeoutMs);
      client.onWelcome = () => settle(undefined);
      client.onEarlyEnd = (e) => settle(e);
      start(client, () => {
        const hello: ClientMessage = {
          type: 'hello',
          token: options.token,
          protocolVersions: [...versions],
          clientName: options.clientName ?? 'busscope-client',
          // This client hands every message to `onMessage`, so it can take the optional ones too.
          features: [CLIENT_FEATURES.emitterWarning, CLIENT_FEATURES.producerDrops, CLIENT_FEATURES.producerConnected],
        };
        transport.write(encodeControlFrame(hello));
      });
    });
  }

  private onWelcome: () => void = () => undefined;
  private onEarlyEnd: (e: ProbeClientError) => void = () => undefined;

  /** The probe's welcome (app info, negotiated version, time origin, config). */
  get welcome(): WelcomeMessage {
    return this.welcomeMessage as WelcomeMessage;
  }

  /**
   * This connection's string table: names kept (capped at MAX_STRING_TABLE_ENTRIES and
   * MAX_STRING_TABLE_BYTES), definitions folded into the overflow bucket past the cap, and whether
   * the app's own table is full.
   */
  get stringTable(): { readonly count: number; readonly bytes: number; readonly overflowed: number; readonly appTableFull: boolean } {
    const d = this.stream.records;
    return { ...d.keptStrings, overflowed: d.overflowedDefinitions, appTableFull: d.appTableFull };
  }

  get isClosed(): boolean {
    return this.ended;
  }

  /** Asks for a fresh snapshot (records produced before it arrive before it). */
  requestSnapshot(): Promise<ProbeSnapshot> {
    return this.request('snapshot', (requestId) => ({ type: 'snapshot-request', requestId })).then(
      (m) => (m as Extract<ProbeMessage, { type: 'snapshot' }>).snapshot,
    );
  }

  /** Changes recording settings (for every client of the app); resolves with the effective config. */
  configure(config: Partial<RecordingConfig>): Promise<RecordingConfig> {
    return this.request('configured', (requestId) => ({ type: 'configure', requestId, config })).then(
      (m) => (m as Extract<ProbeMessage, { type: 'configured' }>).config,
    );
  }

  /** Sets this client's event breakpoints (replacing the previous list). */
  breakOn(types: readonly string[]): Promise<readonly string[]> {
    return this.request('breakpoints', (requestId) => ({ type: 'break-on', requestId, types: [...types] })).then(
      (m) => (m as Extract<ProbeMessage, { type: 'breakpoints' }>).types,
    );
  }

  /**
   * Asks for these library buses at the session's full detail (replacing this client's previous
   * list; [] clears); resolves with the effective config. Protocol version 2.
   */
  focus(buses: readonly number[]): Promise<RecordingConfig> {
    return this.request('configured', (requestId) => ({ type: 'focus', requestId, buses: [...buses] })).then(
      (m) => (m as Extract<ProbeMessage, { type: 'configured' }>).config,
    );
  }

  /** Resolves once every record the app produced before this call has been delivered (or counted as dropped). */
  ping(): Promise<void> {
    return this.request('pong', (requestId) => ({ type: 'ping', requestId })).then(() => undefined);
  }

  /** Stops reading from the socket (the probe then skips and counts batches for this client). */
  pause(): void {
    this.socket.pause();
    // Not the probe's fault: a frame half-read when we stop reading must not time out meanwhile.
    this.stall.pause();
  }

  resume(): void {
    this.stall.resume(this.frames.bufferedBytes);
    this.socket.resume();
  }

  /** Closes the connection. */
  close(): void {
    this.shutdown(undefined);
  }

  private request(expect: Pending['expect'], make: (requestId: number) => ClientMessage): Promise<ProbeMessage> {
    if (this.ended) return Promise.reject(this.closeError ?? new ProbeClientError('closed', 'the connection is closed'));
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      this.pending.set(requestId, { expect, resolve, reject });
      this.socket.write(encodeControlFrame(make(requestId)));
    });
  }

  private onData(chunk: Uint8Array): void {
    if (this.ended) return;
    try {
      this.frames.push(chunk);
      for (let f = this.frames.next(); f !== undefined; f = this.frames.next()) {
        if (this.options.onFrame !== undefined && (this.welcomeMessage !== undefined || f.kind === 1)) {
          const raw = new Uint8Array(FRAME_HEADER_BYTES + f.body.length);
          new DataView(raw.buffer).setUint32(0, f.body.length + 1, true);
          raw[4] = f.kind;
          raw.set(f.body, FRAME_HEADER_BYTES);
          this.pendingRaw = raw;
        }
        const message = this.stream.decodeFrame(f, this.welcomeMessage === undefined ? undefined : this.options.recordSink);
        this.dispatchMessage(message);
        if (this.ended) return;
      }
      this.stall.progress(this.frames.bufferedBytes);
    } catch (error) {
      const e =
        error instanceof ProtocolError
          ? new ProbeClientError(error.code, `bad data from the probe: ${error.message}`)
          : new ProbeClientError('internal', `client failed: ${(error as Error)?.message ?? String(error)}`);
      this.shutdown(e);
    }
  }

  private onStall(): void {
    const announced = this.frames.partialFrameLength;
    const got = this.frames.bufferedBytes;
    const what = announced > 0 ? `a frame of ${announced} bytes (${Math.max(0, got - 4)} received)` : `a frame header (${got} of 4 bytes received)`;
    this.shutdown(
      new ProbeClientError('frame-stalled', `the probe started ${what} and sent nothing more for ${this.stall.timeoutMs} ms; closing the connection`),
    );
  }

  private pendingRaw: Uint8Array | undefined;

  private emitRaw(): void {
    const raw = this.pendingRaw;
    this.pendingRaw = undefined;
    if (raw !== undefined) this.options.onFrame?.(raw);
  }

  private dispatchMessage(message: StreamMessage): void {
    if (this.welcomeMessage === undefined) {
      if (message.type === 'error') {
        this.pendingRaw = undefined;
        this.shutdown(new ProbeClientError(message.code, `the probe refused the connection: ${message.message}`));
        return;
      }
      if (message.type !== 'welcome') {
        this.shutdown(new ProbeClientError('malformed', `expected welcome from the probe, got ${message.type}`));
        return;
      }
      const offered = this.options.protocolVersions ?? SUPPORTED_PROTOCOL_VERSIONS;
      if (!offered.includes(message.protocolVersion)) {
        this.shutdown(
          new ProbeClientError('unsupported-version', `the probe chose protocol version ${message.protocolVersion}; this client speaks ${offered.join(', ')}`),
        );
        return;
      }
      this.welcomeMessage = message;
      this.emitRaw();
      this.options.onMessage?.(message);
      this.onWelcome();
      return;
    }
    this.emitRaw();
    this.options.onMessage?.(message);
    switch (message.type) {
      case 'error':
        this.shutdown(new ProbeClientError(message.code, `the probe closed the connection: ${message.message}`));
        return;
      case 'snapshot':
      case 'configured':
      case 'breakpoints':
      case 'pong': {
        const id = message.requestId;
        if (id === null) return;
        const p = this.pending.get(id);
        if (p === undefined || p.expect !== message.type) return;
        this.pending.delete(id);
        p.resolve(message);
        return;
      }
      case 'welcome':
      case 'records':
      case 'emitter-warning':
      case 'thread':
      case 'producer-drops':
      case 'producer-connected':
        return;
      default: {
        const never: never = message;
        return never;
      }
    }
  }

  private shutdown(error: ProbeClientError | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.closeError = error;
    this.stall.stop();
    this.frames.release();
    this.pendingRaw = undefined;
    this.socket.destroy();
    const reason = error ?? new ProbeClientError('closed', 'the connection closed');
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
    if (this.welcomeMessage === undefined) this.onEarlyEnd(reason);
    else this.options.onClose?.(error);
    this.resolveClosed(error);
  }
}
