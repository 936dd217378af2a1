// Subscribe/unsubscribe churn on a hot path: one site subscribing and unsubscribing the same type
// many times a second, each subscription short-lived. Every cycle costs an allocation, a list
// insert and removal (and a stack capture while a probe runs); usually one long-lived
// subscription with a condition inside does the same work.
import { ms, round, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeChurn(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const o = options.churn;
  const out: WarningDraft[] = [];
  for (const [key, c] of model.churn) {
    const cycles = c.cycles.sum(now);
    if (cycles < Math.max(1, o.minCycles)) continue;
    const rate = c.cycles.ratePerSecond(now);
    if (rate < o.minCyclesPerSecond) continue;
    const meanLifetime = c.lifetimes.sum(now) / cycles;
    if (meanLifetime > o.maxMeanLifetimeMs) continue;
    const t = c.type;
    const who = subName({ id: 0, label: c.label });
    out.push({
      id: `subscription-churn:${key}`,
      kind: 'subscription-churn',
      severity: 'warning',
      title: `Subscription churn: ${c.label ?? `"${t.name}" subscriptions`} made and dropped ${rate.toFixed(0)}×/s`,
      explanation:
        `${c.label ? who : 'Code'} at ${siteText(c.site)} subscribes to ${typeName(model, t)} and unsubscribes again ` +
        `${rate.toFixed(1)} times per second (${cycles} cycles in the last ${ms(c.cycles.windowMs)}), ` +
        `each subscription living ${ms(meanLifetime)} on average. On a hot path that is wasted work: ` +
        `subscribe once and check the condition in the handler, or use \`once\`.`,
      evidence: {
        cyclesPerSecond: round(rate, 2),
        cyclesInWindow: cycles,
        meanLifetimeMs: round(meanLifetime, 3),
        totalCycles: c.total,
        windowMs: c.cycles.windowMs,
      },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: [] },
      sites: uniqueSites([c.site]),
    });
  }
  return out;
}
