export { Delegate } from './delegate';
export { MulticastDelegate } from './multicast-delegate';
export type { MulticastDelegateOptions, MulticastAddOptions } from './multicast-delegate';
export { Emitter } from './emitter';
export type { EmitterEvent, EmitterOptions } from './emitter';
export type { Disposable } from './disposable';
