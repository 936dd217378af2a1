// The inspector's grouping of buses (pure: no DOM). With every EventEmitter of a process
// instrumented, buses named `ClassName#n` with two or more instances become one node
// ("Socket ×500") in the graph and one lane per event type in the timeline, and emitters whose
// listeners all come from Node's internals or node_modules gather under one collapsed "libraries"
// node. Both definitions are shared: `busClassOf` with the Subscriptions tree, `isLibraryBus` with the
// probe. Groups are collapsed until the user expands them (their key then sits in `expandedBuses`).
import { isLibraryBus } from '../../../runtime-probe/src/protocol/site-origin';
import { busClassOf } from '../../../extension/src/views/busGroups';
import type { SubscriptionView } from '../messages';

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
export function parseGroupSelection(key: string): { readonly kind: 'libraries' } | { readonly kind: 'class'; readonly className: string; readonly library: boolean } | null {
  if (!key.startsWith('c\u0000')) return null;
  const k = key.slice(1);
  if (k === LIBRARIES_GROUP) return { kind: 'libraries' };
  const m = /^\u0000([AL]):(.+)$/.exec(k);
  return m === null ? null : { kind: 'class', className: m[2], library: m[1] === 'L' };
}

export interface BusRef {
  readonly id: number;
  readonly name: string;
}

export type BusEntry =
  | { readonly kind: 'bus'; readonly bus: BusRef }
  | { readonly kind: 'class'; readonly key: string; readonly className: string; readonly buses: readonly BusRef[] };

export interface BusGrouping {
  /** The app's own entries, by name. */
  readonly app: readonly BusEntry[];
  /** Library entries, by name (empty: no libraries node). */
  readonly libraries: readonly BusEntry[];
  readonly libraryBuses: number;
}

function entries(buses: readonly BusRef[], library: boolean): BusEntry[] {
  const classes = new Map<string, { n: number; bus: BusRef }[]>();
  const out: BusEntry[] = [];
  for (const b of buses) {
    const c = busClassOf(b.name);
    if (c === null) out.push({ kind: 'bus', bus: b });
    else {
      let list = classes.get(c.className);
      if (list === undefined) classes.set(c.className, (list = []));
      list.push({ n: c.instance, bus: b });
    }
  }
  for (const [className, list] of classes) {
    if (list.length === 1) out.push({ kind: 'bus', bus: list[0].bus });
    else out.push({ kind: 'class', key: classGroupKey(className, library), className, buses: list.sort((a, b) => a.n - b.n || a.bus.id - b.bus.id).map((x) => x.bus) });
  }
  const name = (e: BusEntry): string => (e.kind === 'bus' ? e.bus.name : e.className);
  return out.sort((a, b) => name(a).localeCompare(name(b)) || (a.kind === 'bus' ? a.bus.id : -1) - (b.kind === 'bus' ? b.bus.id : -1));
}

/** Groups buses by class, and library buses (judged by their live subscriptions' sites) apart. */
export function groupBuses(buses: readonly BusRef[], subscriptions: Iterable<SubscriptionView>): BusGrouping {
  const files = new Map<number, (string | undefined)[]>();
  for (const s of subscriptions) {
    if (!s.active) continue;
    let list = files.get(s.bus);
    if (list === undefined) files.set(s.bus, (list = []));
    list.push(s.site?.file);
  }
  // The host sends the subscriptions of the types it sends (it caps them): an instance whose
  // listeners did not come along takes its class's verdict when the instances that did agree.
  const verdict = new Map<number, boolean>();
  const classVerdict = new Map<string, boolean>();
  for (const b of buses) {
    const sites = files.get(b.id);
    if (sites === undefined) continue;
    const v = isLibraryBus(sites);
    verdict.set(b.id, v);
    const c = busClassOf(b.name);
    if (c !== null) classVerdict.set(c.className, (classVerdict.get(c.className) ?? true) && v);
  }
  const app: BusRef[] = [];
  const lib: BusRef[] = [];
  for (const b of buses) {
    const v = verdict.get(b.id) ?? (classVerdict.get(busClassOf(b.name)?.className ?? '') === true);
    (v ? lib : app).push(b);
  }
  return { app: entries(app, false), libraries: entries(lib, true), libraryBuses: lib.length };
}

/** "Socket ×500". */
export function classLabel(className: string, instances: number): string {
  return `${className} ×${instances.toLocaleString('en-US')}`;
}

export const LIBRARIES_TITLE = 'Emitters whose listeners all come from Node’s internals or node_modules: recorded at lifecycle detail (listeners added and removed, no dispatches) until you select one.';
