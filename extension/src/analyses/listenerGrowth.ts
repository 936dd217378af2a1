// Listener growth, after VS Code's LeakageMonitor: per event type, a threshold on live listeners
// with re-arming, the most frequent subscribe site and the growth rate. A second trigger catches a
// leak long before any absolute threshold: one owner subscribing to the same type from the same
// site again and again (over time) while the earlier subscriptions are still live — the classic
// "re-bind on every respawn, never dispose" leak. "One owner" is one owner id when the probe sends
// ids, else one description that names a single object (`Enemy#12`).
import type { SiteInfo } from '../../../runtime-probe/src/protocol/index';
import { ownerIdentity, ownerLabel, type EventTypeState, type SubscriptionState } from '../model/entities';
import { round, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import { LeakMonitor } from './leakMonitor';
import type { ListenerGrowthEvidence, SiteCount, WarningDraft } from './warning';

interface RepeatGroup {
  /** Which owner (see `ownerIdentity`). */
  readonly key: string;
  /** How warnings name it (see `ownerLabel`). */
  readonly owner: string;
  readonly site: SiteInfo | null;
  readonly label: string | null;
  count: number;
  first: number;
  last: number;
  readonly ids: number[];
}

function groupKey(s: SubscriptionState): string {
  return s.siteKey ?? `label:${s.label ?? ''}`;
}

function topSite(subs: Iterable<SubscriptionState>): (SiteCount & { readonly key: string }) | null {
  const counts = new Map<string, { key: string; site: SiteInfo | null; label: string | null; count: number }>();
  for (const s of subs) {
    const k = groupKey(s);
    const c = counts.get(k);
    if (c) c.count++;
    else counts.set(k, { key: k, site: s.site, label: s.label, count: 1 });
  }
  let best: (SiteCount & { key: string }) | null = null;
  for (const c of counts.values()) if (best === null || c.count > best.count) best = c;
  return best;
}

function repeatedGroups(t: EventTypeState): RepeatGroup[] {
  const groups = new Map<string, RepeatGroup>();
  for (const s of t.registered()) {
    const identity = ownerIdentity(s.owner, s.ownerId);
    if (identity === null || s.owner === null) continue;
    const k = `${identity}\n${groupKey(s)}`;
    let g = groups.get(k);
    if (g === undefined) {
      g = { key: identity, owner: ownerLabel(s.owner, s.ownerId), site: s.site, label: s.label, count: 0, first: Infinity, last: -Infinity, ids: [] };
      groups.set(k, g);
    }
    g.count++;
    g.ids.push(s.id);
    if (s.createdAt < g.first) g.first = s.createdAt;
    if (s.createdAt > g.last) g.last = s.createdAt;
  }
  return [...groups.values()];
}

export function analyzeListenerGrowth(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now, state } = ctx;
  const o = options.listenerGrowth;
  const out: WarningDraft[] = [];
  const seenMonitors = new Set<string>();
  for (const t of model.allTypes()) {
    // Registered: live, or still held when the bus was disposed (judged as it was at the end).
    const count = t.registeredCount;
    const ended = t.busState.disposedAt;
    const monitorKey = `type:${t.index}`;
    let monitor = state.leakMonitors.get(monitorKey);
    if (monitor === undefined && o.threshold > 0 && count >= o.threshold) {
      monitor = new LeakMonitor({ threshold: o.threshold, rearmFraction: o.rearmFraction });
      state.leakMonitors.set(monitorKey, monitor);
    }
    if (monitor !== undefined) {
      monitor.check(count);
      if (monitor.warning) seenMonitors.add(monitorKey);
    }
    const thresholdReached = monitor?.warning === true;

    // Repeated subscriptions: one monitor per (owner, site), re-arming the same way.
    let repeated: ListenerGrowthEvidence['repeated'] = null;
    let repeatIds: number[] = [];
    if (o.repeatedSubscriptionThreshold > 0 && count >= o.repeatedSubscriptionThreshold) {
      for (const g of repeatedGroups(t)) {
        if (g.count < o.repeatedSubscriptionThreshold || g.last - g.first < o.repeatedSubscriptionMinSpanMs) continue;
        const key = `repeat:${t.index}:${g.key}:${g.site ? `${g.site.file}:${g.site.line}:${g.site.column}` : g.label}`;
        let m = state.leakMonitors.get(key);
        if (m === undefined) {
          m = new LeakMonitor({ threshold: o.repeatedSubscriptionThreshold, rearmFraction: o.rearmFraction });
          state.leakMonitors.set(key, m);
        }
        m.check(g.count);
        seenMonitors.add(key);
        if (repeated === null || g.count > repeated.count) {
          repeated = { owner: g.owner, site: g.site, label: g.label, count: g.count, overMs: round(g.last - g.first, 1) };
          repeatIds = g.ids;
        }
      }
    }
    if (!thresholdReached && repeated === null) continue;

    const top = topSite(t.registered());
    const growth = t.netGrowth.ratePerSecond(ended ?? now);
    const evidence: ListenerGrowthEvidence = {
      listeners: count,
      threshold: o.threshold,
      thresholdReached,
      timesWarned: monitor?.warnings ?? 0,
      nextWarningAt: monitor?.nextWarnAt ?? o.threshold,
      growthPerSecond: round(growth, 2),
      topSite: top === null ? null : { site: top.site, label: top.label, count: top.count },
      repeated,
    };
    const name = typeName(model, t);
    const parts: string[] = [];
    if (repeated !== null) {
      parts.push(
        `${repeated.owner} has subscribed ${repeated.count} times to ${name} from ${siteText(repeated.site)}` +
          `${repeated.label ? ` (${repeated.label})` : ''} over ${(repeated.overMs / 1000).toFixed(1)} s, and none of those subscriptions was disposed. ` +
          `Each call of that code adds one more listener; the handler now runs ${repeated.count} times per dispatch. ` +
          `Dispose the previous subscription before subscribing again (or subscribe once).`,
      );
    }
    if (thresholdReached) {
      parts.push(
        `${name} ${ended === null ? 'has' : 'had'} ${count} live listeners${ended === null ? '' : ' when its bus was disposed'} ` +
          `(threshold ${o.threshold}), growing by ${growth.toFixed(1)} per second. ` +
          (top ? `Most of them (${top.count}) come from ${siteText(top.site)}${top.label ? ` (${top.label})` : ''}. ` : '') +
          `A count that keeps growing usually means subscriptions that are never disposed.`,
      );
    }
    const subjects = repeated !== null ? repeatIds : [...t.registered()].filter((s) => top !== null && groupKey(s) === top.key).map((s) => s.id);
    out.push({
      id: `listener-growth:${t.bus}:${t.name}`,
      kind: 'listener-growth',
      severity: 'warning',
      title: repeated !== null
        ? `Listener leak: ${subName({ id: repeatIds[0] ?? 0, label: repeated.label })} subscribed ${repeated.count}× by one owner`
        : `Listener growth: ${count} listeners of "${t.name}"`,
      explanation: parts.join('\n\n'),
      evidence,
      subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: subjects.slice(0, 50) },
      sites: uniqueSites([repeated?.site ?? null, top?.site ?? null]),
    });
  }
  // Forget monitors of groups that fell below their threshold (they re-arm from scratch).
  for (const key of [...state.leakMonitors.keys()]) if (!seenMonitors.has(key)) state.leakMonitors.delete(key);
  return out;
}
