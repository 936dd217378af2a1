// The inspector's grouping of buses (pure: no DOM). With every EventEmitter of a process
// instrumented, buses named `ClassName#n` with two or more instances become one node
// ("Socket ×500") in the graph and one lane per event type in the timeline, and emitters whose
// listeners all come from Node's internals or node_modules gather under one collapsed "libraries"
// node. Both definitions are shared: `busClassOf` with the Subscriptions tree, `isLibraryBus` (the
// bus's kind and each listener's origin as the probe judged it, else its site) with the probe, the
// tree and the analyses. Groups are collapsed until the user expands them (their key then sits in `expandedBuses`).
import { isLibraryBus } from '../../../runtime-probe/src/protocol/site-origin';
import { busClassOf } from '../../../runtime-probe/src/analysis/busGroups';
import type { BusGroupView, SubscriptionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { BusKind } from '../../../runtime-probe/src/protocol/records';

/** The libraries group's key (a bus name no `Class#n` parse and no probe name can produce: it starts with NUL). */
export const LIBRARIES_GROUP = '\u0000libraries';

/** Instances an expanded class shows before "+N more"; expanding that shows up to `MAX_INSTANCES_EXPANDED`. */
export const MAX_INSTANCES_SHOWN = 50;
export const MAX_INSTANCES_EXPANDED = 1000;

/** True for the key of a group (a class or the libraries): such keys sit among bus names in the persisted expansion state. */
export function isGroupKey(name: string): boolean {
  return name.startsWith('\u0000');
}

export function classGroupKey(className: string, library: boolean): string {
  return `\u0000${library ? 'L' : 'A'}:${className}`;
}

/** What a group node's selection key (`c` + group key) stands for; null for any other key. */
export function parseGroupSelection(
  key: string,
): { readonly kind: 'libraries' } | { readonly kind: 'class'; readonly className: string; readonly library: boolean } | null {
  if (!key.startsWith('c\u0000')) return null;
  const k = key.slice(1);
  if (k === LIBRARIES_GROUP) return { kind: 'libraries' };
  // eslint-disable-next-line no-control-regex -- NUL separates a group key's parts: no name contains it
  const m = /^\u0000([AL]):(.+)$/.exec(k);
  return m === null ? null : { kind: 'class', className: m[2], library: m[1] === 'L' };
}

export interface BusRef {
  readonly id: number;
  readonly name: string;
  /** The host's group of this bus (`InspectorBusView.group`), when it sends groups. */
  readonly group?: string;
  /** What the bus is, when the probe said (an EventBus is never a library's). */
  readonly kind?: BusKind;
}

export type BusEntry =
  | { readonly kind: 'bus'; readonly bus: BusRef }
  /** `buses` are the instances the webview has; `view` (from the host) counts and sums all of them. */
  | { readonly kind: 'class'; readonly key: string; readonly className: string; readonly buses: readonly BusRef[]; readonly view?: BusGroupView };

export interface BusGrouping {
  /** The app's own entries, by name. */
  readonly app: readonly BusEntry[];
  /** Library entries, by name (empty: no libraries node). */
  readonly libraries: readonly BusEntry[];
  readonly libraryBuses: number;
  /** The host's libraries group (its figures), when it sends groups. */
  readonly librariesView?: BusGroupView;
}

/** `busClassOf` once per bus per build (a regex over 100,000 names is the build's cost otherwise). */
type Parsed = { readonly bus: BusRef; readonly className: string | null; readonly instance: number };

function entries(buses: readonly Parsed[], library: boolean): BusEntry[] {
  const classes = new Map<string, Parsed[]>();
  const out: BusEntry[] = [];
  for (const p of buses) {
    if (p.className === null) out.push({ kind: 'bus', bus: p.bus });
    else {
      let list = classes.get(p.className);
      if (list === undefined) classes.set(p.className, (list = []));
      list.push(p);
    }
  }
  for (const [className, list] of classes) {
    if (list.length === 1) out.push({ kind: 'bus', bus: list[0].bus });
    else
      out.push({
        kind: 'class',
        key: classGroupKey(className, library),
        className,
        buses: list.sort((a, b) => a.instance - b.instance || a.bus.id - b.bus.id).map((x) => x.bus),
      });
  }
  const name = (e: BusEntry): string => (e.kind === 'bus' ? e.bus.name : e.className);
  // Many user-named buses sort with a plain comparison; a few entries (classes) read better with localeCompare.
  const compare = out.length > 2000 ? (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0) : (x: string, y: string) => x.localeCompare(y);
  return out.sort((a, b) => compare(name(a), name(b)) || (a.kind === 'bus' ? a.bus.id : -1) - (b.kind === 'bus' ? b.bus.id : -1));
}

/** Groups buses by class, and library buses (judged by their live subscriptions' sites) apart. */
export function groupBuses(buses: readonly BusRef[], subscriptions: Iterable<SubscriptionView>): BusGrouping {
  const listeners = new Map<number, SubscriptionView[]>();
  for (const s of subscriptions) {
    if (!s.active) continue;
    let list = listeners.get(s.bus);
    if (list === undefined) listeners.set(s.bus, (list = []));
    list.push(s);
  }
  // The host sends the subscriptions of the types it sends (it caps them): an instance whose
  // listeners did not come along takes its class's verdict when the instances that did agree.
  const parsed: Parsed[] = [];
  const verdict = new Map<number, boolean>();
  const classVerdict = new Map<string, boolean>();
  for (const bus of buses) {
    const c = busClassOf(bus.name);
    const p: Parsed = { bus, className: c?.className ?? null, instance: c?.instance ?? 0 };
    parsed.push(p);
    const live = listeners.get(bus.id);
    if (live === undefined) continue;
    const v = isLibraryBus(bus.kind, live);
    verdict.set(bus.id, v);
    if (p.className !== null) classVerdict.set(p.className, (classVerdict.get(p.className) ?? true) && v);
  }
  const app: Parsed[] = [];
  const lib: Parsed[] = [];
  for (const p of parsed) {
    const v = verdict.get(p.bus.id) ?? (p.className !== null && classVerdict.get(p.className) === true);
    (v ? lib : app).push(p);
  }
  return { app: entries(app, false), libraries: entries(lib, true), libraryBuses: lib.length };
}

/**
 * The host's grouping (it sends group views and only some instances, each tagged with its group):
 * classes from the group views, in name order as `groupBuses` orders them, with the instances the
 * webview has; buses without a group are entries of their own.
 */
export function groupFromHost(buses: readonly BusRef[], groups: ReadonlyMap<string, BusGroupView>): BusGrouping {
  const members = new Map<string, Parsed[]>();
  const app: BusEntry[] = [];
  const lib: BusEntry[] = [];
  for (const bus of buses) {
    const key = bus.group;
    if (key === undefined || !groups.has(key)) {
      app.push({ kind: 'bus', bus });
      continue;
    }
    if (key === LIBRARIES_GROUP) {
      lib.push({ kind: 'bus', bus });
      continue;
    }
    let list = members.get(key);
    if (list === undefined) members.set(key, (list = []));
    list.push({ bus, className: null, instance: busClassOf(bus.name)?.instance ?? 0 });
  }
  for (const g of groups.values()) {
    if (g.key === LIBRARIES_GROUP || g.className === null) continue;
    const list = (members.get(g.key) ?? []).sort((a, b) => a.instance - b.instance || a.bus.id - b.bus.id);
    (g.library ? lib : app).push({ kind: 'class', key: g.key, className: g.className, buses: list.map((p) => p.bus), view: g });
  }
  const name = (e: BusEntry): string => (e.kind === 'bus' ? e.bus.name : e.className);
  // As `entries` sorts: localeCompare for a few entries, a plain comparison for many.
  const compare = app.length + lib.length > 2000 ? (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0) : (x: string, y: string) => x.localeCompare(y);
  const byName = (a: BusEntry, b: BusEntry): number => compare(name(a), name(b)) || (a.kind === 'bus' ? a.bus.id : -1) - (b.kind === 'bus' ? b.bus.id : -1);
  const libraries = groups.get(LIBRARIES_GROUP);
  return { app: app.sort(byName), libraries: lib.sort(byName), libraryBuses: libraries?.buses ?? 0, ...(libraries ? { librariesView: libraries } : {}) };
}

/** "Socket ×500". */
export function classLabel(className: string, instances: number): string {
  return `${className} ×${instances.toLocaleString('en-US')}`;
}

export const LIBRARIES_TITLE =
  'Emitters whose listeners all come from Node’s internals or node_modules: recorded at lifecycle detail (listeners added and removed, no dispatches) until you select one.';
