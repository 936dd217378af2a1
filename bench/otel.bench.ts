// What `busscope-probe/otel` costs a dispatch, side by side in one run, with the real trace SDK
// (BasicTracerProvider, no exporter: the span is made and ended, export costs are the app's choice)
// and an AsyncLocalStorage context manager, as a Node app has:
//   detached                      no instrumentation (the bus's own cost)
//   instrumented, unsampled       instrumentOpenTelemetry() with AlwaysOffSampler
//   instrumented, sampled         AlwaysOnSampler, spans 'dispatch' (one PRODUCER span per dispatch)
//   instrumented, sampled, handlers  plus one CONSUMER span per handler call
//   bare SDK startSpan + end      the same SDK's cheapest span, unsampled and sampled: the floor an
//                                 instrumented dispatch is compared with
// Ratios: to detached, and each instrumented row to the bare SDK span of the same sampling.
import { context, trace, type TracerProvider } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { EventBus } from 'busscope-probe';
import { instrumentOpenTelemetry } from 'busscope-probe/otel';
import { TestContextManager } from '../test/support/otel/context-manager';
import { formatOps, formatRatio, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';
import { timeLoop } from './lib/measure';

interface Tick {
  readonly v: number;
}
interface Events {
  tick: Tick;
}
const PAYLOAD: Tick = { v: 1 };
const HANDLER_COUNTS = [1, 5] as const;

type Mode = 'detached' | 'unsampled' | 'sampled' | 'handlers' | 'sdk-unsampled' | 'sdk-sampled';
const MODES: readonly { mode: Mode; title: string }[] = [
  { mode: 'detached', title: 'detached dispatch' },
  { mode: 'unsampled', title: 'instrumented, unsampled' },
  { mode: 'sampled', title: "instrumented, sampled (spans 'dispatch')" },
  { mode: 'handlers', title: "instrumented, sampled (spans 'handlers')" },
  { mode: 'sdk-unsampled', title: 'bare SDK startSpan + end, unsampled' },
  { mode: 'sdk-sampled', title: 'bare SDK startSpan + end, sampled' },
];

let accumulator = 0;

export async function run(): Promise<void> {
  context.setGlobalContextManager(new TestContextManager().enable());
  const off = new BasicTracerProvider({ sampler: new AlwaysOffSampler() });
  const on = new BasicTracerProvider({ sampler: new AlwaysOnSampler() });
  const providerFor = (mode: Mode): TracerProvider | undefined =>
    mode === 'unsampled' || mode === 'sdk-unsampled' ? off : mode === 'detached' ? undefined : on;
  const rounds = benchRounds(5);
  const ms = benchMs(200);
  const rows: string[][] = [];
  for (const n of HANDLER_COUNTS) {
    const bus = new EventBus<Events>({ name: 'bench' });
    let calls = 0;
    for (let i = 0; i < n; i++)
      bus.subscribe('tick', (e) => {
        accumulator += e.v;
        calls++;
      });
    const rates = new Map<Mode, number[]>(MODES.map((m) => [m.mode, []]));
    for (let round = 0; round < rounds; round++) {
      for (const { mode } of MODES) {
        const provider = providerFor(mode);
        let body: (iterations: number) => void;
        let instrumentation: { dispose(): void } | undefined;
        if (mode === 'sdk-unsampled' || mode === 'sdk-sampled') {
          const tracer = (provider as TracerProvider).getTracer('bench');
          body = (iterations) => {
            for (let k = 0; k < iterations; k++) tracer.startSpan('send bench').end();
          };
        } else {
          if (provider !== undefined)
            instrumentation = instrumentOpenTelemetry({ tracerProvider: provider, spans: mode === 'handlers' ? 'handlers' : 'dispatch' });
          body = (iterations) => {
            for (let k = 0; k < iterations; k++) bus.dispatch('tick', PAYLOAD);
          };
        }
        const before = calls;
        const { iterations, seconds } = timeLoop(body, ms);
        instrumentation?.dispose();
        if (mode !== 'sdk-unsampled' && mode !== 'sdk-sampled' && calls - before !== iterations * n) {
          throw new Error(`otel bench: ${mode} called ${calls - before} handlers for ${iterations} dispatches × ${n}`);
        }
        rates.get(mode)?.push(iterations / seconds);
      }
    }
    const rate = (m: Mode): number => median(rates.get(m) ?? []);
    const detached = rate('detached');
    for (const { mode, title } of MODES) {
      const floor = mode === 'unsampled' ? rate('sdk-unsampled') : mode === 'sampled' || mode === 'handlers' ? rate('sdk-sampled') : Number.NaN;
      rows.push([
        `${n}`,
        title,
        `${formatOps(rate(mode))}/s`,
        `${(1e9 / rate(mode)).toFixed(0)} ns`,
        formatRatio(detached / rate(mode)),
        Number.isFinite(floor) ? formatRatio(floor / rate(mode)) : '',
      ]);
    }
    bus.dispose();
  }
  await on.shutdown();
  await off.shutdown();
  if (trace.getActiveSpan() !== undefined || accumulator === 0) throw new Error('otel bench: nothing ran');
  report(
    `## OpenTelemetry (busscope-probe/otel)\n\n` +
      `Median of ${rounds} rounds × ${ms} ms per row; cost = time per dispatch (or per bare span). ` +
      `"× detached": how many detached dispatches one costs; "× bare span": one instrumented dispatch in bare \`startSpan\`+\`end\` of the same SDK and sampling.\n\n` +
      markdownTable(['handlers', 'mode', 'rate', 'cost', '× detached', '× bare span'], rows),
  );
}
