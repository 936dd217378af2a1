// Starved subscribers: a subscription whose handler never gets its turn because a subscription
// that runs before it (higher priority, or same priority and older) consumed every dispatch of
// the type since it subscribed. Counted from dispatch records alone (`consumedBy`), so it works
// without handler timing.
import { runsBefore } from '../model/entities';
import { plural, subName, subscriptionSiteText, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeStarved(ctx: AnalysisContext): WarningDraft[] {
  const { model, options } = ctx;
  const min = Math.max(1, options.starved.minDispatches);
  const out: WarningDraft[] = [];
  // Only types that ever had a dispatch consumed can starve anyone (the model lists them).
  for (const t of model.typesConsumed) {
    if (t.isWildcard || t.consumed === 0) continue;
    for (const s of t.registered()) {
      const since = t.dispatches - s.typeDispatchesAtStart;
      if (since < min || s.callsObserved > 0) continue;
      let ahead = 0;
      const consumers: { subscriptionId: number; label: string | null; priority: number; consumed: number }[] = [];
      for (const [id, c] of t.consumers) {
        if (!runsBefore(c.priority, id, s.priority, s.id)) continue;
        ahead += c.count;
        consumers.push({ subscriptionId: id, label: c.label, priority: c.priority, consumed: c.count });
      }
      const consumedAhead = ahead - s.consumedAheadAtStart;
      if (consumedAhead < since) continue;
      consumers.sort((a, b) => b.consumed - a.consumed);
      const top = consumers[0];
      const topName = top ? subName({ id: top.subscriptionId, label: top.label }) : 'a subscription that runs earlier';
      out.push({
        id: `starved-subscriber:${s.id}`,
        kind: 'starved-subscriber',
        severity: 'warning',
        title: `${subName(s)} never runs: ${topName} consumes "${t.name}" first`,
        explanation:
          `${subName(s)} (priority ${s.priority}, ${subscriptionSiteText(s)}) subscribes to ${typeName(model, t)}, which was dispatched ` +
          `${plural(since, 'time')} since — and every one of those dispatches was consumed before its turn` +
          (top ? ` by ${topName} (priority ${top.priority}, ${plural(top.consumed, 'dispatch', 'dispatches')} consumed)` : '') +
          `. Handlers run by priority and consuming stops the rest. Either the consumer should consume only ` +
          `when it really handled the event, or this subscription needs a higher priority.`,
        evidence: { priority: s.priority, dispatchesSinceSubscribed: since, consumedAhead, consumers },
        subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: [s.id, ...consumers.map((c) => c.subscriptionId)] },
        sites: uniqueSites([s.site, ...consumers.map((c) => model.subscriptions.get(c.subscriptionId)?.site ?? null)]),
      });
    }
  }
  return out;
}
