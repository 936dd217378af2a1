// `busscope-probe/otel`: dispatches and handler calls as OpenTelemetry spans, and W3C trace context
// across processes. `@opentelemetry/api` is an optional peer dependency, loaded only by this entry.
export { instrumentOpenTelemetry, ATTR as OTEL_ATTRIBUTES } from './instrument';
export type { OpenTelemetryInstrumentation, OpenTelemetryOptions, OpenTelemetrySpans } from './instrument';
export { contextFromHeaders, spanContextFromHeaders, traceHeaders, withTraceHeaders } from './propagation';
export type { HeaderSource } from './propagation';
