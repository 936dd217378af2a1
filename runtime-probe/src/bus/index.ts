// The bus-only public entry (`busscope-probe/bus`): no Node built-ins anywhere below, so it also
// runs in browsers.
// Producer ports and event-break conditions: registered here, left out of `busscope-probe/browser`.
import './optional-parts';
export { EventBus } from './event-bus';
export { connectProducer, type Producer } from './producer';
export type {
  CloneableEvents,
  CloneablePayload,
  ProducerDropPolicy,
  ProducerPortEnd,
  ProducerQueueOptions,
  ProducerStats,
  TransferablePort,
} from './cross-thread';
export { DispatchDepthError, DispatchStackOverflowError } from './errors';
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
} from './types';
export type { UnsubscribeReason } from './tracer';
export { Delegate, Emitter, MulticastDelegate } from '../delegates/index';
export type { Disposable, EmitterEvent, EmitterOptions, MulticastAddOptions, MulticastDelegateOptions } from '../delegates/index';
