// Listener growth, after VS Code's LeakageMonitor: per event type, a threshold on live listeners
// with re-arming, the most frequent subscribe site and the growth rate. A second trigger catches a
// leak long before any absolute threshold: one owner subscribing to the same type from the same
// site again and again (over time) while the earlier subscriptions are still live — the classic
// "re-bind on every respawn, never dispose" leak. "One owner" is one owner id when the probe sends
// ids, else one description that names a single object (`Enemy#12`).
//
// Watched emitters (probe.watch, BUSSCOPE_EMITTERS) have no owners: there the emitter itself is the
// one owner, and the same site adding listeners of one type to it again and again, over time, all
// still registered, is the leak ("each request adds a `close` listener to the shared emitter") —
// from `sameSiteThreshold` listeners on, where Node's own MaxListenersExceededWarning fires. Such
// a warning is also a trigger, and is shown as evidence. Per class: instances named `Class#n` are
// judged one by one — 500 sockets with one `data` listener each are a pattern, never summed into a
// leak — and when several instances of one class leak from the same site, one warning says so.
import type { SiteInfo } from '../../protocol/index';
import { ownerIdentity, ownerLabel, type EventTypeState, type SubscriptionState } from '../model/entities';
import { busName, plural, round, siteText, subName, typeName, typeRef, uniqueSites, type AnalysisContext } from './context';
import { instanceClass } from './emitterEvents';
import { LeakMonitor } from './leakMonitor';
import type { ListenerGrowthEvidence, SiteCount, WarningDraft } from './warning';

interface RepeatGroup {
  /** Which owner (see `ownerIdentity`); for listeners without an owner, the bus. */
  readonly key: string;
  /** No owner: the bus (an emitter) is shared by whoever subscribes from this site. */
  readonly ownerless: boolean;
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

function repeatedGroups(t: EventTypeState, busLabel: string): RepeatGroup[] {
  const groups = new Map<string, RepeatGroup>();
  for (const s of t.registered()) {
    const ownerless = s.owner === null;
    // Without a site, listeners without an owner cannot be told apart: no group.
    if (ownerless && s.site === null) continue;
    const identity = ownerless ? `\0bus:${t.bus}` : ownerIdentity(s.owner, s.ownerId);
    if (identity === null) continue;
    const k = `${identity}\n${groupKey(s)}`;
    let g = groups.get(k);
    if (g === undefined) {
      const owner = s.owner === null ? busLabel : ownerLabel(s.owner, s.ownerId);
      g = { key: identity, ownerless, owner, site: s.site, label: s.label, count: 0, first: Infinity, last: -Infinity, ids: [] };
      groups.set(k, g);
    }
    g.count++;
    g.ids.push(s.id);
    if (s.createdAt < g.first) g.first = s.createdAt;
    if (s.createdAt > g.last) g.last = s.createdAt;
  }
  return [...groups.values()];
}

interface Finding {
  readonly draft: Extract<WarningDraft, { kind: 'listener-growth' }>;
  /** Instances of one class leaking the same way are one warning: class, type and site. */
  readonly classKey: string | null;
  readonly className: string | null;
}

export function analyzeListenerGrowth(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now, state } = ctx;
  const o = options.listenerGrowth;
  const findings: Finding[] = [];
  const seenMonitors = new Set<string>();
  const seenTypeMonitors = new Set<number>();
  const repeatGate = Math.min(o.repeatedSubscriptionThreshold || Infinity, o.sameSiteThreshold || Infinity);
  // Fewer listeners than any threshold, no monitor and no Node warning: nothing to judge. Only the
  // types that changed are tested again (a pass over 100,000 types per run was most of its cost),
  // and the never-tested ones up to the run's deadline (the rest in later runs: the run is partial).
  const gate = Math.min(o.threshold > 0 ? o.threshold : Infinity, repeatGate);
  const types = model.allTypes();
  const candidates = state.growthCandidates.update(
    types,
    ctx.changes,
    o,
    ctx.deadline,
    (t) =>
      t.registeredCount >= gate ||
      state.typeLeakMonitors.has(t.index) ||
      (t.busState.maxListenersWarnings.size > 0 && t.busState.maxListenersWarnings.has(t.name)),
  );
  for (const index of candidates) {
    const t = types[index];
    // Registered: live, or still held when the bus was disposed (judged as it was at the end).
    const count = t.registeredCount;
    const ended = t.busState.disposedAt;
    // By type index: a key string per type per run was most of this pass at 100,000 types.
    let monitor = state.typeLeakMonitors.get(t.index);
    if (monitor === undefined && o.threshold > 0 && count >= o.threshold) {
      monitor = new LeakMonitor({ threshold: o.threshold, rearmFraction: o.rearmFraction });
      state.typeLeakMonitors.set(t.index, monitor);
    }
    if (monitor !== undefined) {
      monitor.check(count);
      if (monitor.warning) seenTypeMonitors.add(t.index);
    }
    const thresholdReached = monitor?.warning === true;
    // Node's own MaxListenersExceededWarning for this emitter and event, while the count stays there.
    const warned = t.busState.maxListenersWarnings.get(t.name);
    const nodeWarning = warned !== undefined && count >= warned.count && count > 0 ? warned : null;

    // Repeated subscriptions: one monitor per (owner, site), re-arming the same way.
    let repeated: ListenerGrowthEvidence['repeated'] = null;
    let repeatIds: number[] = [];
    if (count >= repeatGate) {
      const bus = busName(model, t.bus);
      for (const g of repeatedGroups(t, bus)) {
        const threshold = g.ownerless ? o.sameSiteThreshold : o.repeatedSubscriptionThreshold;
        if (threshold === 0 || g.count < threshold || g.last - g.first < o.repeatedSubscriptionMinSpanMs) continue;
        const key = `repeat:${t.index}:${g.key}:${g.site ? `${g.site.file}:${g.site.line}:${g.site.column}` : g.label}`;
        let m = state.leakMonitors.get(key);
        if (m === undefined) {
          m = new LeakMonitor({ threshold, rearmFraction: o.rearmFraction });
          state.leakMonitors.set(key, m);
        }
        m.check(g.count);
        seenMonitors.add(key);
        if (repeated === null || g.count > repeated.count) {
          repeated = {
            owner: g.owner,
            site: g.site,
            label: g.label,
            count: g.count,
            overMs: round(g.last - g.first, 1),
            ...(g.ownerless ? { sharedEmitter: true } : {}),
          };
          repeatIds = g.ids;
        }
      }
    }
    if (!thresholdReached && repeated === null && nodeWarning === null) continue;

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
      nodeWarning: nodeWarning === null ? null : { count: nodeWarning.count, time: nodeWarning.time, message: nodeWarning.message },
    };
    const name = typeName(model, t);
    const parts: string[] = [];
    if (repeated !== null && repeated.sharedEmitter === true) {
      parts.push(
        `${repeated.count} listeners of ${name} were added from ${siteText(repeated.site)}` +
          `${repeated.label ? ` (${repeated.label})` : ''} over ${(repeated.overMs / 1000).toFixed(1)} s, and none of them was removed. ` +
          `The emitter is shared: that code runs once per request, connection or call and adds one more listener each time, ` +
          `so the emitter keeps every one of them (and what they reference) and calls all ${repeated.count} on each emit. ` +
          `Remove the listener when its request or connection ends (\`off\`, \`once\`, an AbortSignal), or add it once.`,
      );
    } else if (repeated !== null) {
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
    if (nodeWarning !== null) {
      parts.push(`Node warned too (MaxListenersExceededWarning, at ${nodeWarning.count} listeners): ${nodeWarning.message}`);
    }
    const subjects = repeated !== null ? repeatIds : [...t.registered()].filter((s) => top !== null && groupKey(s) === top.key).map((s) => s.id);
    const lead = repeated ?? top;
    const bus = busName(model, t.bus);
    const className = instanceClass(bus);
    const leadSite = lead?.site ?? null;
    findings.push({
      className,
      classKey:
        className === null
          ? null
          : `${className}\n${t.name}\n${leadSite === null ? `label:${lead?.label ?? ''}` : `${leadSite.file}:${leadSite.line}:${leadSite.column}`}`,
      draft: {
        id: `listener-growth:${t.bus}:${t.name}`,
        kind: 'listener-growth',
        severity: 'warning',
        title:
          repeated !== null && repeated.sharedEmitter === true
            ? `Listener leak: ${subName({ id: repeatIds[0] ?? 0, label: repeated.label })} added ${repeated.count}× to "${t.name}" on ${bus}`
            : repeated !== null
              ? `Listener leak: ${subName({ id: repeatIds[0] ?? 0, label: repeated.label })} subscribed ${repeated.count}× by one owner`
              : `Listener growth: ${count} listeners of "${t.name}"`,
        explanation: parts.join('\n\n'),
        evidence,
        subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: subjects.slice(0, 50) },
        sites: uniqueSites([repeated?.site ?? null, top?.site ?? null]),
      },
    });
  }
  // Forget monitors of groups that fell below their threshold (they re-arm from scratch).
  for (const key of [...state.leakMonitors.keys()]) if (!seenMonitors.has(key)) state.leakMonitors.delete(key);
  for (const index of [...state.typeLeakMonitors.keys()]) if (!seenTypeMonitors.has(index)) state.typeLeakMonitors.delete(index);
  return mergeInstances(findings);
}

/** Several instances of one class leaking from the same site for the same event: one warning. */
function mergeInstances(findings: readonly Finding[]): WarningDraft[] {
  const byClass = new Map<string, Finding[]>();
  for (const f of findings) {
    if (f.classKey === null) continue;
    const list = byClass.get(f.classKey);
    if (list === undefined) byClass.set(f.classKey, [f]);
    else list.push(f);
  }
  const out: WarningDraft[] = [];
  for (const f of findings) {
    const group = f.classKey === null ? undefined : byClass.get(f.classKey);
    if (group === undefined || group.length < 2) {
      out.push(f.draft);
      continue;
    }
    if (group[0] !== f) continue; // the group is said once, at its first member
    let lead = group[0].draft;
    for (const g of group) if (g.draft.evidence.listeners > lead.evidence.listeners) lead = g.draft;
    const className = f.className ?? '';
    const type = lead.subjects.types[0]?.type ?? '';
    out.push({
      ...lead,
      id: `listener-growth:class:${f.classKey}`,
      title: `${lead.title} — and the same in ${plural(group.length - 1, `other ${className} instance`)}`,
      explanation:
        `${group.length} ${className} instances leak the same way on "${type}" (the one with the most listeners is described): ` +
        `each instance is judged on its own listeners, and each of these has the leak.\n\n` +
        lead.explanation,
      evidence: { ...lead.evidence, instances: { className, count: group.length } },
      subjects: {
        buses: group.slice(0, 50).map((g) => g.draft.subjects.buses[0]),
        types: group.slice(0, 50).map((g) => g.draft.subjects.types[0]),
        subscriptions: group.flatMap((g) => g.draft.subjects.subscriptions).slice(0, 50),
      },
    });
  }
  return out;
}
