// Timeline lanes: one per event type that has dispatches (as the lane of a top-level dispatch),
// grouped by bus, buses and types in name order. A lane is as tall as its deepest nesting.
// At most `maxLanes` lanes: beyond that the most active types keep theirs and the rest share one
// "other types (N)" lane at the bottom — an app with 100,000 event types still gets a few hundred
// lanes, and types the host did not describe (it caps what it sends) always go there.
// With worker threads (the session lists more than one), the lanes form one group per thread — the
// main thread first — each under a header band; a thread with no lanes keeps its header, the place
// its cross-thread flows start from.

import type { InspectorStore } from '../store/inspectorStore';
import { MAX_LANE_ROWS } from '../store/timelineStore';
import { threadGroups, threadOfBus } from '../store/threads';

export const LANE_ROW_HEIGHT = 16;
export const LANE_PADDING = 4;
/** Lanes shown at most (the last one being "other types" when there are more). */
export const DEFAULT_MAX_LANES = 200;
/** `Lane.type` of the "other types" lane. */
export const OTHER_LANE = -1;
/** Height of a thread's header band, px. */
export const THREAD_HEADER_HEIGHT = 18;

export interface Lane {
  /** Type index; OTHER_LANE for the lane that gathers the types without their own. */
  readonly type: number;
  readonly bus: number;
  readonly name: string;
  readonly busName: string;
  /** Rows (1 + deepest depth, capped). */
  readonly rows: number;
  /** Offset from the top of the lanes area, px. */
  readonly top: number;
  readonly height: number;
  /** Position in `LaneLayout.lanes`. */
  readonly slot: number;
  /** Colour slot: the bus's position among the buses shown. */
  readonly colour: number;
  /** Types drawn in this lane (1, or N for "other types"). */
  readonly types: number;
  /** Thread of the lane's bus (0: main); -1 for the "other types" lane, outside every thread's group. */
  readonly thread: number;
}

/** A thread's lane group: its header band, then its lanes. */
export interface ThreadBand {
  readonly id: number;
  /** "main thread" or "worker <name>". */
  readonly label: string;
  readonly exited: boolean;
  /** Offset of the header from the top of the lanes area, px (the lanes follow it). */
  readonly top: number;
  /** Header and lanes, px. */
  readonly height: number;
  readonly lanes: number;
}

export interface LaneLayout {
  readonly lanes: readonly Lane[];
  /** Lane by type index (sparse); the types without a lane of their own map to the "other" lane. */
  readonly byType: (Lane | undefined)[];
  readonly totalHeight: number;
  /** One per thread, in drawing order; empty when the session has one thread (no headers). */
  readonly threads: readonly ThreadBand[];
}

interface Entry {
  type: number;
  bus: number;
  name: string;
  busName: string;
  rows: number;
  thread: number;
  /** A group's lane: the type indices drawn in it (its `type` is then a negative id). */
  members?: number[];
  rate?: number;
  dispatches?: number;
}

/** `Lane.type` of group lanes count down from here (never a type index, never OTHER_LANE). */
const GROUP_LANE_BASE = -2;

/**
 * `busGroupOf` names the buses inside a collapsed group (a class of emitters, the libraries): their
 * types share one lane per event type name ("Socket ×500 · data") instead of one per instance.
 */
export function layoutLanes(
  store: InspectorStore,
  include: (type: number) => boolean,
  maxLanes = DEFAULT_MAX_LANES,
  busGroupOf?: ReadonlyMap<number, { readonly key: string; readonly label: string }>,
): LaneLayout {
  if (!Number.isInteger(maxLanes) || maxLanes < 2) throw new TypeError(`layoutLanes: maxLanes must be an integer ≥ 2, got ${maxLanes}`);
  const depth = store.timeline.laneDepth;
  let entries: Entry[] = [];
  /** Types the store has no record of (the host did not send them): never a lane of their own. */
  const unknown: number[] = [];
  let unknownRows = 0;
  const grouped = new Map<string, Entry>();
  /** A group's lanes share a (negative) bus id: one colour, one label. */
  const groupBus = new Map<string, number>();
  for (const [type, d] of depth) {
    if (!include(type)) continue;
    const t = store.types.get(type);
    if (t === undefined && depth.size > maxLanes) {
      unknown.push(type);
      if (d + 1 > unknownRows) unknownRows = d + 1;
      continue;
    }
    const bus = t?.bus ?? -1;
    const group = t !== undefined && busGroupOf !== undefined ? busGroupOf.get(bus) : undefined;
    if (group !== undefined && t !== undefined) {
      const key = `${group.key}\u0000${t.type}`;
      let g = grouped.get(key);
      if (g === undefined) {
        let busId = groupBus.get(group.key);
        if (busId === undefined) groupBus.set(group.key, (busId = GROUP_LANE_BASE - groupBus.size));
        grouped.set(
          key,
          (g = {
            type: GROUP_LANE_BASE - grouped.size,
            bus: busId,
            name: t.type,
            busName: group.label,
            rows: 0,
            thread: threadOfBus(store, bus),
            members: [],
            rate: 0,
            dispatches: 0,
          }),
        );
        entries.push(g);
      }
      g.members!.push(type);
      g.rows = Math.min(MAX_LANE_ROWS, Math.max(g.rows, d + 1));
      g.rate! += t.ratePerSecond;
      g.dispatches! += t.dispatches;
      continue;
    }
    entries.push({ type, bus, name: t?.type ?? `type #${type}`, busName: bus >= 0 ? store.busName(bus) : '', rows: d + 1, thread: threadOfBus(store, bus) });
  }
  let rest: Entry[] = [];
  // Over the cap (or with undescribed types): the most active keep a lane — by rate, then
  // dispatches, then first seen — and the last lane gathers the rest.
  const keep = maxLanes - 1;
  if ((unknown.length > 0 || entries.length > maxLanes) && entries.length > keep) {
    const ranked = entries.map((e) => {
      const t = store.types.get(e.type);
      return { e, rate: e.rate ?? t?.ratePerSecond ?? -1, dispatches: e.dispatches ?? t?.dispatches ?? -1 };
    });
    ranked.sort((a, b) => b.rate - a.rate || b.dispatches - a.dispatches || a.e.type - b.e.type);
    entries = ranked.slice(0, keep).map((r) => r.e);
    rest = ranked.slice(keep).map((r) => r.e);
  }
  const threads = threadGroups(store);
  // Grouped by thread (main first, then workers by id), else as before.
  const threadRank = new Map<number, number>((threads ?? []).map((t, k) => [t.id, k]));
  const rankOf = (e: Entry): number => threadRank.get(e.thread) ?? 0;
  entries.sort((a, b) => rankOf(a) - rankOf(b) || a.busName.localeCompare(b.busName) || a.bus - b.bus || a.name.localeCompare(b.name) || a.type - b.type);
  const lanes: Lane[] = [];
  // Preallocated: filling a sparse array at type index 99,999 first would turn it into a slow
  // dictionary, and the timeline looks a lane up per dispatch drawn.
  let maxType = -1;
  for (const type of depth.keys()) if (type > maxType) maxType = type;
  const byType = new Array<Lane | undefined>(maxType + 1).fill(undefined);
  let top = 0;
  let colour = -1;
  let lastBus: number | null = null;
  const bands: ThreadBand[] = [];
  let next = 0;
  const addLanes = (until: (e: Entry) => boolean): void => {
    for (; next < entries.length && !until(entries[next]); next++) {
      const e = entries[next];
      if (e.bus !== lastBus) {
        colour++;
        lastBus = e.bus;
      }
      const height = e.rows * LANE_ROW_HEIGHT + LANE_PADDING;
      const lane: Lane = {
        type: e.type,
        bus: e.bus,
        name: e.name,
        busName: e.busName,
        rows: e.rows,
        top,
        height,
        slot: lanes.length,
        colour,
        types: e.members?.length ?? 1,
        thread: e.thread,
      };
      lanes.push(lane);
      if (e.members !== undefined) for (const m of e.members) byType[m] = lane;
      else byType[e.type] = lane;
      top += height;
    }
  };
  if (threads === null) addLanes(() => false);
  else {
    for (let k = 0; k < threads.length; k++) {
      const t = threads[k];
      const bandTop = top;
      const first = lanes.length;
      top += THREAD_HEADER_HEIGHT;
      addLanes((e) => rankOf(e) > k);
      bands.push({ id: t.id, label: t.label, exited: t.exited, top: bandTop, height: top - bandTop, lanes: lanes.length - first });
    }
  }
  let others = unknown.length;
  for (const e of rest) others += e.members?.length ?? 1;
  if (others > 0) {
    let rows = unknownRows;
    for (const e of rest) if (e.rows > rows) rows = e.rows;
    rows = Math.min(rows, MAX_LANE_ROWS);
    const height = rows * LANE_ROW_HEIGHT + LANE_PADDING;
    const lane: Lane = {
      type: OTHER_LANE,
      bus: -1,
      name: `other types (${others})`,
      busName: '',
      rows,
      top,
      height,
      slot: lanes.length,
      colour: colour + 1,
      types: others,
      thread: -1,
    };
    lanes.push(lane);
    for (const e of rest) {
      if (e.members !== undefined) for (const m of e.members) byType[m] = lane;
      else byType[e.type] = lane;
    }
    for (const t of unknown) byType[t] = lane;
    top += height;
  }
  return { lanes, byType, totalHeight: top, threads: bands };
}
