// Questions the views ask of the model: subscriptions of a bus/type in run order, the dispatches of
// a time range (as rows, or as columns for the canvas timeline), and statistics of a range.
import type { DispatchRecord } from '../../protocol/index';
import type { SubscriptionState } from './entities';
import { byExecutionOrder } from './entities';
import type { HandlerSlice } from './handlerRing';
import type { Model } from './model';
import { subscriptionView, type SubscriptionView } from './views';

export interface SubscriptionQuery {
  readonly bus?: number;
  readonly type?: string;
  /** Include ended subscriptions still retained. Default false. */
  readonly includeEnded?: boolean;
}

/** Subscriptions matching the query, in the order the bus would call them (priority, then id). */
export function subscriptionsOf(model: Model, query: SubscriptionQuery = {}): SubscriptionView[] {
  const out: SubscriptionState[] = [];
  for (const s of model.subscriptions.values()) {
    if (query.bus !== undefined && s.bus !== query.bus) continue;
    if (query.type !== undefined && s.type.name !== query.type) continue;
    if (!s.active && query.includeEnded !== true) continue;
    out.push(s);
  }
  out.sort((a, b) => (a.bus !== b.bus ? a.bus - b.bus : byExecutionOrder(a, b)));
  return out.map(subscriptionView);
}

/** A dispatch read back from the timeline ring: the protocol's dispatch record without its tag. */
export type DispatchView = Omit<DispatchRecord, 'kind'>;

function checkRange(what: string, from: number, to: number): void {
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new TypeError(`${what}: from and to must be finite numbers, got ${from}, ${to}`);
}

/** The dispatch in the timeline ring's column `i` (a physical index, see DispatchRing). */
export function dispatchAt(model: Model, i: number): DispatchView {
  const r = model.timeline;
  return {
    seq: r.seq[i],
    bus: r.bus[i],
    type: model.typeAt(r.typeIndex[i])?.name ?? '?',
    start: r.start[i],
    duration: r.duration[i],
    delivered: r.delivered[i],
    consumedBy: r.consumedBy[i],
    depth: r.depth[i],
    parentSeq: r.parentSeq[i],
    site: model.siteAt(r.siteIndex[i]) ?? null,
    // Only when there is one (version-2 probes interpolate starts), so v1 views stay as they were.
    ...(r.startBound[i] > 0 ? { startBound: r.startBound[i] } : {}),
  };
}

/** Retained dispatches overlapping [from, to], in arrival order (nested ones before their parent). */
export function dispatchesInRange(model: Model, from: number, to: number, limit = Infinity): DispatchView[] {
  checkRange('dispatchesInRange', from, to);
  const r = model.timeline;
  const out: DispatchView[] = [];
  r.forEachInRange(from, to, (i) => {
    out.push(dispatchAt(model, i));
    return out.length < limit;
  });
  return out;
}

/** Columns for the canvas timeline (transferable typed arrays) plus the type table they index. */
export interface TimelineColumns {
  readonly count: number;
  readonly seq: Float64Array;
  readonly start: Float64Array;
  readonly duration: Float64Array;
  readonly parentSeq: Float64Array;
  readonly bus: Float64Array;
  /** Index into `types`. */
  readonly typeIndex: Uint32Array;
  readonly delivered: Uint32Array;
  readonly consumedBy: Uint32Array;
  readonly depth: Uint32Array;
  /** `types[typeIndex]`: bus and name of each model type index seen in the range. */
  readonly types: readonly { readonly index: number; readonly bus: number; readonly type: string }[];
  /** Rows in the range beyond `maxRows` (not included). */
  readonly omitted: number;
}

export function timelineColumns(model: Model, from: number, to: number, maxRows = 200_000): TimelineColumns {
  checkRange('timelineColumns', from, to);
  const r = model.timeline;
  const idx: number[] = [];
  let omitted = 0;
  r.forEachInRange(from, to, (i) => {
    if (idx.length < maxRows) idx.push(i);
    else omitted++;
  });
  const n = idx.length;
  const cols = {
    seq: new Float64Array(n),
    start: new Float64Array(n),
    duration: new Float64Array(n),
    parentSeq: new Float64Array(n),
    bus: new Float64Array(n),
    typeIndex: new Uint32Array(n),
    delivered: new Uint32Array(n),
    consumedBy: new Uint32Array(n),
    depth: new Uint32Array(n),
  };
  const typeSlot = new Map<number, number>();
  const types: { index: number; bus: number; type: string }[] = [];
  for (let k = 0; k < n; k++) {
    const i = idx[k];
    cols.seq[k] = r.seq[i];
    cols.start[k] = r.start[i];
    cols.duration[k] = r.duration[i];
    cols.parentSeq[k] = r.parentSeq[i];
    cols.bus[k] = r.bus[i];
    cols.delivered[k] = r.delivered[i];
    cols.consumedBy[k] = r.consumedBy[i];
    cols.depth[k] = r.depth[i];
    const ti = r.typeIndex[i];
    let slot = typeSlot.get(ti);
    if (slot === undefined) {
      slot = types.length;
      typeSlot.set(ti, slot);
      const t = model.typeAt(ti);
      types.push({ index: ti, bus: t?.bus ?? 0, type: t?.name ?? '?' });
    }
    cols.typeIndex[k] = slot;
  }
  return { count: n, ...cols, types, omitted };
}

/** Handler slices of one dispatch (recent dispatches only: the slice ring is bounded). */
export function handlerSlicesOf(model: Model, seq: number): HandlerSlice[] {
  return model.handlerSlices.slicesOf(seq);
}

export interface TypeRangeStats {
  readonly bus: number;
  readonly type: string;
  readonly count: number;
  readonly ratePerSecond: number;
  readonly totalMs: number;
  readonly maxMs: number;
  readonly unheard: number;
  readonly consumed: number;
}

export interface HandlerRangeStats {
  readonly subscriptionId: number;
  readonly label: string | null;
  readonly bus: number | null;
  readonly type: string | null;
  readonly calls: number;
  readonly totalMs: number;
  readonly maxMs: number;
  readonly errors: number;
}

export interface RangeStatistics {
  readonly from: number;
  readonly to: number;
  readonly dispatches: number;
  readonly ratePerSecond: number;
  readonly unheard: number;
  readonly consumed: number;
  readonly maxDepth: number;
  /** Sum of top-level dispatch durations (nested time is inside its parent). */
  readonly busyMs: number;
  /** Most frequent first. */
  readonly byType: readonly TypeRangeStats[];
  readonly slowestDispatches: readonly { readonly seq: number; readonly type: string; readonly start: number; readonly duration: number }[];
  /** By total handler time in the range. */
  readonly slowestHandlers: readonly HandlerRangeStats[];
  /** False when the range reaches back past the oldest retained dispatch. */
  readonly complete: boolean;
}

/** Statistics of the retained dispatches and handler slices that start in [from, to]. */
export function rangeStatistics(model: Model, from: number, to: number, top = 10): RangeStatistics {
  checkRange('rangeStatistics', from, to);
  const r = model.timeline;
  const seconds = Math.max(1e-3, (to - from) / 1000);
  const perType = new Map<number, { count: number; totalMs: number; maxMs: number; unheard: number; consumed: number }>();
  let dispatches = 0;
  let unheard = 0;
  let consumed = 0;
  let maxDepth = 0;
  let busy = 0;
  const slowest: { seq: number; typeIndex: number; start: number; duration: number }[] = [];
  r.forEachInRange(from, to, (i) => {
    const s = r.start[i];
    if (s < from) return;
    dispatches++;
    const d = r.duration[i];
    if (r.depth[i] === 0) busy += d;
    if (r.depth[i] > maxDepth) maxDepth = r.depth[i];
    const ti = r.typeIndex[i];
    let st = perType.get(ti);
    if (st === undefined) {
      st = { count: 0, totalMs: 0, maxMs: 0, unheard: 0, consumed: 0 };
      perType.set(ti, st);
    }
    st.count++;
    st.totalMs += d;
    if (d > st.maxMs) st.maxMs = d;
    if (r.delivered[i] === 0) {
      st.unheard++;
      unheard++;
    }
    if (r.consumedBy[i] !== 0) {
      st.consumed++;
      consumed++;
    }
    if (slowest.length < top || d > slowest[slowest.length - 1].duration) {
      slowest.push({ seq: r.seq[i], typeIndex: ti, start: s, duration: d });
      slowest.sort((a, b) => b.duration - a.duration);
      if (slowest.length > top) slowest.pop();
    }
  });
  const handlers = new Map<number, { calls: number; totalMs: number; maxMs: number; errors: number }>();
  const h = model.handlerSlices;
  for (let k = 0; k < h.size; k++) {
    const i = h.physicalIndex(k);
    const s = h.start[i];
    if (s < from || s > to) continue;
    const id = h.subscription[i];
    let st = handlers.get(id);
    if (st === undefined) {
      st = { calls: 0, totalMs: 0, maxMs: 0, errors: 0 };
      handlers.set(id, st);
    }
    st.calls++;
    st.totalMs += h.duration[i];
    if (h.duration[i] > st.maxMs) st.maxMs = h.duration[i];
    if ((h.flags[i] & 2) !== 0) st.errors++;
  }
  const byType: TypeRangeStats[] = [...perType].map(([ti, st]) => {
    const t = model.typeAt(ti);
    return { bus: t?.bus ?? 0, type: t?.name ?? '?', ...st, ratePerSecond: st.count / seconds };
  });
  byType.sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
  const slowestHandlers: HandlerRangeStats[] = [...handlers]
    .map(([id, st]) => {
      const sub = model.subscriptions.get(id);
      return { subscriptionId: id, label: sub?.label ?? null, bus: sub?.bus ?? null, type: sub?.type.name ?? null, ...st };
    })
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top);
  const oldest = r.size > 0 ? r.start[r.physicalIndex(0)] : Infinity;
  return {
    from,
    to,
    dispatches,
    ratePerSecond: dispatches / seconds,
    unheard,
    consumed,
    maxDepth,
    busyMs: busy,
    byType,
    slowestDispatches: slowest.map((x) => ({ seq: x.seq, type: model.typeAt(x.typeIndex)?.name ?? '?', start: x.start, duration: x.duration })),
    slowestHandlers,
    complete: r.overwritten === 0 || from >= oldest,
  };
}
