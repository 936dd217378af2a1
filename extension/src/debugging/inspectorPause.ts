// The inspector's words for a paused app (its banner: "⏸ demo is paused in the debugger. <this>"):
// where it stopped, the dispatch stack in progress and the listener counts the paused app reported.
// The inspector's message module has no request for event breakpoints or a paused snapshot, so the
// paused state reaches it as this text. No `vscode` here.
import type { Session } from '../sessions/session';
import type { DebugPause } from './link';
import { describeDispatchStack } from './pausedState';

/** Listener counts of the types in the dispatch stack, at most this many others. */
const MAX_TYPES_LISTED = 6;

export function describePause(session: Session, pause: DebugPause): string {
  const where = `Stopped in “${session.debug?.debugSessionName ?? 'the debugger'}” (${pause.reason}).`;
  const state = pause.state;
  if (state === undefined)
    return pause.error !== undefined ? `${where} Its state could not be read: ${pause.error}` : `${where} Reading its state through the debugger…`;
  const snapshot = state.snapshot;
  if (snapshot === null) return `${where} The paused process has no Busscope probe.`;
  const parts = [where];
  if (state.eventBreak !== null)
    parts.push(`Event breakpoint on ${state.eventBreak.type} (bus ${state.eventBreak.bus}), payload ${state.eventBreak.payload.slice(0, 200)}.`);
  const labels = new Map(snapshot.subscriptions.map((s) => [s.id, s.label ?? s.owner ?? undefined]));
  const stack = describeDispatchStack(state, (id) => labels.get(id) ?? undefined);
  parts.push(stack === '' ? 'No dispatch in progress.' : `Dispatch stack: ${stack}.`);
  const inStack = new Set([...snapshot.dispatching.map((f) => f.type), ...(state.eventBreak !== null ? [state.eventBreak.type] : [])]);
  const counts = snapshot.types
    .filter((t) => inStack.has(t.type))
    .concat(snapshot.types.filter((t) => !inStack.has(t.type)).sort((a, b) => b.listeners - a.listeners))
    .slice(0, MAX_TYPES_LISTED)
    .map((t) => `${t.type} ${t.listeners}`);
  parts.push(
    `${snapshot.subscriptions.length} live subscriptions on ${snapshot.buses.length} buses (listeners: ${counts.join(', ')}${snapshot.types.length > MAX_TYPES_LISTED ? ', …' : ''}).`,
  );
  return parts.join(' ');
}
