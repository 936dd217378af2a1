// A browser EventTarget (window, document, DOM nodes, the app's own `new EventTarget()` subclasses).
// Unlike Node's, a browser EventTarget does not expose its listeners, so this adapter keeps its own
// list: `addEventListener` for a recorded type registers a small forwarding function in the user's
// listener's place (remembered by type + listener + capture, as the browser matches them), and
// `removeEventListener` removes that function. The forwarder calls the user's listener with the same
// `this` and event (a `handleEvent` object's method too), so `once`, `passive`, `signal`,
// `preventDefault` and `stopImmediatePropagation` stay the browser's own.
//  - Types: window, document and DOM nodes record only the types listed in `watch(…, { types })`
//    (so `mousemove` cannot flood the page); other targets record every type unless a list is given.
//    Listeners of other types are passed through untouched.
//  - Dispatches: a script's `dispatchEvent` is one dispatch with a timing per listener. An event the
//    browser dispatches itself (a click) is seen only through the forwarders, so each listener call
//    is recorded as a dispatch of its own.
//  - Listeners added before `watch` cannot be seen (the browser does not list them).
//  - Disposing puts the methods back and re-registers each forwarded listener as itself (same type,
//    capture, once and passive), so the app's later `removeEventListener` calls find them.
// No Node built-ins here.

import { currentDispatchTracer } from '../bus/tracer';
import { eventBreakDone } from '../debug/event-breaks';
import { describeValue } from '../delegates/disposable';
import {
  breakRequested,
  classNameOf,
  defaultBusName,
  dispatchEnd,
  dispatchStart,
  EmitterBus,
  handlerEnd,
  handlerError,
  handlerStart,
  type EntryKind,
  tracedEventDispatch,
  type ListenerSubscription,
  type RunningEventDispatch,
} from './emitter-bus';
import { installMethods, methodOf, type InstalledMethods } from './own-methods';
import type { WatchKind, WatchOptions } from './watch-core';

// The DOM's listener shapes, declared here: the probe type-checks without the DOM library.
type ListenerFunction = (this: unknown, event: Event) => unknown;
interface ListenerObject {
  handleEvent(event: Event): unknown;
}
type Listener = ListenerFunction | ListenerObject;
interface AddOptions {
  readonly capture?: boolean;
  readonly once?: boolean;
  readonly passive?: boolean;
  readonly signal?: AbortSignal;
}

/** One listener as the browser holds it (through its forwarder). */
interface Forwarded {
  readonly listener: Listener;
  readonly capture: boolean;
  readonly once: boolean;
  readonly passive: boolean;
  forwarder: (this: unknown, event: Event) => unknown;
  /** Removes the abort listener of the listener's `signal`, if any. */
  unlinkSignal: (() => void) | undefined;
}

const ENTRY_KIND: EntryKind = {
  label(entry) {
    const listener = (entry as Forwarded).listener;
    if (typeof listener === 'function') return listener.name !== '' ? listener.name : undefined;
    try {
      const ctor = (listener as { constructor?: unknown }).constructor;
      if (typeof ctor === 'function' && ctor !== Object && ctor.name !== '') return ctor.name;
    } catch {
      // a hostile getter
    }
    return 'handleEvent';
  },
  once(entry) {
    return (entry as Forwarded).once;
  },
};

export function isEventTargetLike(target: object): target is EventTarget {
  return typeof EventTarget === 'function' && target instanceof EventTarget;
}

/** Targets the browser itself dispatches to (input, layout, network): their types must be chosen. */
function isDomTarget(target: object): boolean {
  const g = globalThis as { Window?: Function; Node?: Function };
  return (typeof g.Window === 'function' && target instanceof g.Window) || (typeof g.Node === 'function' && target instanceof g.Node);
}

function captureOf(options: unknown): boolean {
  if (typeof options === 'boolean') return options;
  return typeof options === 'object' && options !== null && (options as AddOptions).capture === true;
}

/** The bus of a watched browser EventTarget. */
export class DomEventTargetBus extends EmitterBus {
  /** Per type, the forwarded listeners in registration order (the shadow's truth). */
  private readonly byType = new Map<string, Forwarded[]>();
  /** The traced `dispatchEvent` in progress on this target (seq 0: none). */
  readonly running: RunningEventDispatch = { seq: 0, delivered: 0 };

  constructor(
    name: string,
    className: string,
    /** Recorded types; undefined: every type. */
    private readonly types: ReadonlySet<string> | undefined,
  ) {
    super(name, ENTRY_KIND, 'event-target', className);
  }

  records(type: string): boolean {
    return this.types === undefined || this.types.has(type);
  }

  find(type: string, listener: unknown, capture: boolean): Forwarded | undefined {
    const list = this.byType.get(type);
    if (list === undefined) return undefined;
    for (const f of list) if (f.listener === listener && f.capture === capture) return f;
    return undefined;
  }

  add(type: string, f: Forwarded): void {
    const list = this.byType.get(type) ?? [];
    list.push(f);
    this.byType.set(type, list);
    this.sync(type, list, false, 'dispose');
  }

  remove(type: string, f: Forwarded, reason: 'dispose' | 'once' | 'signal'): void {
    const list = this.byType.get(type);
    if (list === undefined) return;
    const i = list.indexOf(f);
    if (i < 0) return;
    f.unlinkSignal?.();
    const next = list.slice(0, i).concat(list.slice(i + 1));
    if (next.length === 0) this.byType.delete(type);
    else this.byType.set(type, next);
    this.sync(type, next, false, reason);
  }

  /** The subscription standing for `f` now. */
  subscriptionOf(type: string, f: Forwarded): ListenerSubscription | undefined {
    for (const sub of this.subscriptionsOf(type)) if (sub.entry === f) return sub;
    return undefined;
  }

  /** Every forwarded listener (dispose re-registers them as themselves). */
  *forwarded(): IterableIterator<[string, Forwarded]> {
    for (const [type, list] of this.byType) for (const f of list) yield [type, f];
  }
}

const noForwarder = (): undefined => undefined;

function callListener(listener: Listener, self: unknown, event: Event): unknown {
  if (typeof listener === 'function') return Reflect.apply(listener, self, [event]);
  const handleEvent = (listener as ListenerObject).handleEvent;
  // As the browser does: a missing handleEvent is the listener's own error, thrown at the call.
  return Reflect.apply(handleEvent, listener, [event]);
}

function makeForwarder(bus: DomEventTargetBus, type: string, f: Forwarded): (this: unknown, event: Event) => unknown {
  return function forwardListener(this: unknown, event: Event): unknown {
    const listener = f.listener;
    const sub = bus.subscriptionOf(type, f);
    // The browser removed a `once` listener before calling it: so does the shadow.
    if (f.once && sub !== undefined) bus.remove(type, f, 'once');
    const tracer = currentDispatchTracer();
    if (tracer === undefined || sub === undefined) return callListener(listener, this, event);
    const running = bus.running;
    // Inside a traced dispatchEvent of this target: one handler of that dispatch. Otherwise the
    // browser dispatched it (input, timers, network): the call is a dispatch of its own.
    const own = running.seq === 0;
    const seq = own ? dispatchStart(tracer, bus, type, event) : running.seq;
    running.delivered++;
    handlerStart(tracer, seq, sub);
    try {
      return callListener(listener, this, event);
    } catch (error) {
      handlerError(tracer, seq, bus, sub, error);
      throw error;
    } finally {
      handlerEnd(tracer, seq, sub);
      if (own) {
        dispatchEnd(tracer, seq, 1);
        running.delivered = 0;
      }
    }
  };
}

export function watchDomEventTarget(target: EventTarget, bus: DomEventTargetBus): InstalledMethods {
  const add = methodOf(target, 'addEventListener');
  const remove = methodOf(target, 'removeEventListener');
  const dispatch = methodOf(target, 'dispatchEvent');
  const installed = installMethods(target, {
    addEventListener: function addEventListener(this: unknown, type: unknown, listener: unknown, options?: unknown): unknown {
      if (
        this !== target ||
        typeof type !== 'string' ||
        !bus.records(type) ||
        (typeof listener !== 'function' && (typeof listener !== 'object' || listener === null))
      ) {
        return Reflect.apply(add, this, arguments);
      }
      const capture = captureOf(options);
      // Already registered: the browser would ignore the call; so do we (no second subscription).
      if (bus.find(type, listener, capture) !== undefined) return undefined;
      const o = typeof options === 'object' && options !== null ? (options as AddOptions) : undefined;
      const signal = o?.signal;
      if (signal !== undefined && signal.aborted) return Reflect.apply(add, this, arguments);
      const once = o?.once === true;
      const l = listener as Listener;
      const f: Forwarded = { listener: l, capture, once, passive: o?.passive === true, forwarder: noForwarder, unlinkSignal: undefined };
      f.forwarder = makeForwarder(bus, type, f);
      const result = Reflect.apply(add, this, [type, f.forwarder, options]);
      if (signal !== undefined) {
        const onAbort = (): void => bus.remove(type, f, 'signal');
        signal.addEventListener('abort', onAbort, { once: true });
        f.unlinkSignal = () => signal.removeEventListener('abort', onAbort);
      }
      bus.add(type, f);
      return result;
    },
    removeEventListener: function removeEventListener(this: unknown, type: unknown, listener: unknown, options?: unknown): unknown {
      if (this !== target || typeof type !== 'string') return Reflect.apply(remove, this, arguments);
      const f = bus.find(type, listener, captureOf(options));
      if (f === undefined) return Reflect.apply(remove, this, arguments);
      const result = Reflect.apply(remove, this, [type, f.forwarder, options]);
      bus.remove(type, f, 'dispose');
      return result;
    },
    dispatchEvent: function dispatchEvent(this: unknown, event: unknown): unknown {
      const tracer = currentDispatchTracer();
      if (tracer === undefined || this !== target || !(event instanceof Event) || !bus.records(event.type)) {
        return Reflect.apply(dispatch, this, arguments);
      }
      const type = event.type;
      if (breakRequested(tracer, bus, type, event)) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
        // `dispatchEvent` call. Step out to see it.
        // eslint-disable-next-line no-debugger
        debugger;
        eventBreakDone();
      }
      return tracedEventDispatch(tracer, bus, event, dispatch, this, arguments, null);
    },
  });
  bus.register();
  return {
    replace: installed.replace,
    restore() {
      installed.restore();
      // The browser holds forwarders: swap each for the listener itself, so the app can remove it.
      for (const [type, f] of [...bus.forwarded()]) {
        f.unlinkSignal?.();
        Reflect.apply(remove, target, [type, f.forwarder, f.capture]);
        Reflect.apply(add, target, [type, f.listener, { capture: f.capture, once: f.once, passive: f.passive }]);
      }
    },
  };
}

function checkTypes(caller: string, target: object, options: WatchOptions | undefined): ReadonlySet<string> | undefined {
  const types = options?.types;
  if (types === undefined) {
    if (isDomTarget(target)) {
      throw new TypeError(
        `${caller}: options.types is required for ${classNameOf(target, 'this target')} (the browser dispatches many events to it): list the event types to record, e.g. { types: ['resize', 'storage'] }`,
      );
    }
    return undefined;
  }
  if (!Array.isArray(types) || types.length === 0 || !types.every((t) => typeof t === 'string' && t.length > 0)) {
    throw new TypeError(`${caller}: options.types must be a non-empty array of event type names (got ${describeValue(types)})`);
  }
  return new Set(types);
}

/** The browser's EventTarget kind for `watch`. */
export function domEventTargetKind(caller: string): WatchKind {
  return {
    is: isEventTargetLike,
    watch(target, name, options) {
      const types = checkTypes(caller, target, options);
      const className = classNameOf(target, 'EventTarget');
      const bus = new DomEventTargetBus(name ?? defaultBusName(className), className, types);
      return { bus, installed: watchDomEventTarget(target as EventTarget, bus) };
    },
  };
}
