// Reads the open OpenTelemetry span's trace id for a dispatch record: bounded, and never throwing into the app.
// No Node built-ins here (the recorder core runs in pages and workers too).

import type { TraceIdSource } from '../bus/tracer';

/** Longest trace id a dispatch record carries (W3C's are 32 hex digits; other systems' are shorter). */
const MAX_TRACE_ID_LENGTH = 64;

/** A source's trace id, or null when it has none, gives something else, or throws. */
export function readTraceId(source: TraceIdSource): string | null {
  try {
    const id = source();
    return typeof id === 'string' && id.length > 0 && id.length <= MAX_TRACE_ID_LENGTH ? id : null;
  } catch {
    return null;
  }
}
