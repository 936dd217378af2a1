// `busscope-probe/browser/payloads`: payload previews for a page's (or a Web Worker's) dispatches,
// with the Node probe's budgeted serialiser (recorder/payload.ts) and limits (`payloadSizeCap`,
// detail `dispatch`/`handlers`). A separate import, so pages that never look at payloads do not ship
// it: importing it registers the capture in the shared runtime, where the page's recorder finds it
// (page-recorder.ts reads it on each use, so it may load after `connect`).
// What a browser adds to the serialiser:
//  - Proxies: a browser cannot tell a Proxy apart, and reading one runs its traps (app code). So this
//    module wraps the global `Proxy` (and `Proxy.revocable`) as it loads and notes every Proxy made
//    afterwards, which are then described as `[Proxy]` as in Node. Proxies made before it loaded are
//    read as plain objects (their `getPrototypeOf`/`ownKeys`/`getOwnPropertyDescriptor` traps run).
//  - The browser's own objects: an Event is its type, isTrusted, target (once set), and per kind `detail`
//    (CustomEvent), `data` (MessageEvent), `key` (KeyboardEvent), `clientX`/`clientY` (MouseEvent),
//    plus the fields an app's subclass adds; a DOM node is `<button#buy.primary>` / `#text`; any other
//    instance of a browser class is `[Blob]`, `[Window]`. Read through the browser's getters captured
//    when this module loads, which check their receiver and never call app code.
// Never throws into the app (capturePayload records a failure as text). No Node built-ins here.

import { runtime } from '../bus/runtime';
import { capturePayload, type CapturedPayload, type PayloadSanitizer } from '../recorder/payload';

const getOwn = Object.getOwnPropertyDescriptor;
const getProto = Object.getPrototypeOf;
const ownKeys = Object.keys;
const call = Function.prototype.call;
const fnToString = Function.prototype.toString;
const objectProto = Object.prototype;
const NONE = Symbol('none');
const MAX_EVENT_FIELDS = 32;
const MAX_NODE_TEXT = 120;

type Getter = (this: unknown) => unknown;

/** A browser getter (`Event.prototype.type`), captured now; undefined where the runtime lacks the class. */
function getter(className: string, key: string): Getter | undefined {
  const ctor = (globalThis as Record<string, unknown>)[className];
  const proto = typeof ctor === 'function' ? (ctor as { prototype?: unknown }).prototype : undefined;
  return typeof proto === 'object' && proto !== null ? (getOwn(proto, key)?.get as Getter | undefined) : undefined;
}

/** `fn.call(o)` through the captured intrinsic; NONE when `o` is not of its class (the brand check throws). */
function read(fn: Getter | undefined, o: object): unknown {
  if (fn === undefined) return NONE;
  try {
    return call.call(fn, o);
  } catch {
    return NONE;
  }
}

const eventType = getter('Event', 'type');
const eventTarget = getter('Event', 'target');
const EVENT_FIELDS: readonly (readonly [string, Getter | undefined])[] = [
  ['detail', getter('CustomEvent', 'detail')],
  ['data', getter('MessageEvent', 'data')],
  ['key', getter('KeyboardEvent', 'key')],
  ['clientX', getter('MouseEvent', 'clientX')],
  ['clientY', getter('MouseEvent', 'clientY')],
];
const nodeName = getter('Node', 'nodeName');
const elementId = getter('Element', 'id');
const getAttribute = (globalThis as { Element?: { prototype: { getAttribute: (name: string) => string | null } } }).Element?.prototype.getAttribute;

// ---- Proxies made from now on

const proxies = new WeakSet<object>();
const isProxy = (value: object): boolean => proxies.has(value);

function trackProxies(): void {
  const g = globalThis as { Proxy: ProxyConstructor };
  const Native = g.Proxy;
  const revocable = Native.revocable;
  const tracked = {
    revocable: <T extends object>(target: T, handler: ProxyHandler<T>): { proxy: T; revoke: () => void } => {
      const r = revocable(target, handler);
      proxies.add(r.proxy);
      return r;
    },
  }.revocable;
  // A Proxy of the constructor itself: `Proxy.name`, `.length`, `instanceof` behave as before.
  g.Proxy = new Native(Native, {
    construct(target, args, newTarget) {
      const p = Reflect.construct(target, args, newTarget) as object;
      proxies.add(p);
      return p;
    },
    get(target, key, receiver) {
      return key === 'revocable' ? tracked : (Reflect.get(target, key, receiver) as unknown);
    },
  });
}

// ---- the browser's own objects

/** The name of `proto`'s own constructor (data properties only), and whether the browser made it. */
function classOf(proto: object): { readonly name: string; readonly native: boolean } | undefined {
  const ctor = getOwn(proto, 'constructor')?.value as unknown;
  if (typeof ctor !== 'function' || proxies.has(ctor)) return undefined;
  const name = getOwn(ctor, 'name')?.value as unknown;
  let source = '';
  try {
    source = call.call(fnToString, ctor) as string;
  } catch {
    // not a function the engine can print
  }
  return { name: typeof name === 'string' && name !== '' ? name : 'Object', native: source.endsWith('{ [native code] }') };
}

function describeNode(o: object): string | undefined {
  const name = read(nodeName, o);
  if (typeof name !== 'string') return undefined;
  const id = read(elementId, o);
  if (typeof id !== 'string') return name.toLowerCase(); // #text, #document, #comment
  let classes: unknown = null;
  try {
    classes = getAttribute === undefined ? null : call.call(getAttribute, o, 'class');
  } catch {
    // not an element after all
  }
  const cls =
    typeof classes === 'string'
      ? classes
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((c) => `.${c}`)
          .join('')
      : '';
  const text = `<${name.toLowerCase()}${id === '' ? '' : `#${id}`}${cls}>`;
  return text.length > MAX_NODE_TEXT ? `${text.slice(0, MAX_NODE_TEXT - 2)}…>` : text;
}

function describeTarget(t: unknown): unknown {
  if (typeof t !== 'object' || t === null) return t;
  if (proxies.has(t)) return '[Proxy]';
  const node = describeNode(t);
  if (node !== undefined) return node;
  const proto = getProto(t) as object | null;
  const c = proto === null ? undefined : classOf(proto);
  return `[${c?.name ?? 'Object'}]`;
}

function describeEvent(e: object, type: string, label: string): Record<string, unknown> {
  const fields: Record<string, unknown> = { type };
  const trusted = getOwn(e, 'isTrusted')?.get; // unforgeable: the browser's own accessor on each event
  if (trusted !== undefined) fields.isTrusted = read(trusted as Getter, e) === true;
  // Null until the browser dispatches it (a script's `dispatchEvent` is recorded before): left out then.
  const target = read(eventTarget, e);
  if (target !== null && target !== NONE) fields.target = describeTarget(target);
  for (const [key, get] of EVENT_FIELDS) {
    const v = read(get, e);
    if (v !== NONE) fields[key] = v;
  }
  // What an app's Event subclass adds (own data properties only; accessors are never called).
  const keys = ownKeys(e);
  for (let i = 0; i < keys.length && i < MAX_EVENT_FIELDS; i++) {
    const d = getOwn(e, keys[i]);
    if (d !== undefined && 'value' in d && !(keys[i] in fields)) fields[keys[i]] = d.value;
  }
  return { [label]: fields };
}

/** The serialiser's HostDescriber (recorder/payload.ts) for a browser. */
function describeHost(o: object): unknown {
  const proto = getProto(o) as object | null;
  if (proto === null || proto === objectProto) return undefined;
  const c = classOf(proto);
  const type = read(eventType, o);
  if (typeof type === 'string') return describeEvent(o, type, c?.name ?? 'Event');
  // An app's own class (even one extending EventTarget) is its fields, as in Node.
  if (c === undefined || !c.native) return undefined;
  return describeNode(o) ?? `[${c.name}]`;
}

let pageSanitize: PayloadSanitizer | undefined;

/**
 * The page's (or this worker's) `sanitize(payload, type, bus)`, as the Node probe's `sanitize` option:
 * its result is what gets serialised (return a copy without secrets). `undefined` removes it. The only
 * app code payload capture runs; one that throws is recorded as `"[sanitize threw: …]"`.
 * @throws TypeError when `sanitize` is neither a function nor undefined.
 */
export function sanitizePayloads(sanitize: PayloadSanitizer | undefined): void {
  if (sanitize !== undefined && typeof sanitize !== 'function')
    throw new TypeError('sanitizePayloads: sanitize must be a function (payload, type, bus) => value, or undefined');
  pageSanitize = sanitize;
}

/** The page's `capturePayload` (RecorderHost): the probe's serialiser with the browser's Proxy check and host objects. */
function capturePagePayload(payload: unknown, type: string, bus: string, sanitize: PayloadSanitizer | undefined, cap: number): CapturedPayload {
  return capturePayload(payload, type, bus, sanitize ?? pageSanitize, cap, isProxy, describeHost);
}

const parts = (runtime.optional ??= {});
// Once per page (or worker), whichever copy of the package loads first (its `sanitizePayloads` is the one that counts).
if (parts.pageCapture === undefined) {
  try {
    trackProxies();
  } catch {
    // a frozen global: Proxies stay unknown (read as objects)
  }
  parts.pageCapture = capturePagePayload;
}
