// A layered layout in three columns (dispatch sites | buses and types | subscribers), in rows.
// Full layout: per bus a block — the bus row, then each type with its subscriber nodes beside it
// (in execution order); dispatch sites sit at the mean row of the types they dispatch.
// Incremental layout (live updates): nodes that already have a row keep it — no jitter — and new
// nodes take the free row nearest to where the full layout would want them. O(n log n), no
// simulation, so 5,000 subscriptions lay out in milliseconds and the graph is interactive at once.

import type { GraphModel, GraphNode } from './graphModel';

export const GRAPH_LAYOUT = {
  rowHeight: 28,
  nodeHeight: 22,
  columnX: [0, 300, 640] as const,
  columnWidth: [250, 270, 290] as const,
  /** Types are indented under their bus. */
  typeIndent: 18,
  /** Empty rows between bus blocks. */
  busGap: 1,
};

export type PositionMemory = Map<string, number>;

function place(n: GraphNode, row: number): void {
  n.row = row;
  const indent = n.kind === 'type' ? GRAPH_LAYOUT.typeIndent : 0;
  n.x = GRAPH_LAYOUT.columnX[n.column] + indent;
  n.w = GRAPH_LAYOUT.columnWidth[n.column] - indent;
  n.y = row * GRAPH_LAYOUT.rowHeight;
  n.h = GRAPH_LAYOUT.nodeHeight;
}

/** Children (subscriber nodes) per parent key, in model order. */
function childrenOf(model: GraphModel): Map<string, GraphNode[]> {
  const out = new Map<string, GraphNode[]>();
  for (const e of model.edges) {
    if (e.to.column !== 2) continue;
    let list = out.get(e.from.key);
    if (!list) out.set(e.from.key, (list = []));
    list.push(e.to);
  }
  return out;
}

/** Rows of the types (or collapsed buses) each site dispatches. */
function siteTargets(model: GraphModel): Map<string, GraphNode[]> {
  const out = new Map<string, GraphNode[]>();
  for (const e of model.edges) {
    if (e.from.column !== 0) continue;
    let list = out.get(e.from.key);
    if (!list) out.set(e.from.key, (list = []));
    list.push(e.to);
  }
  return out;
}

export function fullLayout(model: GraphModel): PositionMemory {
  const children = childrenOf(model);
  let cursor = 0;
  for (const n of model.outline) {
    if (n.kind === 'bus') {
      if (cursor > 0) cursor += GRAPH_LAYOUT.busGap;
      place(n, cursor);
      const kids = children.get(n.key) ?? [];
      // A collapsed bus carries its subscribers on its own rows; an expanded one is a header.
      if (n.collapsed) {
        kids.forEach((k, i) => place(k, cursor + i));
        cursor += Math.max(1, kids.length);
      } else cursor += 1;
    } else if (n.kind === 'more' && n.column === 1) {
      // A bus's "+N more types": one row after its last type.
      place(n, cursor);
      cursor += 1;
    } else if (n.kind === 'type') {
      place(n, cursor);
      const kids = children.get(n.key) ?? [];
      kids.forEach((k, i) => place(k, cursor + i));
      cursor += Math.max(1, kids.length);
    }
  }
  const targets = siteTargets(model);
  const sites = model.nodes.filter((n) => n.column === 0);
  const desired = new Map<GraphNode, number>();
  for (const s of sites) desired.set(s, meanRow(targets.get(s.key) ?? []));
  sites.sort((a, b) => desired.get(a)! - desired.get(b)! || a.key.localeCompare(b.key));
  let next = 0;
  for (const s of sites) {
    const row = Math.max(next, Math.round(desired.get(s)!));
    place(s, row);
    next = row + 1;
  }
  return remember(model);
}

function meanRow(nodes: readonly GraphNode[]): number {
  if (nodes.length === 0) return 0;
  let sum = 0;
  for (const n of nodes) sum += n.row;
  return sum / nodes.length;
}

/**
 * Keeps the remembered row of every node that has one; places new nodes at the nearest free row
 * of their column. Returns the new memory (only nodes present now).
 */
export function incrementalLayout(model: GraphModel, memory: PositionMemory): PositionMemory {
  const occupied: Set<number>[] = [new Set(), new Set(), new Set()];
  const fresh: GraphNode[] = [];
  for (const n of model.nodes) {
    const row = memory.get(n.key);
    if (row !== undefined && !occupied[n.column].has(row)) {
      place(n, row);
      occupied[n.column].add(row);
    } else fresh.push(n);
  }
  if (fresh.length > 0) {
    const parentOf = new Map<string, GraphNode>();
    for (const e of model.edges) if (e.to.column === 2) parentOf.set(e.to.key, e.from);
    const busOf = new Map<number, GraphNode>();
    for (const n of model.nodes) if (n.kind === 'bus') busOf.set(n.bus, n);
    const targets = siteTargets(model);
    const order = { thread: 0, bus: 0, type: 1, group: 2, more: 2, site: 3 } as const;
    fresh.sort((a, b) => order[a.kind] - order[b.kind]);
    const freshSet = new Set(fresh);
    let bottom = 0;
    for (const n of model.nodes) if (!freshSet.has(n)) bottom = Math.max(bottom, n.row + 1);
    for (const n of fresh) {
      let want: number;
      if (n.column === 0) {
        place(n, nearestFree(occupied[0], Math.round(meanRow(targets.get(n.key) ?? []))));
        occupied[0].add(n.row);
        bottom = Math.max(bottom, n.row + 1);
        continue;
      }
      switch (n.kind) {
        case 'thread': // never among the graph's nodes (outline only)
        case 'bus':
          want = bottom + GRAPH_LAYOUT.busGap;
          break;
        case 'type': {
          const bus = busOf.get(n.bus);
          want = bus ? bus.row + 1 : bottom;
          break;
        }
        case 'group':
        case 'more': {
          if (n.column === 1) {
            const bus = busOf.get(n.bus);
            want = bus ? bus.row + 1 : bottom;
            break;
          }
          const p = parentOf.get(n.key);
          want = p ? p.row : bottom;
          break;
        }
        case 'site':
          want = Math.round(meanRow(targets.get(n.key) ?? []));
          break;
      }
      const row = nearestFree(occupied[n.column], want);
      occupied[n.column].add(row);
      place(n, row);
      bottom = Math.max(bottom, row + 1);
    }
  }
  return remember(model);
}

function nearestFree(occupied: ReadonlySet<number>, want: number): number {
  const start = Math.max(0, want);
  // Prefer below (reads as "after"), then above; bounded by the occupied count.
  for (let d = 0; d <= occupied.size + 1; d++) {
    if (!occupied.has(start + d)) return start + d;
    if (d > 0 && start - d >= 0 && !occupied.has(start - d)) return start - d;
  }
  return start + occupied.size + 1;
}

function remember(model: GraphModel): PositionMemory {
  const memory: PositionMemory = new Map();
  for (const n of model.nodes) memory.set(n.key, n.row);
  return memory;
}

/** Nodes of each column sorted by row, for hit testing and culling. */
export function columnsByRow(model: GraphModel): GraphNode[][] {
  const cols: GraphNode[][] = [[], [], []];
  for (const n of model.nodes) cols[n.column].push(n);
  for (const c of cols) c.sort((a, b) => a.row - b.row);
  return cols;
}

/** Total extent of the layout in world units. */
export function layoutBounds(model: GraphModel): { width: number; height: number } {
  let rows = 0;
  for (const n of model.nodes) rows = Math.max(rows, n.row + 1);
  const last = GRAPH_LAYOUT.columnX.length - 1;
  return { width: GRAPH_LAYOUT.columnX[last] + GRAPH_LAYOUT.columnWidth[last], height: rows * GRAPH_LAYOUT.rowHeight };
}
