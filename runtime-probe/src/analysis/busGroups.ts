// How the *Subscriptions* tree (and the focus it asks of the probe) groups a process's buses, without
// `vscode`. With every EventEmitter instrumented a busy server has hundreds of thousands of buses
// named `ClassName#n` (`Socket#12`): a class with at least two instances becomes one node
// ("Socket ×500") whose children are its instances, a page at a time. Buses whose listeners all come
// from Node's internals or node_modules (`isLibraryBus`, the one definition in the protocol: the bus's kind
// and each listener's origin as the probe judged it, else its site) go into one collapsed "libraries"
// group; the app's own buses, and buses with user-given names, show as before. The analyses use the
// same classifier (no dispatch-dependent findings on library emitters: they record lifecycle only).
import { isLibraryBus } from '../protocol/site-origin';
import type { BusState, SubscriptionState } from './model/entities';

/** Buses (or classes) a level lists at once; "N more…" opens the next page. */
export const BUS_PAGE_SIZE = 500;

/** `ClassName#n`, as the probe names an emitter it instruments without a given name. */
const INSTANCE_NAME = /^([A-Za-z_$][\w$]*)#(\d+)$/;

export interface BusClassName {
  readonly className: string;
  readonly instance: number;
}

/** The class and instance number of a bus named `ClassName#n`; null for any other name. */
export function busClassOf(name: string): BusClassName | null {
  const m = INSTANCE_NAME.exec(name);
  return m === null ? null : { className: m[1], instance: Number(m[2]) };
}

export type BusEntry =
  | { readonly kind: 'bus'; readonly bus: BusState }
  /** Two or more instances of one class, in instance order. */
  | { readonly kind: 'class'; readonly className: string; readonly buses: readonly BusState[] };

export interface BusGrouping {
  /** The app's own buses: classes and single buses, by name. */
  readonly app: readonly BusEntry[];
  /** Library buses, grouped the same way. */
  readonly libraries: readonly BusEntry[];
  readonly libraryBuses: number;
  /** The class group of a class name, per side. */
  classOf(className: string, library: boolean): Extract<BusEntry, { kind: 'class' }> | undefined;
  isLibrary(busId: number): boolean;
}

/** A bus's live subscriptions, every type's (no list built: 200,000 buses per refresh). */
function* liveListeners(bus: BusState): IterableIterator<SubscriptionState> {
  for (const t of bus.types.values()) if (t.live.size !== 0) yield* t.live;
}

function hasLiveListener(bus: BusState): boolean {
  for (const t of bus.types.values()) if (t.live.size !== 0) return true;
  return false;
}

/**
 * Decides library buses (`isLibraryBus` over the bus's kind and its live subscriptions). A bus that
 * has no live listener now keeps its last verdict, so a socket between requests does not jump out
 * of the libraries group.
 */
export class LibraryClassifier {
  private readonly verdicts = new WeakMap<BusState, boolean>();

  isLibrary(bus: BusState): boolean {
    if (!hasLiveListener(bus)) return this.verdicts.get(bus) ?? false;
    const verdict = isLibraryBus(bus.kind, liveListeners(bus));
    if (this.verdicts.get(bus) !== verdict) this.verdicts.set(bus, verdict);
    return verdict;
  }
}

function entryName(e: BusEntry): string {
  return e.kind === 'bus' ? e.bus.name : e.className;
}

function entries(buses: readonly BusState[]): BusEntry[] {
  const classes = new Map<string, { n: number; bus: BusState }[]>();
  const singles: BusState[] = [];
  for (const b of buses) {
    const c = busClassOf(b.name);
    if (c === null) singles.push(b);
    else {
      let list = classes.get(c.className);
      if (list === undefined) classes.set(c.className, (list = []));
      list.push({ n: c.instance, bus: b });
    }
  }
  const out: BusEntry[] = [];
  for (const bus of singles) out.push({ kind: 'bus', bus });
  for (const [className, list] of classes) {
    if (list.length === 1) out.push({ kind: 'bus', bus: list[0].bus });
    else out.push({ kind: 'class', className, buses: list.sort((a, b) => a.n - b.n || a.bus.id - b.bus.id).map((x) => x.bus) });
  }
  // Classes and buses by name; a class sorts by its name, as "Socket" among "server" and "ui".
  return out.sort((a, b) => {
    const x = entryName(a);
    const y = entryName(b);
    if (x !== y) return x < y ? -1 : 1;
    return (a.kind === 'bus' ? a.bus.id : -1) - (b.kind === 'bus' ? b.bus.id : -1);
  });
}

/** Groups buses by class and into the app's and the libraries' (one pass, one sort per side). */
export function groupBuses(buses: Iterable<BusState>, classifier: LibraryClassifier): BusGrouping {
  const app: BusState[] = [];
  const lib: BusState[] = [];
  const libraryIds = new Set<number>();
  for (const b of buses) {
    if (classifier.isLibrary(b)) {
      lib.push(b);
      libraryIds.add(b.id);
    } else app.push(b);
  }
  const appEntries = entries(app);
  const libEntries = entries(lib);
  const index = (list: readonly BusEntry[]) => {
    const m = new Map<string, Extract<BusEntry, { kind: 'class' }>>();
    for (const e of list) if (e.kind === 'class') m.set(e.className, e);
    return m;
  };
  const appClasses = index(appEntries);
  const libClasses = index(libEntries);
  return {
    app: appEntries,
    libraries: libEntries,
    libraryBuses: lib.length,
    classOf: (className, library) => (library ? libClasses : appClasses).get(className),
    isLibrary: (busId) => libraryIds.has(busId),
  };
}

export interface Page<T> {
  readonly items: readonly T[];
  /** Index of the first item after this page (where "N more" continues). */
  readonly next: number;
  /** Items after this page (0: no "more" node). */
  readonly rest: number;
}

/** The page of `list` starting at `offset`. */
export function pageOf<T>(list: readonly T[], offset: number, pageSize = BUS_PAGE_SIZE): Page<T> {
  if (!Number.isInteger(offset) || offset < 0) throw new TypeError(`pageOf: offset must be a non-negative integer, got ${offset}`);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new TypeError(`pageOf: pageSize must be a positive integer, got ${pageSize}`);
  const end = Math.min(list.length, offset + pageSize);
  return { items: list.slice(offset, end), next: end, rest: list.length - end };
}

export interface BusAggregate {
  readonly buses: number;
  readonly disposed: number;
  readonly types: number;
  readonly listeners: number;
  readonly dispatches: number;
  /** Dispatches per second now, summed. */
  readonly rate: number;
}

/** Sums over buses (a class group's figures). Reads a type's rate window only when it dispatched recently. */
export function aggregateBuses(buses: Iterable<BusState>, now: number): BusAggregate {
  let n = 0;
  let disposed = 0;
  let types = 0;
  let listeners = 0;
  let dispatches = 0;
  let rate = 0;
  for (const b of buses) {
    n++;
    if (b.disposedAt !== null) disposed++;
    types += b.types.size;
    dispatches += b.dispatches;
    for (const t of b.types.values()) {
      listeners += t.live.size;
      if (t.lastDispatchAt >= now - t.rate.windowMs) rate += t.rate.ratePerSecond(now);
    }
  }
  return { buses: n, disposed, types, listeners, dispatches, rate };
}

/** The "libraries" group's description: what the user gets by expanding it. */
export const LIBRARIES_TOOLTIP =
  'Emitters whose listeners all come from Node’s internals or node_modules. They record lifecycle only (listeners added and removed, no dispatches) until you expand this group or select one of them.';
