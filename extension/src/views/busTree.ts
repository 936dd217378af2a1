// The bus levels of the *Subscriptions* tree, without `vscode`: a session's top level (the
// "libraries" group first, then the app's classes and buses), the libraries group's children and a
// class's instances — each a page at most (`BUS_PAGE_SIZE`), with a "N more…" node that opens the
// next page, so hundreds of thousands of buses never build more than a page of tree items. In an app
// with worker threads each list is one thread's (`thread`, under that thread's node; views/threadGroups.ts).
import { BUS_PAGE_SIZE, pageOf, type BusEntry, type BusGrouping } from '../../../runtime-probe/src/analysis/busGroups';
import type { BusscopeNode } from './nodes';

/** Which list a page (and its "more" node) belongs to; `thread` when the app is grouped by thread. */
export type BusList =
  | { readonly kind: 'root'; readonly thread?: number }
  | { readonly kind: 'libraries'; readonly thread?: number }
  | { readonly kind: 'class'; readonly className: string; readonly library: boolean; readonly thread?: number };

function listKey(list: BusList): string {
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

/** The `parent` of a "more-buses" node ("T<thread>/" first for a thread's list). */
export function busListKey(list: BusList): string {
  return list.thread === undefined ? listKey(list) : `T${list.thread}/${listKey(list)}`;
}

/** The inverse of `busListKey` (undefined for a key it never made). */
export function busListOf(key: string): BusList | undefined {
  const scoped = /^T(\d+)\/(.*)$/s.exec(key);
  const thread = scoped === null ? undefined : Number(scoped[1]);
  const k = scoped === null ? key : scoped[2];
  const within = thread === undefined ? {} : { thread };
  if (k === 'root') return { kind: 'root', ...within };
  if (k === 'libs') return { kind: 'libraries', ...within };
  if (k.startsWith('L:') || k.startsWith('A:')) return { kind: 'class', className: k.slice(2), library: k[0] === 'L', ...within };
  return undefined;
}

function entryNode(sessionId: string, e: BusEntry, library: boolean, thread: number | undefined): BusscopeNode {
  if (e.kind === 'bus') return { kind: 'bus', sessionId, bus: e.bus.id };
  return thread === undefined
    ? { kind: 'bus-class', sessionId, className: e.className, library }
    : { kind: 'bus-class', sessionId, className: e.className, library, thread };
}

/** A page of one list's nodes, and its "more" node when more follow. `grouping` is of the list's thread's buses. */
export function busListNodes(sessionId: string, grouping: BusGrouping, list: BusList, offset = 0, pageSize = BUS_PAGE_SIZE): BusscopeNode[] {
  const more = (next: number, rest: number): BusscopeNode[] =>
    rest > 0 ? [{ kind: 'more-buses', sessionId, parent: busListKey(list), offset: next, rest }] : [];
  const thread = list.thread;
  switch (list.kind) {
    case 'root': {
      // The libraries group heads the first page; the app's own entries follow.
      const libraries: BusscopeNode = thread === undefined ? { kind: 'libraries', sessionId } : { kind: 'libraries', sessionId, thread };
      const head: BusscopeNode[] = offset === 0 && grouping.libraryBuses > 0 ? [libraries] : [];
      const page = pageOf(grouping.app, offset, pageSize);
      return [...head, ...page.items.map((e) => entryNode(sessionId, e, false, thread)), ...more(page.next, page.rest)];
    }
    case 'libraries': {
      const page = pageOf(grouping.libraries, offset, pageSize);
      return [...page.items.map((e) => entryNode(sessionId, e, true, thread)), ...more(page.next, page.rest)];
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

/** The thread whose list a node belongs to (undefined: the app is not grouped by thread, or the node is not in a list). */
export function threadOfNode(node: BusscopeNode): number | undefined {
  switch (node.kind) {
    case 'thread':
      return node.thread;
    case 'libraries':
    case 'bus-class':
      return node.thread;
    case 'more-buses':
      return busListOf(node.parent)?.thread;
    default:
      return undefined;
  }
}

/** The buses a tree node stands for (a bus, a class, the libraries group), for `focus`. `grouping`: of the node's thread. */
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
