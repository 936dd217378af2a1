// The analyses' public surface (plain TypeScript, no `vscode`).
export { Analyzer, ANALYSES, analyze, COMPLETE_PROGRESS, type AnalysisProgress, type AnalysisUpdate, type AnalyzerOptions } from './analyzer';
export { DEFAULT_NEAR_MISS_BUDGET, NearMissSearch, type NearMissPoolKind, type NearMissRunProgress } from './nearMissSearch';
export { DEFAULT_ANALYSIS_OPTIONS, resolveAnalysisOptions, type AnalysisOptions, type AnalysisOptionsInput } from './options';
export { explainSubscription, type WhyReason, type WhyReasonKind, type WhyReport } from './explain';
export { LeakMonitor, type LeakMonitorEvent, type LeakMonitorOptions } from './leakMonitor';
export {
  editDistance,
  MAX_COMPARED_NAME_LENGTH,
  nameKey,
  nameTokens,
  nearMiss,
  nearMisses,
  type NameKey,
  type NearMiss,
  type NearMissOptions,
  type NearMissReason,
} from './similarity';
export { emptyAnalysisState, type Analysis, type AnalysisContext, type AnalysisState } from './context';
export * from './warning';
