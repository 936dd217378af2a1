// Subscriptions to types that are never dispatched: after a grace period, live subscriptions
// whose type saw no dispatch since they subscribed (nor before attach, as far as the probe
// counted). One warning per type — or per family of many types (`user.#.updated`), and one for
// the types beyond the per-bus cap (typeGroups.ts); a near-miss name that *is* dispatched is the
// likely cause. Never said where dispatches are not recorded: at `lifecycle` detail, and on library
// emitters (they record lifecycle only unless focused: site-origin.ts); nor, on an emitter, of
// Node's or a library's own listeners (not the app's to fix).
import { listenerOrigin, type SiteInfo } from '../../protocol/index';
import type { EventTypeState, SubscriptionState } from '../model/entities';
import {
  busName,
  currentNearMisses,
  findNearMisses,
  ms,
  nearMissText,
  plural,
  pluralCount,
  siteText,
  subName,
  typeName,
  typeRef,
  uniqueSites,
  type AnalysisContext,
} from './context';
import { META_EVENTS, SAFETY_NET_EVENTS, withoutSiblingInstances } from './emitterEvents';
import { LibraryBuses } from './libraryBuses';
import { groupEvidence, groupExamples, groupLabel, groupWarningId, type FindingGroup, type TypeFinding } from './typeGroups';
import type { Examined } from './typeScan';
import type { NearMissEvidence, WarningDraft } from './warning';

export interface NeverDispatchedFinding extends TypeFinding {
  /** Oldest first. */
  readonly waiting: readonly SubscriptionState[];
  /** As found when the type was examined (warnings show them as they are now: `currentNearMisses`). */
  readonly nearMisses: readonly NearMissEvidence[];
}

export function analyzeNeverDispatched(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, now, state } = ctx;
  const grace = options.neverDispatched.graceMs;
  const library = new LibraryBuses(ctx);
  const search = state.nearMisses;
  const { singles, groups } = state.neverDispatchedScan.run(
    model.allTypes(),
    ctx.changes,
    now,
    ctx.typeBudget,
    ctx.deadline,
    options,
    search.poolSize('dispatched'),
    () => search.exhausted,
    state.families,
    (t) => examine(ctx, t, grace, library),
  );
  const out: WarningDraft[] = singles.map((f) => singleWarning(ctx, f));
  for (const g of groups) out.push(groupWarning(ctx, g));
  return out;
}

const NOT_A_FINDING: Examined<NeverDispatchedFinding> = { finding: null, search: 'none', recheckAt: Infinity };

function examine(ctx: AnalysisContext, t: EventTypeState, grace: number, library: LibraryBuses): Examined<NeverDispatchedFinding> {
  if (t.isWildcard || t.registeredCount === 0 || META_EVENTS.has(t.name) || SAFETY_NET_EVENTS.has(t.name)) return NOT_A_FINDING;
  // Not knowable below dispatch detail: the probe records no dispatches at `lifecycle`, nor of a
  // library emitter (listeners all Node's or node_modules') unless a client focuses it.
  if (ctx.model.detail === 'lifecycle' || library.has(t.bus)) return NOT_A_FINDING;
  const now = ctx.now;
  recheckAt = Infinity;
  let waiting = collectWaiting(t, t.live, now, grace, null);
  if (t.retired.size > 0) waiting = collectWaiting(t, t.retired, now, grace, waiting);
  if (waiting === null) return recheckAt === Infinity ? NOT_A_FINDING : { finding: null, search: 'none', recheckAt };
  if (waiting.length > 1) waiting.sort((a, b) => a.createdAt - b.createdAt);
  const nearMisses = withoutSiblingInstances(busName(ctx.model, t.bus), findNearMisses(ctx, t, 'dispatched'));
  return {
    finding: { t, typo: nearMisses.length > 0, waiting, nearMisses },
    search: ctx.state.nearMisses.isComplete(t, 'dispatched') ? 'complete' : 'incomplete',
    recheckAt,
  };
}

/** The earliest time a subscription still in its grace period may start to wait (set by collectWaiting). */
let recheckAt = Infinity;

/** Subscriptions of `t` in `subs` past the grace period that no dispatch of `t` can have reached. */
function collectWaiting(
  t: EventTypeState,
  subs: ReadonlySet<SubscriptionState>,
  now: number,
  grace: number,
  into: SubscriptionState[] | null,
): SubscriptionState[] | null {
  const emitter = t.busState.kind !== 'bus';
  for (const s of subs) {
    if (s.calls > 0) continue;
    // On an emitter, Node's own listeners (an http server's `listening`) and a library's are theirs to wait.
    if (emitter && notTheApps(s)) continue;
    if ((s.endedAt ?? now) - s.observedFrom < grace) {
      // Still live: it may wait long enough later, with no record about its type in between.
      if (s.endedAt === null && s.observedFrom + grace < recheckAt) recheckAt = s.observedFrom + grace;
      continue;
    }
    if (t.dispatches - s.typeDispatchesAtStart > 0) continue;
    // Late attach: a type the probe saw dispatched before may have reached this subscription.
    if (s.fromSnapshot && t.dispatchesBeforeAttach > 0) continue;
    (into ??= []).push(s);
  }
  return into;
}

function notTheApps(s: SubscriptionState): boolean {
  const origin = listenerOrigin(s);
  return origin === 'node' || origin === 'library';
}

function waitedOf(s: SubscriptionState, now: number): number {
  return (s.endedAt ?? now) - s.observedFrom;
}

function endedWithBus(t: EventTypeState): boolean {
  return t.busState.disposedAt !== null && t.live.size === 0;
}

function singleWarning(ctx: AnalysisContext, { t, waiting }: NeverDispatchedFinding): WarningDraft {
  const { model, now } = ctx;
  const nearMisses = withoutSiblingInstances(busName(model, t.bus), currentNearMisses(ctx, t, 'dispatched'));
  const oldest = waiting[0];
  const best = nearMisses[0];
  const waited = waitedOf(oldest, now);
  return {
    id: `never-dispatched:${t.bus}:${t.name}`,
    kind: 'never-dispatched',
    severity: best !== undefined ? 'warning' : 'info',
    title: `${subName(oldest)} waits for "${t.name}", which is never dispatched`,
    explanation:
      `${waiting.length === 1 ? subName(oldest) : plural(waiting.length, 'subscription')} to ${typeName(model, t)} ` +
      `${waiting.length === 1 ? 'has' : 'have'} waited ${ms(waited)}${endedWithBus(t) ? ' (until the bus was disposed)' : ''} and no "${t.name}" was dispatched on that bus. ` +
      (best !== undefined
        ? `But ${nearMissText(best, t)} was dispatched ${plural(best.dispatches, 'time')}: the name is probably misspelled on one side.`
        : `Nothing in the app dispatches it (or not yet): check that the publisher exists and uses this bus and name.`),
    evidence: { subscriptions: waiting.length, oldestSubscribedAt: oldest.createdAt, waitedMs: Math.round(waited), nearMisses },
    subjects: { buses: [t.bus], types: [typeRef(model, t)], subscriptions: waiting.slice(0, 50).map((s) => s.id) },
    sites: uniqueSites(waiting.map((s) => s.site)),
  };
}

interface GroupTotals {
  readonly subscriptions: number;
  readonly oldestSubscribedAt: number;
  /** The longest wait of an ended subscription, and the earliest start of a live one's (waits grow with time). */
  readonly endedWaitMs: number;
  readonly liveFrom: number;
  readonly ids: readonly number[];
  readonly sites: readonly SiteInfo[];
}

/** Totals per group, worked out once per grouping (a kept grouping keeps them: no pass over members per run). */
const totalsOf = new WeakMap<FindingGroup<NeverDispatchedFinding>, GroupTotals>();

function groupTotals(group: FindingGroup<NeverDispatchedFinding>): GroupTotals {
  const known = totalsOf.get(group);
  if (known !== undefined) return known;
  let subscriptions = 0;
  let oldestSubscribedAt = Infinity;
  let endedWaitMs = 0;
  let liveFrom = Infinity;
  const ids: number[] = [];
  const sites: SiteInfo[] = [];
  for (const f of group.members) {
    for (const s of f.waiting) {
      subscriptions++;
      if (s.createdAt < oldestSubscribedAt) oldestSubscribedAt = s.createdAt;
      if (s.endedAt === null) liveFrom = Math.min(liveFrom, s.observedFrom);
      else endedWaitMs = Math.max(endedWaitMs, s.endedAt - s.observedFrom);
      if (ids.length < 50) ids.push(s.id);
      if (s.site !== null && sites.length < 100) sites.push(s.site);
    }
  }
  const totals = { subscriptions, oldestSubscribedAt, endedWaitMs, liveFrom, ids, sites };
  totalsOf.set(group, totals);
  return totals;
}

/** One warning for many types: counts over the group, an example (a typo when there is one) in words. */
function groupWarning(ctx: AnalysisContext, group: FindingGroup<NeverDispatchedFinding>): WarningDraft {
  const { model, now } = ctx;
  const { subscriptions, oldestSubscribedAt, endedWaitMs, liveFrom, ids, sites } = groupTotals(group);
  const waitedMs = Math.max(endedWaitMs, now - liveFrom);
  const example = group.members[0];
  const bus = busName(model, group.bus);
  const nearMisses = withoutSiblingInstances(bus, currentNearMisses(ctx, example.t, 'dispatched'));
  const best = nearMisses[0];
  const exampleSite = example.waiting.find((s) => s.site !== null)?.site ?? null;
  const label = groupLabel(group, bus);
  return {
    id: groupWarningId('never-dispatched', group),
    kind: 'never-dispatched',
    severity: best !== undefined ? 'warning' : 'info',
    title: `${label} are subscribed but never dispatched`,
    explanation:
      `${pluralCount(subscriptions, 'subscription')} to ${label} have waited up to ${ms(waitedMs)} and none of these types was dispatched, ` +
      `e.g. ${subName(example.waiting[0])} waits for "${example.t.name}"${exampleSite !== null ? ` (subscribed at ${siteText(exampleSite)})` : ''}. ` +
      (best !== undefined
        ? `But ${nearMissText(best, example.t)} was dispatched ${plural(best.dispatches, 'time')}: the name is probably misspelled on one side.`
        : `Nothing in the app dispatches them (or not yet): check that the publishers exist and use this bus and these names.`),
    evidence: { subscriptions, oldestSubscribedAt, waitedMs: Math.round(waitedMs), nearMisses, group: groupEvidence(group) },
    subjects: { buses: [group.bus], types: groupExamples(group).map((f) => typeRef(model, f.t)), subscriptions: [...ids] },
    sites: uniqueSites(sites),
  };
}
