// Subscription health, derived from the analyses' warnings (the one source of judgement): the
// graph colours leaking and dead-owner subscribers in the warning colour and dims starved and
// never-called ones. Each warning kind decides explicitly (exhaustive switch).

import type { SubscriptionHealth, Warning } from '../../../runtime-probe/src/analysis/inspector-messages';

export function healthOfWarning(w: Warning): SubscriptionHealth | null {
  switch (w.kind) {
    case 'listener-growth':
      return 'leak';
    case 'dead-owner-listeners':
    case 'owner-gone-still-registered':
      return 'dead-owner';
    case 'starved-subscriber':
      return 'starved';
    case 'never-dispatched':
      return 'never-called';
    case 'throwing-handler':
      return 'throwing';
    case 'slow-handler':
      return 'slow';
    case 'unheard-dispatch':
    case 'subscription-churn':
    case 'depth-limit-storm':
    case 'queue-growth':
      return null;
    default: {
      const never: never = w;
      return never;
    }
  }
}

export function healthFromWarnings(warnings: Iterable<Warning>): Map<number, ReadonlySet<SubscriptionHealth>> {
  const out = new Map<number, Set<SubscriptionHealth>>();
  for (const w of warnings) {
    const h = healthOfWarning(w);
    if (h === null) continue;
    for (const id of w.subjects.subscriptions) {
      let set = out.get(id);
      if (!set) out.set(id, (set = new Set()));
      set.add(h);
    }
  }
  return out;
}
