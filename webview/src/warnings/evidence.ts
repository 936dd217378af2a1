// The analyses' typed evidence, as short lines a developer reads at a glance (one switch over the
// warning kinds, so a new kind cannot be shown without deciding what to say about it).

import type { Warning, WarningKind } from '../../../runtime-probe/src/analysis/inspector-messages';
import { fmtInt, fmtMs, fmtRate, fmtSampleEvery } from '../ui/format';

export const KIND_TITLES: Record<WarningKind, string> = {
  'listener-growth': 'Listener growth (possible leak)',
  'dead-owner-listeners': 'Listeners of dead owners',
  'owner-gone-still-registered': 'Owner gone, still subscribed',
  'unheard-dispatch': 'Dispatched with no listener',
  'never-dispatched': 'Subscribed but never dispatched',
  'subscription-churn': 'Subscribe/unsubscribe churn',
  'slow-handler': 'Slow handlers',
  'throwing-handler': 'Throwing handlers',
  'depth-limit-storm': 'Recursion hit the depth limit',
  'starved-subscriber': 'Starved subscribers',
  'queue-growth': 'Queues growing',
};

function at(site: { file: string; line: number } | null): string {
  if (!site) return 'unknown site';
  const i = Math.max(site.file.lastIndexOf('/'), site.file.lastIndexOf('\\'));
  return `${i >= 0 ? site.file.slice(i + 1) : site.file}:${site.line}`;
}

export function evidenceLines(w: Warning): string[] {
  switch (w.kind) {
    case 'listener-growth': {
      const e = w.evidence;
      const lines = [`${fmtInt(e.listeners)} live listeners (threshold ${fmtInt(e.threshold)})`];
      if (e.growthPerSecond > 0) lines.push(`growing by ${fmtRate(e.growthPerSecond)}`);
      if (e.topSite)
        lines.push(`most frequent subscribe site: ${at(e.topSite.site)}${e.topSite.label ? ` (${e.topSite.label})` : ''} — ${fmtInt(e.topSite.count)}×`);
      if (e.repeated)
        lines.push(
          `${e.repeated.owner} subscribed ${fmtInt(e.repeated.count)}× from ${at(e.repeated.site)} over ${fmtMs(e.repeated.overMs)} without disposing`,
        );
      if (e.timesWarned > 1) lines.push(`warned ${e.timesWarned}× so far; next at ${fmtInt(e.nextWarningAt)}`);
      return lines;
    }
    case 'dead-owner-listeners': {
      const e = w.evidence;
      return [
        `${fmtInt(e.removed)} removed because their owner was gone (${fmtInt(e.deadOwner)} dead, ${fmtInt(e.collected)} collected)`,
        ...(e.owners.length ? [`owners: ${e.owners.slice(0, 4).join(', ')}${e.owners.length > 4 ? '…' : ''}`] : []),
      ];
    }
    case 'owner-gone-still-registered': {
      const e = w.evidence;
      return [
        `${fmtInt(e.owners)} owners disposed ${e.disposedType}${e.disposedLabel ? ` (${e.disposedLabel})` : ''} but left ${fmtInt(e.stillRegistered)} subscriptions registered`,
        `${fmtInt(e.callsAfterDisposal)} calls since`,
        ...(e.sampleOwners.length ? [`e.g. ${e.sampleOwners.slice(0, 3).join(', ')}`] : []),
      ];
    }
    case 'unheard-dispatch': {
      const e = w.evidence;
      return [
        `${fmtInt(e.unheard)} of ${fmtInt(e.dispatches)} dispatches found no listener`,
        ...e.nearMisses.slice(0, 3).map((n) => `did you mean ${n.type}${n.busName ? ` on ${n.busName}` : ''}? (${fmtInt(n.listeners)} listeners)`),
      ];
    }
    case 'never-dispatched': {
      const e = w.evidence;
      return [
        `${fmtInt(e.subscriptions)} subscriptions waiting ${fmtMs(e.waitedMs)} with no dispatch`,
        ...e.nearMisses.slice(0, 3).map((n) => `${n.type}${n.busName ? ` on ${n.busName}` : ''} is dispatched instead (${fmtInt(n.dispatches)}×)`),
      ];
    }
    case 'subscription-churn': {
      const e = w.evidence;
      return [
        `${fmtRate(e.cyclesPerSecond)} subscribe/unsubscribe cycles`,
        `mean lifetime ${fmtMs(e.meanLifetimeMs)}`,
        `${fmtInt(e.totalCycles)} cycles in total`,
      ];
    }
    case 'slow-handler': {
      const e = w.evidence;
      return [
        `p95 ${fmtMs(e.p95Ms)} (threshold ${fmtMs(e.p95ThresholdMs)}), max ${fmtMs(e.maxMs)}`,
        `${fmtInt(e.calls)} calls${e.sampleEvery !== undefined ? ` (sampled 1 in ${fmtSampleEvery(e.sampleEvery)})` : ''}, mean ${fmtMs(e.meanMs)}`,
        `its event fires at ${fmtRate(e.typeRatePerSecond)}`,
      ];
    }
    case 'throwing-handler': {
      const e = w.evidence;
      return [`${fmtInt(e.errors)} errors in ${fmtInt(e.calls)} calls`, `last: ${e.lastMessage}`];
    }
    case 'depth-limit-storm': {
      const e = w.evidence;
      return [
        `${fmtInt(e.hits)} refused nested dispatches (${fmtRate(e.hitsPerSecond)}), deepest refused depth ${e.maxRefusedDepth}`,
        ...e.handlers.slice(0, 3).map((x) => `${x.label ?? `subscription #${x.subscriptionId}`} got ${fmtInt(x.depthErrors)} DispatchDepthErrors`),
      ];
    }
    case 'starved-subscriber': {
      const e = w.evidence;
      return [
        `priority ${e.priority}: ${fmtInt(e.consumedAhead)} of ${fmtInt(e.dispatchesSinceSubscribed)} dispatches consumed before its turn`,
        ...e.consumers.slice(0, 3).map((c) => `consumed by ${c.label ?? `#${c.subscriptionId}`} (priority ${c.priority}) ${fmtInt(c.consumed)}×`),
      ];
    }
    case 'queue-growth': {
      const e = w.evidence;
      return [
        e.pattern === 'never-flushed'
          ? `${fmtInt(e.queueLength)} events waiting for ${fmtMs(e.waitingMs)}, ${fmtInt(e.flushes)} flushes so far`
          : `latest flushes dispatched ${e.recentFlushSizes.map(fmtInt).join(' → ')} events`,
        ...(e.dropped > 0
          ? [`${fmtInt(e.dropped)} events from producer threads dropped (${e.dropPolicy ?? 'newest'} first) at the cap of ${fmtInt(e.cap)}`]
          : []),
        `most queued: ${e.topTypes
          .slice(0, 3)
          .map((t) => `${t.type} (${fmtInt(t.enqueued)})`)
          .join(', ')}`,
      ];
    }
    default: {
      const never: never = w;
      return never;
    }
  }
}
