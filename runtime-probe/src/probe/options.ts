// `probe.start()` options, validated up front: options passed in code are the caller's bug and throw a
// precise TypeError at the call (synchronously, like every other check in the API); everything that
// fails later (ports, files) is reported, never thrown. Bad *environment* values are not programmer
// errors: environment.ts turns them into one warning each and leaves the probe off.

import { DETAIL_LEVELS, MAX_PAYLOAD_CAP_BYTES, type DetailLevel } from '../protocol/index';
import type { PayloadSanitizer } from '../recorder/payload';

export interface ProbeStartOptions {
  /** Shown in the Attach picker (default: the main script's file name). */
  name?: string;
  /**
   * Address to listen on (default `127.0.0.1`). A non-loopback address exposes the probe beyond this
   * machine (the token travels unencrypted) and needs `allowRemote: true`.
   */
  host?: string;
  /** Opt-in to a non-loopback `host` (default false); the probe then warns once that it is reachable. */
  allowRemote?: boolean;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Write a discovery file so tools can find the app (default true). */
  discovery?: boolean;
  /** Capture subscribe sites from the stack (default true). */
  captureStacks?: boolean;
  /** Record dispatched payloads (default false). */
  capturePayloads?: boolean;
  /** Maps a payload to what may be recorded (drop secrets, shrink big objects). */
  sanitize?: PayloadSanitizer;
  /** Ring buffer size in records (default 65,536; about 96 bytes each). */
  maxBufferedRecords?: number;
  /** Bytes queued per client before record batches are skipped and counted (default 4 MiB). */
  maxClientBufferBytes?: number;
  /** Initial detail level (default `handlers`); clients may change it. */
  detail?: DetailLevel;
  /** Dispatch-site sampling: first dispatch of each type, then every Nth (default 1000; 0 = off). */
  dispatchSiteEvery?: number;
  /** Payload JSON kept per dispatch, in characters (default 1024). */
  payloadSizeCap?: number;
  /**
   * Instrument the process's existing emitters while started (`probe.start` only): `all` — every
   * Node `EventEmitter` and `EventTarget`; `app` — those with a listener from the app's own code
   * (not `node_modules`, not Node's internals); `off` (default).
   */
  emitters?: EmitterInstrumentation;
  /** With `emitters`: only instances of these class names (constructor names, e.g. `['Socket', 'Server']`). */
  emitterClasses?: readonly string[];
}

export const EMITTER_MODES = ['all', 'app', 'off'] as const;
export type EmitterInstrumentation = (typeof EMITTER_MODES)[number];

export interface ResolvedStartOptions {
  readonly name: string | undefined;
  readonly host: string;
  readonly allowRemote: boolean;
  readonly port: number;
  readonly discovery: boolean;
  readonly captureStacks: boolean;
  readonly capturePayloads: boolean;
  readonly sanitize: PayloadSanitizer | undefined;
  readonly maxBufferedRecords: number;
  readonly maxClientBufferBytes: number;
  readonly detail: DetailLevel;
  readonly dispatchSiteEvery: number;
  readonly payloadSizeCap: number;
  readonly emitters: EmitterInstrumentation;
  readonly emitterClasses: readonly string[] | undefined;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'function') return 'a function';
  if (v === null) return 'null';
  if (typeof v === 'object') return Array.isArray(v) ? 'an array' : 'an object';
  return String(v);
}

function int(where: string, field: string, v: unknown, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new TypeError(`${where}: options.${field} must be an integer in ${min}…${max} (got ${describe(v)})`);
  }
  return v;
}

function bool(where: string, field: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') throw new TypeError(`${where}: options.${field} must be a boolean (got ${describe(v)})`);
  return v;
}

/** Addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Every option `probe.start()` and `probe.record()` know. */
const OPTION_NAMES: ReadonlySet<string> = new Set<keyof ProbeStartOptions>([
  'name',
  'host',
  'allowRemote',
  'port',
  'discovery',
  'captureStacks',
  'capturePayloads',
  'sanitize',
  'maxBufferedRecords',
  'maxClientBufferBytes',
  'detail',
  'dispatchSiteEvery',
  'payloadSizeCap',
  'emitters',
  'emitterClasses',
]);

export function resolveStartOptions(where: string, options: ProbeStartOptions | undefined): ResolvedStartOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new TypeError(`${where}: options must be an object (got ${describe(options)})`);
  }
  const o = options ?? {};
  // A misspelt option (`captureStack`, `allowremote`) would otherwise be a silent default.
  for (const key of Object.keys(o)) {
    if (!OPTION_NAMES.has(key)) {
      throw new TypeError(`${where}: options.${key} is not an option (known: ${[...OPTION_NAMES].join(', ')})`);
    }
  }
  if (o.name !== undefined && (typeof o.name !== 'string' || o.name.length === 0)) {
    throw new TypeError(`${where}: options.name must be a non-empty string (got ${describe(o.name)})`);
  }
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host.length === 0)) {
    throw new TypeError(`${where}: options.host must be a non-empty string (got ${describe(o.host)})`);
  }
  const allowRemote = bool(where, 'allowRemote', o.allowRemote, false);
  if (o.host !== undefined && !allowRemote && !isLoopbackHost(o.host)) {
    throw new TypeError(
      `${where}: options.host ${describe(o.host)} is not a loopback address; listening there lets other machines reach the probe, ` +
        'so it needs allowRemote: true (or BUSSCOPE_ALLOW_REMOTE=1)',
    );
  }
  if (o.sanitize !== undefined && typeof o.sanitize !== 'function') {
    throw new TypeError(`${where}: options.sanitize must be a function (got ${describe(o.sanitize)})`);
  }
  if (o.detail !== undefined && !(DETAIL_LEVELS as readonly unknown[]).includes(o.detail)) {
    throw new TypeError(`${where}: options.detail must be one of ${DETAIL_LEVELS.join(', ')} (got ${describe(o.detail)})`);
  }
  if (o.emitters !== undefined && !(EMITTER_MODES as readonly unknown[]).includes(o.emitters)) {
    throw new TypeError(`${where}: options.emitters must be one of ${EMITTER_MODES.join(', ')} (got ${describe(o.emitters)})`);
  }
  let emitterClasses: readonly string[] | undefined;
  if (o.emitterClasses !== undefined) {
    if (!Array.isArray(o.emitterClasses)) {
      throw new TypeError(`${where}: options.emitterClasses must be an array of class names (got ${describe(o.emitterClasses)})`);
    }
    o.emitterClasses.forEach((name: unknown, i: number) => {
      if (typeof name !== 'string' || name.trim() === '') {
        throw new TypeError(`${where}: options.emitterClasses[${i}] must be a non-empty class name (got ${describe(name)})`);
      }
    });
    emitterClasses = Object.freeze([...o.emitterClasses]);
  }
  return {
    name: o.name,
    host: o.host ?? '127.0.0.1',
    allowRemote,
    port: int(where, 'port', o.port, 0, 65535, 0),
    discovery: bool(where, 'discovery', o.discovery, true),
    captureStacks: bool(where, 'captureStacks', o.captureStacks, true),
    capturePayloads: bool(where, 'capturePayloads', o.capturePayloads, false),
    sanitize: o.sanitize,
    maxBufferedRecords: int(where, 'maxBufferedRecords', o.maxBufferedRecords, 64, 1 << 24, 65_536),
    maxClientBufferBytes: int(where, 'maxClientBufferBytes', o.maxClientBufferBytes, 64 * 1024, 1 << 30, 4 * 1024 * 1024),
    detail: o.detail ?? 'handlers',
    dispatchSiteEvery: int(where, 'dispatchSiteEvery', o.dispatchSiteEvery, 0, 0x7fffffff, 1000),
    payloadSizeCap: int(where, 'payloadSizeCap', o.payloadSizeCap, 1, MAX_PAYLOAD_CAP_BYTES, 1024),
    emitters: o.emitters ?? 'off',
    emitterClasses,
  };
}
