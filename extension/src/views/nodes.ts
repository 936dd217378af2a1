// The elements of Busscope's trees: plain data, so a tree element handed to a command (context menu,
// inline action) says exactly what it is about. Identity is by ids, never by object, so nodes can be
// rebuilt on every refresh while VS Code keeps expansion and selection (TreeItem ids derive from them).
import type { SiteInfo } from '../../../runtime-probe/src/protocol/index';
import type { DiscoveredApp } from '../sessions/discoveryWatcher';

export type BusscopeNode =
  | { readonly kind: 'session'; readonly sessionId: string }
  | { readonly kind: 'session-info'; readonly sessionId: string; readonly key: string; readonly label: string; readonly value: string }
  | { readonly kind: 'discovered'; readonly app: DiscoveredApp }
  | { readonly kind: 'bus'; readonly sessionId: string; readonly bus: number }
  /** A thread of an app with worker threads ("main", "worker 1 · hasher"): the buses it created. */
  | { readonly kind: 'thread'; readonly sessionId: string; readonly thread: number }
  /**
   * The collapsed group of emitters whose listeners all come from Node's internals or node_modules
   * (`thread`: of that thread, when the app has several; else of the whole app).
   */
  | { readonly kind: 'libraries'; readonly sessionId: string; readonly thread?: number }
  /** Two or more buses named `className#n` ("Socket ×500"), in the app's part or the libraries group (of `thread`, as above). */
  | { readonly kind: 'bus-class'; readonly sessionId: string; readonly className: string; readonly library: boolean; readonly thread?: number }
  /** "N more…" after a page of buses: in `parent` (see `busListKey`), the entries from `offset` on. */
  | { readonly kind: 'more-buses'; readonly sessionId: string; readonly parent: string; readonly offset: number; readonly rest: number }
  | { readonly kind: 'type'; readonly sessionId: string; readonly bus: number; readonly type: string }
  /** "N more types…" under a bus with more types than a page: opens the types from rank `offset` on. */
  | { readonly kind: 'more-types'; readonly sessionId: string; readonly bus: number; readonly offset: number; readonly rest: number }
  | { readonly kind: 'subscription'; readonly sessionId: string; readonly subscriptionId: number; readonly site: SiteInfo | null }
  | { readonly kind: 'warning'; readonly sessionId: string; readonly warningId: string; readonly site: SiteInfo | null }
  | { readonly kind: 'warning-site'; readonly sessionId: string; readonly warningId: string; readonly index: number; readonly site: SiteInfo }
  | { readonly kind: 'message'; readonly id: string; readonly label: string }
  /** What the debugger reported of a paused app (extension/src/debugging/pausedTree.ts renders it). */
  | { readonly kind: 'debug'; readonly sessionId: string; readonly key: string };

export type NodeKind = BusscopeNode['kind'];

/** The session a command argument refers to: a tree node of any kind, or `{ sessionId }`. */
export function sessionIdOf(arg: unknown): string | undefined {
  const v = arg as { sessionId?: unknown } | undefined;
  return v !== null && typeof v === 'object' && typeof v.sessionId === 'string' ? v.sessionId : undefined;
}

/** A thread-scoped node's id part: none when the app is not grouped by thread (ids as before threads). */
function threadPart(thread: number | undefined): string {
  return thread === undefined ? '' : `/th:${thread}`;
}

/** Stable TreeItem id of a node. */
export function nodeId(node: BusscopeNode): string {
  switch (node.kind) {
    case 'session':
      return `s:${node.sessionId}`;
    case 'session-info':
      return `s:${node.sessionId}/i:${node.key}`;
    case 'discovered':
      return `app:${node.app.pid}:${node.app.port}:${node.app.startTime}`;
    case 'bus':
      return `s:${node.sessionId}/b:${node.bus}`;
    case 'type':
      return `s:${node.sessionId}/b:${node.bus}/t:${node.type}`;
    case 'more-types':
      return `s:${node.sessionId}/b:${node.bus}/more:${node.offset}`;
    case 'thread':
      return `s:${node.sessionId}/th:${node.thread}`;
    case 'libraries':
      return `s:${node.sessionId}${threadPart(node.thread)}/libs`;
    case 'bus-class':
      return `s:${node.sessionId}${threadPart(node.thread)}/c:${node.library ? 'L' : 'A'}:${node.className}`;
    case 'more-buses':
      return `s:${node.sessionId}/more-buses:${node.parent}:${node.offset}`;
    case 'subscription':
      return `s:${node.sessionId}/sub:${node.subscriptionId}`;
    case 'warning':
      return `s:${node.sessionId}/w:${node.warningId}`;
    case 'warning-site':
      return `s:${node.sessionId}/w:${node.warningId}/site:${node.index}`;
    case 'message':
      return `m:${node.id}`;
    case 'debug':
      return `s:${node.sessionId}/d:${node.key}`;
    default: {
      const never: never = node;
      return never;
    }
  }
}
