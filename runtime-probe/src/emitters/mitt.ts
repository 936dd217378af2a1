// mitt (`{ all: Map<type, handler[]>, on, off, emit }`, methods that close over `all`). Its own
// methods are wrapped as own properties and put back on dispose; the handler arrays are never
// touched. While recording, `emit` runs mitt's own steps with per-handler timings: a copy of the
// type's handlers called with the payload, then a copy of the `'*'` handlers called with
// (type, payload), the first throw propagating unchanged.

import { currentDispatchTracer, type DispatchTracer } from '../bus/tracer';
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
  type ListenerSubscription,
} from './emitter-bus';
import { installMethods, methodOf, type InstalledMethods } from './own-methods';

type Handler = (...args: unknown[]) => unknown;
interface MittLike {
  all: Map<unknown, Handler[]>;
  on: Function;
  off: Function;
  emit: Function;
}

export function isMitt(target: object): target is MittLike {
  const t = target as Partial<MittLike>;
  return t.all instanceof Map && typeof t.on === 'function' && typeof t.off === 'function' && typeof t.emit === 'function';
}

const NONE: readonly Handler[] = [];

function syncType(bus: EmitterBus, target: MittLike, type: unknown): readonly ListenerSubscription[] {
  return bus.sync(type, target.all.get(type) ?? NONE, false, 'dispose');
}

function callAll(tracer: DispatchTracer, bus: EmitterBus, seq: number, key: unknown, args: unknown[], count: { n: number }, target: MittLike): void {
  const stored = target.all.get(key);
  if (!stored) return;
  const handlers = stored.slice();
  const subs = bus.sync(key, stored, false, 'dispose');
  for (let i = 0; i < handlers.length; i++) {
    const sub: ListenerSubscription | undefined = subs[i];
    count.n++;
    if (sub !== undefined) handlerStart(tracer, seq, sub);
    try {
      callListener(tracer, seq, sub, handlers[i], undefined, args);
    } catch (error) {
      if (sub !== undefined) {
        handlerError(tracer, seq, bus, sub, error);
        handlerEnd(tracer, seq, sub);
      }
      throw error;
    }
    if (sub !== undefined) handlerEnd(tracer, seq, sub);
  }
}

export function watchMitt(target: MittLike, bus: EmitterBus): InstalledMethods {
  const on = methodOf(target, 'on');
  const off = methodOf(target, 'off');
  const emit = methodOf(target, 'emit');
  const wrappers: Record<string, Function> = {
    on: function (this: unknown, type: unknown): unknown {
      try {
        return Reflect.apply(on, this, arguments);
      } finally {
        syncType(bus, target, type);
      }
    },
    off: function (this: unknown, type: unknown): unknown {
      try {
        return Reflect.apply(off, this, arguments);
      } finally {
        syncType(bus, target, type);
      }
    },
    emit: function (this: unknown, type: unknown, event: unknown): unknown {
      const tracer = currentDispatchTracer();
      if (tracer === undefined) return Reflect.apply(emit, this, arguments);
      const name = bus.typeName(type);
      if (breakRequested(tracer, bus, name, event)) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
        // `emit` call. Step out to see it.
        // eslint-disable-next-line no-debugger
        debugger;
        eventBreakDone();
      }
      const seq = dispatchStart(tracer, bus, name, event);
      const count = { n: 0 };
      try {
        callAll(tracer, bus, seq, type, [event], count, target);
        callAll(tracer, bus, seq, '*', [type, event], count, target);
      } finally {
        dispatchEnd(tracer, seq, count.n);
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
  for (const key of target.all.keys()) syncType(bus, target, key);
  return installed;
}
