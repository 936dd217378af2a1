// The analyses' public surface (plain TypeScript, no `vscode`).
export { Analyzer, ANALYSES, analyze, type AnalysisUpdate, type AnalyzerOptions } from './analyzer';
export { DEFAULT_ANALYSIS_OPTIONS, resolveAnalysisOptions, type AnalysisOptions, type AnalysisOptionsInput } from './options';
export { explainSubscription, type WhyReason, type WhyReasonKind, type WhyReport } from './explain';
export { LeakMonitor, type LeakMonitorEvent, type LeakMonitorOptions } from './leakMonitor';
export { editDistance, nameTokens, nearMiss, nearMisses, type NearMiss, type NearMissOptions, type NearMissReason } from './similarity';
export { emptyAnalysisState, type Analysis, type AnalysisContext, type AnalysisState } from './context';
export * from './warning';
