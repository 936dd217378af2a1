// `busscope-probe/browser`: the bus, the recorder and a WebSocket transport for pages and workers.
// ESM, no Node built-ins (scripts/check-layers.mjs enforces it), size-budgeted (a test bundles it).
export { connect, type BrowserConnection, type ConnectOptions, type ConnectionState } from './connect';
export { watch, type WatchHandle, type WatchOptions } from './watch';
// A page's Web Workers as its threads: `addWorker` in the page, `connectToPage` in a worker that loaded
// `busscope-probe/browser/worker` (which runs `joinPageWhenAsked` as it loads). Left out by bundlers when unused.
export { addWorker, type PageWorker } from './threads/page-threads';
export { connectToPage, joinPageWhenAsked, type ConnectToPageOptions, type WorkerConnection, type WorkerConnectionState } from './threads/worker-side';
// The bus itself (the delegates stay in `busscope-probe/bus`: a page that wants them imports them there).
export { EventBus } from '../bus/event-bus';
export { DispatchDepthError, DispatchStackOverflowError } from '../bus/errors';
export type {
  AnyPayload,
  DispatchContext,
  DispatchResult,
  EventBusOptions,
  EventMap,
  EventName,
  Handler,
  HandlerErrorInfo,
  HandlerPayload,
  PayloadArgs,
  PayloadOf,
  SubscribeOptions,
  Subscription,
  SubscriptionInfo,
} from '../bus/types';
