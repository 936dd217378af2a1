// mitt and nanoevents as watch kinds: the same in Node and in the browser (no Node built-ins).
import { defaultBusName, EmitterBus } from './emitter-bus';
import { FUNCTION_ENTRY_KIND } from './function-kind';
import { isMitt, watchMitt } from './mitt';
import { isNanoEvents, watchNanoEvents } from './nanoevents';
import type { WatchKind } from './watch-core';

export const MITT_KIND: WatchKind = {
  is: isMitt,
  watch(target, name) {
    const bus = new EmitterBus(name ?? defaultBusName('mitt'), FUNCTION_ENTRY_KIND, 'mitt', 'mitt');
    return { bus, installed: watchMitt(target as Parameters<typeof watchMitt>[0], bus) };
  },
};

export const NANOEVENTS_KIND: WatchKind = {
  is: isNanoEvents,
  watch(target, name) {
    const bus = new EmitterBus(name ?? defaultBusName('nanoevents'), FUNCTION_ENTRY_KIND, 'nanoevents', 'nanoevents');
    return { bus, installed: watchNanoEvents(target as Parameters<typeof watchNanoEvents>[0], bus) };
  },
};
