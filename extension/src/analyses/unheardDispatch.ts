// Dispatches nobody hears (delivered 0). Events that simply have no listener yet are common in a
// decoupled design, so by default this speaks up only when the silence looks like a mistake: a
// similar name (or the same name on another bus) does have listeners — likely a typo.
import { findNearMisses, nearMissText, plural, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeUnheardDispatch(ctx: AnalysisContext): WarningDraft[] {
  const { model, options } = ctx;
  const o = options.unheardDispatch;
  const out: WarningDraft[] = [];
  for (const t of model.allTypes()) {
    if (t.isWildcard || t.unheard < Math.max(1, o.minUnheard)) continue;
    // Holds while the latest dispatch of the type went unheard.
    if (t.lastUnheardAt < t.lastHeardAt) continue;
    const nearMisses = findNearMisses(ctx, t, 'listened');
    if (nearMisses.length === 0 && !o.reportWithoutNearMiss) continue;
    const best = nearMisses[0];
    const listenerSites = best === undefined ? [] : [...(model.findType(best.bus, best.type)?.registered() ?? [])].map((s) => s.site);
    out.push({
      id: `unheard-dispatch:${t.bus}:${t.name}`,
      kind: 'unheard-dispatch',
      severity: best !== undefined ? 'warning' : 'info',
      title: best !== undefined ? `"${t.name}" is dispatched but nobody listens — did you mean "${best.type}"?` : `"${t.name}" is dispatched but nobody listens`,
      explanation:
        `${plural(t.unheard, 'dispatch', 'dispatches')} of ${typeName(model, t)} reached no handler` +
        (t.unheard < t.dispatches ? ` (of ${t.dispatches})` : '') +
        '. ' +
        (best !== undefined
          ? `Listeners exist for ${nearMissText(best, t)} (${plural(best.listeners, 'listener')}): ` +
            `the dispatching code or the subscribers probably misspell the event name.`
          : `No subscription to this name exists on this bus.`),
      evidence: { unheard: t.unheard, dispatches: t.dispatches, lastUnheardAt: t.lastUnheardAt, nearMisses },
      subjects: {
        buses: [t.bus],
        types: [typeRef(model, t), ...nearMisses.map((m) => ({ bus: m.bus, busName: m.busName, type: m.type }))],
        subscriptions: [],
      },
      sites: uniqueSites([...t.dispatchSites, ...listenerSites]),
    });
  }
  return out;
}
