// Shared by the analysis tests: run the analyses over a model and pick warnings by kind.
import { analyze, type AnalysisOptionsInput, type Warning, type WarningKind } from '../../../runtime-probe/src/analysis/analyses/index';
import type { Model } from '../../../runtime-probe/src/analysis/model/index';

export function warningsOf<K extends WarningKind>(model: Model, kind: K, thresholds: AnalysisOptionsInput = {}): Extract<Warning, { kind: K }>[] {
  return analyze(model, { thresholds, kinds: [kind] }).filter((w): w is Extract<Warning, { kind: K }> => w.kind === kind);
}
