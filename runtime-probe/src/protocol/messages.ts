// Control messages: UTF-8 JSON in FrameKind.Control frames, discriminated by `type`.
// Client → probe messages are validated strictly (`parseClientMessage`): the probe treats every
// byte from a socket as hostile until the token is checked. Probe → client messages are validated
// field by field too (`parseProbeMessage`, probe-messages.ts): the extension host treats the app's
// bytes as untrusted.

import { utf8Encode } from './bytes';
import { ProtocolError } from './errors';
import { arr, bad, bool, checkJsonDepth, int, obj, parseJsonObject, str, type JsonObject } from './fields';
import { encodeFrame, FrameKind } from './framing';
import { MAX_BREAK_ON_TYPES, MAX_CLIENT_JSON_DEPTH, MAX_FOCUS_BUSES, MAX_PAYLOAD_CAP_BYTES, MAX_TYPE_NAME_LENGTH } from './limits';
import type { BusKind, SiteInfo } from './records';
import type { SiteOrigin } from './site-origin';

// ---------------------------------------------------------------------------------------------
// Shared shapes

/**
 * How much the recorder records while a sink is attached.
 * - `lifecycle`: buses, subscribe/unsubscribe, queue, depth-limit, owner records; no dispatch records
 *   (event breakpoints still work).
 * - `dispatch`: plus one record per dispatch, handler errors and payloads (when captured).
 * - `handlers`: plus one timing record per handler call, on sampled dispatches (each type's first
 *   32, then 1 in N with N adapted to its rate; the records say N).
 */
export const DETAIL_LEVELS = ['lifecycle', 'dispatch', 'handlers'] as const;
export type DetailLevel = (typeof DETAIL_LEVELS)[number];

/** Process-wide recording settings; `configure` changes them for every sink. */
export interface RecordingConfig {
  readonly detail: DetailLevel;
  /** Capture subscribe sites from the stack (costs a stack trace per subscribe). */
  readonly captureStacks: boolean;
  /** Record dispatched payloads (sanitized, JSON, cut at `payloadSizeCap`). */
  readonly capturePayloads: boolean;
  /** Bytes of payload JSON kept per dispatch (1 … MAX_PAYLOAD_CAP_BYTES). */
  readonly payloadSizeCap: number;
  /**
   * Dispatch-site sampling: the first dispatch of each event type, then every Nth of that type,
   * records the dispatching code's site. 0 turns dispatch sites off.
   */
  readonly dispatchSiteEvery: number;
}

export interface AppInfo {
  readonly pid: number;
  readonly name: string;
  readonly cwd: string;
  /** Epoch ms when the probe started. */
  readonly startTime: number;
  /** e.g. `node v20.11.0`. */
  readonly runtime: string;
}

export interface BusSnapshot {
  readonly id: number;
  readonly name: string;
  /** Epoch ms. */
  readonly createdAt: number;
  readonly subscriptions: number;
  /** What the bus is (`bus`: an EventBus; else the emitter's kind). Absent from older probes. */
  readonly kind?: BusKind;
  /** An emitter's class name (`Hub`). Absent for an EventBus and from older probes. */
  readonly className?: string;
}

export interface TypeSnapshot {
  readonly bus: number;
  readonly type: string;
  /** Live subscriptions to this type on this bus. */
  readonly listeners: number;
  /** Dispatches seen while recording (0 when nothing recorded). */
  readonly dispatches: number;
}

export interface SubscriptionSnapshot {
  readonly id: number;
  readonly bus: number;
  readonly type: string;
  readonly priority: number;
  readonly label: string | null;
  readonly owner: string | null;
  /**
   * The owner object's per-process id (see `SubscribeRecord.ownerId`); null without an owner.
   * Absent from probes that predate it.
   */
  readonly ownerId?: number | null;
  readonly once: boolean;
  readonly site: SiteInfo | null;
  readonly calls: number;
  /** Epoch ms. */
  readonly createdAt: number;
  /**
   * True when it was made before the probe started (no probe saw the call, so `site` is null
   * whatever `captureStacks` says). Absent otherwise, and from probes that predate it.
   */
  readonly beforeProbe?: boolean;
  /** Whose code subscribed, as the probe judged it (`SubscribeRecord.origin`). Absent when not said. */
  readonly origin?: SiteOrigin;
}

/** A dispatch in progress (outermost first in `ProbeSnapshot.dispatching`). */
export interface DispatchFrameSnapshot {
  readonly seq: number;
  readonly bus: number;
  readonly type: string;
  readonly depth: number;
  /** ms since the time origin. */
  readonly start: number;
  /** The subscription whose handler is running at this level, 0 between handlers. */
  readonly subscriptionId: number;
}

export interface ProbeSnapshot {
  /** ms since the time origin. */
  readonly time: number;
  /** Epoch ms of time 0 of every record and snapshot time. */
  readonly timeOrigin: number;
  /** Highest dispatch sequence number assigned so far (0 when none). */
  readonly lastSeq: number;
  /** True while a client or trace file records (dispatches are only tracked then). */
  readonly recording: boolean;
  readonly buses: readonly BusSnapshot[];
  readonly types: readonly TypeSnapshot[];
  readonly subscriptions: readonly SubscriptionSnapshot[];
  readonly dispatching: readonly DispatchFrameSnapshot[];
  /** Event types that trigger a `debugger` statement (union over clients). */
  readonly breakOn: readonly string[];
  /** True when the snapshot was cut to fit MAX_PROBE_FRAME_BYTES (subscriptions missing). */
  readonly truncated: boolean;
}

// ---------------------------------------------------------------------------------------------
// Client → probe

export interface HelloMessage {
  readonly type: 'hello';
  readonly token: string;
  /** Every protocol version the client speaks. */
  readonly protocolVersions: readonly number[];
  readonly clientName: string;
  /**
   * Optional probe → client messages this client understands (see CLIENT_FEATURES). A probe sends
   * such a message only to clients that list it, so older clients never see one; older probes
   * ignore the field.
   */
  readonly features?: readonly string[];
}
export interface SnapshotRequestMessage {
  readonly type: 'snapshot-request';
  readonly requestId: number;
}
export interface ConfigureMessage {
  readonly type: 'configure';
  readonly requestId: number;
  /** Only the given fields change. */
  readonly config: Partial<RecordingConfig>;
}
export interface BreakOnMessage {
  readonly type: 'break-on';
  readonly requestId: number;
  /** This client's event breakpoints (replaces its previous list; [] clears). */
  readonly types: readonly string[];
}
/** Asks for a `pong` after every record produced before the ping has been sent to this client. */
/**
 * Buses this client wants recorded at the session's full detail although the probe classed them as
 * library emitters (their listeners all come from Node's internals or node_modules; those record at
 * `lifecycle` detail otherwise). Replaces the client's previous list; [] clears. The probe answers
 * `configured`. Protocol version 2.
 */
export interface FocusMessage {
  readonly type: 'focus';
  readonly requestId: number;
  readonly buses: readonly number[];
}
export interface PingMessage {
  readonly type: 'ping';
  readonly requestId: number;
}

export type ClientMessage = HelloMessage | SnapshotRequestMessage | ConfigureMessage | BreakOnMessage | FocusMessage | PingMessage;
export type ClientMessageType = ClientMessage['type'];

// ---------------------------------------------------------------------------------------------
// Probe → client

export interface WelcomeMessage {
  readonly type: 'welcome';
  /** The negotiated version. */
  readonly protocolVersion: number;
  /** The `busscope-probe` package version. */
  readonly probeVersion: string;
  readonly app: AppInfo;
  /** Epoch ms of time 0 of every record. */
  readonly timeOrigin: number;
  /**
   * Optional: the step of the probe's clock (ms; a page's `performance.now()` moves in 100 µs steps
   * unless cross-origin isolated). Readers add it to every dispatch bound. Absent (Node): 0.
   */
  readonly clockStep?: number;
  readonly config: RecordingConfig;
}

export type ErrorCode =
  | 'bad-token'
  | 'handshake-timeout'
  | 'handshake-required'
  | 'unsupported-version'
  | 'frame-too-large'
  /** A frame started and made no progress for FRAME_STALL_TIMEOUT_MS. */
  | 'frame-timeout'
  | 'malformed'
  | 'unknown-message'
  | 'probe-stopping'
  /** Browser apps: the user detached the page in Busscope; it does not dial again until reloaded. */
  | 'detached'
  | 'internal';

/** Sent right before the probe closes the connection. */
export interface ErrorMessage {
  readonly type: 'error';
  readonly code: ErrorCode;
  readonly message: string;
  /** The probe's protocol versions (so a client can say what to upgrade). */
  readonly supportedVersions: readonly number[];
}
export interface SnapshotMessage {
  readonly type: 'snapshot';
  /** The request it answers; null for the snapshot sent after `welcome`. */
  readonly requestId: number | null;
  readonly snapshot: ProbeSnapshot;
}
/** The effective config after a `configure` (sent to every client; `requestId` only to the asker). */
export interface ConfiguredMessage {
  readonly type: 'configured';
  readonly requestId: number | null;
  readonly config: RecordingConfig;
}
export interface BreakpointsMessage {
  readonly type: 'breakpoints';
  readonly requestId: number;
  /** This client's list as the probe stored it. */
  readonly types: readonly string[];
}
export interface PongMessage {
  readonly type: 'pong';
  readonly requestId: number;
}

/** Optional messages a client can ask for in `hello.features`. */
export const CLIENT_FEATURES = {
  /** `emitter-warning` messages. */
  emitterWarning: 'emitter-warning',
  /** `producer-drops` messages (version 5, optional). */
  producerDrops: 'producer-drops',
  /** `producer-connected` messages (version 5, optional). */
  producerConnected: 'producer-connected',
} as const;
export const MAX_CLIENT_FEATURES = 16;

/**
 * Node's MaxListenersExceededWarning, as the app's process emitted it (Node still prints it): the
 * emitter's bus when it is watched, the event name as views show it (`Symbol(desc)` for symbols),
 * the listener count it fired at and Node's text. Sent only to clients with the `emitter-warning`
 * feature, after every record produced before it; a client attaching later gets the latest ones
 * (at most MAX_EMITTER_WARNINGS) after the snapshot. Not written to trace files.
 */
export interface EmitterWarningMessage {
  readonly type: 'emitter-warning';
  readonly warning: 'max-listeners';
  /** ms since the time origin. */
  readonly time: number;
  /** The watched emitter's bus id, null when the emitter is not watched. */
  readonly bus: number | null;
  /** The emitter's class name (Node's text names it too). */
  readonly emitter: string;
  readonly event: string;
  readonly count: number;
  readonly message: string;
}
export const MAX_EMITTER_WARNINGS = 64;

/**
 * Version 5: a worker thread of the app (`worker_threads`) on this stream. Sent when the thread joins
 * the stream (with `snapshot`: its buses, types and subscriptions, after the thread's definitions
 * and before its records) and when it exits (`exitedAt` set, `snapshot` null). The thread's records
 * arrive in `thread-records` (record code 17) and use the thread's own string and site ids.
 */
export interface ThreadMessage {
  readonly type: 'thread';
  /** `worker_threads.threadId` (≥ 1). */
  readonly thread: number;
  /** The worker's `name` option when the runtime tells it, else its script's file name. */
  readonly name: string;
  /** ms since the stream's time origin. */
  readonly startedAt: number;
  /** ms since the stream's time origin; null while it runs. */
  readonly exitedAt: number | null;
  /** Times in it are on the stream's clock (the probe aligns the worker's clock to the main thread's). */
  readonly snapshot: ProbeSnapshot | null;
}

/**
 * Events from producer threads (`bus.openProducerPort()`) that a bus dropped at its producer queue's
 * cap: one message per batch of drops (the arrivals handled in one turn of the event loop), with the
 * count since the previous message. Sent only to clients with the `producer-drops` feature.
 */
export interface ProducerDropsMessage {
  readonly type: 'producer-drops';
  /** ms since the stream's time origin. */
  readonly time: number;
  readonly bus: number;
  /** Dropped since the previous message for this bus. */
  readonly dropped: number;
  /** Dropped by this bus since it opened its first producer port (`bus.producerStats.dropped`). */
  readonly totalDropped: number;
  readonly policy: 'oldest' | 'newest';
  readonly cap: number;
}

/**
 * A producer thread connected to a bus (`connectProducer(port)` in a worker, on a port from
 * `bus.openProducerPort()`): where, so warnings about the bus's queue can name the producer. Sent
 * only to clients with the `producer-connected` feature; a client attaching later gets the latest ones.
 */
export interface ProducerConnectedMessage {
  readonly type: 'producer-connected';
  /** ms since the stream's time origin. */
  readonly time: number;
  readonly bus: number;
  /** The `connectProducer` call (the worker's file as its stack shows it); null when unknown. */
  readonly site: SiteInfo | null;
}

export type ProbeMessage =
  | WelcomeMessage
  | ErrorMessage
  | SnapshotMessage
  | ConfiguredMessage
  | BreakpointsMessage
  | PongMessage
  | EmitterWarningMessage
  | ThreadMessage
  | ProducerDropsMessage
  | ProducerConnectedMessage;
export type ProbeMessageType = ProbeMessage['type'];

export type ControlMessage = ClientMessage | ProbeMessage;

// ---------------------------------------------------------------------------------------------
// Encoding

/** One complete control frame. */
export function encodeControlFrame(message: ControlMessage): Uint8Array {
  return encodeFrame(FrameKind.Control, utf8Encode(JSON.stringify(message)));
}

function features(o: JsonObject, t: string): string[] {
  const list = arr(o, t, 'features', MAX_CLIENT_FEATURES);
  for (const f of list) if (typeof f !== 'string' || f.length === 0 || f.length > 64) bad(t, 'features', 'an array of short strings');
  return list as string[];
}

function reqId(o: JsonObject, t: string): number {
  return int(o, t, 'requestId', 0, 0xffffffff);
}

/** Validates a partial config; throws `malformed` naming the field. Unknown fields are rejected. */
export function parseConfigPatch(value: JsonObject, msgType = 'configure.config'): Partial<RecordingConfig> {
  const out: { -readonly [K in keyof RecordingConfig]?: RecordingConfig[K] } = {};
  for (const key of Object.keys(value)) {
    switch (key) {
      case 'detail': {
        const v = value.detail;
        if (typeof v !== 'string' || !(DETAIL_LEVELS as readonly string[]).includes(v)) bad(msgType, key, `one of ${DETAIL_LEVELS.join(', ')}`);
        out.detail = v as DetailLevel;
        break;
      }
      case 'captureStacks':
        out.captureStacks = bool(value, msgType, key);
        break;
      case 'capturePayloads':
        out.capturePayloads = bool(value, msgType, key);
        break;
      case 'payloadSizeCap':
        out.payloadSizeCap = int(value, msgType, key, 1, MAX_PAYLOAD_CAP_BYTES);
        break;
      case 'dispatchSiteEvery':
        out.dispatchSiteEvery = int(value, msgType, key, 0, 0x7fffffff);
        break;
      default:
        throw new ProtocolError('malformed', `${msgType} has an unknown field "${key}"`);
    }
  }
  return out;
}

/** Decodes and validates one client control frame body. */
export function parseClientMessage(body: Uint8Array): ClientMessage {
  // Client messages are at most a few levels deep: refuse deeper nesting before JSON.parse walks it.
  checkJsonDepth(body, MAX_CLIENT_JSON_DEPTH);
  const o = parseJsonObject(body);
  const t = o.type;
  if (typeof t !== 'string') throw new ProtocolError('malformed', 'control message has no "type"');
  const type = t as ClientMessageType;
  switch (type) {
    case 'hello': {
      const versions = arr(o, t, 'protocolVersions', 64);
      for (const v of versions) {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) bad(t, 'protocolVersions', 'an array of integers');
      }
      return {
        type,
        token: str(o, t, 'token', 256),
        protocolVersions: versions as number[],
        clientName: str(o, t, 'clientName', 256),
        ...(o.features === undefined ? {} : { features: features(o, t) }),
      };
    }
    case 'snapshot-request':
      return { type, requestId: reqId(o, t) };
    case 'configure':
      return { type, requestId: reqId(o, t), config: parseConfigPatch(obj(o, t, 'config')) };
    case 'break-on': {
      const types = arr(o, t, 'types', MAX_BREAK_ON_TYPES);
      for (const v of types) {
        if (typeof v !== 'string' || v.length === 0 || v.length > MAX_TYPE_NAME_LENGTH) {
          bad(t, 'types', `an array of non-empty strings of at most ${MAX_TYPE_NAME_LENGTH} characters`);
        }
      }
      return { type, requestId: reqId(o, t), types: types as string[] };
    }
    case 'focus': {
      const buses = arr(o, t, 'buses', MAX_FOCUS_BUSES);
      for (const v of buses) {
        if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0 || v > 0xffffffff) bad(t, 'buses', 'an array of bus ids (positive integers)');
      }
      return { type, requestId: reqId(o, t), buses: buses as number[] };
    }
    case 'ping':
      return { type, requestId: reqId(o, t) };
    default: {
      const unknown: never = type;
      throw new ProtocolError('unknown-kind', `unknown client message type "${String(unknown)}"`);
    }
  }
}

export const ERROR_CODES: readonly ErrorCode[] = [
  'bad-token',
  'handshake-timeout',
  'handshake-required',
  'unsupported-version',
  'frame-too-large',
  'frame-timeout',
  'malformed',
  'unknown-message',
  'probe-stopping',
  'detached',
  'internal',
];

export function isErrorCode(code: string): code is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(code);
}
