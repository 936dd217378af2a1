// The model's public surface (plain TypeScript, no `vscode`): the VS Code layer and the webview
// host import from here.
export { Model, type ModelListener, type SessionInfo, type SessionState, type DropCounts, type IntegrityCounts } from './model';
export { DEFAULT_MODEL_OPTIONS, resolveModelOptions, type ModelOptions } from './options';
export { buildSnapshot, type ModelSnapshot, type ModelTotals, type SnapshotOptions } from './snapshot';
export {
  dispatchesInRange,
  handlerSlicesOf,
  rangeStatistics,
  subscriptionsOf,
  timelineColumns,
  type DispatchView,
  type HandlerRangeStats,
  type RangeStatistics,
  type SubscriptionQuery,
  type TimelineColumns,
  type TypeRangeStats,
} from './queries';
export { subscriptionView, typeView, busView, ownerView, type BusView, type ThreadView, type OwnerView, type SubscriptionView, type TypeView } from './views';
export { DispatchRing, DISPATCH_ROW_BYTES, type DispatchRow } from './dispatchRing';
export { HandlerRing, HandlerFlag, HANDLER_ROW_BYTES, type HandlerSlice } from './handlerRing';
export { DurationHistogram, WindowedCounter } from './stats';
export {
  BusState,
  EventTypeState,
  SubscriptionState,
  OwnerState,
  ChurnCounter,
  SiteRemovals,
  runsBefore,
  byExecutionOrder,
  siteKey,
  ownerIsIdentifiable,
  ownerIdentity,
  ownerKey,
  ownerLabel,
  type EndReason,
} from './entities';
