// What every analysis receives, and small helpers they share (names, sites, near-miss lookup).
import { LibraryClassifier } from '../busGroups';
import type { SiteInfo } from '../../protocol/index';
import type { EventTypeState } from '../model/entities';
import type { Model } from '../model/model';
import type { LeakMonitor } from './leakMonitor';
import type { AnalysisOptions } from './options';
import type { RunDeadline } from './runDeadline';
import { NearMissSearch, POOL_ACCEPTS, type NearMissMatch, type NearMissPoolKind } from './nearMissSearch';
import type { NeverDispatchedFinding } from './neverDispatched';
import { TypeFamilies } from './typeGroups';
import { TypeCandidates, TypeScan, type TypeChanges } from './typeScan';
import type { UnheardFinding } from './unheardDispatch';
import type { NearMissEvidence, TypeRef, WarningDraft } from './warning';

/** State an analysis keeps between runs (the analyzer owns it; `reset` empties it). */
export interface AnalysisState {
  readonly leakMonitors: Map<string, LeakMonitor>;
  /** Per-type listener-count monitors, by type index (no key string per type per run). */
  readonly typeLeakMonitors: Map<number, LeakMonitor>;
  /** Types with enough listeners (or a monitor, or Node's warning) for listener growth to judge. */
  readonly growthCandidates: TypeCandidates;
  /** Names never change: tokens, pools and what each type was compared with carry over between runs. */
  readonly nearMisses: NearMissSearch;
  /** Each type's name family (`user.#.updated`), for grouping many warnings into one. */
  readonly families: TypeFamilies;
  /** The per-type analyses' findings, kept between runs and updated for what changed (typeScan.ts). */
  readonly unheardScan: TypeScan<UnheardFinding>;
  readonly neverDispatchedScan: TypeScan<NeverDispatchedFinding>;
  /** Whether a bus is a library's (`libraries`' verdict), kept until one of its types changes. */
  readonly libraryBuses: Map<number, boolean>;
  /** Library emitters (the views' verdict: a bus between two listeners keeps its last one). */
  readonly libraries: LibraryClassifier;
}

export function emptyAnalysisState(): AnalysisState {
  return {
    leakMonitors: new Map(),
    typeLeakMonitors: new Map(),
    growthCandidates: new TypeCandidates(),
    nearMisses: new NearMissSearch(),
    families: new TypeFamilies(),
    unheardScan: new TypeScan(),
    neverDispatchedScan: new TypeScan(),
    libraryBuses: new Map(),
    libraries: new LibraryClassifier(),
  };
}

export interface AnalysisContext {
  readonly model: Model;
  readonly options: AnalysisOptions;
  /** Record time the analysis judges at (the model's latest time). */
  readonly now: number;
  readonly state: AnalysisState;
  /** The types that changed since the previous run (from the model's journal). */
  readonly changes: TypeChanges;
  /** Types each per-type analysis may examine in this run. */
  readonly typeBudget: number;
  /** When the budgeted parts of this run must stop (after a minimum of work each). */
  readonly deadline: RunDeadline;
}

export type Analysis = (ctx: AnalysisContext) => WarningDraft[];

export function busName(model: Model, bus: number): string {
  return model.buses.get(bus)?.name ?? `bus ${bus}`;
}

export function typeRef(model: Model, t: EventTypeState): TypeRef {
  return { bus: t.bus, busName: busName(model, t.bus), type: t.name };
}

/** `"player.health" on gameplay` */
export function typeName(model: Model, t: EventTypeState): string {
  return `"${t.name}" on ${busName(model, t.bus)}`;
}

/** The label when there is one (`HealthBar.onHealthChanged`), else `subscription #12`. */
export function subName(s: { readonly id: number; readonly label: string | null }): string {
  return s.label ?? `subscription #${s.id}`;
}

export function siteText(site: SiteInfo | null): string {
  if (site === null) return 'an unknown site';
  const file = site.file.replace(/^.*[\\/]/, '');
  return `${file}:${site.line}${site.functionName ? ` (${site.functionName})` : ''}`;
}

/** A subscription's site, or why it has none when it was made before the probe started. */
export function subscriptionSiteText(s: { readonly site: SiteInfo | null; readonly beforeProbe: boolean }): string {
  return s.site === null && s.beforeProbe ? 'subscribed before the probe started' : siteText(s.site);
}

export function ms(n: number): string {
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)} s`;
  if (n >= 10) return `${Math.round(n)} ms`;
  if (n >= 1) return `${n.toFixed(1)} ms`;
  return `${(n * 1000).toFixed(0)} µs`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `12,345 types`: plural with thousands separators, for counts that can be large. */
export function pluralCount(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Distinct non-null sites in order, at most `max`. */
export function uniqueSites(sites: Iterable<SiteInfo | null>, max = 5): SiteInfo[] {
  const out: SiteInfo[] = [];
  const seen = new Set<string>();
  for (const s of sites) {
    if (s === null) continue;
    const k = `${s.file}:${s.line}:${s.column}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
    if (out.length >= max) break;
  }
  return out;
}

const NO_NEAR_MISSES: readonly NearMissEvidence[] = Object.freeze([]);

/**
 * Types similar to `t` from `pool` that count now ("has listeners" / "was dispatched"): similar
 * names on the same bus, and the same name on another bus. Best first, at most `max`. Within a
 * capped run this may be what was found so far (see NearMissSearch).
 */
export function findNearMisses(ctx: AnalysisContext, t: EventTypeState, pool: NearMissPoolKind, max = 3): readonly NearMissEvidence[] {
  const o = ctx.options.unheardDispatch;
  return nearMissEvidence(ctx.model, ctx.state.nearMisses.search(ctx.model, t, pool, o.nearMissMaxDistance, o.nearMissMinScore), pool, max);
}

/**
 * `findNearMisses` from what the search found before, with no search work: for a warning built
 * from a kept finding, with the near misses' listener and dispatch counts as they are now.
 */
export function currentNearMisses(ctx: AnalysisContext, t: EventTypeState, pool: NearMissPoolKind, max = 3): readonly NearMissEvidence[] {
  return nearMissEvidence(ctx.model, ctx.state.nearMisses.matchesOf(t, pool), pool, max);
}

function nearMissEvidence(model: Model, matches: readonly NearMissMatch[], pool: NearMissPoolKind, max: number): readonly NearMissEvidence[] {
  // Most of 100,000 searched types have no near miss: one shared empty list, not one per type per run.
  if (matches.length === 0) return NO_NEAR_MISSES;
  const accepts = POOL_ACCEPTS[pool];
  const out: NearMissEvidence[] = [];
  for (const { index, reason, score } of matches) {
    const other = model.typeAt(index);
    if (other === undefined || !accepts(other)) continue;
    out.push({
      bus: other.bus,
      busName: busName(model, other.bus),
      type: other.name,
      reason,
      score: round(score, 3),
      listeners: other.registeredCount,
      dispatches: other.dispatches,
    });
  }
  if (out.length === 0) return NO_NEAR_MISSES;
  out.sort((a, b) => b.score - a.score || b.listeners - a.listeners || (a.type < b.type ? -1 : 1));
  return out.slice(0, max);
}

export function nearMissText(m: NearMissEvidence, t: EventTypeState): string {
  switch (m.reason) {
    case 'other-bus':
      return `the same name on the "${m.busName}" bus`;
    case 'same-words':
      return `"${m.type}" (the same words, spelled differently)`;
    case 'reordered-words':
      return `"${m.type}" (the same words in another order)`;
    case 'edit-distance':
      return `"${m.type}"${m.bus !== t.bus ? ` on the "${m.busName}" bus` : ''}`;
  }
}
