// Throwing handlers. The bus isolates the error (the other handlers still run) and reports it to
// `onError` — which makes a throwing handler easy to miss. A watched emitter's listener is the
// other case: the error leaves `emit` (Node, mitt, nanoevents) and the listeners after it do not run. DispatchDepthErrors are left to the
// depth-limit analysis: they are the symptom of a recursion, not of this handler's own logic.
import { plural, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import type { Model } from '../model/model';
import type { SubscriptionState } from '../model/entities';
import { instanceClass } from './emitterEvents';
import type { WarningDraft } from './warning';

/**
 * A watched emitter's listener, as far as the stream tells (it has no bus kind): an ownerless
 * listener of a bus named `Class#n`, the name of an unnamed watch. Named watches get the bus wording.
 */
function emitterListener(model: Model, s: SubscriptionState): boolean {
  const bus = model.buses.get(s.type.bus);
  return bus !== undefined && instanceClass(bus.name) !== null && s.owner === null;
}

export function analyzeThrowingHandlers(ctx: AnalysisContext): WarningDraft[] {
  const { model, options } = ctx;
  const out: WarningDraft[] = [];
  for (const s of model.subscriptions.values()) {
    const errors = s.errors - s.depthErrors;
    if (errors < Math.max(1, options.throwingHandler.minErrors) || s.lastError === null) continue;
    const t = s.type;
    const last = s.lastError;
    out.push({
      id: `throwing-handler:${s.id}`,
      kind: 'throwing-handler',
      severity: 'error',
      title: `${subName(s)} threw ${plural(errors, 'time')}: ${last.message}`,
      explanation:
        `The handler of ${subName(s)} (${siteText(s.site)}) for ${typeName(model, t)} threw ${plural(errors, 'time')}` +
        (s.calls > 0 ? ` in ${plural(s.calls, 'call')}` : '') +
        `. The last error: ${last.message}. ` +
        (emitterListener(model, s)
          ? `On an emitter the error leaves \`emit\`: the emitting code gets it and the listeners after this one did not run.`
          : `The bus caught it and went on with the other handlers, so the app did not crash — but this handler's work did not happen.`),
      evidence: { errors, calls: s.calls, lastMessage: last.message, lastAt: last.time, lastStack: last.stack },
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: [s.id] },
      sites: uniqueSites([s.site]),
    });
  }
  return out;
}
