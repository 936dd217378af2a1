// The bus levels of the *Subscriptions* tree, without `vscode`: a session's top level (the
// "libraries" group first, then the app's classes and buses), the libraries group's children and a
// class's instances — each a page at most (`BUS_PAGE_SIZE`), with a "N more…" node that opens the
// next page, so hundreds of thousands of buses never build more than a page of tree items.
import { BUS_PAGE_SIZE, pageOf, type BusEntry, type BusGrouping } from '../../../runtime-probe/src/analysis/busGroups';
import type { BusscopeNode } from './nodes';

/** Which list a page (and its "more" node) belongs to. */
export type BusList =
  { readonly kind: 'root' } | { readonly kind: 'libraries' } | { readonly kind: 'class'; readonly className: string; readonly library: boolean };

/** The `parent` of a "more-buses" node. */
export function busListKey(list: BusList): string {
  switch (list.kind) {
    case 'root':
      return 'root';
    case 'libraries':
      return 'libs';
    case 'class':
      return `${list.library ? 'L' : 'A'}:${list.className}`;
    default: {
      const never: never = list;
      return never;
    }
  }
}

/** The inverse of `busListKey` (undefined for a key it never made). */
export function busListOf(key: string): BusList | undefined {
  if (key === 'root') return { kind: 'root' };
  if (key === 'libs') return { kind: 'libraries' };
  if (key.startsWith('L:') || key.startsWith('A:')) return { kind: 'class', className: key.slice(2), library: key[0] === 'L' };
  return undefined;
}

function entryNode(sessionId: string, e: BusEntry, library: boolean): BusscopeNode {
  return e.kind === 'bus' ? { kind: 'bus', sessionId, bus: e.bus.id } : { kind: 'bus-class', sessionId, className: e.className, library };
}

/** A page of one list's nodes, and its "more" node when more follow. */
export function busListNodes(sessionId: string, grouping: BusGrouping, list: BusList, offset = 0, pageSize = BUS_PAGE_SIZE): BusscopeNode[] {
  const more = (next: number, rest: number): BusscopeNode[] =>
    rest > 0 ? [{ kind: 'more-buses', sessionId, parent: busListKey(list), offset: next, rest }] : [];
  switch (list.kind) {
    case 'root': {
      // The libraries group heads the first page; the app's own entries follow.
      const head: BusscopeNode[] = offset === 0 && grouping.libraryBuses > 0 ? [{ kind: 'libraries', sessionId }] : [];
      const page = pageOf(grouping.app, offset, pageSize);
      return [...head, ...page.items.map((e) => entryNode(sessionId, e, false)), ...more(page.next, page.rest)];
    }
    case 'libraries': {
      const page = pageOf(grouping.libraries, offset, pageSize);
      return [...page.items.map((e) => entryNode(sessionId, e, true)), ...more(page.next, page.rest)];
    }
    case 'class': {
      const c = grouping.classOf(list.className, list.library);
      if (c === undefined) return [];
      const page = pageOf(c.buses, offset, pageSize);
      return [...page.items.map((b): BusscopeNode => ({ kind: 'bus', sessionId, bus: b.id })), ...more(page.next, page.rest)];
    }
    default: {
      const never: never = list;
      return never;
    }
  }
}

/** The buses a tree node stands for (a bus, a class, the libraries group), for `focus`. */
export function busesOfNode(grouping: BusGrouping, node: BusscopeNode): number[] {
  switch (node.kind) {
    case 'bus':
      return [node.bus];
    case 'bus-class':
      return (grouping.classOf(node.className, node.library)?.buses ?? []).map((b) => b.id);
    case 'libraries': {
      const ids: number[] = [];
      for (const e of grouping.libraries) {
        if (e.kind === 'bus') ids.push(e.bus.id);
        else for (const b of e.buses) ids.push(b.id);
      }
      return ids;
    }
    default:
      return [];
  }
}
