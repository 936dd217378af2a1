// The recorder under Node: the core (recorder-core.ts, no Node built-ins) with Node's host —
// `performance` as the clock, `util.types.isProxy`, source maps through `node:module`, and the
// inspector gate for event breakpoints.

import { types as utilTypes } from 'node:util';
// Event-break conditions (and producer ports) for every bus the Node probe records, whichever entry made it.
import '../bus/optional-parts';
import { watchInspector } from '../debug/inspector-gate';
import { encodeColumns } from './dispatch-columns';
import { capturePayload } from './payload';
import { RecorderCore, type RecorderHost, type RecorderOptions } from './recorder-core';
import { resolveRawFrame } from './source-map';

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
  resolveFrame: resolveRawFrame,
  watchDebugger: watchInspector,
  encodeColumns,
});

export class Recorder extends RecorderCore {
  constructor(options: RecorderOptions) {
    super({ ...options, host: NODE_RECORDER_HOST });
  }
}
