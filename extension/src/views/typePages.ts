// The *Subscriptions* tree's children of a bus, without `vscode`: a bus with up to a page of types
// lists them all by name; a bigger one (an app dispatching `user.${id}.updated` for 100,000 ids)
// lists the most active page — by live subscriptions, then dispatch rate, then dispatches — and a
// "N more types…" node that opens the next page. No call ever builds more than a page of items.
import type { BusState, EventTypeState } from '../../../runtime-probe/src/analysis/model/entities';
import { topIndices } from '../../../runtime-probe/src/analysis/model/ranking';

/** Types a bus (or a "more types" node) lists at once. */
export const TYPE_PAGE_SIZE = 500;

export interface TypePage {
  /** The page's types, by name. */
  readonly types: readonly EventTypeState[];
  /** Rank of the first type after this page (where the "more" node continues). */
  readonly next: number;
  /** Types after this page (0: no "more" node). */
  readonly rest: number;
}

/**
 * The `count` most active types of a bus, most active first: live subscriptions, then rate at
 * `now`, then dispatches, then first seen. A bounded heap (`topIndices`) makes the first page of
 * 100,000 types a scan, not a sort. The tree caches it per refresh (a refresh comes at most once a second).
 */
export function rankTypes(bus: BusState, now: number, count = bus.types.size): EventTypeState[] {
  const types = [...bus.types.values()];
  const n = types.length;
  const live = new Float64Array(n);
  const rate = new Float64Array(n);
  const dispatches = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const t = types[i];
    live[i] = t.live.size;
    // A type not dispatched within the rate window has rate 0: skip reading its window.
    rate[i] = t.lastDispatchAt >= now - t.rate.windowMs ? t.rate.ratePerSecond(now) : 0;
    dispatches[i] = t.dispatches;
  }
  /** Negative when `a` ranks before `b`. */
  const cmp = (a: number, b: number): number => live[b] - live[a] || rate[b] - rate[a] || dispatches[b] - dispatches[a] || a - b;
  return topIndices(n, count, cmp).map((i) => types[i]);
}

const byName = (a: EventTypeState, b: EventTypeState): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The page of a bus's types starting at rank `offset`. A bus with at most `pageSize` types gets
 * all of them by name (no ranking); `ranked(count)` gives at least the `count` most active types
 * (see `rankTypes`), and is called only when needed.
 */
export function typePage(bus: BusState, offset: number, ranked: (count: number) => readonly EventTypeState[], pageSize = TYPE_PAGE_SIZE): TypePage {
  if (!Number.isInteger(offset) || offset < 0) throw new TypeError(`typePage: offset must be a non-negative integer, got ${offset}`);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new TypeError(`typePage: pageSize must be a positive integer, got ${pageSize}`);
  const total = bus.types.size;
  if (total <= pageSize && offset === 0) return { types: [...bus.types.values()].sort(byName), next: total, rest: 0 };
  const end = Math.min(total, offset + pageSize);
  const top = ranked(end);
  return { types: top.slice(offset, end).sort(byName), next: end, rest: total - end };
}
