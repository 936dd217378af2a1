// The inspector feed's grouping of buses, kept on the host so the webview never receives one view
// per emitter: with every EventEmitter of a busy server instrumented there are 100,000+ buses named
// `Class#n`. A class with two or more instances on one side (the app's or the libraries') is one
// `BusGroupView` ("Socket ×40,000") with summed figures; the libraries group is one more. The
// webview gets the instances of a group only while the user has it expanded, a page at a time.
//
// Cost: `rebuild` is one pass over every bus (a snapshot, and every `rerankIntervalMs` for the
// figures and for buses whose listeners changed side); between rebuilds `add` places a new bus
// (found through its new event types) in O(1), so a delta touches only what changed.
// The class and library verdicts are the Subscriptions tree's (`busClassOf`, `LibraryClassifier`).
import type { BusState } from '../../../runtime-probe/src/analysis/model/entities';
import { aggregateBuses, busClassOf, LibraryClassifier } from '../../../runtime-probe/src/analysis/busGroups';
import { classGroupKey, classLabel, LIBRARIES_GROUP } from '../../../webview/src/graph/busGroups';
import type { BusGroupView } from '../../../runtime-probe/src/analysis/inspector-messages';

interface Member {
  readonly bus: BusState;
  readonly className: string | null;
  readonly instance: number;
  readonly library: boolean;
}

interface Group {
  readonly key: string;
  readonly className: string | null;
  readonly library: boolean;
  /** In arrival order; sorted by instance when a page is read (`sorted` false after an add). */
  readonly members: Member[];
  sorted: boolean;
  buses: number;
  disposed: number;
  types: number;
  listeners: number;
  dispatches: number;
  rate: number;
}

export class BusGrouper {
  private readonly classifier = new LibraryClassifier();
  private readonly members = new Map<number, Member>();
  /** Class groups by key (a class with one instance is one too, but not a group: `groupKeyOf`). */
  private readonly classes = new Map<string, Group>();
  /** Every library bus; its members are the library buses that belong to no class group. */
  private libraries = emptyGroup(LIBRARIES_GROUP, null, true);
  /** Bumped when a bus changed group (new buses excepted): the webview's grouping changed shape. */
  version = 0;

  /** Regroups every bus from scratch and recomputes the figures (one pass over the model's buses). */
  rebuild(buses: Iterable<BusState>, now: number): void {
    this.members.clear();
    this.classes.clear();
    this.libraries = emptyGroup(LIBRARIES_GROUP, null, true);
    for (const b of buses) this.place(b);
    for (const g of this.classes.values()) refigure(g, now);
    refigureLibraries(this.libraries, this.members.values(), now);
    this.version++;
  }

  /** A bus the grouping has not seen (cheap: its figures join the group's). Returns the bus it regrouped, if any. */
  add(bus: BusState, now: number): BusState | null {
    if (this.members.has(bus.id)) return null;
    const m = this.place(bus);
    const a = aggregateBuses([bus], now);
    const g = m.className === null ? undefined : this.classes.get(classGroupKey(m.className, m.library));
    for (const target of [g, m.library ? this.libraries : undefined]) {
      if (target === undefined) continue;
      target.types += a.types;
      target.listeners += a.listeners;
      target.dispatches += a.dispatches;
      target.rate += a.rate;
      target.disposed += a.disposed;
    }
    if (m.library) this.libraries.buses++;
    // The second instance of a class turns the first from a bus of its own into a group member.
    return g !== undefined && g.members.length === 2 ? g.members[0].bus : null;
  }

  has(busId: number): boolean {
    return this.members.has(busId);
  }

  /** The group a bus is drawn in: a class group's key, the libraries group's, or '' (a node of its own). */
  groupKeyOf(busId: number): string {
    const m = this.members.get(busId);
    if (m === undefined) return '';
    if (m.className !== null && (this.classes.get(classGroupKey(m.className, m.library))?.members.length ?? 0) >= 2)
      return classGroupKey(m.className, m.library);
    return m.library ? LIBRARIES_GROUP : '';
  }

  /** The views of every group (classes with two or more instances, and the libraries when any). */
  views(): BusGroupView[] {
    const out: BusGroupView[] = [];
    if (this.libraries.buses > 0) out.push(view(this.libraries, 'libraries'));
    for (const g of this.classes.values()) if (g.members.length >= 2) out.push(view(g, classLabel(g.className!, g.members.length)));
    return out;
  }

  /** Buses of their own (in no group): the webview always gets these. */
  *ungrouped(): IterableIterator<BusState> {
    for (const m of this.members.values()) if (!m.library && this.groupKeyOf(m.bus.id) === '') yield m.bus;
  }

  /**
   * The instances the webview shows of an expanded group: a class's first `limit` by instance
   * number, or for the libraries group its buses that are in no class.
   */
  page(key: string, limit: number): BusState[] {
    const g = key === LIBRARIES_GROUP ? this.libraries : this.classes.get(key);
    if (g === undefined) return [];
    if (!g.sorted) {
      g.members.sort((a, b) => a.instance - b.instance || a.bus.id - b.bus.id);
      g.sorted = true;
    }
    const out: BusState[] = [];
    for (const m of g.members) {
      if (out.length >= limit) break;
      if (key !== LIBRARIES_GROUP || this.groupKeyOf(m.bus.id) === LIBRARIES_GROUP) out.push(m.bus);
    }
    return out;
  }

  /** Library buses (the focus an expanded libraries group asks for). */
  libraryBuses(): number[] {
    const out: number[] = [];
    for (const m of this.members.values()) if (m.library) out.push(m.bus.id);
    return out;
  }

  /** The buses of one class group. */
  classBuses(key: string): number[] {
    return (this.classes.get(key)?.members ?? []).map((m) => m.bus.id);
  }

  private place(bus: BusState): Member {
    const c = busClassOf(bus.name);
    const library = this.classifier.isLibrary(bus);
    const m: Member = { bus, className: c?.className ?? null, instance: c?.instance ?? 0, library };
    this.members.set(bus.id, m);
    if (m.className !== null) {
      const key = classGroupKey(m.className, library);
      let g = this.classes.get(key);
      if (g === undefined) this.classes.set(key, (g = emptyGroup(key, m.className, library)));
      g.members.push(m);
      g.buses++;
      g.sorted = false;
    }
    // The libraries group's own list holds the library buses of no class (and class members, filtered on read).
    if (library) this.libraries.members.push(m);
    return m;
  }
}

function emptyGroup(key: string, className: string | null, library: boolean): Group {
  return { key, className, library, members: [], sorted: true, buses: 0, disposed: 0, types: 0, listeners: 0, dispatches: 0, rate: 0 };
}

function refigure(g: Group, now: number): void {
  const a = aggregateBuses(
    g.members.map((m) => m.bus),
    now,
  );
  Object.assign(g, { buses: a.buses, disposed: a.disposed, types: a.types, listeners: a.listeners, dispatches: a.dispatches, rate: a.rate });
}

function refigureLibraries(g: Group, members: Iterable<Member>, now: number): void {
  const buses: BusState[] = [];
  for (const m of members) if (m.library) buses.push(m.bus);
  const a = aggregateBuses(buses, now);
  Object.assign(g, { buses: a.buses, disposed: a.disposed, types: a.types, listeners: a.listeners, dispatches: a.dispatches, rate: a.rate });
}

function view(g: Group, label: string): BusGroupView {
  return {
    key: g.key,
    label,
    className: g.className,
    library: g.library,
    buses: g.key === LIBRARIES_GROUP ? g.buses : g.members.length,
    disposed: g.disposed,
    types: g.types,
    listeners: g.listeners,
    dispatches: g.dispatches,
    ratePerSecond: g.rate,
  };
}
