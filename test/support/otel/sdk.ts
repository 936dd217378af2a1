// The real OpenTelemetry trace SDK, set up the way an app would: a provider with an in-memory
// exporter behind a simple (synchronous) span processor, and a global context manager.
import { context, trace, type TracerProvider } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { TestContextManager } from './context-manager';

let installed = false;
/** Installs the test context manager as the api's global one (once per process). */
export function installContextManager(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new TestContextManager().enable());
}

export interface TestSdk {
  readonly provider: TracerProvider;
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** The finished span named `name` with `attribute` = `value` (exactly one). */
  only(name: string, predicate?: (s: ReadableSpan) => boolean): ReadableSpan;
  shutdown(): Promise<void>;
}

export function makeSdk(sampler: Sampler = new AlwaysOnSampler()): TestSdk {
  installContextManager();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return {
    provider,
    exporter,
    spans: () => exporter.getFinishedSpans(),
    only(name, predicate = () => true) {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name && predicate(s));
      if (found.length !== 1)
        throw new Error(
          `expected one span "${name}", found ${found.length}: ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      return found[0];
    },
    shutdown: () => provider.shutdown(),
  };
}

export { AlwaysOffSampler, AlwaysOnSampler, trace };

/** The span id of a finished span's parent ('' for a root). */
export function parentOf(span: ReadableSpan): string {
  return span.parentSpanContext?.spanId ?? '';
}
