// `ModelSnapshot`: the whole model as one JSON-safe value, for the trees and the webview's first
// paint (the timeline goes separately, as columns: see `timelineColumns`).
import type { Model, SessionInfo } from './model';
import { busView, ownerView, subscriptionView, typeView, type BusView, type OwnerView, type SubscriptionView, type TypeView } from './views';

export interface ModelTotals {
  readonly dispatches: number;
  readonly handlerCalls: number;
  readonly handlerErrors: number;
  readonly dispatchesPerSecond: number;
  readonly liveSubscriptions: number;
  readonly retainedEndedSubscriptions: number;
  readonly droppedRecords: number;
  readonly droppedDispatches: number;
  readonly unknownSubscriptionRecords: number;
  readonly timeline: { readonly size: number; readonly capacity: number; readonly overwritten: number; readonly bytes: number };
}

export interface ModelSnapshot {
  readonly version: number;
  /** Record time the snapshot describes. */
  readonly now: number;
  readonly session: SessionInfo;
  readonly totals: ModelTotals;
  readonly buses: readonly BusView[];
  readonly types: readonly TypeView[];
  readonly subscriptions: readonly SubscriptionView[];
  readonly owners: readonly OwnerView[];
}

export interface SnapshotOptions {
  /** Include ended subscriptions the model still retains. Default true. */
  readonly includeEnded?: boolean;
}

export function buildSnapshot(model: Model, options: SnapshotOptions = {}): ModelSnapshot {
  const includeEnded = options.includeEnded ?? true;
  const now = model.now;
  const subscriptions: SubscriptionView[] = [];
  let live = 0;
  let ended = 0;
  for (const s of model.subscriptions.values()) {
    if (s.active) live++;
    else ended++;
    if (s.active || includeEnded) subscriptions.push(subscriptionView(s));
  }
  let rate = 0;
  const types = model.allTypes().map((t) => {
    const v = typeView(t, now);
    rate += v.ratePerSecond;
    return v;
  });
  return {
    version: model.version,
    now,
    session: model.sessionInfo,
    totals: {
      dispatches: model.totalDispatches,
      handlerCalls: model.totalHandlerCalls,
      handlerErrors: model.totalHandlerErrors,
      dispatchesPerSecond: rate,
      liveSubscriptions: live,
      retainedEndedSubscriptions: ended,
      droppedRecords: model.drops.records,
      droppedDispatches: model.drops.dispatches,
      unknownSubscriptionRecords: model.integrity.unknownSubscriptions,
      timeline: {
        size: model.timeline.size,
        capacity: model.timeline.capacity,
        overwritten: model.timeline.overwritten,
        bytes: model.timeline.byteLength + model.handlerSlices.byteLength,
      },
    },
    buses: [...model.buses.values()].map((b) => busView(b)),
    types,
    subscriptions,
    owners: [...model.owners.values()].map(ownerView),
  };
}
