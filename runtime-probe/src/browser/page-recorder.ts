// The page's (or worker's) one recorder: the recorder core with the browser's host — `performance`
// as the clock, payload capture only with `busscope-probe/browser/payloads` (which brings its own
// Proxy check), sites as the browser prints them, and dispatch columns (protocol version 6, which
// every extension that accepts pages reads; the page ships no version-4 block encoder). Installed as
// the bus tracer while a connection records, as the Node probe does.
// No Node built-ins here.

// First: a bundler then puts the columns encoder next to ring-encoder.ts, whose code it shares, and it gzips smaller.
import { encodeColumns } from '../recorder/dispatch-columns';
import { runtime } from '../bus/runtime';
import { primaryBusTracer, setBusTracer } from '../bus/tracer';
import { DEFAULT_MAX_BUFFERED_RECORDS, DEFAULT_RECORDING_CONFIG, RecorderCore, type RecorderHost } from '../recorder/recorder-core';
import { addProbeFile, parseStackLine } from '../recorder/frames';

const BROWSER_HOST: RecorderHost = {
  clock: globalThis.performance,
  isProxy: undefined,
  encodeColumns,
  /** Only once `busscope-probe/browser/payloads` is loaded (read on each use, so it may load after `connect`). */
  get capturePayload() {
    return runtime.optional?.pageCapture;
  },
};

let recorder: RecorderCore | undefined;

/** The recorder of this page, created on first use. */
export function pageRecorder(): RecorderCore {
  recorder ??= new RecorderCore({
    maxBufferedRecords: DEFAULT_MAX_BUFFERED_RECORDS,
    config: DEFAULT_RECORDING_CONFIG,
    sanitize: undefined,
    host: BROWSER_HOST,
  });
  return recorder;
}

/** Installs the recorder as the bus tracer (a connection is about to attach). */
export function startTracing(r: RecorderCore): void {
  if (primaryBusTracer() === r) return;
  r.tracingStarted();
  setBusTracer(r);
}

/** Takes the recorder out once nothing records (every connection closed). */
export function stopTracing(r: RecorderCore): void {
  if (primaryBusTracer() !== r) return;
  setBusTracer(undefined);
  r.shutdown();
}

/**
 * This module's own script URL as stacks show it: its frames are the probe's, never a site. (When an
 * app's bundler puts the probe and the app in one file, sites fall back to the bus's function names.)
 */
function markOwnFile(): void {
  const lines = (new Error().stack ?? '').split('\n');
  for (const line of lines) {
    const frame = parseStackLine(line);
    if (frame !== undefined) {
      addProbeFile(frame.file);
      return;
    }
  }
}
markOwnFile();
