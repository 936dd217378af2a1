// The app's threads as the inspector groups by them (worker_threads): which threads, in what order, under what label, and each bus's thread.

import type { ThreadView } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { InspectorStore } from './inspectorStore';

export const MAIN_THREAD = 0;

export interface ThreadGroup {
  readonly id: number;
  readonly name: string;
  /** "main thread", or "worker <name>". */
  readonly label: string;
  readonly exited: boolean;
}

export function threadLabel(id: number, name: string): string {
  return id === MAIN_THREAD ? 'main thread' : `worker ${name}`;
}

/** The thread a bus was created in (0, the main thread, when the host did not say). */
export function threadOfBus(store: InspectorStore, bus: number): number {
  return store.buses.get(bus)?.thread ?? MAIN_THREAD;
}

/**
 * The threads to group by — the main thread first, then workers by thread id — or null when the
 * session has one thread (everything is then shown as before, ungrouped). Threads a bus names that the
 * session's list lacks still get a group.
 */
export function threadGroups(store: InspectorStore): readonly ThreadGroup[] | null {
  const listed: readonly ThreadView[] = store.session.threads ?? [];
  if (listed.length <= 1) return null;
  const byId = new Map<number, ThreadGroup>();
  for (const t of listed) byId.set(t.id, { id: t.id, name: t.name, label: threadLabel(t.id, t.name), exited: t.exitedAt !== null });
  if (!byId.has(MAIN_THREAD)) byId.set(MAIN_THREAD, { id: MAIN_THREAD, name: 'main', label: threadLabel(MAIN_THREAD, 'main'), exited: false });
  for (const b of store.buses.values()) {
    const id = b.thread ?? MAIN_THREAD;
    if (!byId.has(id)) byId.set(id, { id, name: `thread ${id}`, label: threadLabel(id, `thread ${id}`), exited: false });
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** What a thread list says, for noticing a change (names and exits included). */
export function threadsKey(threads: readonly ThreadView[] | undefined): string {
  return threads === undefined ? '' : threads.map((t) => `${t.id}:${t.name}:${t.exitedAt ?? ''}`).join('|');
}
