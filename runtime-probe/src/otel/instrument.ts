// Dispatches (and optionally handler calls) as OpenTelemetry spans, hooked on the bus's tracer seam
// beside the probe (bus/tracer.ts): the bus calls this consumer, never OpenTelemetry itself, so an
// app that never imports `busscope-probe/otel` loads nothing of it.
//
// Conventions (OpenTelemetry messaging semantic conventions, current): a dispatch is a PRODUCER span
// with `messaging.operation.type` = `send`; a handler call a CONSUMER span with `process`.
// Span names are `send <bus>` / `process <bus>`, never the event type: types can be dynamic
// (`user.42.updated`, emitter event names), and a span name must stay low-cardinality. The type is
// always in `messaging.destination.name`. A watched emitter's bus is named `Class#n` per instance,
// so its span names drop the `#n`.
//
// Sampling: the span is started with one shared options object and no attributes, so an unsampled
// dispatch costs the SDK's `startSpan` and `isRecording()` and nothing of Busscope's own: attributes,
// contexts and handler spans are made only for a recording span. Handlers of an unsampled dispatch
// run in the caller's context, as without instrumentation.

import {
  context as otelContext,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { describeValue, disposeSymbol } from '../delegates/disposable';
import {
  hookContextCarrier,
  hookDispatchTracer,
  hookTraceIdSource,
  type ContextCarrier,
  type DispatchTracer,
  type HandlerCall,
  type TracedBus,
  type TracedSubscription,
  type Unhook,
} from '../bus/tracer';
import { PROBE_VERSION } from '../probe/version';

/** Which spans to make: one per dispatch, or one per dispatch plus one per handler call. */
export type OpenTelemetrySpans = 'dispatch' | 'handlers';

export interface OpenTelemetryOptions {
  /** Where spans go; default: the global tracer provider (`trace.getTracerProvider()`). */
  readonly tracerProvider?: TracerProvider;
  /** `'dispatch'` (default): a PRODUCER span per dispatch; `'handlers'`: plus a CONSUMER span per handler call. */
  readonly spans?: OpenTelemetrySpans;
  /** Which dispatches get spans (default: all). Called once per dispatch: keep it cheap. */
  readonly include?: (bus: string, type: string) => boolean;
}

/** Ends the instrumentation (idempotent). Spans already started are still ended. */
export interface OpenTelemetryInstrumentation {
  dispose(): void;
  [disposeSymbol](): void;
}

/** Attribute keys (semantic conventions where there is one; `busscope.*` for the rest). */
export const ATTR = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  bus: 'busscope.bus.name',
  delivered: 'busscope.delivered',
  consumedBy: 'busscope.consumed_by',
  depth: 'busscope.depth',
  subscriptionId: 'busscope.subscription.id',
  label: 'busscope.subscription.label',
  consumed: 'busscope.consumed',
  filePath: 'code.file.path',
  line: 'code.line.number',
  column: 'code.column.number',
  functionName: 'code.function.name',
} as const;

// Shared, never mutated: the sampler sees the kind (and no attributes, see above).
const SEND: SpanOptions = Object.freeze({ kind: SpanKind.PRODUCER });
const PROCESS: SpanOptions = Object.freeze({ kind: SpanKind.CONSUMER });

/** Per-bus span names, made once per bus. */
interface BusNames {
  readonly send: string;
  readonly process: string;
}
const namesOf = new WeakMap<TracedBus, BusNames>();

function busNames(bus: TracedBus): BusNames {
  let names = namesOf.get(bus);
  if (names === undefined) {
    // `Socket#12` → `Socket`: one name per emitter class, not per instance.
    const base = bus.busKind !== undefined && bus.busKind !== 'bus' ? bus.name.replace(/#\d+$/, '') : bus.name;
    names = { send: `send ${base}`, process: `process ${base}` };
    namesOf.set(bus, names);
  }
  return names;
}

/** The carrier for the deferred queue: OpenTelemetry's active context. */
const carrier: ContextCarrier = {
  capture: () => otelContext.active(),
  run: (captured, fn, thisArg, a, b) => otelContext.with(captured as Context, fn, thisArg, a, b),
};

/**
 * The consumer hooked on the dispatch seam. Open dispatches form a stack (dispatches nest
 * depth-first, also across buses and watched emitters); each row is preallocated and reused.
 */
class OpenTelemetryTracer implements DispatchTracer {
  readonly handlerHooks: boolean;
  private top = -1;
  private lastSeq = 0;
  private readonly seqs: number[] = [];
  /** The row's dispatch span, when it records (else undefined: the row is a placeholder). */
  private readonly spans: (Span | undefined)[] = [];
  /** The context handlers of the row run in (the dispatch span's), when it records. */
  private readonly contexts: (Context | undefined)[] = [];
  private readonly buses: (TracedBus | undefined)[] = [];
  /** The handler span running now in the row (`handlers` only). */
  private readonly handlerSpans: (Span | undefined)[] = [];
  private readonly handlerContexts: (Context | undefined)[] = [];

  constructor(
    private readonly tracer: Tracer,
    private readonly perHandler: boolean,
    private readonly include: ((bus: string, type: string) => boolean) | undefined,
  ) {
    // Handler calls must go through callHandler to run in the dispatch's context, and only the
    // traced loop makes them: so the hooks stay on in both modes.
    this.handlerHooks = true;
  }

  dispatchStart(bus: TracedBus, type: string, depth: number): number {
    // Every dispatch gets a row (an excluded or unsampled one an empty row), so the innermost row
    // is always the dispatch running now (see traceId).
    const row = ++this.top;
    const seq = ++this.lastSeq;
    this.seqs[row] = seq;
    this.buses[row] = bus;
    this.spans[row] = undefined;
    this.contexts[row] = undefined;
    this.handlerSpans[row] = undefined;
    this.handlerContexts[row] = undefined;
    const include = this.include;
    if (include !== undefined && !include(bus.name, type)) return seq;
    const parent = otelContext.active();
    const span = this.tracer.startSpan(busNames(bus).send, SEND, parent);
    if (!span.isRecording()) {
      // Not sampled: nothing of ours is made; the span is ended for the SDK's sake (a no-op).
      span.end();
      return seq;
    }
    span.setAttribute(ATTR.system, 'busscope');
    span.setAttribute(ATTR.operationType, 'send');
    span.setAttribute(ATTR.operationName, 'dispatch');
    span.setAttribute(ATTR.destination, type);
    span.setAttribute(ATTR.bus, bus.name);
    if (depth > 0) span.setAttribute(ATTR.depth, depth);
    this.spans[row] = span;
    this.contexts[row] = trace.setSpan(parent, span);
    return seq;
  }

  /** The row of the open dispatch `seq` (innermost first), -1 when none. */
  private rowOf(seq: number): number {
    if (seq === 0) return -1;
    const seqs = this.seqs;
    for (let r = this.top; r >= 0; r--) if (seqs[r] === seq) return r;
    return -1;
  }

  handlerStart(seq: number, sub: TracedSubscription): void {
    if (!this.perHandler) return;
    const r = this.rowOf(seq);
    if (r < 0) return;
    const parent = this.contexts[r];
    if (parent === undefined) return; // the dispatch is not sampled: neither are its handlers
    const bus = this.buses[r] as TracedBus;
    const span = this.tracer.startSpan(busNames(bus).process, PROCESS, parent);
    if (span.isRecording()) {
      span.setAttribute(ATTR.system, 'busscope');
      span.setAttribute(ATTR.operationType, 'process');
      span.setAttribute(ATTR.operationName, 'process');
      span.setAttribute(ATTR.destination, sub.type === '*' ? '*' : sub.type);
      span.setAttribute(ATTR.bus, bus.name);
      span.setAttribute(ATTR.subscriptionId, sub.id);
      if (sub.label !== undefined) span.setAttribute(ATTR.label, sub.label);
      const site = sub.site;
      if (site !== undefined) {
        span.setAttribute(ATTR.filePath, site.file);
        span.setAttribute(ATTR.line, site.line);
        span.setAttribute(ATTR.column, site.column);
        if (site.functionName !== undefined) span.setAttribute(ATTR.functionName, site.functionName);
      }
    }
    this.handlerSpans[r] = span;
    this.handlerContexts[r] = trace.setSpan(parent, span);
  }

  callHandler(seq: number, _sub: TracedSubscription, fn: HandlerCall, thisArg: unknown, a: unknown, b: unknown): unknown {
    const r = this.rowOf(seq);
    const scope = r < 0 ? undefined : (this.handlerContexts[r] ?? this.contexts[r]);
    const call = fn as (this: unknown, a: unknown, b: unknown) => unknown;
    return scope === undefined ? call.call(thisArg, a, b) : otelContext.with(scope, call, thisArg, a, b);
  }

  handlerError(seq: number, _bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const span = this.handlerSpans[r] ?? this.spans[r];
    if (span === undefined || !span.isRecording()) return;
    span.recordException(asException(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `handler of subscription ${sub.id} threw: ${errorMessage(error)}` });
  }

  handlerEnd(seq: number, _sub: TracedSubscription, consumed: boolean): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const span = this.handlerSpans[r];
    if (span === undefined) return;
    if (consumed) span.setAttribute(ATTR.consumed, true);
    span.end();
    this.handlerSpans[r] = undefined;
    this.handlerContexts[r] = undefined;
  }

  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    const r = this.rowOf(seq);
    if (r < 0) return;
    const span = this.spans[r];
    if (span !== undefined) {
      span.setAttribute(ATTR.delivered, delivered);
      if (consumedBy > 0) span.setAttribute(ATTR.consumedBy, consumedBy);
      span.end();
    }
    // Rows above it belong to dispatches that never ended (a throw past them): they go with it.
    for (let i = r; i <= this.top; i++) {
      this.spans[i] = undefined;
      this.contexts[i] = undefined;
      this.buses[i] = undefined;
      this.handlerSpans[i]?.end();
      this.handlerSpans[i] = undefined;
      this.handlerContexts[i] = undefined;
    }
    this.top = r - 1;
  }

  shouldBreak(): boolean {
    return false;
  }

  /** The trace id of the dispatch running now, when its span records (a TraceIdSource). */
  readonly traceId = (): string | undefined => {
    const top = this.top;
    return top < 0 ? undefined : this.spans[top]?.spanContext().traceId;
  };
}

function asException(error: unknown): Error | string {
  if (error instanceof Error) return error;
  return typeof error === 'string' ? error : describeValue(error);
}

function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return describeValue(error);
  }
}

/**
 * Makes every dispatch of every bus (and of emitters watched by the probe) an OpenTelemetry span:
 *
 * ```ts
 * import { instrumentOpenTelemetry } from 'busscope-probe/otel';
 * const otel = instrumentOpenTelemetry({ spans: 'handlers' });
 * // … later
 * otel.dispose();
 * ```
 *
 * Handlers run inside the dispatch's (or their own `process` span's) context, so spans they start
 * are its children; `enqueue` keeps the context it ran in and `flush` dispatches that event inside it.
 * Several instrumentations may be active at once (each with its own tracer provider).
 * @throws TypeError on a bad option.
 */
export function instrumentOpenTelemetry(options?: OpenTelemetryOptions): OpenTelemetryInstrumentation {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new TypeError(`instrumentOpenTelemetry: options must be an object (got ${describeValue(options)})`);
  }
  const spans = options?.spans ?? 'dispatch';
  if (spans !== 'dispatch' && spans !== 'handlers') {
    throw new TypeError(`instrumentOpenTelemetry: options.spans must be 'dispatch' or 'handlers' (got ${describeValue(spans)})`);
  }
  const include = options?.include;
  if (include !== undefined && typeof include !== 'function') {
    throw new TypeError(`instrumentOpenTelemetry: options.include must be a function (got ${describeValue(include)})`);
  }
  const provider = options?.tracerProvider ?? trace.getTracerProvider();
  if (typeof provider !== 'object' || provider === null || typeof (provider as { getTracer?: unknown }).getTracer !== 'function') {
    throw new TypeError(`instrumentOpenTelemetry: options.tracerProvider must be a TracerProvider (got ${describeValue(provider)})`);
  }
  const tracer = provider.getTracer('busscope-probe', PROBE_VERSION);
  const consumer = new OpenTelemetryTracer(tracer, spans === 'handlers', include);
  const unhooks: Unhook[] = [hookContextCarrier(carrier), hookTraceIdSource(consumer.traceId), hookDispatchTracer(consumer)];
  let active = true;
  const dispose = (): void => {
    if (!active) return;
    active = false;
    for (const unhook of unhooks) unhook();
  };
  return { dispose, [disposeSymbol]: dispose };
}
