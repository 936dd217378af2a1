// What the inspector needs from the VS Code layer — the whole contract, for whoever wires
// `registerInspector(context, source)` in extension.ts:
//
//   registerInspector(context, {
//     sessions: () => sessionManager.all().map((s) => ({
//       id: s.id,                       // stable while the session exists
//       label: 'demo (pid 1234)',       // what the user recognises
//       phase: 'attached',              // 'connecting' | 'attached' | 'paused' | 'detached'
//       detail: '',                     // why, in words: 'the app exited', 'paused at a breakpoint'…
//       offline: s.kind === 'trace',
//       model: s.model,                 // runtime-probe/src/analysis/model Model (the inspector reads it, never writes)
//       warnings: () => s.analyzer.warnings,
//     })),
//     onDidChangeSessions: sessionManager.onDidChange,   // list or a phase/label changed
//     onDidUpdateSession: (l) => sessionManager.onDidUpdate((s) => l(s.id)),  // analyses ran
//     activeSessionId: () => selectedSessionInAppsTree,  // optional
//   });
//
// Events are plain "subscribe → disposable" functions, so a `vscode.EventEmitter#event` and the
// probe's `Emitter#event` both fit. The inspector listens to `model.onDidChange` itself for live
// timeline updates (paced to ≤ 30 per second, only while its panel is visible); warnings are read
// through `warnings()` whenever the inspector sends statistics (≤ 4 per second), and
// `onDidUpdateSession` makes a change in them show promptly. The inspector never mutates a Model.

import type { Warning } from '../../../runtime-probe/src/analysis/analyses/warning';
import type { Model } from '../../../runtime-probe/src/analysis/model/model';
import type { AnalysisProgressView, InspectorCommand, SessionPhase } from '../../../runtime-probe/src/analysis/inspector-messages';

export type { InspectorCommand, SessionPhase };

export interface InspectorEvent<T> {
  (listener: (e: T) => unknown): { dispose(): unknown };
}

export interface InspectorSessionInfo {
  /** Stable for the session's lifetime; also persisted in the panel's state. */
  readonly id: string;
  /** "demo (pid 1234)" or a trace file's name. */
  readonly label: string;
  readonly phase: Exclude<SessionPhase, 'empty'>;
  /** Why it is in this phase, in words; '' when there is nothing to add. */
  readonly detail: string;
  /** A trace opened from a file (never live). */
  readonly offline: boolean;
  /** A browser app's page (optional; absent: not one). */
  readonly browser?: boolean;
  readonly model: Model;
  /** The warnings that hold now (the session's Analyzer results, the same the Warnings tree shows). */
  warnings(): readonly Warning[];
  /** How complete the analyses' last run was (optional; absent: complete). */
  analysisProgress?(): AnalysisProgressView;
  /**
   * The buses selected in the inspector, which the probe should record at full detail although they
   * are library emitters (optional; [] withdraws them).
   */
  focusBuses?(buses: readonly number[]): void;
  /** JSON preview of a dispatch's payload when the probe captured it (optional). */
  payloadOf?(seq: number): string | null;
}

/**
 * The workspace's event breakpoints, as the inspector shows and toggles them (the debugging layer's
 * `EventBreakpointStore` fits through `inspectorBreakpoints`). Optional: without it the inspector
 * shows no breakpoint control.
 */
export interface InspectorBreakpoints {
  /** Event types that break when dispatched (every bus). */
  types(): readonly string[];
  /** Adds the breakpoint when absent, removes it when present. */
  toggle(type: string): Promise<unknown>;
  readonly onDidChange: InspectorEvent<unknown>;
}

export interface InspectorSource {
  /** Sessions the inspector can show, most relevant first. */
  sessions(): readonly InspectorSessionInfo[];
  /** The session list changed, or a session's phase, label or detail did. */
  readonly onDidChangeSessions: InspectorEvent<unknown>;
  /** A session's analyses ran (warnings may have changed). Optional; fires with the session id. */
  readonly onDidUpdateSession?: InspectorEvent<string>;
  /** The session to show when the panel opens without one (e.g. the one selected in the Apps tree). */
  activeSessionId?(): string | undefined;
  /**
   * Command ids behind the empty and detached states' buttons. Defaults: `busscope.attach`,
   * `busscope.runDemo`, `busscope.openTrace`, `busscope.acceptBrowserApps`.
   */
  readonly commands?: Partial<Record<InspectorCommand, string>>;
  /** Event breakpoints the inspector can show and toggle (optional). */
  readonly breakpoints?: InspectorBreakpoints;
}

export const DEFAULT_COMMANDS: Record<InspectorCommand, string> = {
  attach: 'busscope.attach',
  runDemo: 'busscope.runDemo',
  openTrace: 'busscope.openTrace',
  acceptBrowserApps: 'busscope.acceptBrowserApps',
};
