// One client socket: handshake, then a record sink plus the control-message handler. Every
// protocol violation ends this connection only: an `error` message first (when the socket can still
// take it), then close. Writes never block the app: beyond `maxPendingBytes` queued in the socket,
// record batches are skipped and counted (RecordSink); control replies are always queued, but a
// client that lets them pile up past a hard limit is disconnected.

import type { Socket } from 'node:net';
import {
  FRAME_STALL_TIMEOUT_MS,
  FrameDecoder,
  FrameKind,
  FrameStallWatch,
  HANDSHAKE_TIMEOUT_MS,
  MAX_CLIENT_FRAME_BYTES,
  MAX_PREAUTH_FRAME_BYTES,
  ProtocolError,
  PROBE_PROTOCOL_VERSIONS,
  encodeControlFrame,
  negotiateProtocolVersion,
  parseClientMessage,
  type ClientMessage,
  type ErrorCode,
  type ProbeMessage,
  type ProtocolErrorCode,
} from '../protocol/index';
import { reportProbeFailure } from '../probe/report';
import { RecordSink } from '../recorder/sink';

/** What a connection needs from the server. */
export interface ConnectionHost {
  checkToken(token: string): boolean;
  /** Handshake done: attach to the recorder (welcome, definitions, snapshot). */
  admit(conn: ClientConnection, protocolVersion: number): void;
  handle(conn: ClientConnection, message: Exclude<ClientMessage, { type: 'hello' }>): void;
  closed(conn: ClientConnection): void;
}

/** How long a closing connection waits for its peer to take the `error` and hang up. */
export const CLOSE_GRACE_MS = 1000;

function errorCodeFor(code: ProtocolErrorCode): ErrorCode {
  switch (code) {
    case 'frame-too-large':
      return 'frame-too-large';
    case 'unknown-kind':
      return 'unknown-message';
    case 'truncated':
    case 'malformed':
    case 'undefined-reference':
    case 'not-a-trace':
      return 'malformed';
    default: {
      const never: never = code;
      return never;
    }
  }
}

export class ClientConnection extends RecordSink {
  state: 'handshake' | 'open' | 'closing' | 'closed' = 'handshake';
  clientName = '';
  /** This client's event breakpoints. */
  breakOn: readonly string[] = [];
  /** Optional messages this client asked for in `hello.features`. */
  features: ReadonlySet<string> = new Set();
  /** Library buses this client wants at full detail (`focus`). */
  focus: readonly number[] = [];
  /** True once the client proved the token (stays true while closing). */
  admitted = false;
  /** Small frames only until the token is proved: an unauthenticated peer cannot make the app parse 64 KiB of JSON. */
  private readonly decoder = new FrameDecoder(MAX_PREAUTH_FRAME_BYTES, 4096);
  private handshakeTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly stall = new FrameStallWatch(FRAME_STALL_TIMEOUT_MS, () =>
    this.fail('frame-timeout', `a frame started and nothing more arrived for ${FRAME_STALL_TIMEOUT_MS} ms`),
  );

  constructor(
    readonly socket: Socket,
    private readonly host: ConnectionHost,
    /** Record batches are skipped while more than this is queued in the socket. */
    private readonly maxPendingBytes: number,
  ) {
    super();
    socket.setNoDelay(true);
    socket.unref();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => this.onClosed());
    socket.on('close', () => this.onClosed());
    // The peer finished sending: Node ends our side once queued writes (an error message) are out.
    socket.on('end', () => this.onPeerEnded());
    this.handshakeTimer = setTimeout(() => this.fail('handshake-timeout', `no hello within ${HANDSHAKE_TIMEOUT_MS} ms of connecting`), HANDSHAKE_TIMEOUT_MS);
    this.handshakeTimer.unref();
  }

  // RecordSink
  canAccept(bytes: number): boolean {
    return this.state === 'open' && this.socket.writableLength + bytes <= this.maxPendingBytes;
  }

  write(frame: Uint8Array): void {
    if (this.state === 'closing' || this.state === 'closed' || this.socket.destroyed) return;
    try {
      this.socket.write(frame);
    } catch {
      this.destroySoon(0);
    }
  }

  /** A control reply: never skipped, but a client that stopped reading them is let go. */
  send(message: ProbeMessage): void {
    this.sendFrame(encodeControlFrame(message));
  }

  /** An encoded control reply (e.g. a snapshot), under the same limit as `send`. */
  sendFrame(frame: Uint8Array): void {
    // Requests keep coming while replies pile up unread: memory in the app must stay bounded.
    if (this.socket.writableLength > this.maxPendingBytes * 4) {
      this.destroySoon(0);
      return;
    }
    this.write(frame);
  }

  /** Sends `error`, then closes this connection. */
  fail(code: ErrorCode, message: string): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    this.clearHandshakeTimer();
    this.stall.stop();
    const wasOpen = this.state === 'open';
    this.state = 'closing';
    this.socket.pause();
    if (wasOpen) this.notifyClosed();
    try {
      if (!this.socket.destroyed) {
        this.socket.end(encodeControlFrame({ type: 'error', code, message, supportedVersions: PROBE_PROTOCOL_VERSIONS }));
      }
    } catch {
      // the socket is gone already
    }
    this.destroySoon(CLOSE_GRACE_MS);
  }

  /**
   * The probe is stopping: `error`, then close. Unlike a protocol failure, reading goes on (and
   * discards), so a peer that already hung up or closes on the `error` is seen at once: a paused
   * socket never reads the peer's FIN and would wait out the grace period.
   */
  stop(message: string): void {
    this.fail('probe-stopping', message);
    if (!this.socket.destroyed) this.socket.resume();
  }

  /** Ends the socket now (the probe stopped and its grace period is over). */
  destroy(): void {
    if (!this.socket.destroyed) this.socket.destroy();
  }

  private destroySoon(ms: number): void {
    if (ms === 0) {
      this.socket.destroy();
      return;
    }
    const t = setTimeout(() => this.socket.destroy(), ms);
    t.unref();
  }

  /** Runs from socket events and timers: a failure here must not become an uncaught exception in the app. */
  private notifyClosed(): void {
    try {
      this.host.closed(this);
    } catch (error) {
      reportProbeFailure('detaching a client', error);
    }
  }

  private clearHandshakeTimer(): void {
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
  }

  private onPeerEnded(): void {
    this.stall.stop();
    if (this.state === 'open') {
      this.state = 'closing';
      this.notifyClosed();
    } else if (this.state === 'handshake') {
      this.state = 'closing';
      this.clearHandshakeTimer();
    }
    this.destroySoon(CLOSE_GRACE_MS);
  }

  private onClosed(): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.clearHandshakeTimer();
    this.stall.stop();
    this.decoder.release();
    if (!this.socket.destroyed) this.socket.destroy();
    if (wasOpen) this.notifyClosed();
  }

  private onData(chunk: Buffer): void {
    if (this.state === 'closing' || this.state === 'closed') return;
    try {
      this.decoder.push(chunk);
      for (let f = this.decoder.next(); f !== undefined; f = this.decoder.next()) {
        if (!this.acceptsInput()) return;
        if (f.kind !== FrameKind.Control) {
          if (this.state === 'handshake') this.fail('handshake-required', 'the first message must be hello (got a record frame)');
          else this.fail('unknown-message', 'clients may only send control frames');
          return;
        }
        this.onMessage(parseClientMessage(f.body));
      }
      if (this.acceptsInput()) this.stall.progress(this.decoder.bufferedBytes);
    } catch (error) {
      if (error instanceof ProtocolError) {
        const beforeHello = this.state === 'handshake' && error.code === 'frame-too-large';
        this.fail(errorCodeFor(error.code), beforeHello ? `${error.message} before hello` : error.message);
      } else {
        this.fail('internal', `the probe failed handling this client's message: ${(error as Error)?.message ?? String(error)}`);
      }
    }
  }

  /** A method, so TypeScript does not narrow `state` across the calls that change it. */
  private acceptsInput(): boolean {
    return this.state === 'handshake' || this.state === 'open';
  }

  private onMessage(message: ClientMessage): void {
    if (this.state === 'handshake') {
      if (message.type !== 'hello') {
        this.fail('handshake-required', `the first message must be hello (got ${message.type})`);
        return;
      }
      if (!this.host.checkToken(message.token)) {
        this.fail('bad-token', 'wrong or missing token (see the discovery file or the probe.start() result)');
        return;
      }
      const version = negotiateProtocolVersion(message.protocolVersions, PROBE_PROTOCOL_VERSIONS);
      if (version === undefined) {
        this.fail(
          'unsupported-version',
          `no common protocol version: the client speaks ${message.protocolVersions.join(', ') || 'none'}, ` +
            `this probe speaks ${PROBE_PROTOCOL_VERSIONS.join(', ')}; upgrade the older side`,
        );
        return;
      }
      this.clearHandshakeTimer();
      this.decoder.maxFrameBytes = MAX_CLIENT_FRAME_BYTES;
      this.clientName = message.clientName;
      this.features = new Set(message.features ?? []);
      this.state = 'open';
      this.admitted = true;
      this.protocolVersion = version;
      this.host.admit(this, version);
      return;
    }
    if (message.type === 'hello') {
      this.fail('malformed', 'hello was already received');
      return;
    }
    this.host.handle(this, message);
  }
}
