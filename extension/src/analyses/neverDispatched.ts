// Subscriptions to types that are never dispatched: after a grace period, live subscriptions
// whose type saw no dispatch since they subscribed (nor before attach, as far as the probe
// counted). One warning per type; a near-miss name that *is* dispatched is the likely cause.
import type { SubscriptionState } from '../model/entities';
import { findNearMisses, ms, nearMissText, plural, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { WarningDraft } from './warning';

export function analyzeNeverDispatched(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now } = ctx;
  const grace = options.neverDispatched.graceMs;
  const out: WarningDraft[] = [];
  for (const t of model.allTypes()) {
    if (t.isWildcard || t.registeredCount === 0) continue;
    const waiting: SubscriptionState[] = [];
    for (const s of t.registered()) {
      if (s.calls > 0 || (s.endedAt ?? now) - s.observedFrom < grace) continue;
      if (t.dispatches - s.typeDispatchesAtStart > 0) continue;
      // Late attach: a type the probe saw dispatched before may have reached this subscription.
      if (s.fromSnapshot && t.dispatchesBeforeAttach > 0) continue;
      waiting.push(s);
    }
    if (waiting.length === 0) continue;
    waiting.sort((a, b) => a.createdAt - b.createdAt);
    const oldest = waiting[0];
    const nearMisses = findNearMisses(ctx, t, 'dispatched');
    const best = nearMisses[0];
    const waited = (oldest.endedAt ?? now) - oldest.observedFrom;
    const ended = t.busState.disposedAt !== null && t.live.size === 0;
    out.push({
      id: `never-dispatched:${t.bus}:${t.name}`,
      kind: 'never-dispatched',
      severity: best !== undefined ? 'warning' : 'info',
      title: `${subName(oldest)} waits for "${t.name}", which is never dispatched`,
      explanation:
        `${waiting.length === 1 ? subName(oldest) : plural(waiting.length, 'subscription')} to ${typeName(model, t)} ` +
        `${waiting.length === 1 ? 'has' : 'have'} waited ${ms(waited)}${ended ? ' (until the bus was disposed)' : ''} and no "${t.name}" was dispatched on that bus. ` +
        (best !== undefined
          ? `But ${nearMissText(best, t)} was dispatched ${plural(best.dispatches, 'time')}: the name is probably misspelled on one side.`
          : `Nothing in the app dispatches it (or not yet): check that the publisher exists and uses this bus and name.`),
      evidence: { subscriptions: waiting.length, oldestSubscribedAt: oldest.createdAt, waitedMs: Math.round(waited), nearMisses },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: waiting.slice(0, 50).map((s) => s.id) },
      sites: uniqueSites(waiting.map((s) => s.site)),
    });
  }
  return out;
}
