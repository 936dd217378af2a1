// The recorder under Node: the core (recorder-core.ts, no Node built-ins) with Node's host —
// `performance` as the clock, `util.types.isProxy`, source maps through `node:module`, and the
// inspector gate for event breakpoints.

import { types as utilTypes } from 'node:util';
// Event-break conditions (and producer ports) for every bus the Node probe records, whichever entry made it.
import '../bus/optional-parts';
import { watchInspector } from '../debug/inspector-gate';
import { encodeDispatchBlock } from './dispatch-block-encoder';
import { encodeColumns } from './dispatch-columns';
import { capturePayload, type PayloadSanitizer } from './payload';
import { RecorderCore, type RecorderHost, type RecorderOptions } from './recorder-core';
import { sourceMapper } from './source-map';

export {
  DEFAULT_MAX_BUFFERED_RECORDS,
  DEFAULT_RECORDING_CONFIG,
  RecorderCore,
  type RecorderClock,
  type RecorderCoreOptions,
  type RecorderHost,
  type RecorderOptions,
} from './recorder-core';

export const NODE_RECORDER_HOST: RecorderHost = Object.freeze({
  clock: performance,
  isProxy: utilTypes.isProxy,
  capturePayload,
  sourceMaps: sourceMapper,
  watchDebugger: watchInspector,
  encodeColumns,
  encodeBlock: encodeDispatchBlock,
});

/**
 * The recorder with the probe's controls that only Node uses (kept out of RecorderCore, which pages
 * and workers ship): the ring size and sanitizer from `probe.start()` options, the focus the
 * process-wide emitters read, and dispatch tracking for an attached debugger.
 */
export class Recorder extends RecorderCore {
  constructor(options: RecorderOptions) {
    super({ ...options, host: NODE_RECORDER_HOST });
  }

  /** Ring size in records; takes effect the next time recording starts. */
  setCapacity(maxBufferedRecords: number): void {
    this.nextCapacity = maxBufferedRecords;
  }

  setSanitizer(sanitize: PayloadSanitizer | undefined): void {
    this.sanitize = sanitize;
  }

  get focus(): ReadonlySet<number> {
    return this.focusBuses;
  }

  setTracking(on: boolean): void {
    this.tracking = on;
    this.updateModes();
    this.updateInstall();
  }
}
