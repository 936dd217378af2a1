// Probe → client control messages, validated field by field at the boundary: the live client and
// Open Trace both decode through here (StreamDecoder), so a wrong type, a number out of range or an
// absurdly long string is refused with a `malformed` error naming the field, never handed to the
// model or the analyses. Objects are rebuilt from the known fields only: unknown fields (allowed by
// the versioning rules) are ignored and not kept in memory.

import { arr, bad, bool, int, num, obj, objAt, optInt, optStr, parseJsonObject, str, type JsonObject } from './fields';
import { ProtocolError } from './errors';
import { MAX_APP_NAME_LENGTH, MAX_BREAK_ON_TYPES, MAX_PATH_LENGTH, MAX_PAYLOAD_CAP_BYTES, MAX_SNAPSHOT_NAME_LENGTH, MAX_VERSION_TEXT_LENGTH } from './limits';
import {
  DETAIL_LEVELS,
  type AppInfo,
  type BusSnapshot,
  type DetailLevel,
  type DispatchFrameSnapshot,
  type ProbeMessage,
  type ProbeMessageType,
  type ProbeSnapshot,
  type RecordingConfig,
  type SubscriptionSnapshot,
  type TypeSnapshot,
} from './messages';
import { BUS_KINDS, type BusKind, type SiteInfo } from './records';
import { SITE_ORIGINS, type SiteOrigin } from './site-origin';

const U32 = 0xffffffff;
const NAME = MAX_SNAPSHOT_NAME_LENGTH;
/** Array lengths are bounded by the frame size (MAX_PROBE_FRAME_BYTES) already. */
const ANY = Number.MAX_SAFE_INTEGER;

function requestId(o: JsonObject, t: string): number {
  return int(o, t, 'requestId', 0, U32);
}
function clockStep(o: JsonObject, t: string): number {
  const v = num(o, t, 'clockStep');
  if (v < 0) bad(t, 'clockStep', 'a finite number ≥ 0');
  return v;
}

function optRequestId(o: JsonObject, t: string): number | null {
  return optInt(o, t, 'requestId', 0, U32);
}

function appInfo(o: JsonObject): AppInfo {
  const w = 'welcome.app';
  return {
    pid: int(o, w, 'pid'),
    name: str(o, w, 'name', MAX_APP_NAME_LENGTH),
    cwd: str(o, w, 'cwd', MAX_PATH_LENGTH),
    startTime: num(o, w, 'startTime'),
    runtime: str(o, w, 'runtime', MAX_VERSION_TEXT_LENGTH),
  };
}

/** A complete config (every field required; unknown fields from newer probes ignored). */
function recordingConfig(o: JsonObject, w: string): RecordingConfig {
  const detail = o.detail;
  if (typeof detail !== 'string' || !(DETAIL_LEVELS as readonly string[]).includes(detail)) bad(w, 'detail', `one of ${DETAIL_LEVELS.join(', ')}`);
  return {
    detail: detail as DetailLevel,
    captureStacks: bool(o, w, 'captureStacks'),
    capturePayloads: bool(o, w, 'capturePayloads'),
    payloadSizeCap: int(o, w, 'payloadSizeCap', 1, MAX_PAYLOAD_CAP_BYTES),
    dispatchSiteEvery: int(o, w, 'dispatchSiteEvery', 0, 0x7fffffff),
  };
}

function site(o: JsonObject, w: string): SiteInfo | null {
  const v = o.site;
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) bad(w, 'site', 'null or an object');
  const s = v as JsonObject;
  const ws = `${w}.site`;
  return {
    file: str(s, ws, 'file', MAX_PATH_LENGTH),
    line: int(s, ws, 'line'),
    column: int(s, ws, 'column'),
    functionName: optStr(s, ws, 'functionName', NAME),
  };
}

function strings(o: JsonObject, w: string, f: string, maxItems: number, maxLength: number): string[] {
  const items = arr(o, w, f, maxItems);
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (typeof v !== 'string' || v.length > maxLength) bad(w, `${f}[${i}]`, `a string of at most ${maxLength} characters`);
  }
  return items as string[];
}

/**
 * A probe's snapshot, every element of every list checked field by field (`malformed` names the first
 * bad one, prefixed by `where`). The one check for a snapshot from an untrusted app: the `snapshot`
 * message's, and the extension's for the state read from a paused app (debugging/pausedState.ts).
 */
export function parseProbeSnapshot(s: JsonObject, where = 'snapshot.snapshot'): ProbeSnapshot {
  const w = where;
  const busItems = arr(s, w, 'buses', ANY);
  const buses: BusSnapshot[] = new Array<BusSnapshot>(busItems.length);
  for (let i = 0; i < busItems.length; i++) {
    const b = objAt(busItems, w, 'buses', i);
    const wb = `${w}.buses[${i}]`;
    const bus: BusSnapshot = {
      id: int(b, wb, 'id'),
      name: str(b, wb, 'name', NAME),
      createdAt: num(b, wb, 'createdAt'),
      subscriptions: int(b, wb, 'subscriptions'),
    };
    // Optional (protocol 3): what the bus is and its class; a kind from a newer probe is not said.
    const kind = 'kind' in b ? str(b, wb, 'kind', NAME) : undefined;
    const className = 'className' in b ? str(b, wb, 'className', NAME) : undefined;
    const known = kind !== undefined && (BUS_KINDS as readonly string[]).includes(kind) ? (kind as BusKind) : undefined;
    buses[i] =
      known === undefined && className === undefined
        ? bus
        : { ...bus, ...(known !== undefined ? { kind: known } : {}), ...(className !== undefined ? { className } : {}) };
  }
  const typeItems = arr(s, w, 'types', ANY);
  const types: TypeSnapshot[] = new Array<TypeSnapshot>(typeItems.length);
  for (let i = 0; i < typeItems.length; i++) {
    const t = objAt(typeItems, w, 'types', i);
    const wt = `${w}.types[${i}]`;
    types[i] = { bus: int(t, wt, 'bus'), type: str(t, wt, 'type', NAME), listeners: int(t, wt, 'listeners'), dispatches: int(t, wt, 'dispatches') };
  }
  const subItems = arr(s, w, 'subscriptions', ANY);
  const subscriptions: SubscriptionSnapshot[] = new Array<SubscriptionSnapshot>(subItems.length);
  for (let i = 0; i < subItems.length; i++) {
    const o = objAt(subItems, w, 'subscriptions', i);
    const ws = `${w}.subscriptions[${i}]`;
    const base = {
      id: int(o, ws, 'id'),
      bus: int(o, ws, 'bus'),
      type: str(o, ws, 'type', NAME),
      priority: num(o, ws, 'priority'),
      label: optStr(o, ws, 'label', NAME),
      owner: optStr(o, ws, 'owner', NAME),
    };
    const rest = { once: bool(o, ws, 'once'), site: site(o, ws), calls: int(o, ws, 'calls'), createdAt: num(o, ws, 'createdAt') };
    // `ownerId` is absent from probes that predate it: keep it absent rather than invent a null.
    const sub: SubscriptionSnapshot = 'ownerId' in o ? { ...base, ownerId: optInt(o, ws, 'ownerId', 1), ...rest } : { ...base, ...rest };
    // `beforeProbe` (made before the probe started) is present only when true; `origin` only when the probe said.
    const said = 'beforeProbe' in o ? { ...sub, beforeProbe: bool(o, ws, 'beforeProbe') } : sub;
    const origin = 'origin' in o ? str(o, ws, 'origin', NAME) : undefined;
    subscriptions[i] = origin !== undefined && (SITE_ORIGINS as readonly string[]).includes(origin) ? { ...said, origin: origin as SiteOrigin } : said;
  }
  const frameItems = arr(s, w, 'dispatching', ANY);
  const dispatching: DispatchFrameSnapshot[] = new Array<DispatchFrameSnapshot>(frameItems.length);
  for (let i = 0; i < frameItems.length; i++) {
    const d = objAt(frameItems, w, 'dispatching', i);
    const wd = `${w}.dispatching[${i}]`;
    dispatching[i] = {
      seq: int(d, wd, 'seq'),
      bus: int(d, wd, 'bus'),
      type: str(d, wd, 'type', NAME),
      depth: int(d, wd, 'depth'),
      start: num(d, wd, 'start'),
      subscriptionId: int(d, wd, 'subscriptionId'),
    };
  }
  return {
    time: num(s, w, 'time'),
    timeOrigin: num(s, w, 'timeOrigin'),
    lastSeq: int(s, w, 'lastSeq'),
    recording: bool(s, w, 'recording'),
    buses,
    types,
    subscriptions,
    dispatching,
    breakOn: strings(s, w, 'breakOn', ANY, NAME),
    truncated: bool(s, w, 'truncated'),
  };
}

/** Decodes one probe control frame body and validates every field (`malformed` names the first bad one). */
export function parseProbeMessage(body: Uint8Array): ProbeMessage {
  const o = parseJsonObject(body);
  const t = o.type;
  if (typeof t !== 'string') throw new ProtocolError('malformed', 'control message has no "type"');
  const type = t as ProbeMessageType;
  switch (type) {
    case 'welcome':
      return {
        type,
        protocolVersion: int(o, t, 'protocolVersion', 0, 0xffff),
        probeVersion: str(o, t, 'probeVersion', MAX_VERSION_TEXT_LENGTH),
        app: appInfo(obj(o, t, 'app')),
        timeOrigin: num(o, t, 'timeOrigin'),
        ...(o.clockStep === undefined ? {} : { clockStep: clockStep(o, t) }),
        config: recordingConfig(obj(o, t, 'config'), 'welcome.config'),
      };
    case 'error': {
      // Unknown codes from newer probes are kept as they are: the message is what people read.
      const code = str(o, t, 'code', 64);
      const message = str(o, t, 'message', MAX_PATH_LENGTH);
      const versions = arr(o, t, 'supportedVersions', 64);
      for (const v of versions) {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) bad(t, 'supportedVersions', 'an array of integers');
      }
      return { type, code: code as Extract<ProbeMessage, { type: 'error' }>['code'], message, supportedVersions: versions as number[] };
    }
    case 'snapshot':
      return { type, requestId: optRequestId(o, t), snapshot: parseProbeSnapshot(obj(o, t, 'snapshot')) };
    case 'configured':
      return { type, requestId: optRequestId(o, t), config: recordingConfig(obj(o, t, 'config'), 'configured.config') };
    case 'breakpoints':
      return { type, requestId: requestId(o, t), types: strings(o, t, 'types', MAX_BREAK_ON_TYPES, NAME) };
    case 'pong':
      return { type, requestId: requestId(o, t) };
    case 'emitter-warning': {
      const warning = str(o, t, 'warning', 64);
      if (warning !== 'max-listeners') bad(t, 'warning', '"max-listeners"');
      const bus = o.bus === null ? null : int(o, t, 'bus');
      return {
        type,
        warning,
        time: num(o, t, 'time'),
        bus,
        emitter: str(o, t, 'emitter', 4096),
        event: str(o, t, 'event', 4096),
        count: int(o, t, 'count'),
        message: str(o, t, 'message', 16_384),
      };
    }
    case 'producer-connected':
      return { type, time: num(o, t, 'time'), bus: int(o, t, 'bus'), site: site(o, t) };
    case 'producer-drops': {
      const policy = str(o, t, 'policy', 16);
      if (policy !== 'oldest' && policy !== 'newest') bad(t, 'policy', '"oldest" or "newest"');
      return {
        type,
        time: num(o, t, 'time'),
        bus: int(o, t, 'bus'),
        dropped: int(o, t, 'dropped', 1),
        totalDropped: int(o, t, 'totalDropped', 1),
        policy,
        cap: int(o, t, 'cap', 1),
      };
    }
    case 'thread': {
      const exitedAt = o.exitedAt === null ? null : num(o, t, 'exitedAt');
      return {
        type,
        thread: int(o, t, 'thread', 1),
        name: str(o, t, 'name', 4096),
        startedAt: num(o, t, 'startedAt'),
        exitedAt,
        snapshot: o.snapshot === null ? null : parseProbeSnapshot(obj(o, t, 'snapshot'), 'thread.snapshot'),
      };
    }
    default: {
      const unknown: never = type;
      throw new ProtocolError('unknown-kind', `unknown probe message type "${String(unknown)}"`);
    }
  }
}
