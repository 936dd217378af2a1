// Timeline lanes: one per event type that has dispatches (as the lane of a top-level dispatch),
// grouped by bus, buses and types in name order. A lane is as tall as its deepest nesting.

import type { InspectorStore } from '../store/inspectorStore';

export const LANE_ROW_HEIGHT = 16;
export const LANE_PADDING = 4;

export interface Lane {
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
}

export interface LaneLayout {
  readonly lanes: readonly Lane[];
  /** Lane by type index (sparse). */
  readonly byType: (Lane | undefined)[];
  readonly totalHeight: number;
}

export function layoutLanes(store: InspectorStore, include: (type: number) => boolean): LaneLayout {
  const depth = store.timeline.laneDepth;
  const entries: { type: number; bus: number; name: string; busName: string; rows: number }[] = [];
  for (const [type, d] of depth) {
    if (!include(type)) continue;
    const t = store.types.get(type);
    const bus = t?.bus ?? -1;
    entries.push({ type, bus, name: t?.type ?? `type #${type}`, busName: bus >= 0 ? store.busName(bus) : '', rows: d + 1 });
  }
  entries.sort((a, b) => a.busName.localeCompare(b.busName) || a.bus - b.bus || a.name.localeCompare(b.name) || a.type - b.type);
  const lanes: Lane[] = [];
  const byType: (Lane | undefined)[] = [];
  let top = 0;
  let colour = -1;
  let lastBus: number | null = null;
  for (const e of entries) {
    if (e.bus !== lastBus) {
      colour++;
      lastBus = e.bus;
    }
    const height = e.rows * LANE_ROW_HEIGHT + LANE_PADDING;
    const lane: Lane = { ...e, top, height, slot: lanes.length, colour };
    lanes.push(lane);
    byType[e.type] = lane;
    top += height;
  }
  return { lanes, byType, totalHeight: top };
}
