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
import { isLibraryBus } from '../../protocol/site-origin';
import type { BusState } from '../model/entities';
import type { AnalysisContext } from './context';
import { busName, findNearMisses, nearMissText, plural, pluralCount, siteText, typeName, typeRef, uniqueSites } from './context';
import { instanceClass, META_EVENTS, withoutSiblingInstances } from './emitterEvents';
import { groupEvidence, groupExamples, groupFindings, groupLabel, groupWarningId, type FindingGroup, type TypeFinding } from './typeGroups';
import type { NearMissEvidence, WarningDraft } from './warning';

interface UnheardFinding extends TypeFinding {
  readonly nearMisses: readonly NearMissEvidence[];
}

export function analyzeUnheardDispatch(ctx: AnalysisContext): WarningDraft[] {
  const { model, options } = ctx;
  const o = options.unheardDispatch;
  const findings: UnheardFinding[] = [];
  const library = new LibraryBuses(ctx);
  for (const t of model.allTypes()) {
    if (t.isWildcard || t.unheard < Math.max(1, o.minUnheard) || META_EVENTS.has(t.name)) continue;
    // Holds while the latest dispatch of the type went unheard.
    if (t.lastUnheardAt < t.lastHeardAt) continue;
    if (library.has(t.bus)) continue;
    const name = busName(model, t.bus);
    const emitterClass = instanceClass(name);
    const found = withoutSiblingInstances(name, findNearMisses(ctx, t, 'listened')).filter((m) => !library.has(m.bus));
    const nearMisses = emitterClass === null ? found : found.filter((m) => m.bus === t.bus || (m.reason !== 'other-bus' && instanceClass(m.busName) === emitterClass));
    if (nearMisses.length === 0 && (emitterClass !== null || !o.reportWithoutNearMiss)) continue;
    findings.push({ t, typo: nearMisses.length > 0, nearMisses });
  }
  const { singles, groups } = groupFindings(findings, ctx.state.families);
  const out: WarningDraft[] = singles.map((f) => singleWarning(ctx, f));
  for (const g of groups) out.push(groupWarning(ctx, g));
  return out;
}

/** Which buses are libraries' (`isLibraryBus` over their live listeners' sites), each judged once per run. */
class LibraryBuses {
  private readonly verdicts = new Map<number, boolean>();
  constructor(private readonly ctx: AnalysisContext) {}

  has(busId: number): boolean {
    let verdict = this.verdicts.get(busId);
    if (verdict === undefined) {
      const bus = this.ctx.model.buses.get(busId);
      verdict = bus !== undefined && isLibraryBus(liveSiteFiles(bus));
      this.verdicts.set(busId, verdict);
    }
    return verdict;
  }
}

function* liveSiteFiles(bus: BusState): Iterable<string | undefined> {
  for (const t of bus.types.values()) for (const s of t.live) yield s.site?.file;
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

function singleWarning(ctx: AnalysisContext, { t, nearMisses }: UnheardFinding): WarningDraft {
  const { model } = ctx;
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

/** The members' dispatch sites (the first hundred), then the listeners' of the example's near miss. */
function groupSites(ctx: AnalysisContext, group: FindingGroup<UnheardFinding>, best: NearMissEvidence | undefined): (SiteInfo | null)[] {
  const sites: (SiteInfo | null)[] = [];
  for (const f of group.members) {
    for (const site of f.t.dispatchSites) sites.push(site);
    if (sites.length >= 100) break;
  }
  for (const site of listenerSites(ctx, best)) sites.push(site);
  return sites;
}

/** One warning for many types: counts over the group, an example (a typo when there is one) in words. */
function groupWarning(ctx: AnalysisContext, group: FindingGroup<UnheardFinding>): WarningDraft {
  const { model } = ctx;
  let unheard = 0;
  let dispatches = 0;
  let lastUnheardAt = -Infinity;
  for (const { t } of group.members) {
    unheard += t.unheard;
    dispatches += t.dispatches;
    if (t.lastUnheardAt > lastUnheardAt) lastUnheardAt = t.lastUnheardAt;
  }
  const example = group.members[0];
  const best = example.nearMisses[0];
  const exampleSite = example.t.dispatchSites[0] ?? null;
  const label = groupLabel(group, busName(model, group.bus));
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
    evidence: { unheard, dispatches, lastUnheardAt, nearMisses: example.nearMisses, group: groupEvidence(group) },
    subjects: {
      buses: [group.bus],
      types: [...examples.map((f) => typeRef(model, f.t)), ...example.nearMisses.map((m) => ({ bus: m.bus, busName: m.busName, type: m.type }))],
      subscriptions: [],
    },
    sites: uniqueSites(groupSites(ctx, group, best)),
  };
}
