// Node's EventTarget (and its subclasses: AbortSignal, MessagePort, BroadcastChannel, app classes).
// Listeners stay the user's own: Node keeps one record per listener (type, listener, capture, once,
// passive…) in a linked list under an own symbol of the target, and what `getEventListeners`,
// `removeEventListener`'s matching and duplicate detection read — the record's `listener` — is never
// changed. Only the record's `callback` (what dispatch calls) is swapped for a timing wrapper while
// something records, and put back when recording stops and on dispose; so `once`, `signal`, `capture`, `passive`, `handleEvent` objects,
// `stopImmediatePropagation` and `preventDefault` all run Node's own code.
//  - Subscriptions: `addEventListener` / `removeEventListener` are wrapped and the shadow is synced
//    with the record list after each call (and after each dispatch, for `once` records). The abort
//    of a listener's `signal` calls `removeEventListener` on the target, so it is seen too.
//  - Dispatches: `dispatchEvent` is wrapped: one branch when nobody records; while recording, a
//    dispatch around the original call, and each record's callback reports its own timing.

import { currentDispatchTracer } from '../bus/tracer';
import { eventBreakDone } from '../debug/event-breaks';
import { describeValue } from '../delegates/disposable';
import {
  breakRequested,
  callListener,
  EmitterBus,
  handlerEnd,
  handlerError,
  handlerStart,
  timingOn,
  type EntryKind,
  tracedEventDispatch,
  type ListenerSubscription,
  type RunningEventDispatch,
} from './emitter-bus';
import { installMethods, methodOf, type InstalledMethods } from './own-methods';

/** What this adapter reads of Node's listener record (lib/internal/event_target.js `Listener`). */
interface ListenerRecord {
  next: ListenerRecord | undefined;
  listener: unknown;
  callback: unknown;
  readonly once: boolean;
  readonly weak: boolean;
  readonly removed: boolean;
}
interface ListenerRoot {
  next: ListenerRecord | undefined;
}

export function isEventTarget(target: object): target is EventTarget {
  return typeof EventTarget === 'function' && target instanceof EventTarget;
}

/** Node's per-target listener table: an own symbol property holding a Map of type → list root. */
function listenerTable(target: EventTarget): Map<string, ListenerRoot> | undefined {
  for (const s of Object.getOwnPropertySymbols(target)) {
    if (s.description !== 'kEvents') continue;
    // Node's own SafeMap: a Map whose prototype chain is cut off (not `instanceof Map`).
    const table = (target as unknown as Record<symbol, unknown>)[s] as Partial<Map<string, ListenerRoot>> | null | undefined;
    if (typeof table === 'object' && table !== null && typeof table.get === 'function' && typeof table.keys === 'function') {
      return table as Map<string, ListenerRoot>;
    }
  }
  return undefined;
}

function recordsOf(table: Map<string, ListenerRoot>, type: string): ListenerRecord[] {
  const out: ListenerRecord[] = [];
  let handler = table.get(type)?.next;
  while (handler !== undefined) {
    if (!handler.removed) out.push(handler);
    handler = handler.next;
  }
  return out;
}

export const EVENT_TARGET_ENTRY_KIND: EntryKind = {
  label(entry) {
    const listener = (entry as ListenerRecord).listener;
    if (typeof listener === 'function') return listener.name !== '' ? listener.name : undefined;
    if (typeof listener === 'object' && listener !== null) {
      // A handleEvent object: its class name says more than "handleEvent".
      try {
        const ctor = (listener as { constructor?: unknown }).constructor;
        if (typeof ctor === 'function' && ctor !== Object && ctor.name !== '') return ctor.name;
      } catch {
        // a hostile getter
      }
      return 'handleEvent';
    }
    return undefined;
  },
  once(entry) {
    return (entry as ListenerRecord).once === true;
  },
};

/** A record's own callback and the timing one that stands in for it while something records. */
interface Patch {
  readonly original: Function;
  readonly timed: Function;
}

/** The bus of a watched EventTarget: swaps each record's callback for a timing one, and back. */
export class EventTargetBus extends EmitterBus {
  /** The traced `dispatchEvent` in progress on this target (seq 0: none). */
  readonly running: RunningEventDispatch = { seq: 0, delivered: 0 };
  /** Live `once` subscriptions: while there are some, every dispatch syncs afterwards (Node removed them). */
  onceLive = 0;

  constructor(
    name: string,
    private readonly table: Map<string, ListenerRoot>,
    className: string,
  ) {
    super(name, EVENT_TARGET_ENTRY_KIND, 'event-target', className);
    this.onTiming = (on) => this.applyTiming(on);
  }

  /** The target's listener table, or undefined when it is not a Node EventTarget. */
  static tableOf(target: EventTarget): Map<string, ListenerRoot> | undefined {
    return listenerTable(target);
  }

  /** Sync plus timing callbacks for the records that arrived. */
  syncType(type: string, reason: 'dispose' | 'once'): void {
    const subs = this.sync(type, recordsOf(this.table, type), false, reason);
    for (const sub of subs) {
      if (sub.patch !== undefined) continue;
      if (sub.once) this.onceLive++;
      this.patch(sub);
    }
  }

  /** Every type the target or the shadow knows. */
  syncAll(): void {
    const types = new Set<string>(this.keys() as string[]);
    for (const type of this.table.keys()) types.add(type);
    for (const type of types) this.syncType(type, 'dispose');
  }

  /** Puts the timing callbacks in (`on`) or the records' own back. */
  applyTiming(on: boolean): void {
    for (const sub of this.tracedSubscriptions() as Iterable<ListenerSubscription>) {
      const patch = sub.patch as Patch | null | undefined;
      if (patch === null || patch === undefined) continue;
      const record = sub.entry as ListenerRecord;
      if (on && record.callback === patch.original) record.callback = patch.timed;
      else if (!on && record.callback === patch.timed) record.callback = patch.original;
    }
  }

  private patch(sub: ListenerSubscription): void {
    const record = sub.entry as ListenerRecord;
    // A weak record's callback is a WeakRef (Node's own internal listeners): left alone, not timed.
    if (record.weak || typeof record.callback !== 'function') {
      sub.patch = null;
      return;
    }
    const original = record.callback as Function;
    const running = this.running;
    const bus = this;
    const timed = function timedListener(this: unknown, _event: unknown): unknown {
      const tracer = currentDispatchTracer();
      const seq = running.seq;
      // Not inside a traced dispatchEvent (NodeEventTarget's emit, a dispatch begun before recording).
      if (tracer === undefined || seq === 0) return Reflect.apply(original, this, arguments);
      running.delivered++;
      handlerStart(tracer, seq, sub);
      let result: unknown;
      try {
        result = callListener(tracer, seq, sub, original, this, arguments);
      } catch (error) {
        handlerError(tracer, seq, bus, sub, error);
        handlerEnd(tracer, seq, sub);
        throw error;
      }
      handlerEnd(tracer, seq, sub);
      return result;
    };
    const patch: Patch = { original, timed };
    sub.patch = patch;
    if (timingOn()) record.callback = timed;
  }

  protected override onRetire(sub: ListenerSubscription): void {
    if (sub.once) this.onceLive--;
    const patch = sub.patch as Patch | null | undefined;
    if (patch === null || patch === undefined) return;
    const record = sub.entry as ListenerRecord;
    if (record.callback === patch.timed) record.callback = patch.original;
  }
}

/** Installs the wrappers on `target`; the returned handle restores it exactly. */
export function watchEventTarget(target: EventTarget, bus: EventTargetBus): InstalledMethods {
  const add = methodOf(target, 'addEventListener');
  const remove = methodOf(target, 'removeEventListener');
  const dispatch = methodOf(target, 'dispatchEvent');
  const installed = installMethods(target, {
    addEventListener: function addEventListener(this: unknown, type: unknown): unknown {
      if (this !== target) return Reflect.apply(add, this, arguments);
      try {
        return Reflect.apply(add, this, arguments);
      } finally {
        // Node converts the type with DOMString (String): only for a string can the shadow be keyed
        // without calling the app's toString a second time.
        if (typeof type === 'string') bus.syncType(type, 'dispose');
        else bus.syncAll();
      }
    },
    removeEventListener: function removeEventListener(this: unknown, type: unknown): unknown {
      if (this !== target) return Reflect.apply(remove, this, arguments);
      try {
        return Reflect.apply(remove, this, arguments);
      } finally {
        if (typeof type === 'string') bus.syncType(type, 'dispose');
        else bus.syncAll();
      }
    },
    dispatchEvent: function dispatchEvent(this: unknown, event: unknown): unknown {
      const tracer = currentDispatchTracer();
      if (tracer === undefined || this !== target || !(event instanceof Event)) {
        const result = Reflect.apply(dispatch, this, arguments);
        // `once` records left before their callback ran (also ones added by a listener of this dispatch).
        if (bus.onceLive !== 0 && this === target && event instanceof Event) bus.syncType(event.type, 'once');
        return result;
      }
      const type = event.type;
      if (breakRequested(tracer, bus, type, event)) {
        // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
        // `dispatchEvent` call. Step out to see it.
        // eslint-disable-next-line no-debugger
        debugger;
        eventBreakDone();
      }
      return tracedEventDispatch(tracer, bus, event, dispatch, this, arguments, bus);
    },
  });
  bus.register();
  bus.syncAll();
  return installed;
}

/** Message for an EventTarget whose listeners this adapter cannot read. */
export function unsupportedEventTarget(target: EventTarget): TypeError {
  return new TypeError(
    `probe.watch: this EventTarget (${describeValue(target)}) does not keep its listeners the way Node's EventTarget does; only Node's EventTarget and its subclasses can be watched`,
  );
}
