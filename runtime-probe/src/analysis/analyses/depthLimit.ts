// Depth-limit storms: a dispatch refused because nesting reached the bus's `maxDepth`. That only
// happens when handlers keep dispatching events that lead back to themselves — an event loop
// that would have overflowed the stack. Each hit also costs a DispatchDepthError in the handler
// that tried to go one level deeper; those handlers are named here.
import type { SubscriptionState } from '../model/entities';
import { plural, round, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeDepthLimit(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const out: WarningDraft[] = [];
  // Only types that hit the limit (the model lists them), not a pass over every type.
  for (const t of model.typesDepthLimited) {
    if (t.depthLimitHits < Math.max(1, options.depthLimit.minHits)) continue;
    const sameType: SubscriptionState[] = [];
    const sameBus: SubscriptionState[] = [];
    for (const s of model.subscriptions.values()) {
      if (s.depthErrors === 0 || s.bus !== t.bus) continue;
      (s.type === t ? sameType : sameBus).push(s);
    }
    const handlers = (sameType.length > 0 ? sameType : sameBus).sort((a, b) => b.depthErrors - a.depthErrors);
    const names = handlers.slice(0, 3).map(subName).join(', ');
    const rate = t.depthLimitRate.ratePerSecond(now);
    out.push({
      id: `depth-limit-storm:${t.bus}:${t.name}`,
      kind: 'depth-limit-storm',
      severity: 'error',
      title: `Recursive dispatch of "${t.name}" hit the depth limit ${plural(t.depthLimitHits, 'time')}`,
      explanation:
        `Dispatching ${typeName(model, t)} nested ${t.maxRefusedDepth} levels deep, where the bus refused to go further ` +
        `(${plural(t.depthLimitHits, 'time')}${rate > 0 ? `, ${rate.toFixed(1)} per second lately` : ''}). ` +
        (names ? `The handler that dispatches it again from inside its own dispatch: ${names}. ` : '') +
        `Each level ran every handler again before the limit stopped it. Break the cycle: only re-dispatch when ` +
        `something actually changed, or enqueue instead of dispatching.`,
      evidence: {
        hits: t.depthLimitHits,
        hitsPerSecond: round(rate, 2),
        maxRefusedDepth: t.maxRefusedDepth,
        firstAt: t.firstDepthLimitAt,
        lastAt: t.lastDepthLimitAt,
        handlers: handlers.slice(0, 10).map((s) => ({ subscriptionId: s.id, label: s.label, depthErrors: s.depthErrors })),
      },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: handlers.slice(0, 50).map((s) => s.id) },
      sites: uniqueSites([...handlers.map((s) => s.site), ...t.dispatchSites]),
    });
  }
  return out;
}
