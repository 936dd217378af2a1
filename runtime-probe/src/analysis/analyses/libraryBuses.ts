// Which buses are libraries' (the views' `LibraryClassifier`), for the per-type analyses. Judging a
// bus is a pass over its listeners (100,000 types in an app with an id per event name), so a run
// must not judge it per type: verdicts are kept between runs (`AnalysisState.libraryBuses`) until a
// type of the bus changes (a subscription made or ended is one), which `forgetChangedBuses` applies
// once per run before any analysis reads them.
import type { Model } from '../model/model';
import type { AnalysisContext, AnalysisState } from './context';
import type { TypeChanges } from './typeScan';

/** Drops the verdicts of the buses whose types changed (all of them when the journal cannot say). */
export function forgetChangedBuses(state: AnalysisState, model: Model, changes: TypeChanges): void {
  if (changes.all) {
    state.libraryBuses.clear();
    return;
  }
  if (state.libraryBuses.size === 0) return;
  const types = model.allTypes();
  for (const i of changes.indices) {
    const t = types[i];
    if (t !== undefined) state.libraryBuses.delete(t.bus);
  }
}

export class LibraryBuses {
  private readonly verdicts: Map<number, boolean>;
  constructor(private readonly ctx: AnalysisContext) {
    this.verdicts = ctx.state.libraryBuses;
  }

  has(busId: number): boolean {
    let verdict = this.verdicts.get(busId);
    if (verdict === undefined) {
      const bus = this.ctx.model.buses.get(busId);
      verdict = bus !== undefined && this.ctx.state.libraries.isLibrary(bus);
      this.verdicts.set(busId, verdict);
    }
    return verdict;
  }
}
