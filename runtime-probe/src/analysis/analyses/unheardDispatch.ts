// Dispatches nobody hears (delivered 0). Events that simply have no listener yet are common in a
// decoupled design, so by default this speaks up only when the silence looks like a mistake: a
// similar name (or the same name on another bus) does have listeners — likely a typo. One warning
// per type — or per family of many types (`user.#.updated`), and one for the types beyond the
// per-bus cap (typeGroups.ts).
//
// Watched emitters (buses named `Class#n`) are stricter: emitting an event nobody listens to is how
// Node works (a ClientRequest emits `close` and `finish` whether or not anyone listens), and Node's
// event names are a shared vocabulary, so the same name listened to on another emitter is no typo.
// An emitter speaks up only for a near miss on itself, or a misspelt name its sibling instances
// listen to — whatever `reportWithoutNearMiss` says. Library buses (listeners all from Node's
// internals or node_modules) are never reported, and their listeners are no one's near miss.
import type { SiteInfo } from '../../protocol/index';
import type { EventTypeState } from '../model/entities';
import type { AnalysisContext } from './context';
import { busName, currentNearMisses, findNearMisses, nearMissText, plural, pluralCount, siteText, typeName, typeRef, uniqueSites } from './context';
import { instanceClass, META_EVENTS, withoutSiblingInstances } from './emitterEvents';
import { LibraryBuses } from './libraryBuses';
import { POOL_ACCEPTS } from './nearMissSearch';
import { groupEvidence, groupExamples, groupLabel, groupWarningId, type FindingGroup, type TypeFinding } from './typeGroups';
import type { Examined } from './typeScan';
import type { NearMissEvidence, WarningDraft } from './warning';

export interface UnheardFinding extends TypeFinding {
  /** As found when the type was examined (warnings show them as they are now: `currentNearMisses`). */
  readonly nearMisses: readonly NearMissEvidence[];
}

export function analyzeUnheardDispatch(ctx: AnalysisContext): WarningDraft[] {
  const { model, options, state } = ctx;
  const o = options.unheardDispatch;
  const library = new LibraryBuses(ctx);
  const search = state.nearMisses;
  const scan = state.unheardScan;
  const types = model.allTypes();
  let requeued = false;
  for (const i of ctx.changes.indices) {
    const t = types[i];
    if (t === undefined) continue;
    // A listened-to type that lost its listeners no longer counts as a near miss: the typos that
    // may name it are examined again (only then: it needs no pass over the findings per run).
    if (!requeued && !POOL_ACCEPTS.listened(t) && search.isPoolMember('listened', i)) {
      scan.requeueTypos();
      requeued = true;
    }
  }
  const { singles, groups } = scan.run(
    types,
    ctx.changes,
    ctx.now,
    ctx.typeBudget,
    ctx.deadline,
    options,
    search.poolSize('listened'),
    () => search.exhausted,
    state.families,
    (t) => examine(ctx, t, o.minUnheard, o.reportWithoutNearMiss, library),
  );
  const out: WarningDraft[] = [];
  for (const f of singles) {
    const w = singleWarning(ctx, f, library);
    if (w !== null) out.push(w);
  }
  for (const g of groups) out.push(groupWarning(ctx, g));
  return out;
}

const NOT_A_FINDING: Examined<UnheardFinding> = { finding: null, search: 'none', recheckAt: Infinity };

function examine(ctx: AnalysisContext, t: EventTypeState, minUnheard: number, reportWithoutNearMiss: boolean, library: LibraryBuses): Examined<UnheardFinding> {
  if (t.isWildcard || t.unheard < Math.max(1, minUnheard) || META_EVENTS.has(t.name)) return NOT_A_FINDING;
  // Holds while the latest dispatch of the type went unheard.
  if (t.lastUnheardAt < t.lastHeardAt) return NOT_A_FINDING;
  if (library.has(t.bus)) return NOT_A_FINDING;
  const name = busName(ctx.model, t.bus);
  const emitterClass = instanceClass(name);
  const nearMisses = emitterNearMisses(t, name, findNearMisses(ctx, t, 'listened'), library);
  const search = ctx.state.nearMisses.isComplete(t, 'listened') ? 'complete' : 'incomplete';
  if (nearMisses.length === 0 && (emitterClass !== null || !reportWithoutNearMiss)) return { finding: null, search, recheckAt: Infinity };
  return { finding: { t, typo: nearMisses.length > 0, nearMisses }, search, recheckAt: Infinity };
}

/** The subscribe sites of the best near miss (where the listeners are). */
function listenerSites(ctx: AnalysisContext, best: NearMissEvidence | undefined): Iterable<SiteInfo | null> {
  if (best === undefined) return [];
  const other = ctx.model.findType(best.bus, best.type);
  if (other === undefined) return [];
  return (function* () {
    for (const s of other.registered()) yield s.site;
  })();
}

/**
 * The near misses that count for `t` on bus `name`: never a sibling instance's same name, never a
 * library bus's listener, and on an emitter only its own or its class's names.
 */
function emitterNearMisses(t: EventTypeState, name: string, found: readonly NearMissEvidence[], library: LibraryBuses): NearMissEvidence[] {
  const kept = withoutSiblingInstances(name, found).filter((m) => !library.has(m.bus));
  const emitterClass = instanceClass(name);
  return emitterClass === null ? kept : kept.filter((m) => m.bus === t.bus || (m.reason !== 'other-bus' && instanceClass(m.busName) === emitterClass));
}

/** Null when the near miss that made it a finding no longer counts (the typo is examined again in the next run). */
function singleWarning(ctx: AnalysisContext, { t, typo }: UnheardFinding, library: LibraryBuses): WarningDraft | null {
  const { model } = ctx;
  const nearMisses = emitterNearMisses(t, busName(model, t.bus), currentNearMisses(ctx, t, 'listened'), library);
  if (typo && nearMisses.length === 0 && !ctx.options.unheardDispatch.reportWithoutNearMiss) return null;
  const best = nearMisses[0];
  return {
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
    sites: uniqueSites([...t.dispatchSites, ...listenerSites(ctx, best)]),
  };
}

interface GroupTotals {
  readonly unheard: number;
  readonly dispatches: number;
  readonly lastUnheardAt: number;
  /** The members' dispatch sites (the first hundred). */
  readonly sites: readonly (SiteInfo | null)[];
}

/** Totals per group, worked out once per grouping (a kept grouping keeps them: no pass over members per run). */
const totalsOf = new WeakMap<FindingGroup<UnheardFinding>, GroupTotals>();

function groupTotals(group: FindingGroup<UnheardFinding>): GroupTotals {
  const known = totalsOf.get(group);
  if (known !== undefined) return known;
  let unheard = 0;
  let dispatches = 0;
  let lastUnheardAt = -Infinity;
  const sites: (SiteInfo | null)[] = [];
  for (const { t } of group.members) {
    unheard += t.unheard;
    dispatches += t.dispatches;
    if (t.lastUnheardAt > lastUnheardAt) lastUnheardAt = t.lastUnheardAt;
    if (sites.length < 100) for (const site of t.dispatchSites) sites.push(site);
  }
  const totals = { unheard, dispatches, lastUnheardAt, sites };
  totalsOf.set(group, totals);
  return totals;
}

/** One warning for many types: counts over the group, an example (a typo when there is one) in words. */
function groupWarning(ctx: AnalysisContext, group: FindingGroup<UnheardFinding>): WarningDraft {
  const { model } = ctx;
  const { unheard, dispatches, lastUnheardAt, sites } = groupTotals(group);
  const example = group.members[0];
  const bus = busName(model, group.bus);
  const nearMisses = withoutSiblingInstances(bus, currentNearMisses(ctx, example.t, 'listened'));
  const best = nearMisses[0];
  const exampleSite = example.t.dispatchSites[0] ?? null;
  const label = groupLabel(group, bus);
  const examples = groupExamples(group);
  return {
    id: groupWarningId('unheard-dispatch', group),
    kind: 'unheard-dispatch',
    severity: best !== undefined ? 'warning' : 'info',
    title: `${label} are dispatched but nobody listens` + (best !== undefined ? ` — e.g. "${example.t.name}": did you mean "${best.type}"?` : ''),
    explanation:
      `${pluralCount(unheard, 'dispatch', 'dispatches')} of ${label} reached no handler` +
      (unheard < dispatches ? ` (of ${dispatches.toLocaleString('en-US')})` : '') +
      `, e.g. "${example.t.name}"${exampleSite !== null ? ` dispatched at ${siteText(exampleSite)}` : ''}. ` +
      (best !== undefined
        ? `Listeners exist for ${nearMissText(best, example.t)} (${plural(best.listeners, 'listener')}): ` +
          `the dispatching code or the subscribers probably misspell the event names.`
        : `No subscription to these names exists on this bus.`),
    evidence: { unheard, dispatches, lastUnheardAt, nearMisses, group: groupEvidence(group) },
    subjects: {
      buses: [group.bus],
      types: [...examples.map((f) => typeRef(model, f.t)), ...nearMisses.map((m) => ({ bus: m.bus, busName: m.busName, type: m.type }))],
      subscriptions: [],
    },
    sites: uniqueSites([...sites, ...listenerSites(ctx, best)]),
  };
}
