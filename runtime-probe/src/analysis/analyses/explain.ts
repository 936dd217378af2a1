// "Why didn't it run?" — for one subscription, the reasons the data gives, most decisive first:
// it was removed (owner dead, unsubscribed), its event never came (or a near-miss name came
// instead, or it came only before it subscribed), something earlier consumed it, its handler
// threw — or it did run, N times.
import { runsBefore, type EndReason } from '../model/entities';
import type { Model } from '../model/model';
import { emptyAnalysisState, findNearMisses, ms, nearMissText, plural, subName, type AnalysisContext } from './context';
import { resolveAnalysisOptions, type AnalysisOptionsInput } from './options';
import { NO_DEADLINE } from './runDeadline';
import type { NearMissEvidence } from './warning';

export type WhyReason =
  | { readonly kind: 'unknown-subscription'; readonly text: string }
  | { readonly kind: 'ran'; readonly text: string; readonly calls: number; readonly lastCalledAt: number | null }
  | { readonly kind: 'owner-dead'; readonly text: string; readonly reason: 'dead-owner' | 'collected'; readonly at: number }
  | { readonly kind: 'unsubscribed'; readonly text: string; readonly reason: EndReason; readonly at: number }
  /** It stayed registered until its bus was disposed (app shutdown): not why it did not run. */
  | { readonly kind: 'bus-disposed'; readonly text: string; readonly at: number }
  | { readonly kind: 'never-dispatched'; readonly text: string; readonly sinceMs: number }
  | { readonly kind: 'dispatched-before-subscribing'; readonly text: string; readonly dispatches: number; readonly lastDispatchAt: number | null }
  /** Attached late: the probe counted dispatches before, without saying to whom; none since. */
  | { readonly kind: 'not-dispatched-since-attach'; readonly text: string; readonly dispatchesBeforeAttach: number; readonly sinceMs: number }
  | { readonly kind: 'near-miss-dispatched'; readonly text: string; readonly nearMisses: readonly NearMissEvidence[] }
  | {
      readonly kind: 'consumed-earlier';
      readonly text: string;
      readonly dispatchesSince: number;
      readonly consumedAhead: number;
      readonly consumers: readonly { readonly subscriptionId: number; readonly label: string | null; readonly priority: number; readonly consumed: number }[];
    }
  | { readonly kind: 'handler-threw'; readonly text: string; readonly errors: number; readonly lastMessage: string; readonly lastAt: number }
  | { readonly kind: 'no-handler-data'; readonly text: string };

export type WhyReasonKind = WhyReason['kind'];

export interface WhyReport {
  readonly subscriptionId: number;
  readonly found: boolean;
  /** The first reason's text: a one-line answer. */
  readonly summary: string;
  readonly reasons: readonly WhyReason[];
}

function at(t: number): string {
  return `${(t / 1000).toFixed(3)} s after the probe started`;
}

const REASON_TEXT: Record<EndReason, string> = {
  dispose: 'its subscription was disposed',
  once: 'it was a `once` subscription and had already run',
  signal: 'its AbortSignal was aborted',
  owner: 'its owner was unsubscribed (`unsubscribeOwner`)',
  'dead-owner': 'its owner was dead (disposed) at a dispatch',
  collected: 'its owner was garbage-collected',
  clear: 'the bus was cleared or disposed',
  'missing-from-snapshot': 'it was gone from a later snapshot (its unsubscribe record was dropped)',
};

export function explainSubscription(model: Model, id: number, options: AnalysisOptionsInput = {}): WhyReport {
  if (!Number.isInteger(id) || id < 1) throw new TypeError(`explainSubscription: id must be a positive integer, got ${String(id)}`);
  const s = model.subscriptions.get(id);
  if (s === undefined) {
    const text = `Subscription #${id} is not known: it was never seen, or it ended long enough ago to be forgotten.`;
    return { subscriptionId: id, found: false, summary: text, reasons: [{ kind: 'unknown-subscription', text }] };
  }
  const ctx: AnalysisContext = {
    model,
    options: resolveAnalysisOptions(options),
    now: model.now,
    state: emptyAnalysisState(),
    changes: { indices: [], all: true },
    typeBudget: Infinity,
    deadline: NO_DEADLINE,
  };
  const t = s.type;
  const name = subName(s);
  const reasons: WhyReason[] = [];

  if (s.calls > 0) {
    const last = Number.isFinite(s.lastCalledAt) ? s.lastCalledAt : null;
    reasons.push({
      kind: 'ran',
      text: `It ran ${plural(s.calls, 'time')}${last !== null ? `, last ${at(last)}` : ''}.`,
      calls: s.calls,
      lastCalledAt: last,
    });
  }

  if (s.endedAt !== null && s.endReason !== null) {
    if (s.endReason === 'dead-owner' || s.endReason === 'collected') {
      reasons.push({
        kind: 'owner-dead',
        text: `${name} was removed ${at(s.endedAt)} because ${REASON_TEXT[s.endReason]}${s.owner ? ` (${s.owner})` : ''}.`,
        reason: s.endReason,
        at: s.endedAt,
      });
    } else if (s.endedWithBus) {
      reasons.push({ kind: 'bus-disposed', text: `It stayed registered until its bus was disposed, ${at(s.endedAt)}.`, at: s.endedAt });
    } else {
      reasons.push({
        kind: 'unsubscribed',
        text: `${name} ended ${at(s.endedAt)}: ${REASON_TEXT[s.endReason]}.`,
        reason: s.endReason,
        at: s.endedAt,
      });
    }
  }

  if (!t.isWildcard) {
    const since = t.dispatches - s.typeDispatchesAtStart;
    const unknownBefore = s.fromSnapshot && t.dispatchesBeforeAttach > 0;
    if (since === 0 && s.calls === 0) {
      const observed = (s.endedAt ?? model.now) - s.observedFrom;
      const dispatchedBefore = t.dispatches - t.dispatchesBeforeAttach;
      if (dispatchedBefore > 0 && !s.fromSnapshot) {
        reasons.push({
          kind: 'dispatched-before-subscribing',
          text: `"${t.name}" was dispatched ${plural(dispatchedBefore, 'time')}, but only before ${name} subscribed ${at(s.createdAt)}; not once since.`,
          dispatches: dispatchedBefore,
          lastDispatchAt: Number.isFinite(t.lastDispatchAt) ? t.lastDispatchAt : null,
        });
      } else if (unknownBefore) {
        reasons.push({
          kind: 'not-dispatched-since-attach',
          text:
            `"${t.name}" was dispatched ${plural(t.dispatchesBeforeAttach, 'time')} before Busscope attached (${name} was not called then), ` +
            `and not once in the ${ms(observed)} since.`,
          dispatchesBeforeAttach: t.dispatchesBeforeAttach,
          sinceMs: Math.round(observed),
        });
      } else {
        reasons.push({
          kind: 'never-dispatched',
          text: `"${t.name}" was never dispatched on this bus in the ${ms(observed)} since ${name} subscribed.`,
          sinceMs: Math.round(observed),
        });
      }
      const nearMisses = findNearMisses(ctx, t, 'dispatched');
      if (nearMisses.length > 0) {
        reasons.push({
          kind: 'near-miss-dispatched',
          text: `Instead, ${nearMissText(nearMisses[0], t)} was dispatched ${plural(nearMisses[0].dispatches, 'time')}: a misspelled event name?`,
          nearMisses,
        });
      }
    }
    if (since > 0) {
      let ahead = 0;
      const consumers: { subscriptionId: number; label: string | null; priority: number; consumed: number }[] = [];
      for (const [cid, c] of t.consumers) {
        if (cid === s.id || !runsBefore(c.priority, cid, s.priority, s.id)) continue;
        ahead += c.count;
        consumers.push({ subscriptionId: cid, label: c.label, priority: c.priority, consumed: c.count });
      }
      const consumedAhead = Math.max(0, ahead - s.consumedAheadAtStart);
      if (consumedAhead > 0) {
        consumers.sort((a, b) => b.consumed - a.consumed);
        const top = consumers[0];
        const all = consumedAhead >= since;
        reasons.push({
          kind: 'consumed-earlier',
          text:
            `${all ? 'Every one' : `${consumedAhead}`} of the ${plural(since, 'dispatch', 'dispatches')} of "${t.name}" since it subscribed ` +
            `${all ? 'was' : 'were'} consumed before its turn, mostly by ${subName({ id: top.subscriptionId, label: top.label })} ` +
            `(priority ${top.priority} vs ${s.priority}; ${plural(top.consumed, 'time')}).`,
          dispatchesSince: since,
          consumedAhead,
          consumers,
        });
      }
    }
  }

  const errors = s.errors;
  const lastErr = s.lastError ?? s.lastDepthError;
  if (errors > 0 && lastErr !== null) {
    reasons.push({
      kind: 'handler-threw',
      text: `Its handler threw ${plural(errors, 'time')}; the last error (${at(lastErr.time)}): ${lastErr.message}`,
      errors,
      lastMessage: lastErr.message,
      lastAt: lastErr.time,
    });
  }

  if (model.detail !== null && model.detail !== 'handlers' && s.calls === 0 && s.active) {
    reasons.push({
      kind: 'no-handler-data',
      text: `The probe records at detail level "${model.detail}", without handler calls: call counts come from snapshots only.`,
    });
  }

  if (reasons.length === 0) {
    const since = t.dispatches - s.typeDispatchesAtStart;
    reasons.push({
      kind: 'never-dispatched',
      text: `Nothing in the data explains it: ${plural(since, 'dispatch', 'dispatches')} of "${t.name}" since it subscribed, and no handler call recorded.`,
      sinceMs: Math.round((s.endedAt ?? model.now) - s.observedFrom),
    });
  }

  // Decisive first: removal, then absence of the event, consumption, errors; "it ran" leads only
  // when nothing stopped it.
  const order: Record<WhyReasonKind, number> = {
    'unknown-subscription': 0,
    'owner-dead': 1,
    unsubscribed: 2,
    'never-dispatched': 3,
    'dispatched-before-subscribing': 3,
    'not-dispatched-since-attach': 3,
    'near-miss-dispatched': 4,
    'consumed-earlier': 5,
    'handler-threw': 6,
    ran: 7,
    'bus-disposed': 8,
    'no-handler-data': 9,
  };
  reasons.sort((a, b) => order[a.kind] - order[b.kind]);
  return { subscriptionId: id, found: true, summary: reasons[0].text, reasons };
}
