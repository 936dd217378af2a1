// The rows of the event-breakpoint picker: one per known event type, with a short description of
// where it occurs. With every EventEmitter instrumented a busy server has thousands of buses per type
// (`close` on every socket, request and response): naming each one made a description of tens of
// thousands of characters per row. Here a type's buses are counted and grouped by class
// ("Socket ×2,000"), the description names at most a few groups, the app's own first, and types
// that only library emitters know come after the app's. One pass over the models' (bus, type)
// pairs, strings built only for the few groups shown. No `vscode` here.
import { busClassOf } from '../../../runtime-probe/src/analysis/busGroups';
import type { BusState } from '../../../runtime-probe/src/analysis/model/entities';
import type { Model } from '../../../runtime-probe/src/analysis/model/model';
import { siteOrigin } from '../../../runtime-probe/src/protocol/site-origin';

/** Groups (a class or a single bus) a row's description names; the rest are counted. */
export const PICK_GROUPS_SHOWN = 3;
/** Longest bus or class name shown in a description (longer ones are cut with "…"). */
export const PICK_NAME_CHARS = 40;

export interface BreakpointPickEntry {
  readonly type: string;
  /** Buses (in every source) that know this type. */
  readonly buses: number;
  /**
   * True when no bus of this type has a listener from the app's own code (Node's internals,
   * node_modules, or no listener at all): listed after the app's types.
   */
  readonly library: boolean;
  /** "TicketHub#1 · Socket ×2,000 · +3 more": at most PICK_GROUPS_SHOWN groups. */
  readonly description: string;
}

/** What one attached app or open trace contributes: its model, and types known only from a paused snapshot. */
export interface BreakpointPickSource {
  readonly model: Model;
  readonly pausedTypes?: Iterable<string>;
}

interface BusFacts {
  /** A class (`Socket`) or, for a bus not named `Class#n`, the bus's own name. */
  readonly group: string;
  readonly isClass: boolean;
  readonly app: boolean;
}

interface GroupCount {
  readonly name: string;
  /** The first bus's own name: shown when the class has one instance here (`TicketHub#1`). */
  readonly first: string;
  readonly isClass: boolean;
  readonly app: boolean;
  count: number;
}

interface TypeAcc {
  buses: number;
  app: boolean;
  readonly groups: Map<string, GroupCount>;
}

/**
 * Does the app's own code listen to this bus? As the views decide (`isLibraryBus`): a listener whose
 * site is the app's, or listeners whose sites are all unknown, make it the app's; listeners that all
 * come from Node's internals or node_modules, or no listener at all (live or still registered when the
 * bus ended), do not.
 */
function hasAppListener(bus: BusState): boolean {
  let unknown = false;
  let known = false;
  for (const t of bus.types.values()) {
    for (const list of [t.live, t.retired]) {
      for (const s of list) {
        if (s.site === null) unknown = true;
        else if (siteOrigin(s.site.file) === 'app') return true;
        else known = true;
      }
    }
  }
  return unknown && !known;
}

const fmtCount = (n: number): string => n.toLocaleString('en-US');

function cut(name: string): string {
  return name.length <= PICK_NAME_CHARS ? name : `${name.slice(0, PICK_NAME_CHARS - 1)}…`;
}

function describe(acc: TypeAcc): string {
  // The app's groups first, then the biggest; a stable order by name among equals.
  const groups = [...acc.groups.values()].sort(
    (a, b) => Number(b.app) - Number(a.app) || b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const shown = groups.slice(0, PICK_GROUPS_SHOWN).map((g) => (g.isClass && g.count > 1 ? `${cut(g.name)} ×${fmtCount(g.count)}` : cut(g.first)));
  const rest = groups.length - shown.length;
  if (rest > 0) shown.push(`+${fmtCount(rest)} more`);
  return shown.join(' · ');
}

/**
 * One entry per event type the sources know (and per `extraTypes`, e.g. stored breakpoints not seen
 * yet), the app's types first, each side sorted by name. Work is linear in the (bus, type) pairs.
 */
export function breakpointPickEntries(sources: Iterable<BreakpointPickSource>, extraTypes: Iterable<string> = []): BreakpointPickEntry[] {
  const byType = new Map<string, TypeAcc>();
  const accOf = (type: string): TypeAcc => {
    let acc = byType.get(type);
    if (acc === undefined) byType.set(type, (acc = { buses: 0, app: false, groups: new Map() }));
    return acc;
  };
  for (const source of sources) {
    const facts = new Map<BusState, BusFacts>();
    for (const t of source.model.allTypes()) {
      if (t.name === '*') continue;
      const bus = t.busState;
      let f = facts.get(bus);
      if (f === undefined) {
        const c = busClassOf(bus.name);
        f = { group: c === null ? bus.name : c.className, isClass: c !== null, app: hasAppListener(bus) };
        facts.set(bus, f);
      }
      const acc = accOf(t.name);
      acc.buses++;
      if (f.app) acc.app = true;
      // Keyed by side too: the app's `Socket`s and the libraries' are told apart.
      const key = `${f.app ? 'a' : 'l'}${f.isClass ? 'c' : 'b'}${f.group}`;
      const g = acc.groups.get(key);
      if (g === undefined) acc.groups.set(key, { name: f.group, first: bus.name, isClass: f.isClass, app: f.app, count: 1 });
      else g.count++;
    }
    for (const type of source.pausedTypes ?? []) if (type !== '*') accOf(type);
  }
  for (const type of extraTypes) accOf(type);
  const out: BreakpointPickEntry[] = [];
  for (const [type, acc] of byType) out.push({ type, buses: acc.buses, library: !acc.app, description: describe(acc) });
  return out.sort((a, b) => Number(a.library) - Number(b.library) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}
