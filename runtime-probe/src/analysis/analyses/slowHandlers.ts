// Slow handlers: a handler whose own time (nested dispatches excluded) is high at the 95th
// percentile over enough calls, or any single call long enough to freeze the app. Needs handler
// timing records (detail level `handlers`).
import { ms, plural, round, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeSlowHandlers(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const o = options.slowHandler;
  const out: WarningDraft[] = [];
  for (const s of model.subscriptions.values()) {
    const h = s.durations;
    if (h === null || h.count === 0) continue;
    const p95 = h.quantile(0.95);
    const slowCalls = o.p95Ms > 0 ? h.countAtLeast(o.p95Ms) : 0;
    const byP95 = o.p95Ms > 0 && h.count >= o.minCalls && p95 >= o.p95Ms && slowCalls >= o.minSlowCalls;
    const byMax = o.maxMs > 0 && h.max >= o.maxMs;
    if (!byP95 && !byMax) continue;
    const t = s.type;
    const rate = t.rate.ratePerSecond(now);
    // Timed on a sample of its calls: the figures are weighted estimates (handler-sampler.ts).
    const every = h.sampleEvery;
    const sampled = every > 1.005;
    out.push({
      id: `slow-handler:${s.id}`,
      kind: 'slow-handler',
      severity: 'warning',
      title: byP95 ? `Slow handler: ${subName(s)} takes ${ms(p95)} (p95)` : `Slow handler: ${subName(s)} took ${ms(h.max)} once`,
      explanation:
        `${subName(s)} (${siteText(s.site)}) handles ${typeName(model, t)}` +
        (rate > 0 ? `, dispatched ${rate.toFixed(1)} times per second` : '') +
        `. Over ${plural(Math.round(h.count), 'call')}` +
        (sampled ? ` (estimated from ${plural(h.samples, 'timed call')}, sampled 1 in ${round(every, 1)})` : '') +
        ` its own time (not counting events it dispatches) was ` +
        `${ms(h.mean)} on average, ${ms(p95)} at the 95th percentile and ${ms(h.max)} at most` +
        (byP95 ? ` (${plural(Math.round(slowCalls), 'call')} of ${ms(o.p95Ms)} or more)` : '') +
        `. ` +
        `Dispatch is synchronous: the dispatching code, and every handler after this one, wait for it. ` +
        `Move the expensive part off the event (cache, defer, or do it less often).`,
      evidence: {
        calls: h.count,
        slowCalls,
        p95Ms: round(p95, 4),
        maxMs: round(h.max, 4),
        meanMs: round(h.mean, 4),
        totalMs: round(h.total, 3),
        p95ThresholdMs: o.p95Ms,
        maxThresholdMs: o.maxMs,
        typeRatePerSecond: round(rate, 2),
        ...(sampled ? { sampleEvery: round(every, 1) } : {}),
      },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: [s.id] },
      sites: uniqueSites([s.site]),
    });
  }
  return out;
}
