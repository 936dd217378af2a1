// Listeners of dead or collected owners: subscriptions the bus had to remove itself because their
// owner was disposed (`dead-owner`: found at the next dispatch) or garbage-collected (`collected`).
// The bus kept the app safe, but the owner's teardown forgot to dispose them: until the next
// dispatch (or the next GC) they were registered for nothing, and a bus without that safety net
// would have called into a dead object. Owners are listed once each (by owner id when the probe
// sends ids), named by their description.
import { plural, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeDeadOwners(ctx: AnalysisContext): WarningDraft[] {
  const { model, options } = ctx;
  const out: WarningDraft[] = [];
  // Only types that lost subscriptions to dead owners (the model lists them).
  for (const t of model.typesWithOwnerRemovals) {
    for (const [key, g] of t.ownerRemovals) {
      if (g.count < options.deadOwners.minRemovals) continue;
      const dead = g.deadOwner;
      const collected = g.collected;
      const who = subName({ id: g.subscriptionIds[0] ?? 0, label: g.label });
      const ownerList = g.owners.slice(0, 3).join(', ') + (g.owners.length > 3 ? ', …' : '');
      out.push({
        id: `dead-owner-listeners:${t.bus}:${t.name}:${key}`,
        kind: 'dead-owner-listeners',
        severity: 'warning',
        title: `${who} outlived its owner (${plural(g.count, 'time')})`,
        explanation:
          `${plural(g.count, 'subscription')} to ${typeName(model, t)} made at ${siteText(g.site)}${g.label ? ` (${g.label})` : ''} ` +
          `had to be removed by the bus because the owner${ownerList ? ` (${ownerList})` : ''} was already ` +
          `${collected > 0 && dead === 0 ? 'garbage-collected' : dead > 0 && collected === 0 ? 'disposed' : 'disposed or collected'}. ` +
          `The owner's cleanup never disposed this subscription; dispose it when the owner is disposed ` +
          `(or subscribe with a signal/scope that ends with it).`,
        evidence: {
          removed: g.count,
          deadOwner: dead,
          collected,
          firstAt: g.firstAt,
          lastAt: g.lastAt,
          owners: [...g.owners],
        },
        subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: [...g.subscriptionIds] },
        sites: uniqueSites([g.site]),
      });
    }
  }
  return out;
}
