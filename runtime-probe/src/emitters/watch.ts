// `probe.watch(target, { name? })`: one emitter the app already has, seen as a bus.
//
// Choices the issue leaves open:
//  - Watching a target that is already watched returns another handle on the same watch (same bus,
//    same name — a name passed the second time is ignored); the watch ends when every handle has
//    been disposed. Two parts of an app can watch the same emitter without undoing each other.
//  - Listeners registered before `watch` become subscriptions at once; their subscribe site is the
//    `watch` call (the stack of their real `on` call is gone).
//  - The probe holds watched targets weakly: the bus registry holds the bus by a WeakRef, the bus
//    reaches the target only through the wrappers the target itself holds, and a handle holds its
//    watch by a WeakRef. A target collected while watched is reported gone (FinalizationRegistry).

import { types } from 'node:util';
import { classNameOf, defaultBusName, EmitterBus } from './emitter-bus';
import { EventTargetBus, isEventTarget, unsupportedEventTarget, watchEventTarget } from './event-target';
import { MITT_KIND, NANOEVENTS_KIND } from './function-kinds';
import { isNodeEmitter, NODE_ENTRY_KIND, watchNodeEmitter } from './node-emitter';
import { setWatched } from './process-wide';
import { watchWith, type WatchHandle, type WatchOptions, type WatchRuntime } from './watch-core';

export type { WatchHandle, WatchOptions } from './watch-core';
/** @internal The bus of a watched target (tests). */
export { watchedBus } from './watch-core';

const NODE_WATCH: WatchRuntime = {
  caller: 'probe.watch',
  expected: 'a Node EventEmitter, an EventTarget, a mitt or a nanoevents emitter',
  isProxy: types.isProxy,
  onWatched: setWatched,
  kinds: [
    {
      is: isNodeEmitter,
      watch(target, name) {
        const className = classNameOf(target, 'EventEmitter');
        const bus = new EmitterBus(name ?? defaultBusName(className), NODE_ENTRY_KIND, 'node-emitter', className);
        return { bus, installed: watchNodeEmitter(target as Parameters<typeof watchNodeEmitter>[0], bus) };
      },
    },
    {
      is: isEventTarget,
      watch(target, name) {
        const et = target as EventTarget;
        const table = EventTargetBus.tableOf(et);
        if (table === undefined) throw unsupportedEventTarget(et);
        const className = classNameOf(target, 'EventTarget');
        const bus = new EventTargetBus(name ?? defaultBusName(className), table, className);
        return { bus, installed: watchEventTarget(et, bus) };
      },
    },
    MITT_KIND,
    NANOEVENTS_KIND,
  ],
};

/** Starts watching `target` (see `Probe.watch`). */
export function watch(target: unknown, options?: WatchOptions): WatchHandle {
  return watchWith(NODE_WATCH, target, options);
}
