// One WebSocket to Busscope, seen from the page: the page proves the token in its first message
// (`hello`, as a client does to a Node probe — here the page dials), then plays the probe's part of
// the protocol unchanged: it waits for the extension's `hello`, answers `welcome`, attaches to the
// recorder (definitions, snapshot, then record batches) and serves the control messages.
// Records reach the socket only from the recorder's drain (a timer, off the dispatch path); when the
// socket's `bufferedAmount` passes the cap, batches are skipped and counted (`drops` records follow),
// so the page never blocks and its memory stays bounded. No Node built-ins here.

// The protocol's modules by name, not its index: the page's bundle must not keep the reader's module state.
import { ProtocolError } from '../protocol/errors';
import { parseJsonObject } from '../protocol/fields';
import { FrameKind, FrameSplitter } from '../protocol/framing';
import { MAX_CLIENT_FRAME_BYTES } from '../protocol/limits';
import {
  encodeControlFrame,
  parseClientMessage,
  type AppInfo,
  type ClientMessage,
  type ErrorCode,
  type ProbeMessage,
  type ProbeSnapshot,
  type WelcomeMessage,
} from '../protocol/messages';
import { PROBE_PROTOCOL_VERSIONS, negotiateProtocolVersion } from '../protocol/version';
import { PROBE_VERSION } from '../probe/version';
import { runtime } from '../bus/runtime';
import type { RecorderCore } from '../recorder/recorder-core';
import { RecordSink } from '../recorder/sink';
import { buildSnapshot } from '../recorder/snapshot';
import { measureClockStep } from './clock-step';
import { setPageBreakOn } from './page-breaks';
import { encodeSnapshotFrame } from '../server/snapshot-frame';

/** What the link reports to its owner (connect.ts). */
export interface LinkEvents {
  /** The extension accepted the page (welcome sent): the stream is live. */
  opened(): void;
  /** The socket closed; `refused` when the extension refused the page (wrong token, version) or detached it. */
  closed(refused: { code: ErrorCode | string; message: string } | undefined): void;
}

/** The socket's part the link uses (a WebSocket fits; tests may pass their own). */
export interface PageSocket {
  binaryType: 'arraybuffer' | 'blob';
  readonly readyState: number;
  readonly bufferedAmount: number;
  /** Takes a copy of `data` before it returns (a WebSocket does): the link passes views of buffers it reuses. */
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((this: never, ev: Event) => unknown) | null;
  onmessage: ((this: never, ev: MessageEvent) => unknown) | null;
  onclose: ((this: never, ev: Event) => unknown) | null;
  onerror: ((this: never, ev: Event) => unknown) | null;
}

const OPEN = 1;

/**
 * The page's open link, for its Web Workers' hub (`addWorker`, browser/threads/page-threads.ts), which
 * `changed` tells when the link opens, closes or the recording settings change. A page without
 * workers pays only for the slot.
 */
const threads = (runtime.pageThreads ??= {});

export interface PageLinkOptions {
  readonly token: string;
  readonly app: AppInfo;
  /** Record batches are skipped while more than this is queued in the socket. */
  readonly maxBufferedBytes: number;
}

export class PageLink extends RecordSink {
  private state: 'connecting' | 'hello-sent' | 'open' | 'closed' = 'connecting';
  private readonly decoder = new FrameSplitter(MAX_CLIENT_FRAME_BYTES, 4096);
  private refused: { code: ErrorCode | string; message: string } | undefined;
  override readonly copiesFrames = true;

  constructor(
    private readonly socket: PageSocket,
    readonly recorder: RecorderCore,
    private readonly options: PageLinkOptions,
    private readonly events: LinkEvents,
  ) {
    super();
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => this.onOpen();
    socket.onmessage = (ev) => this.onMessage(ev.data);
    socket.onclose = () => this.onClosed();
    socket.onerror = () => undefined; // a close event follows
  }

  /** The page's snapshot: sent on attach and on request, and read by a debugger while the page is paused (extension: debugging/pausedState.ts). */
  snapshot(): ProbeSnapshot {
    return buildSnapshot(this.recorder);
  }

  /** A method, so TypeScript does not narrow `state` across the calls that change it. */
  private isClosed(): boolean {
    return this.state === 'closed';
  }

  // RecordSink
  canAccept(bytes: number): boolean {
    return this.state === 'open' && this.socket.readyState === OPEN && this.socket.bufferedAmount + bytes <= this.options.maxBufferedBytes;
  }

  write(frame: Uint8Array): void {
    if (this.state === 'closed' || this.socket.readyState !== OPEN) return;
    try {
      this.socket.send(frame);
    } catch {
      this.close();
    }
  }

  /** Closes the socket (the extension sees the page leave). */
  close(): void {
    if (this.state === 'closed') return;
    try {
      this.socket.close(1000, 'closed by the page');
    } catch {
      // already closing
    }
    this.onClosed();
  }

  private send(message: ProbeMessage | ClientMessage): void {
    this.write(encodeControlFrame(message));
  }

  private onOpen(): void {
    if (this.state !== 'connecting') return;
    this.state = 'hello-sent';
    // The page dials, so it proves the token first (the extension drops it otherwise within 3 s).
    this.send({ type: 'hello', token: this.options.token, protocolVersions: [...PROBE_PROTOCOL_VERSIONS], clientName: this.options.app.name.slice(0, 256) });
  }

  private onMessage(data: unknown): void {
    if (this.state === 'closed') return;
    try {
      if (!(data instanceof ArrayBuffer)) throw new ProtocolError('malformed', 'text message on the Busscope socket (frames are binary)');
      this.decoder.push(new Uint8Array(data));
      for (let f = this.decoder.next(); f !== undefined; f = this.decoder.next()) {
        if (this.isClosed()) return;
        if (f.kind !== FrameKind.Control) throw new ProtocolError('unknown-kind', 'the extension may only send control frames');
        const body = f.body;
        // The extension's refusal (bad token, version) arrives as a probe-side `error` message, and so
        // does a detach (code `detached`) once the stream is live: either way the page does not dial
        // again. Read without the full probe-side parser (page bundle size).
        const o = parseJsonObject(body);
        if (o.type === 'error') {
          this.refused = { code: typeof o.code === 'string' ? o.code : 'refused', message: typeof o.message === 'string' ? o.message : 'refused' };
          this.close();
          return;
        }
        this.handle(parseClientMessage(body));
      }
    } catch (error) {
      const code: ErrorCode = error instanceof ProtocolError && error.code === 'frame-too-large' ? 'frame-too-large' : 'malformed';
      this.fail(code, error instanceof Error ? error.message : String(error));
    }
  }

  private handle(message: ClientMessage): void {
    const r = this.recorder;
    if (this.state === 'hello-sent') {
      if (message.type !== 'hello') return this.fail('handshake-required', `the first message must be hello (got ${message.type})`);
      if (message.token !== this.options.token) return this.fail('bad-token', 'the extension sent another token');
      const version = negotiateProtocolVersion(message.protocolVersions, PROBE_PROTOCOL_VERSIONS);
      if (version === undefined) return this.fail('unsupported-version', `no common protocol version (page: ${PROBE_PROTOCOL_VERSIONS.join(', ')})`);
      this.state = 'open';
      // Version 6 (every extension that accepts pages): the drain writes dispatch columns, ~7 B a dispatch.
      this.protocolVersion = version;
      const welcome: WelcomeMessage = {
        type: 'welcome',
        protocolVersion: version,
        probeVersion: PROBE_VERSION,
        app: this.options.app,
        timeOrigin: r.timeOrigin,
        clockStep: measureClockStep(performance),
        config: r.config,
      };
      r.attach(this, [encodeControlFrame(welcome)], () => encodeSnapshotFrame(buildSnapshot(r), null));
      threads.link = this;
      threads.changed?.();
      this.events.opened();
      return;
    }
    switch (message.type) {
      case 'hello':
        return this.fail('malformed', 'a second hello');
      case 'snapshot-request':
        r.flushTo(this);
        this.write(encodeSnapshotFrame(buildSnapshot(r), message.requestId));
        return;
      case 'configure': {
        const config = r.configure(message.config);
        threads.changed?.();
        this.send({ type: 'configured', requestId: message.requestId, config });
        return;
      }
      case 'break-on':
        // Hit whenever a debugger is attached to the page (page-breaks.ts).
        this.send({ type: 'breakpoints', requestId: message.requestId, types: setPageBreakOn(r, message.types) });
        return;
      case 'focus':
        r.setFocus(new Set(message.buses));
        this.send({ type: 'configured', requestId: message.requestId, config: r.config });
        return;
      case 'ping':
        r.flushTo(this);
        this.send({ type: 'pong', requestId: message.requestId });
        return;
      default: {
        const never: never = message;
        throw new ProtocolError('unknown-kind', String(never));
      }
    }
  }

  private fail(code: ErrorCode, message: string): void {
    this.send({ type: 'error', code, message, supportedVersions: PROBE_PROTOCOL_VERSIONS });
    this.close();
  }

  private onClosed(): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.decoder.release();
    if (wasOpen) {
      setPageBreakOn(this.recorder, []); // the extension that asked is gone
      this.recorder.detach(this, false);
      if (threads.link === this) threads.link = undefined;
      threads.changed?.();
    }
    this.events.closed(this.refused);
  }
}
