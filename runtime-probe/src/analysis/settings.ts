// The `busscope.*` settings and what they mean to the model and the analyses. Plain TypeScript (no
// `vscode`): the VS Code layer passes a `read(key)` over `workspace.getConfiguration('busscope')`,
// `busscope check --set` a reader over its command line (the `warnings.*` keys, by the same rules).
// A value of the wrong type or range (settings.json is hand-edited) falls back to the default, so a
// typo never breaks attaching. The manifest documents the same keys and defaults; a unit test keeps
// them equal to the model's and analyses' defaults.
import { DEFAULT_ANALYSIS_OPTIONS, WARNING_KINDS, type AnalysisOptionsInput, type AnalyzerOptions, type WarningKind } from './analyses/index';
import { DEFAULT_MODEL_OPTIONS, type ModelOptions } from './model/index';

/** Reads one setting below `busscope.` (undefined when unset). */
export type SettingsReader = (key: string) => unknown;

export const SETTING = {
  autoReattach: 'autoReattach',
  capturePayloads: 'capturePayloads',
  discoveryDirectory: 'discoveryDirectory',
  timelineCapacity: 'timeline.capacity',
  handlerCapacity: 'timeline.handlerCapacity',
  endedSubscriptions: 'timeline.endedSubscriptions',
  listenerGrowthThreshold: 'warnings.listenerGrowth.threshold',
  repeatedSubscriptions: 'warnings.listenerGrowth.repeatedSubscriptions',
  slowHandlerP95Ms: 'warnings.slowHandler.p95Ms',
  slowHandlerMaxMs: 'warnings.slowHandler.maxMs',
  churnCyclesPerSecond: 'warnings.churn.cyclesPerSecond',
  neverDispatchedGraceMs: 'warnings.neverDispatched.graceMs',
  starvedMinDispatches: 'warnings.starved.minDispatches',
  unheardWithoutNearMiss: 'warnings.unheardDispatch.reportWithoutNearMiss',
  disabledWarnings: 'warnings.disabled',
  diagnosticsEnabled: 'diagnostics.enabled',
  demoPath: 'demo.path',
  demoRuntime: 'demo.runtimeExecutable',
} as const;

/** Defaults, as the manifest declares them. */
export const SETTING_DEFAULTS = {
  [SETTING.autoReattach]: false,
  [SETTING.capturePayloads]: false,
  [SETTING.discoveryDirectory]: '',
  [SETTING.timelineCapacity]: DEFAULT_MODEL_OPTIONS.timelineCapacity,
  [SETTING.handlerCapacity]: DEFAULT_MODEL_OPTIONS.handlerSliceCapacity,
  [SETTING.endedSubscriptions]: DEFAULT_MODEL_OPTIONS.maxEndedSubscriptions,
  [SETTING.listenerGrowthThreshold]: DEFAULT_ANALYSIS_OPTIONS.listenerGrowth.threshold,
  [SETTING.repeatedSubscriptions]: DEFAULT_ANALYSIS_OPTIONS.listenerGrowth.repeatedSubscriptionThreshold,
  [SETTING.slowHandlerP95Ms]: DEFAULT_ANALYSIS_OPTIONS.slowHandler.p95Ms,
  [SETTING.slowHandlerMaxMs]: DEFAULT_ANALYSIS_OPTIONS.slowHandler.maxMs,
  [SETTING.churnCyclesPerSecond]: DEFAULT_ANALYSIS_OPTIONS.churn.minCyclesPerSecond,
  [SETTING.neverDispatchedGraceMs]: DEFAULT_ANALYSIS_OPTIONS.neverDispatched.graceMs,
  [SETTING.starvedMinDispatches]: DEFAULT_ANALYSIS_OPTIONS.starved.minDispatches,
  [SETTING.unheardWithoutNearMiss]: DEFAULT_ANALYSIS_OPTIONS.unheardDispatch.reportWithoutNearMiss,
  [SETTING.disabledWarnings]: [] as readonly WarningKind[],
  [SETTING.diagnosticsEnabled]: true,
  [SETTING.demoPath]: '',
  [SETTING.demoRuntime]: '',
} as const;

/** What a `warnings.*` setting accepts: readSettings ignores anything else, `busscope check --set` refuses it. */
export type WarningSettingRule =
  | { readonly type: 'number'; readonly min: number; readonly max: number; readonly integer: boolean }
  | { readonly type: 'boolean' }
  | { readonly type: 'kinds' };

const COUNT = { type: 'number', min: 0, max: 1e9, integer: true } as const;
const AMOUNT = { type: 'number', min: 0, max: 1e9, integer: false } as const;

/** The analyses' settings (`busscope.warnings.*`), one rule each. */
export const WARNING_SETTING_RULES = {
  [SETTING.listenerGrowthThreshold]: COUNT,
  [SETTING.repeatedSubscriptions]: COUNT,
  [SETTING.slowHandlerP95Ms]: AMOUNT,
  [SETTING.slowHandlerMaxMs]: AMOUNT,
  [SETTING.churnCyclesPerSecond]: AMOUNT,
  [SETTING.neverDispatchedGraceMs]: { type: 'number', min: 0, max: 1e10, integer: false },
  [SETTING.starvedMinDispatches]: COUNT,
  [SETTING.unheardWithoutNearMiss]: { type: 'boolean' },
  [SETTING.disabledWarnings]: { type: 'kinds' },
} as const satisfies Readonly<Record<string, WarningSettingRule>>;

export type WarningSettingKey = keyof typeof WARNING_SETTING_RULES;

/** Bounds of the ring sizes (a ring row is 64 bytes; 5M rows is 320 MB). */
export const RING_LIMITS = { min: 1_000, max: 5_000_000 } as const;

function num(read: SettingsReader, key: string, min: number, max: number, integer: boolean): number | undefined {
  const v = read(key);
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) return undefined;
  if (integer && !Number.isInteger(v)) return undefined;
  return v;
}

/** A numeric `warnings.*` setting, by its rule. */
function warningNum(read: SettingsReader, key: WarningSettingKey): number | undefined {
  const rule: WarningSettingRule = WARNING_SETTING_RULES[key];
  return rule.type === 'number' ? num(read, key, rule.min, rule.max, rule.integer) : undefined;
}

function bool(read: SettingsReader, key: string): boolean | undefined {
  const v = read(key);
  return typeof v === 'boolean' ? v : undefined;
}

function str(read: SettingsReader, key: string): string | undefined {
  const v = read(key);
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

export interface BusscopeSettings {
  readonly autoReattach: boolean;
  /** Ask attached probes to record payloads (for the inspector's dispatch details). */
  readonly capturePayloads: boolean;
  /** undefined: the probe's default directory. */
  readonly discoveryDirectory: string | undefined;
  readonly model: Partial<ModelOptions>;
  readonly analyzer: AnalyzerOptions;
  readonly diagnosticsEnabled: boolean;
  readonly demoPath: string | undefined;
  readonly demoRuntime: string | undefined;
}

export function readSettings(read: SettingsReader): BusscopeSettings {
  const thresholds: AnalysisOptionsInput = {
    listenerGrowth: {
      threshold: warningNum(read, SETTING.listenerGrowthThreshold),
      repeatedSubscriptionThreshold: warningNum(read, SETTING.repeatedSubscriptions),
    },
    slowHandler: {
      p95Ms: warningNum(read, SETTING.slowHandlerP95Ms),
      maxMs: warningNum(read, SETTING.slowHandlerMaxMs),
    },
    churn: { minCyclesPerSecond: warningNum(read, SETTING.churnCyclesPerSecond) },
    neverDispatched: { graceMs: warningNum(read, SETTING.neverDispatchedGraceMs) },
    starved: { minDispatches: warningNum(read, SETTING.starvedMinDispatches) },
    unheardDispatch: { reportWithoutNearMiss: bool(read, SETTING.unheardWithoutNearMiss) },
  };
  const disabledRaw = read(SETTING.disabledWarnings);
  const disabled = Array.isArray(disabledRaw) ? disabledRaw.filter((k): k is WarningKind => (WARNING_KINDS as readonly unknown[]).includes(k)) : [];
  return {
    autoReattach: bool(read, SETTING.autoReattach) ?? false,
    capturePayloads: bool(read, SETTING.capturePayloads) ?? false,
    discoveryDirectory: str(read, SETTING.discoveryDirectory),
    model: {
      timelineCapacity: num(read, SETTING.timelineCapacity, RING_LIMITS.min, RING_LIMITS.max, true),
      handlerSliceCapacity: num(read, SETTING.handlerCapacity, RING_LIMITS.min, RING_LIMITS.max, true),
      maxEndedSubscriptions: num(read, SETTING.endedSubscriptions, 0, 1_000_000, true),
    },
    analyzer: { thresholds, kinds: WARNING_KINDS.filter((k) => !disabled.includes(k)) },
    diagnosticsEnabled: bool(read, SETTING.diagnosticsEnabled) ?? true,
    demoPath: str(read, SETTING.demoPath),
    demoRuntime: str(read, SETTING.demoRuntime),
  };
}
