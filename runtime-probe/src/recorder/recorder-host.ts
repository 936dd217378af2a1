// What the recorder needs of its runtime (clock, Proxy check, source mapping, debugger gate), its options and their defaults.
// No Node built-ins here (the recorder core runs in pages and workers too); recorder.ts supplies Node's host.

import type { RecordingConfig } from '../protocol/messages';
import type { FrameMapper } from './frames';
import type { capturePayload, PayloadSanitizer, ProxyCheck } from './payload';
import type { RunEncoder } from './ring-encoder';

export const DEFAULT_MAX_BUFFERED_RECORDS = 65_536;

/** A monotonic clock in milliseconds since `timeOrigin` (epoch ms): `performance` fits. */
export interface RecorderClock {
  now(): number;
  readonly timeOrigin: number;
}

/** What the recorder needs of its runtime. Each member is small so a page or worker can supply it. */
export interface RecorderHost {
  readonly clock: RecorderClock;
  /** Tells Proxies apart (payload capture describes them instead of running their traps); undefined: cannot. */
  readonly isProxy: ProxyCheck | undefined;
  /** Source mapping of captured sites (default: none, the frame as the runtime printed it). */
  readonly sourceMaps?: FrameMapper;
  /**
   * Payload capture (payload.ts). Without it the recorder records no payloads: `capturePayloads`
   * stays false whatever a client asks (the browser entry leaves it out to stay within its size budget).
   */
  readonly capturePayload?: typeof capturePayload;
  /** Dispatch columns (protocol version 6, dispatch-columns.ts), written while every sink speaks 6. */
  readonly encodeColumns?: RunEncoder;
  /**
   * Dispatch blocks (version 4, dispatch-block-encoder.ts), for runs columns do not take or a stream
   * with a sink below 6. Without either, dispatches go as plain records (correct, larger): a page
   * leaves blocks out, since its link speaks 6 to every extension that accepts pages.
   */
  readonly encodeBlock?: RunEncoder;
  /** Called with true while event breakpoints are set (Node: watch for an attached debugger). */
  readonly watchDebugger?: (on: boolean) => void;
}

export interface RecorderOptions {
  readonly maxBufferedRecords: number;
  readonly config: RecordingConfig;
  readonly sanitize: PayloadSanitizer | undefined;
  /** Tells Proxies apart; default: the host's. */
  readonly isProxy?: ProxyCheck;
  /** Dispatch seqs start after this (a worker's recorder: threadId · 2^32, so seqs are unique across threads). */
  readonly seqBase?: number;
}

export interface RecorderCoreOptions extends RecorderOptions {
  readonly host: RecorderHost;
}

export const DEFAULT_RECORDING_CONFIG: RecordingConfig = Object.freeze({
  detail: 'handlers',
  captureStacks: true,
  capturePayloads: false,
  payloadSizeCap: 1024,
  dispatchSiteEvery: 1000,
});
