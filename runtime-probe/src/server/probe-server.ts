// The loopback server: accepts clients, checks the token, serves control messages. It never keeps
// the app alive (server and sockets are unref'd) and never lets one client affect another.

import { mainThreadHub } from '../threads/thread-hub';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import {
  CLIENT_FEATURES,
  MAX_EMITTER_WARNINGS,
  encodeControlFrame,
  type ClientMessage,
  type EmitterWarningMessage,
  type ProducerDropsMessage,
  type ProducerConnectedMessage,
  type ProbeSnapshot,
  type RecordingConfig,
  type WelcomeMessage,
} from '../protocol/index';
import type { Recorder } from '../recorder/recorder';
import { CLOSE_GRACE_MS, ClientConnection, type ConnectionHost } from './client-connection';
import { DetailRequests } from './detail-requests';
import { encodeSnapshotFrame } from './snapshot-frame';
import { ignoreEmitter } from '../emitters/process-wide';

export interface ProbeServerOptions {
  readonly host: string;
  readonly port: number;
  readonly recorder: Recorder;
  /** Bytes queued per client beyond which record batches are skipped (and counted). */
  readonly maxPendingBytes: number;
  readonly welcome: (protocolVersion: number) => WelcomeMessage;
  readonly snapshot: () => ProbeSnapshot;
}

/** Unauthenticated connections kept at once; beyond it the oldest is dropped. */
export const MAX_PENDING_HANDSHAKES = 64;

/** A fresh random token: 32 hex characters (128 bits). */
export function newToken(): string {
  return randomBytes(16).toString('hex');
}

export { encodeSnapshotFrame } from './snapshot-frame';

/** Producer messages kept for clients that attach later (the latest per bus and site). */
const MAX_PRODUCER_MESSAGES = 256;

/** The `hello.features` entry a client lists to receive this message. */
function producerFeature(m: ProducerConnectedMessage | ProducerDropsMessage): string {
  switch (m.type) {
    case 'producer-connected':
      return CLIENT_FEATURES.producerConnected;
    case 'producer-drops':
      return CLIENT_FEATURES.producerDrops;
    default: {
      const never: never = m;
      return never;
    }
  }
}

export class ProbeServer implements ConnectionHost {
  readonly token = newToken();
  private readonly connections = new Set<ClientConnection>();
  private readonly detailRequests = new DetailRequests<ClientConnection>();
  private server: net.Server | undefined;
  private closing = false;

  private readonly emitterWarnings: EmitterWarningMessage[] = [];
  private readonly producerMessages = new Map<string, ProducerConnectedMessage | ProducerDropsMessage>();

  private constructor(private readonly options: ProbeServerOptions) {}

  /** Listens; resolves once bound (rejects when the address cannot be used). */
  static listen(options: ProbeServerOptions): Promise<ProbeServer> {
    const s = new ProbeServer(options);
    return new Promise((resolve, reject) => {
      const server = net.createServer({ noDelay: true }, (socket) => s.accept(socket));
      // The probe's own server and sockets are never shown as the app's emitters.
      ignoreEmitter(server);
      s.server = server;
      const onError = (error: Error) => reject(error);
      server.once('error', onError);
      server.listen({ host: options.host, port: options.port, exclusive: true }, () => {
        server.removeListener('error', onError);
        // Later server errors (rare: EMFILE on accept) must not crash the app.
        server.on('error', () => undefined);
        server.unref();
        resolve(s);
      });
    });
  }

  get port(): number {
    const a = this.server?.address();
    return typeof a === 'object' && a !== null ? a.port : 0;
  }

  get clientCount(): number {
    let n = 0;
    for (const c of this.connections) if (c.state === 'open') n++;
    return n;
  }

  /**
   * Tells every client the probe is stopping, then closes: resolves once every socket has closed,
   * within CLOSE_GRACE_MS. The sockets are unref'd (they never keep the app alive), so the grace
   * period's timer is not: `await probe.stop()` must settle even when nothing else keeps the process
   * running, or the code after it never runs.
   */
  close(): Promise<void> {
    this.closing = true;
    for (const c of [...this.connections]) c.stop('the app stopped its Busscope probe');
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const grace = setTimeout(() => {
        for (const c of this.connections) c.destroy();
      }, CLOSE_GRACE_MS);
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
    });
  }

  /** Connections that have not proven the token (still in the handshake, or being refused). */
  get pendingCount(): number {
    let n = 0;
    for (const c of this.connections) if (!c.admitted) n++;
    return n;
  }

  private accept(socket: net.Socket): void {
    ignoreEmitter(socket);
    // Runs in a 'connection' event: a throw here would be an uncaught exception in the app.
    try {
      if (this.closing) {
        socket.destroy();
        return;
      }
      // Connections that have not proven the token are capped, so a local flood of idle connections
      // cannot pile up sockets until their handshake timeouts fire. The oldest goes, not the newest:
      // a real client sends hello at once, so flooding cannot lock it out.
      let pending = 0;
      let oldest: ClientConnection | undefined;
      for (const c of this.connections) {
        if (c.admitted) continue;
        pending++;
        oldest ??= c;
      }
      if (pending >= MAX_PENDING_HANDSHAKES && oldest !== undefined) {
        this.connections.delete(oldest);
        oldest.socket.destroy();
      }
      const conn = new ClientConnection(socket, this, this.options.maxPendingBytes);
      this.connections.add(conn);
      socket.once('close', () => this.connections.delete(conn));
    } catch {
      socket.destroy();
    }
  }

  // ConnectionHost

  checkToken(token: string): boolean {
    const a = Buffer.from(token, 'utf8');
    const b = Buffer.from(this.token, 'utf8');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  admit(conn: ClientConnection, protocolVersion: number): void {
    const { recorder } = this.options;
    recorder.attach(conn, [encodeControlFrame(this.options.welcome(protocolVersion))], () => encodeSnapshotFrame(this.options.snapshot(), null));
    // Version 5: the worker threads' buses join this stream (each after its own snapshot).
    if (protocolVersion >= 5) {
      mainThreadHub()?.setConfig(recorder.config);
      mainThreadHub()?.attachStream(conn, () => recorder.drainSoon());
    }
    // The latest emitter warnings, after the snapshot that names their buses.
    if (conn.features.has(CLIENT_FEATURES.emitterWarning)) for (const w of this.emitterWarnings) conn.send(w);
    for (const m of this.producerMessages.values()) if (conn.features.has(producerFeature(m))) conn.send(m);
  }

  /**
   * Tells the clients that asked for it about an emitter warning (after every record produced before
   * it, so its bus is known), and keeps the latest MAX_EMITTER_WARNINGS for clients that attach later.
   */
  emitterWarning(warning: EmitterWarningMessage): void {
    this.emitterWarnings.push(warning);
    if (this.emitterWarnings.length > MAX_EMITTER_WARNINGS) this.emitterWarnings.shift();
    for (const c of this.connections) {
      if (c.state !== 'open' || !c.features.has(CLIENT_FEATURES.emitterWarning)) continue;
      this.options.recorder.flushTo(c);
      c.send(warning);
    }
  }

  /**
   * Tells the clients that asked for it about a producer thread that connected to a bus, or events a
   * bus dropped at its producer queue's cap; keeps the latest of each (per bus and site; per bus) for
   * clients that attach later, at most MAX_PRODUCER_MESSAGES.
   */
  producerMessage(message: ProducerConnectedMessage | ProducerDropsMessage): void {
    const feature = producerFeature(message);
    const key = message.type === 'producer-drops' ? `d${message.bus}` : `c${message.bus}:${message.site?.file ?? ''}:${message.site?.line ?? 0}`;
    this.producerMessages.delete(key);
    this.producerMessages.set(key, message);
    if (this.producerMessages.size > MAX_PRODUCER_MESSAGES) this.producerMessages.delete(this.producerMessages.keys().next().value as string);
    for (const c of this.connections) {
      if (c.state !== 'open' || !c.features.has(feature)) continue;
      this.options.recorder.flushTo(c);
      c.send(message);
    }
  }

  handle(conn: ClientConnection, message: Exclude<ClientMessage, { type: 'hello' }>): void {
    const { recorder } = this.options;
    switch (message.type) {
      case 'snapshot-request':
        // Records produced before the request reach this client before the snapshot does.
        recorder.flushTo(conn);
        conn.sendFrame(encodeSnapshotFrame(this.options.snapshot(), message.requestId));
        return;
      case 'configure': {
        const patch = message.config;
        const detail = patch.detail === undefined ? undefined : this.detailRequests.request(conn, patch.detail, recorder.config.detail);
        this.applyConfig(detail === undefined ? patch : { ...patch, detail }, conn, message.requestId);
        return;
      }
      case 'break-on':
        conn.breakOn = [...new Set(message.types)];
        this.updateBreakOn();
        conn.send({ type: 'breakpoints', requestId: message.requestId, types: conn.breakOn });
        return;
      case 'focus':
        conn.focus = [...new Set(message.buses)];
        this.updateFocus();
        conn.send({ type: 'configured', requestId: message.requestId, config: recorder.config });
        return;
      case 'ping':
        recorder.flushTo(conn);
        conn.send({ type: 'pong', requestId: message.requestId });
        return;
      default: {
        const never: never = message;
        throw new Error(`unhandled message ${String(never)}`);
      }
    }
  }

  closed(conn: ClientConnection): void {
    this.options.recorder.detach(conn, false);
    mainThreadHub()?.detachStream(conn);
    if (conn.breakOn.length > 0) {
      conn.breakOn = [];
      this.updateBreakOn();
    }
    if (conn.focus.length > 0) {
      conn.focus = [];
      this.updateFocus();
    }
    // Its detail request leaves with it: fall back to the highest still asked for, or the app's own.
    const detail = this.detailRequests.release(conn);
    if (detail !== undefined && detail !== this.options.recorder.config.detail) this.applyConfig({ detail }, undefined, null);
  }

  /** Applies a config change and tells every open client the effective config (the asker with its request id). */
  private applyConfig(patch: Partial<RecordingConfig>, asker: ClientConnection | undefined, requestId: number | null): void {
    const config = this.options.recorder.configure(patch);
    mainThreadHub()?.setConfig(config);
    for (const c of this.connections) {
      if (c.state === 'open') c.send({ type: 'configured', requestId: c === asker ? requestId : null, config });
    }
  }

  /** The union of every open client's focus: a library bus stays at full detail while anyone looks at it. */
  private updateFocus(): void {
    const all = new Set<number>();
    for (const c of this.connections) if (c.state === 'open') for (const b of c.focus) all.add(b);
    this.options.recorder.setFocus(all);
  }

  private updateBreakOn(): void {
    const all = new Set<string>();
    for (const c of this.connections) if (c.state === 'open') for (const t of c.breakOn) all.add(t);
    this.options.recorder.setBreakOn(all);
    // Buses in worker threads break on the same types (after the main recorder's gate check, which the workers' gates read).
    mainThreadHub()?.setBreakOn(all);
  }
}
