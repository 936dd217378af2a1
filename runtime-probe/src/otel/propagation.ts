// Carrying a dispatch's context to another process over HTTP with W3C Trace Context
// (https://www.w3.org/TR/trace-context/): `traceparent` = `00-<trace id>-<parent span id>-<flags>`,
// and `tracestate` passed through. Written against @opentelemetry/api alone, so it works whatever
// global propagator the app did or did not register.
//
//   service A, in a handler (it runs in the dispatch's context):
//     await fetch(url, { method: 'POST', headers: { ...traceHeaders(), 'content-type': 'application/json' }, body })
//   service B, in its request handler:
//     withTraceHeaders(req.headers, () => busB.dispatch('order.placed', order));
//
// B's dispatch span (and its handler spans) are then descendants of A's.

import { context as otelContext, createTraceState, isSpanContextValid, trace, TraceFlags, type Context, type SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Incoming headers as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain record. */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | string[] | undefined>>;

/**
 * `{ traceparent, tracestate? }` for the span active in `ctx` (default: the active context): spread
 * them into an outgoing request's headers. Empty when no valid span is active.
 */
export function traceHeaders(ctx: Context = otelContext.active()): Record<string, string> {
  const sc = trace.getSpanContext(ctx);
  if (sc === undefined || !isSpanContextValid(sc)) return {};
  const flags = (sc.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, '0');
  const headers: Record<string, string> = { traceparent: `00-${sc.traceId}-${sc.spanId}-${flags}` };
  const state = sc.traceState?.serialize();
  if (state !== undefined && state !== '') headers.tracestate = state;
  return headers;
}

function headerValue(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Readonly<Record<string, string | string[] | undefined>>)[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The remote span context a request's `traceparent` names, or undefined when it has none or a
 * malformed one (version `ff`, all-zero ids, bad hex: ignored, as the W3C spec asks).
 */
export function spanContextFromHeaders(headers: HeaderSource): SpanContext | undefined {
  if (typeof headers !== 'object' || headers === null) {
    throw new TypeError('spanContextFromHeaders: headers must be an object or a Headers instance');
  }
  const raw = headerValue(headers, 'traceparent');
  if (raw === undefined) return undefined;
  const m = TRACEPARENT.exec(raw.trim());
  if (m === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  // Version 00 has exactly four fields; a later version may add some (kept compatible), ff is invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const state = headerValue(headers, 'tracestate');
  const sc: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16) & TraceFlags.SAMPLED,
    isRemote: true,
    traceState: state !== undefined && state !== '' ? createTraceState(state) : undefined,
  };
  return isSpanContextValid(sc) ? sc : undefined;
}

/** `base` (default: the active context) with the remote parent named by `headers`, if any. */
export function contextFromHeaders(headers: HeaderSource, base: Context = otelContext.active()): Context {
  const sc = spanContextFromHeaders(headers);
  return sc === undefined ? base : trace.setSpanContext(base, sc);
}

/** Runs `fn` in the context carried by `headers` (see `contextFromHeaders`) and returns its result. */
export function withTraceHeaders<R>(headers: HeaderSource, fn: () => R): R {
  if (typeof fn !== 'function') throw new TypeError('withTraceHeaders: fn must be a function');
  return otelContext.with(contextFromHeaders(headers), fn);
}
