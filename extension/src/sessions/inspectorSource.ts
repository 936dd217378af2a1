// The session manager as the inspector's `InspectorSource` (extension/src/inspector/source.ts): the
// sessions in the order the inspector offers them (live first, newest first), their phase and why,
// their models and warnings. No `vscode` here.
import { describePause } from '../debugging/inspectorPause';
import type { EventBreakpointStore } from '../debugging/breakpoints';
import type { InspectorBreakpoints, InspectorSessionInfo, InspectorSource } from '../inspector/source';
import type { Session } from './session';
import type { SessionManager } from './sessionManager';

export function inspectorSessionInfo(s: Session): InspectorSessionInfo {
  const offline = s.kind === 'trace';
  const pause = s.isLive ? s.debug?.paused : undefined;
  const phase = pause !== undefined ? 'paused' : s.isLive ? 'attached' : 'detached';
  const detail =
    pause !== undefined
      ? describePause(s, pause)
      : offline
        ? `trace file${s.ended !== undefined && s.ended.reason !== 'end of trace' ? `: ${s.ended.reason}` : ''}`
        : (s.ended?.reason ?? '');
  return {
    id: s.id,
    label: offline ? s.title : s.description,
    phase,
    detail,
    offline,
    browser: s.source.kind === 'browser',
    model: s.model,
    warnings: () => s.warnings,
    analysisProgress: () => s.analyzer.progress,
    payloadOf: (seq) => s.model.payloadOf(seq),
    focusBuses: (buses) => void s.focus.set('inspector-selection', buses),
  };
}

/** Live sessions first, then ended ones and traces; newest first within each. */
export function inspectorSessionOrder(sessions: readonly Session[]): Session[] {
  return [...sessions].sort((a, b) => Number(b.isLive) - Number(a.isLive) || b.startedAt - a.startedAt);
}

/** The workspace's event breakpoints as the inspector shows and toggles them (the same store as the command and the tree). */
export function inspectorBreakpoints(store: EventBreakpointStore): InspectorBreakpoints {
  return {
    types: () => store.types,
    toggle: (type) => store.toggle(type),
    onDidChange: (listener) => store.onDidChange(listener),
  };
}

export function inspectorSource(manager: SessionManager, activeSessionId?: () => string | undefined, breakpoints?: EventBreakpointStore): InspectorSource {
  return {
    breakpoints: breakpoints === undefined ? undefined : inspectorBreakpoints(breakpoints),
    sessions: () => inspectorSessionOrder(manager.sessions).map(inspectorSessionInfo),
    onDidChangeSessions: (listener) => manager.onDidChangeSessions(listener),
    onDidUpdateSession: (listener) => manager.onDidUpdateSession((s) => listener(s.id)),
    activeSessionId,
  };
}
