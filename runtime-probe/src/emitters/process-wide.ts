// Every EventEmitter and EventTarget of the process (`BUSSCOPE_EMITTERS`, `probe.start({ emitters })`,
// `busscope-probe/register`): the prototypes' methods are wrapped while the probe is started, and each
// instance gets an EmitterBus (the same shadow core `probe.watch` uses) the first time it matters.
//  - Emitters created before the probe started are seen as they add listeners or emit; their
//    earlier listeners become subscriptions then (with that call's origin).
//  - Lazily, per instance: a subscription from the app or a library creates the bus (`app` mode: from
//    the app only); one from Node's own code on an emitter without a bus creates nothing — a socket
//    whose listeners are all Node's costs no bus until it emits while something records (`all` mode).
//  - Weakly: instance → bus in a WeakMap (the bus never references its instance; the registry holds
//    buses by WeakRef); a collected instance is reported gone.
//  - `emit` is wrapped only while something records (otherwise the prototype holds Node's own
//    `emit`: no cost); library emitters (isLibraryBus of their listeners' origins) record no
//    dispatches unless a client focused their bus.
//  - The probe's own sockets and server are never instrumented (`ignoreEmitter`), nor targets
//    watched one by one with `probe.watch` (their own wrappers do it).
//  - Uninstalling puts the prototypes' own property descriptors back exactly; if something replaced
//    a wrapper meanwhile, that is kept and the wrapper it calls passes straight through.

import { EventEmitter } from 'node:events';
import { allBuses, currentDispatchTracer } from '../bus/tracer';
import { runtime } from '../bus/runtime';
import { eventBreakDone } from '../debug/event-breaks';
import { isLibraryBus } from '../protocol/site-origin';
import { callerFile, callerOf, type Caller } from './caller-origin';
import { presetSubscribeFrames } from '../recorder/sites';
import { breakRequested, CollectedBus, classNameOf, defaultBusName, EmitterBus, payloadOf, tracedEventDispatch } from './emitter-bus';
import { EventTargetBus } from './event-target';
import { canReplicateEmit, NODE_ENTRY_KIND, nodeKey, syncNodeAll, syncNodeKey, tracedNodeEmit } from './node-emitter';
import { siteOrigin, type SiteOrigin } from '../protocol/site-origin';

/** `all`: every emitter; `app`: emitters with a listener from the app's own code. */
export type InstrumentedEmitters = 'all' | 'app';

export interface ProcessWideOptions {
  readonly mode: InstrumentedEmitters;
  /** Only instances whose constructor name is listed (undefined: every class). */
  readonly classes: ReadonlySet<string> | undefined;
  /** Bus ids some client wants at full detail although they are library emitters. */
  readonly focus: () => ReadonlySet<number>;
}

type NodeEmitterLike = EventEmitter & { _events?: Record<PropertyKey, Function | Function[] | undefined> };

/** Marks an instance that is not to be instrumented (ignored, watched, class filtered out, unreadable). */
const SKIP = 0;
type Seen = EmitterBus | typeof SKIP;

interface Installed {
  options: ProcessWideOptions;
  /** Instance → its bus, or SKIP. Replaced (not cleared) on uninstall. */
  readonly instances: WeakMap<object, Seen>;
  readonly restore: Array<() => void>;
  /** The wrapper standing in for `emit` while something records. */
  readonly emitWrapper: Function;
}

let installed: Installed | undefined;
/** Subscriptions made inside an instrumented call (Node's `once` calls `on`) take the outer call's origin. */
let outerOrigin: string | undefined;
/**
 * Node's own listeners: functions first subscribed with nothing but Node's code on the stack. Reading
 * the stack is the one real cost of a subscribe (µs to tens of µs on a busy machine), and Node's
 * internal listeners are mostly module-level functions shared by every socket and stream
 * (`onReadableStreamEnd`…): once one is known, a connection's internal subscribes cost a WeakMap
 * lookup. Only Node's are remembered: an app's or library's function can be subscribed from
 * anywhere, and their subscribes read the stack once (shared with the recorder's subscribe site).
 */
const nodeListeners = new WeakMap<object, string>();

/** The caller of a subscribe of `listener` made through `wrapper` (see `nodeListeners`). */
function originOf(listener: unknown, wrapper: Function): Caller {
  const cacheable = (typeof listener === 'function' || typeof listener === 'object') && listener !== null;
  if (cacheable) {
    const known = nodeListeners.get(listener);
    if (known !== undefined) return { file: known, frames: undefined };
  }
  const caller = callerOf(wrapper);
  if (cacheable && siteOrigin(caller.file) === 'node') nodeListeners.set(listener, caller.file);
  return caller;
}

/** Syncs after a subscribe, the recorder reading its site from the frames already read (`caller`). */
function syncWithFrames(frames: Caller['frames'], sync: () => void): void {
  if (frames === undefined) return sync();
  presetSubscribeFrames(frames);
  try {
    sync();
  } finally {
    presetSubscribeFrames(undefined);
  }
}

/** The probe's own emitters (server, client sockets): never instrumented, in any install. */
const ignored = new WeakSet<object>();
/** Targets `probe.watch` instruments itself. */
const watched = new WeakSet<object>();
const collected = new FinalizationRegistry<CollectedBus>((gone) => gone.reportGone());
/** Buses made here (to close them all on uninstall). */
const ours = new WeakSet<EmitterBus>();

const EE_PROTO = EventEmitter.prototype as unknown as Record<string, unknown>;
const ET_PROTO: Record<string, unknown> | undefined =
  typeof EventTarget === 'function' ? (EventTarget.prototype as unknown as Record<string, unknown>) : undefined;

/** Never instrument `target` (the probe's own sockets and server); closes a bus it may have got. */
export function ignoreEmitter(target: object): void {
  ignored.add(target);
  forget(target);
}

/** `probe.watch` took `target` over (`on`), or gave it back (`false`). */
export function setWatched(target: object, on: boolean): void {
  if (on) {
    watched.add(target);
    forget(target);
  } else {
    watched.delete(target);
    installed?.instances.delete(target);
  }
}

function forget(target: object): void {
  const state = installed;
  if (state === undefined) return;
  const seen = state.instances.get(target);
  state.instances.set(target, SKIP);
  if (seen !== undefined && seen !== SKIP) {
    collected.unregister(seen);
    seen.close();
  }
}

/** Whether the process-wide patch is in place. */
export function processWideInstalled(): boolean {
  return installed !== undefined;
}

/** @internal The bus of an instrumented instance (tests). */
export function processWideBus(target: object): EmitterBus | undefined {
  const seen = installed?.instances.get(target);
  return seen === undefined || seen === SKIP ? undefined : seen;
}

/** Whether a subscription from `origin` makes an instance without a bus get one. */
function wantsBus(mode: InstrumentedEmitters, origin: string): boolean {
  const o = siteOrigin(origin);
  return mode === 'app' ? o === 'app' : o !== 'node';
}

/** A library emitter records no dispatches unless a client focused it. */
function quiet(bus: EmitterBus, state: Installed): boolean {
  if (bus.listenersChanged) {
    bus.listenersChanged = false;
    bus.library = isLibraryBus(bus.busKind, bus.tracedSubscriptions());
  }
  return bus.library && !state.options.focus().has(bus.busId);
}

/** Whether `target` may get a bus at all; remembers a no. */
function admissible(state: Installed, target: object, fallbackClass: string): string | undefined {
  if (ignored.has(target) || watched.has(target)) {
    state.instances.set(target, SKIP);
    return undefined;
  }
  const className = classNameOf(target, fallbackClass);
  const classes = state.options.classes;
  if (classes !== undefined && !classes.has(className)) {
    state.instances.set(target, SKIP);
    return undefined;
  }
  return className;
}

function adopt(state: Installed, target: object, bus: EmitterBus): void {
  ours.add(bus);
  state.instances.set(target, bus);
  collected.register(target, new CollectedBus(bus.busId, bus.name, bus.createdAt), bus);
}

// ---------------------------------------------------------------------------------------------
// EventEmitter

function nodeBus(state: Installed, target: NodeEmitterLike, origin: string, frames?: Caller['frames']): EmitterBus | undefined {
  const className = admissible(state, target, 'EventEmitter');
  if (className === undefined) return undefined;
  const bus = new EmitterBus(defaultBusName(className), NODE_ENTRY_KIND, 'node-emitter', className);
  bus.nextOrigin = siteOrigin(origin);
  adopt(state, target, bus);
  bus.register();
  // Listeners added before this one was seen: subscriptions from now on. They are not this call's:
  // Node's when Node added them while instrumented (`nodeListeners`), else unknown (added before).
  bus.originOfEntry = foundOrigin;
  try {
    syncWithFrames(frames, () => syncNodeAll(bus, target, 'dispose'));
  } finally {
    bus.originOfEntry = undefined;
  }
  return bus;
}

/** Origin of a listener an emitter had before it got a bus (a `once` wrapper stands for its `listener`). */
function foundOrigin(entry: unknown): SiteOrigin | undefined {
  if ((typeof entry !== 'function' && typeof entry !== 'object') || entry === null) return undefined;
  if (nodeListeners.has(entry)) return 'node';
  const inner = typeof entry === 'function' ? (entry as { listener?: unknown }).listener : undefined;
  return (typeof inner === 'function' || typeof inner === 'object') && inner !== null && nodeListeners.has(inner) ? 'node' : undefined;
}

const ADDERS = ['on', 'addListener', 'prependListener', 'once', 'prependOnceListener'] as const;
const REMOVERS = ['off', 'removeListener'] as const;

function nodeAdder(name: string, original: Function): Function {
  const prepend = name.startsWith('prepend');
  const wrapper = {
    [name](this: unknown, type: unknown, listener: unknown): unknown {
      const state = installed;
      if (state === undefined || typeof this !== 'object' || this === null) return Reflect.apply(original, this, arguments);
      const target = this as NodeEmitterLike;
      let seen = state.instances.get(target);
      if (seen === SKIP) return Reflect.apply(original, this, arguments);
      const top = outerOrigin === undefined;
      const caller = top ? originOf(listener, wrapper) : undefined;
      const origin = caller !== undefined ? caller.file : (outerOrigin as string);
      const frames = caller?.frames;
      if (seen === undefined) {
        if (!wantsBus(state.options.mode, origin) || !(target instanceof EventEmitter)) return Reflect.apply(original, this, arguments);
        seen = nodeBus(state, target, origin, frames);
        if (seen === undefined) return Reflect.apply(original, this, arguments);
      }
      const bus = seen;
      if (top) outerOrigin = origin;
      try {
        return Reflect.apply(original, this, arguments);
      } finally {
        if (top) outerOrigin = undefined;
        bus.nextOrigin = siteOrigin(origin);
        syncWithFrames(frames, () => syncNodeKey(bus, target, type, prepend, 'dispose'));
      }
    },
  }[name];
  return wrapper;
}

/** The bus of an instance already seen, or undefined (nothing to keep in sync). */
function busOf(state: Installed | undefined, target: unknown): EmitterBus | undefined {
  if (state === undefined || typeof target !== 'object' || target === null) return undefined;
  const seen = state.instances.get(target);
  return seen === undefined || seen === SKIP ? undefined : seen;
}

function nodeRemover(name: string, original: Function): Function {
  return {
    [name](this: unknown, type: unknown, listener: unknown): unknown {
      const bus = busOf(installed, this);
      if (bus === undefined) return Reflect.apply(original, this, arguments);
      try {
        return Reflect.apply(original, this, arguments);
      } finally {
        // Node's once wrapper removes itself by passing the wrapper (users pass their own function).
        const inner = typeof listener === 'function' ? (listener as { listener?: unknown }).listener : undefined;
        syncNodeKey(bus, this as NodeEmitterLike, type, false, typeof inner === 'function' ? 'once' : 'dispose');
      }
    },
  }[name];
}

function nodeRemoveAll(original: Function): Function {
  return function removeAllListeners(this: unknown, type?: unknown): unknown {
    const bus = busOf(installed, this);
    if (bus === undefined) return Reflect.apply(original, this, arguments);
    const all = arguments.length === 0;
    try {
      return Reflect.apply(original, this, arguments);
    } finally {
      if (all) syncNodeAll(bus, this as NodeEmitterLike, 'clear');
      else syncNodeKey(bus, this as NodeEmitterLike, type, false, 'clear');
    }
  };
}

function nodeEmitWrapper(original: Function): Function {
  const replicate = canReplicateEmit(original);
  const wrapper = function emit(this: unknown, type: unknown): unknown {
    const tracer = currentDispatchTracer();
    const state = installed;
    if (tracer === undefined || state === undefined || type === 'newListener' || type === 'removeListener' || typeof this !== 'object' || this === null) {
      return Reflect.apply(original, this, arguments);
    }
    const target = this as NodeEmitterLike;
    let seen = state.instances.get(target);
    if (seen === undefined) {
      // First seen emitting (its listeners, if any, were added before the probe started or by Node).
      if (state.options.mode !== 'all' || !(target instanceof EventEmitter)) return Reflect.apply(original, this, arguments);
      seen = nodeBus(state, target, callerFile(wrapper)) ?? SKIP;
    }
    if (seen === SKIP || quiet(seen, state)) return Reflect.apply(original, this, arguments);
    const bus = seen;
    const args: unknown[] = [];
    for (let i = 1; i < arguments.length; i++) args.push(arguments[i]);
    if (breakRequested(tracer, bus, bus.typeName(nodeKey(type)), payloadOf(args))) {
      // Event breakpoint set from Busscope: the debugger stops here, one frame below the app's
      // `emit` call. Step out to see it.
      // eslint-disable-next-line no-debugger
      debugger;
      eventBreakDone();
    }
    return tracedNodeEmit(tracer, bus, target, original, replicate, type, args);
  };
  return wrapper;
}

// ---------------------------------------------------------------------------------------------
// EventTarget

function targetBus(state: Installed, target: EventTarget, origin: string, frames?: Caller['frames']): EmitterBus | undefined {
  const className = admissible(state, target, 'EventTarget');
  if (className === undefined) return undefined;
  const table = EventTargetBus.tableOf(target);
  if (table === undefined) {
    state.instances.set(target, SKIP);
    return undefined;
  }
  const bus = new EventTargetBus(defaultBusName(className), table, className);
  bus.nextOrigin = siteOrigin(origin);
  adopt(state, target, bus);
  bus.register();
  syncWithFrames(frames, () => bus.syncAll());
  return bus;
}

function isEventTargetInstance(target: object): target is EventTarget {
  return typeof EventTarget === 'function' && target instanceof EventTarget;
}

function targetAdder(original: Function): Function {
  const wrapper = function addEventListener(this: unknown, type: unknown, listener: unknown): unknown {
    const state = installed;
    if (state === undefined || typeof this !== 'object' || this === null) return Reflect.apply(original, this, arguments);
    const target = this;
    let seen = state.instances.get(target);
    if (seen === SKIP) return Reflect.apply(original, this, arguments);
    const top = outerOrigin === undefined;
    const caller = top ? originOf(listener, wrapper) : undefined;
    const origin = caller !== undefined ? caller.file : (outerOrigin as string);
    const frames = caller?.frames;
    if (seen === undefined) {
      if (!wantsBus(state.options.mode, origin) || !isEventTargetInstance(target)) return Reflect.apply(original, this, arguments);
      seen = targetBus(state, target, origin, frames);
      if (seen === undefined) return Reflect.apply(original, this, arguments);
    }
    const bus = seen as EventTargetBus;
    if (top) outerOrigin = origin;
    try {
      return Reflect.apply(original, this, arguments);
    } finally {
      if (top) outerOrigin = undefined;
      bus.nextOrigin = siteOrigin(origin);
      // Only for a string can the shadow be keyed without calling the app's toString a second time.
      syncWithFrames(frames, () => (typeof type === 'string' ? bus.syncType(type, 'dispose') : bus.syncAll()));
    }
  };
  return wrapper;
}

function targetRemover(original: Function): Function {
  return function removeEventListener(this: unknown, type: unknown): unknown {
    const bus = busOf(installed, this) as EventTargetBus | undefined;
    if (bus === undefined) return Reflect.apply(original, this, arguments);
    try {
      return Reflect.apply(original, this, arguments);
    } finally {
      if (typeof type === 'string') bus.syncType(type, 'dispose');
      else bus.syncAll();
    }
  };
}

function targetDispatch(original: Function): Function {
  const wrapper = function dispatchEvent(this: unknown, event: unknown): unknown {
    const state = installed;
    if (state === undefined || typeof this !== 'object' || this === null || !(event instanceof Event)) return Reflect.apply(original, this, arguments);
    const target = this;
    const tracer = currentDispatchTracer();
    let seen = state.instances.get(target);
    if (seen === undefined && tracer !== undefined && state.options.mode === 'all' && isEventTargetInstance(target)) {
      seen = targetBus(state, target, callerFile(wrapper)) ?? SKIP;
    }
    if (seen === undefined || seen === SKIP) return Reflect.apply(original, this, arguments);
    const bus = seen as EventTargetBus;
    if (tracer === undefined || quiet(bus, state)) {
      const result = Reflect.apply(original, this, arguments);
      // `once` records left before their callback ran (also ones added by a listener of this dispatch).
      if (bus.onceLive !== 0) bus.syncType(event.type, 'once');
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
    return tracedEventDispatch(tracer, bus, event, original, this, arguments, bus);
  };
  return wrapper;
}

// ---------------------------------------------------------------------------------------------
// Install / uninstall

/** The wrapper reports the original's `name` and `length` (Node's `on` is named `addListener`). */
function copyShape(wrapper: Function, original: Function): void {
  try {
    Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true });
    Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true });
  } catch {
    // a frozen Function.prototype quirk: the wrapper keeps its own
  }
}

/** Replaces `proto[name]` by `wrap(original)`; returns what undoes it exactly, or throws having changed nothing. */
function patch(
  proto: Record<string, unknown>,
  name: string,
  wrap: (original: Function) => Function,
): { undo: () => void; wrapper: Function; original: Function } {
  const own = Object.getOwnPropertyDescriptor(proto, name);
  const original = proto[name];
  if (typeof original !== 'function') throw new TypeError(`${name} is not a function on the prototype`);
  if (own !== undefined && own.configurable !== true) throw new TypeError(`the prototype's ${name} is not configurable`);
  const wrapper = wrap(original);
  copyShape(wrapper, original);
  Object.defineProperty(proto, name, { value: wrapper, writable: true, configurable: true, enumerable: own?.enumerable ?? false });
  const undo = (): void => {
    // Something replaced the wrapper meanwhile: it stays (the wrapper it may call passes through).
    if (Object.getOwnPropertyDescriptor(proto, name)?.value !== wrapper) return;
    if (own === undefined) delete proto[name];
    else Object.defineProperty(proto, name, own);
  };
  return { undo, wrapper, original };
}

/** `emit` is the wrapper while something records, Node's own otherwise. */
let emitSwap: ((on: boolean) => void) | undefined;
runtime.copies.push((_tracer, dispatchTracer) => emitSwap?.(dispatchTracer !== undefined));

/**
 * Instruments every EventEmitter and EventTarget (see the file comment). Installing again only
 * updates the options (for instances seen from then on). Throws (having changed nothing) when a
 * prototype cannot be patched.
 */
export function installProcessWide(options: ProcessWideOptions): void {
  if (installed !== undefined) {
    installed.options = options;
    return;
  }
  const undo: Array<() => void> = [];
  try {
    for (const name of ADDERS) undo.push(patch(EE_PROTO, name, (o) => nodeAdder(name, o)).undo);
    for (const name of REMOVERS) undo.push(patch(EE_PROTO, name, (o) => nodeRemover(name, o)).undo);
    undo.push(patch(EE_PROTO, 'removeAllListeners', nodeRemoveAll).undo);
    if (ET_PROTO !== undefined) {
      undo.push(patch(ET_PROTO, 'addEventListener', targetAdder).undo);
      undo.push(patch(ET_PROTO, 'removeEventListener', targetRemover).undo);
      undo.push(patch(ET_PROTO, 'dispatchEvent', targetDispatch).undo);
    }
  } catch (error) {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]();
    throw error;
  }
  const emitOwn = Object.getOwnPropertyDescriptor(EE_PROTO, 'emit');
  const originalEmit = EE_PROTO.emit as Function;
  const emitWrapper = nodeEmitWrapper(originalEmit);
  copyShape(emitWrapper, originalEmit);
  const state: Installed = { options, instances: new WeakMap(), restore: undo, emitWrapper };
  installed = state;
  let current: Function = originalEmit;
  emitSwap = (on) => {
    const want = on ? emitWrapper : originalEmit;
    // The app (or another tool) replaced `emit` meanwhile: theirs stays.
    if (want === current || EE_PROTO.emit !== current) return;
    EE_PROTO.emit = want;
    current = want;
  };
  undo.push(() => {
    emitSwap?.(false);
    emitSwap = undefined;
    if (EE_PROTO.emit === originalEmit && emitOwn !== undefined) Object.defineProperty(EE_PROTO, 'emit', emitOwn);
  });
  emitSwap(currentDispatchTracer() !== undefined);
}

/** Puts the prototypes back exactly and closes every bus made here. Idempotent. */
export function uninstallProcessWide(): void {
  const state = installed;
  if (state === undefined) return;
  installed = undefined;
  for (let i = state.restore.length - 1; i >= 0; i--) {
    try {
      state.restore[i]();
    } catch {
      // a prototype made unconfigurable meanwhile: its wrapper stays, passing through
    }
  }
  const buses: EmitterBus[] = [];
  for (const bus of allBuses()) if (bus instanceof EmitterBus && ours.has(bus)) buses.push(bus);
  for (const bus of buses) {
    collected.unregister(bus);
    bus.close();
  }
}
