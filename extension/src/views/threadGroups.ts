// The app's threads as the *Apps* and *Subscriptions* trees group buses by them (worker_threads, #16),
// without `vscode`: main first, then workers by thread id, each with the buses it created. An app
// with one thread is not grouped at all (null), so its trees look as they always did.
import type { BusState } from '../../../runtime-probe/src/analysis/model/entities';
import type { Model } from '../../../runtime-probe/src/analysis/model/model';
import { BUS_PAGE_SIZE } from '../../../runtime-probe/src/analysis/busGroups';
import { plural } from './format';
import type { BusscopeNode } from './nodes';

export const MAIN_THREAD = 0;

export interface ThreadGroup {
  /** `threadId` (0: the main thread). */
  readonly id: number;
  /** "main", or "worker 1 · hasher" (thread id, then the worker's name or script). */
  readonly label: string;
  readonly exited: boolean;
  /** The buses the thread created, by name. */
  readonly buses: readonly BusState[];
}

export function threadLabel(id: number, name: string): string {
  return id === MAIN_THREAD ? 'main' : `worker ${id} · ${name}`;
}

/** "3 buses", "1 bus · exited". */
export function threadDescription(group: ThreadGroup): string {
  return `${plural(group.buses.length, 'bus', 'buses')}${group.exited ? ' · exited' : ''}`;
}

/**
 * The session's threads with their buses, or null while it has one thread. A thread a bus names that
 * the session's list lacks still gets a group (a bus is never hidden).
 */
export function threadGroups(model: Model): ThreadGroup[] | null {
  const listed = model.threadViews();
  if (listed === undefined || listed.length <= 1) return null;
  const byId = new Map<number, { id: number; label: string; exited: boolean; buses: BusState[] }>();
  const add = (id: number, name: string, exited: boolean) => {
    const g = { id, label: threadLabel(id, name), exited, buses: [] };
    byId.set(id, g);
    return g;
  };
  for (const t of listed) add(t.id, t.name, t.exitedAt !== null);
  if (!byId.has(MAIN_THREAD)) add(MAIN_THREAD, 'main', false);
  for (const b of model.buses.values()) (byId.get(b.thread) ?? add(b.thread, `thread ${b.thread}`, false)).buses.push(b);
  const out = [...byId.values()].sort((a, b) => a.id - b.id);
  for (const g of out) g.buses.sort((a, b) => (a.name === b.name ? a.id - b.id : a.name < b.name ? -1 : 1));
  return out;
}

/**
 * A thread node's children in the *Apps* tree: its buses, a page at most, then a line saying how many
 * more (the *Subscriptions* tree pages through all of them).
 */
export function appsThreadChildren(sessionId: string, group: ThreadGroup, pageSize = BUS_PAGE_SIZE): BusscopeNode[] {
  const shown = group.buses.slice(0, pageSize);
  const out: BusscopeNode[] = shown.map((b) => ({ kind: 'bus', sessionId, bus: b.id }));
  const rest = group.buses.length - shown.length;
  if (rest > 0) out.push({ kind: 'message', id: `${sessionId}/th:${group.id}/more`, label: `${plural(rest, 'more bus', 'more buses')} (see Subscriptions)` });
  return out;
}
