// nanoevents (`{ events: { [type]: cb[] }, on, emit }`, `on` returning an unbind function). `on` and
// `emit` are wrapped as own properties and put back on dispose; `events` and its arrays are never
// touched. While recording, `emit` runs nanoevents' own loop with per-callback timings: the type's
// array as it is, its length read once, each callback called as `callbacks[i](...args)` (so `this` is
// the array, as in nanoevents), the first throw propagating unchanged.

import { currentDispatchTracer } from '../bus/tracer';
import { eventBreakDone } from '../debug/event-breaks';
import {
  breakRequested,
  callListener,
  dispatchEnd,
  dispatchStart,
  EmitterBus,
  handlerEnd,
  handlerError,
  handlerStart,
  timingOn,
  payloadOf,
  type ListenerSubscription,
} from './emitter-bus';
import { installMethods, methodOf, type InstalledMethods } from './own-methods';

type Callback = (...args: unknown[]) => unknown;
interface NanoEventsLike {
  events: Record<PropertyKey, Callback[] | undefined>;
  on: Function;
  emit: Function;
}

export function isNanoEvents(target: object): target is NanoEventsLike {
  const t = target as Partial<NanoEventsLike>;
  return typeof t.events === 'object' && t.events !== null && typeof t.on === 'function' && typeof t.emit === 'function';
}

const NONE: readonly Callback[] = [];

function key(type: unknown): PropertyKey {
  return typeof type === 'symbol' ? type : typeof type === 'string' ? type : String(type);
}

function syncType(bus: EmitterBus, target: NanoEventsLike, type: unknown): readonly ListenerSubscription[] {
  const k = key(type);
  const events = target.events;
  return bus.sync(k, (events !== null && typeof events === 'object' ? events[k] : undefined) ?? NONE, false, 'dispose');
}

export function watchNanoEvents(target: NanoEventsLike, bus: EmitterBus): InstalledMethods {
  const on = methodOf(target, 'on');
  const emit = methodOf(target, 'emit');
  const wrappers: Record<string, Function> = {
    on: function (this: unknown, event: unknown): unknown {
      let unbind: unknown;
      try {
        unbind = Reflect.apply(on, this, arguments);
      } finally {
        syncType(bus, target, event);
      }
      if (typeof unbind !== 'function') return unbind;
      const original = unbind;
      return function (this: unknown): unknown {
        try {
          return Reflect.apply(original, this, arguments);
        } finally {
          syncType(bus, target, event);
        }
      };
    },
    emit: function (this: unknown, event: unknown): unknown {
      const tracer = currentDispatchTracer();
      if (tracer === undefined || this !== target) return Reflect.apply(emit, this, arguments);
      const args: unknown[] = [];
      for (let i = 1; i < arguments.length; i++) args.push(arguments[i]);
      const name = bus.typeName(key(event));
      if (breakRequested(tracer, bus, name, payloadOf(args))) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
        // `emit` call. Step out to see it.
        // eslint-disable-next-line no-debugger
        debugger;
        eventBreakDone();
      }
      const callbacks: Callback[] = (this as NanoEventsLike).events[event as PropertyKey] || (NONE as Callback[]);
      const subs = syncType(bus, target, event);
      const seq = dispatchStart(tracer, bus, name, payloadOf(args));
      const length = callbacks.length;
      let delivered = 0;
      try {
        for (let i = 0; i < length; i++) {
          const sub: ListenerSubscription | undefined = subs[i];
          delivered++;
          if (sub !== undefined) handlerStart(tracer, seq, sub);
          try {
            callListener(tracer, seq, sub, callbacks[i], callbacks, args);
          } catch (error) {
            if (sub !== undefined) {
              handlerError(tracer, seq, bus, sub, error);
              handlerEnd(tracer, seq, sub);
            }
            throw error;
          }
          if (sub !== undefined) handlerEnd(tracer, seq, sub);
        }
      } finally {
        dispatchEnd(tracer, seq, delivered);
      }
      return undefined;
    },
  };
  // `emit` is the wrapper only while something records; otherwise the emitter's own.
  const emitWrapper = wrappers.emit;
  wrappers.emit = timingOn() ? emitWrapper : emit;
  const installed = installMethods(target, wrappers);
  bus.onTiming = (on) => installed.replace('emit', on ? emitWrapper : emit);
  bus.register();
  for (const k of Reflect.ownKeys(target.events)) syncType(bus, target, k);
  return installed;
}
