// Payload capture (off by default): the app's `sanitize` hook first, then a budgeted serialiser.
//
// It runs inside the app's dispatch, so two rules:
//  - Work is bounded by the cap, not by the payload: it writes JSON-like text and stops as soon as
//    `payloadSizeCap` characters are used (a 50 MB payload costs what a 1 KB one does). Long strings,
//    arrays, objects, Maps and Sets are cut with a note of how much more there was, and every visit
//    (even of a property that writes nothing) costs one step of a budget the size of the cap.
//  - It never runs app code: own data properties are read through property descriptors (an accessor
//    is described as `[Getter]`, never called), `toJSON` is never called, Proxies are described as
//    `[Proxy]` before anything touches them (their traps would run), and built-ins are read through
//    the engine's own getters captured at load (`Map.prototype.size`, …), which check their receiver
//    without calling anything. Only `sanitize` — the app's own hook, by design — runs app code.
// No Node built-ins here: Proxy detection is injected (`util.types.isProxy` under Node, see
// `detectProxyCheck`). Without one, objects cannot be told from Proxies, so they are only described.
// Never throws: a failure is recorded as a JSON string saying so.

export type PayloadSanitizer = (payload: unknown, type: string, bus: string) => unknown;

/** True for a Proxy (Node: `util.types.isProxy`). */
export type ProxyCheck = (value: object) => boolean;

/**
 * The runtime's own objects (a page's DOM events and nodes, `window`, a Blob): a value to write in
 * their place (a string, or a plain object the budget then applies to), or undefined for an ordinary
 * object. Called after the Proxy check; must not run app code (browser/payloads.ts reads the
 * browser's getters captured at load).
 */
export type HostDescriber = (value: object) => unknown;

export interface CapturedPayload {
  json: string;
  truncated: boolean;
}

export interface SerializedPayload extends CapturedPayload {
  /** Values visited (properties, elements, entries): bounded by the cap whatever the payload's size. */
  visited: number;
}

/** Nesting below this is described (`[Object]`, `[Array(3)]`), keeping the serialiser's own stack small. */
const MAX_NESTING = 24;
/** Room kept before each further entry of a container for `,"… 123456789 more"` (and its closers). */
const MORE_ROOM = 24;
const MAX_PROTOTYPE_WALK = 16;

// Engine intrinsics, captured once: calling them on a value never runs app code (they throw a
// TypeError for the wrong receiver, which is how brands are checked).
const getOwn = Object.getOwnPropertyDescriptor;
const getProto = Object.getPrototypeOf;
const ownKeys = Object.keys;
const isArray = Array.isArray;
const isView = ArrayBuffer.isView;
const stringify = JSON.stringify;
const call = Function.prototype.call;
function intrinsicGetter(proto: object | null | undefined, key: PropertyKey): ((this: unknown) => unknown) | undefined {
  if (proto === null || proto === undefined) return undefined;
  const get = getOwn(proto, key)?.get;
  return get as ((this: unknown) => unknown) | undefined;
}
const typedArrayProto = getProto(Uint8Array.prototype) as object;
const typedArrayLength = intrinsicGetter(typedArrayProto, 'length');
const typedArrayTag = intrinsicGetter(typedArrayProto, Symbol.toStringTag);
const dataViewByteLength = intrinsicGetter(DataView.prototype, 'byteLength');
const arrayBufferByteLength = intrinsicGetter(ArrayBuffer.prototype, 'byteLength');
const sharedArrayBufferByteLength = typeof SharedArrayBuffer === 'function' ? intrinsicGetter(SharedArrayBuffer.prototype, 'byteLength') : undefined;
const mapSize = intrinsicGetter(Map.prototype, 'size');
const setSize = intrinsicGetter(Set.prototype, 'size');
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const mapIteratorNext = (getProto(new Map().entries()) as { next: () => IteratorResult<[unknown, unknown]> }).next;
const setIteratorNext = (getProto(new Set().values()) as { next: () => IteratorResult<unknown> }).next;
const dateGetTime = Date.prototype.getTime;
const dateToISOString = Date.prototype.toISOString;
const regExpSource = intrinsicGetter(RegExp.prototype, 'source');
const regExpFlags = intrinsicGetter(RegExp.prototype, 'flags');
const stringValueOf = String.prototype.valueOf;
const numberValueOf = Number.prototype.valueOf;
const booleanValueOf = Boolean.prototype.valueOf;
const symbolToString = Symbol.prototype.toString;
const objectProto = Object.prototype;

type BuiltinKind =
  | 'Map'
  | 'Set'
  | 'ArrayBuffer'
  | 'SharedArrayBuffer'
  | 'Date'
  | 'RegExp'
  | 'WeakMap'
  | 'WeakSet'
  | 'WeakRef'
  | 'Promise'
  | 'String'
  | 'Number'
  | 'Boolean'
  | 'Error';
const BUILTIN_PROTOTYPES = new Map<object, BuiltinKind>([
  [Map.prototype, 'Map'],
  [Set.prototype, 'Set'],
  [ArrayBuffer.prototype, 'ArrayBuffer'],
  [Date.prototype, 'Date'],
  [RegExp.prototype, 'RegExp'],
  [WeakMap.prototype, 'WeakMap'],
  [WeakSet.prototype, 'WeakSet'],
  [Promise.prototype, 'Promise'],
  [String.prototype, 'String'],
  [Number.prototype, 'Number'],
  [Boolean.prototype, 'Boolean'],
  [Error.prototype, 'Error'],
]);
if (typeof SharedArrayBuffer === 'function') BUILTIN_PROTOTYPES.set(SharedArrayBuffer.prototype, 'SharedArrayBuffer');
if (typeof WeakRef === 'function') BUILTIN_PROTOTYPES.set(WeakRef.prototype, 'WeakRef');
const COLLECTION_WRITTEN = Symbol('collection written');

/** `fn.call(value)` through the captured intrinsic; undefined when the brand check fails. */
function branded(fn: ((this: unknown) => unknown) | undefined, value: object): unknown {
  if (fn === undefined) return undefined;
  try {
    return call.call(fn, value);
  } catch {
    return undefined;
  }
}

/** `util.types.isProxy` where the runtime offers it without an import (Node ≥ 20.16); else undefined. */
export function detectProxyCheck(): ProxyCheck | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const util = proc?.getBuiltinModule?.('node:util') as { types?: { isProxy?: unknown } } | undefined;
    const isProxy = util?.types?.isProxy;
    return typeof isProxy === 'function' ? (isProxy as ProxyCheck) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `JSON.stringify` of a string, without the native call for the usual short string that needs no
 * escaping (keys, names, ids): a loop the JIT compiles beats the call.
 */
function quote(s: string): string {
  if (s.length > 64) return stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // control characters, '"', '\\', and surrogates (a lone one is escaped by JSON.stringify)
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return stringify(s);
  }
  return `"${s}"`;
}

class BudgetedWriter {
  /** The text so far (string concatenation: V8 builds it as a rope, cheaper than an array of parts). */
  private out = '';
  private len = 0;
  /** Closing brackets of the open containers, innermost last; their room is always kept. */
  private readonly closers: string[] = [];
  /** Objects on the current path (cycle detection). */
  private readonly path: object[] = [];
  steps: number;
  visited = 0;
  truncated = false;
  /**
   * Set when the budget is used up: every write after it does nothing and every loop ends, so the
   * walk unwinds by returning (a thrown marker, rethrown at each level, cost more than the walk).
   */
  private stopped = false;
  /** Room kept for the "… N more" note (a quarter of a small cap). */
  private readonly moreRoom: number;

  constructor(
    private readonly cap: number,
    private readonly isProxy: ProxyCheck | undefined,
    private readonly describeHost: HostDescriber | undefined,
  ) {
    this.steps = cap;
    this.moreRoom = Math.min(MORE_ROOM, cap >> 2);
  }

  result(): SerializedPayload {
    let json = this.out;
    for (let i = this.closers.length - 1; i >= 0; i--) json += this.closers[i];
    return { json, truncated: this.truncated, visited: this.visited };
  }

  /** Characters still free for content (the open containers' closers are reserved). */
  private room(): number {
    return this.cap - this.len - this.closers.length;
  }

  private stop(): void {
    this.truncated = true;
    this.stopped = true;
  }

  /** Writes `s` whole, or stops (writing nothing) when it does not fit. */
  private put(s: string): void {
    if (this.stopped) return;
    if (s.length > this.room()) return this.stop();
    this.out += s;
    this.len += s.length;
  }

  /** A JSON string; a long one is cut to the room left, saying how long it was. */
  private putString(s: string): void {
    if (this.stopped) return;
    const room = this.room();
    if (s.length + 2 <= room) {
      const quoted = quote(s);
      if (quoted.length <= room) return this.put(quoted);
    }
    const note = `… (${s.length} chars)"`;
    const keep = room - 1 - note.length;
    if (keep < 1) return this.stop();
    // Escaping can only lengthen, so escape no more than `keep` characters, then cut the escaped text.
    let head = stringify(s.slice(0, keep)).slice(0, -1);
    if (head.length > keep + 1) {
      head = head.slice(0, keep + 1);
      const slash = head.lastIndexOf('\\');
      if (slash > head.length - 6) head = head.slice(0, slash); // no half escape sequence
    }
    this.put(head + note);
    this.truncated = true;
  }

  private open(bracket: string, closer: string): void {
    if (this.stopped) return;
    if (bracket.length + closer.length > this.room()) return this.stop();
    this.put(bracket);
    this.closers.push(closer);
  }

  /** Closes the innermost container; once stopped, `result()` closes what is still open. */
  private close(): void {
    if (this.stopped) return;
    this.put(this.closers.pop() as string); // its room was reserved
  }

  /**
   * Before entry `index` of a container with `total` entries: stops, noting what is left, when the
   * budget is out (or `full`). The caller writes the separating comma.
   */
  private entry(index: number, total: number, inObject: boolean, full = false): boolean {
    if (this.stopped) return false;
    if (!full && this.steps > 0 && this.room() >= this.moreRoom) return true;
    this.more(index, total, inObject);
    this.stop();
    return false;
  }

  /**
   * The budget ran out inside entry `index` of `total`, which started at `mark` (comma, key, then
   * the value from `valueStart`, -1 if not reached). A cut that wrote no value takes back its comma
   * and key (never `{"a":1,` or `{"a"`), and a later entry cut half-way is taken back whole for this
   * container's "… N more" note: for a long list, how many are left says more than half a record.
   * The first entry is kept however it ends, so a payload with one huge field still shows its start.
   */
  private cutEntry(mark: number, closers: number, valueStart: number, index: number, total: number, inObject: boolean): void {
    if (valueStart === -1 || this.len === valueStart || index > 0) {
      this.out = this.out.slice(0, mark);
      this.len = mark;
      this.closers.length = closers;
      if (index > 0) this.more(index, total, inObject);
    }
  }

  /** Writes the "… N more" note for entries `index…total-1` when it fits (also once stopped). */
  private more(index: number, total: number, inObject: boolean): void {
    const count = `${total - index} more`;
    const note = `${index > 0 ? ',' : ''}${inObject ? `"…":"${count}"` : `"… ${count}"`}`;
    if (note.length <= this.room()) {
      this.out += note;
      this.len += note.length;
    }
  }

  private step(): void {
    this.visited++;
    this.steps--;
  }

  value(v: unknown, nesting: number): void {
    if (this.stopped) return;
    this.step();
    switch (typeof v) {
      case 'string':
        return this.putString(v);
      case 'number':
        return this.put(Number.isFinite(v) ? String(v) : `"${String(v)}"`);
      case 'boolean':
        return this.put(v ? 'true' : 'false');
      case 'bigint':
        return this.putString(`${v}n`);
      case 'undefined':
        return this.put('null');
      case 'symbol':
        return this.putString(call.call(symbolToString, v) as string);
      case 'function':
        return this.putString(this.describeFunction(v));
      case 'object':
        if (v === null) return this.put('null');
        return this.object(v, nesting);
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- any function the app put in a payload
  private describeFunction(fn: Function): string {
    if (this.isProxy === undefined) return '[function]';
    if (this.isProxy(fn)) return '[Proxy]';
    const name = getOwn(fn, 'name');
    return name !== undefined && 'value' in name && typeof name.value === 'string' && name.value !== '' ? `[function ${name.value}]` : '[function anonymous]';
  }

  private object(o: object, nesting: number): void {
    // Before anything else touches it: every reflective operation on a Proxy runs its traps.
    if (this.isProxy === undefined) return this.putString('[Object]');
    if (this.isProxy(o)) return this.putString('[Proxy]');
    if (this.path.includes(o)) return this.putString('[Circular]');
    if (isArray(o)) {
      const length = (o as unknown[]).length; // an array's own data property
      if (nesting >= MAX_NESTING) return this.putString(`[Array(${length})]`);
      return this.array(o as unknown[], length, nesting);
    }
    if (isView(o)) {
      const tag = branded(typedArrayTag, o);
      if (typeof tag === 'string') return this.putString(`${tag}(${branded(typedArrayLength, o) as number})`);
      return this.putString(`DataView(${branded(dataViewByteLength, o) as number})`);
    }
    const kind = this.builtinKind(o);
    if (kind !== undefined) {
      const described = this.describeBuiltin(o, kind, nesting);
      if (described === COLLECTION_WRITTEN) return;
      if (described !== undefined) return this.putString(described);
    }
    if (this.describeHost !== undefined) {
      const host = this.describeHost(o);
      if (host !== undefined) return this.value(host, nesting + 1);
    }
    if (nesting >= MAX_NESTING) return this.putString('[Object]');
    this.plainObject(o, nesting);
  }

  /**
   * The built-in whose prototype is on `o`'s chain, if any (plain objects end at Object.prototype at
   * once). Found by identity, so no brand check throws for ordinary objects; the brand is then
   * checked by the intrinsic getter. The walk stops at a Proxy in the chain (its trap would run).
   */
  private builtinKind(o: object): BuiltinKind | undefined {
    let proto = getProto(o) as object | null;
    for (let i = 0; i < MAX_PROTOTYPE_WALK && proto !== null && proto !== objectProto; i++) {
      const kind = BUILTIN_PROTOTYPES.get(proto);
      if (kind !== undefined) return kind;
      if ((this.isProxy as ProxyCheck)(proto)) return undefined;
      proto = getProto(proto) as object | null;
    }
    return undefined;
  }

  /** One string for a built-in (or the collection written), undefined when its brand check fails. */
  private describeBuiltin(o: object, kind: BuiltinKind, nesting: number): string | typeof COLLECTION_WRITTEN | undefined {
    switch (kind) {
      case 'Map':
      case 'Set': {
        const size = branded(kind === 'Map' ? mapSize : setSize, o);
        if (typeof size !== 'number') return undefined;
        this.collection(o, kind, size, nesting);
        return COLLECTION_WRITTEN;
      }
      case 'ArrayBuffer':
      case 'SharedArrayBuffer': {
        const bytes = branded(kind === 'ArrayBuffer' ? arrayBufferByteLength : sharedArrayBufferByteLength, o);
        return typeof bytes === 'number' ? `${kind}(${bytes})` : undefined;
      }
      case 'Date': {
        const time = branded(dateGetTime as (this: unknown) => unknown, o);
        if (typeof time !== 'number') return undefined;
        return Number.isNaN(time) ? 'Invalid Date' : (call.call(dateToISOString, o) as string);
      }
      case 'RegExp': {
        const source = branded(regExpSource, o);
        return typeof source === 'string' ? `/${source}/${branded(regExpFlags, o) as string}` : undefined;
      }
      case 'WeakMap':
      case 'WeakSet':
      case 'Promise':
      case 'WeakRef':
        return `[${kind}]`;
      case 'String': {
        const str = branded(stringValueOf as (this: unknown) => unknown, o);
        return typeof str === 'string' ? `[String: ${str.length > 200 ? `${str.slice(0, 200)}…` : str}]` : undefined;
      }
      case 'Number':
      case 'Boolean': {
        const v = branded((kind === 'Number' ? numberValueOf : booleanValueOf) as (this: unknown) => unknown, o);
        return v === undefined ? undefined : `[${kind}: ${String(v)}]`;
      }
      case 'Error':
        return this.describeError(o);
    }
  }

  /** `[TypeError: message]` from data properties only (`stack` may be an accessor that formats frames). */
  private describeError(e: object): string {
    const dataString = (target: object | null, key: string): string | undefined => {
      if (target === null) return undefined;
      const d = getOwn(target, key);
      return d !== undefined && 'value' in d && typeof d.value === 'string' ? d.value : undefined;
    };
    let name = dataString(e, 'name');
    for (let p = getProto(e) as object | null, i = 0; name === undefined && p !== null && i < MAX_PROTOTYPE_WALK; i++) {
      if ((this.isProxy as ProxyCheck)(p)) break;
      name = dataString(p, 'name');
      p = getProto(p) as object | null;
    }
    const message = dataString(e, 'message') ?? '';
    return `[${name ?? 'Error'}${message === '' ? '' : `: ${message.length > 500 ? `${message.slice(0, 500)}…` : message}`}]`;
  }

  private array(a: unknown[], length: number, nesting: number): void {
    this.open('[', ']');
    if (this.stopped) return;
    this.path.push(a);
    for (let i = 0; i < length; i++) {
      if (!this.entry(i, length, false)) break;
      const mark = this.len;
      const closers = this.closers.length;
      if (i > 0) this.put(',');
      const valueStart = this.stopped ? -1 : this.len;
      this.property(getOwn(a, i), nesting, true); // no descriptor: a hole
      if (this.stopped) {
        this.cutEntry(mark, closers, valueStart, i, length, false);
        break;
      }
    }
    this.path.pop();
    this.close();
  }

  private plainObject(o: object, nesting: number): void {
    // Object.keys is native and never calls app code on a non-Proxy; it is the one step whose cost
    // grows with the object (there is no way to list only the first N keys).
    const keys = ownKeys(o);
    const n = keys.length;
    this.open('{', '}');
    if (this.stopped) return;
    this.path.push(o);
    let written = 0;
    for (let i = 0; i < n; i++) {
      const d = getOwn(o, keys[i]);
      if (d !== undefined && 'value' in d && d.value === undefined) {
        this.step(); // omitted, as JSON does, but it still costs a step
        if (this.steps <= 0 && !this.entry(written, written + n - i, true)) break;
        continue;
      }
      const key = keys[i];
      // A key that does not fit whole ends the object here, with the note of how many are left.
      if (!this.entry(written, written + n - i, true, key.length + 3 > this.room() - this.moreRoom)) break;
      const mark = this.len;
      const closers = this.closers.length;
      if (written > 0) this.put(',');
      this.putString(key);
      this.put(':');
      const valueStart = this.stopped ? -1 : this.len;
      this.property(d, nesting, false);
      if (this.stopped) {
        this.cutEntry(mark, closers, valueStart, written, written + n - i, true);
        break;
      }
      written++;
    }
    this.path.pop();
    this.close();
  }

  /** A property's value from its descriptor: data as is, accessors described, never called. */
  private property(d: PropertyDescriptor | undefined, nesting: number, inArray: boolean): void {
    if (this.stopped) return;
    if (d === undefined) {
      this.step();
      return this.put('null'); // an array hole
    }
    if ('value' in d) return this.value(inArray && d.value === undefined ? null : d.value, nesting + 1);
    this.step();
    this.putString(d.get !== undefined ? (d.set !== undefined ? '[Getter/Setter]' : '[Getter]') : '[Setter]');
  }

  /** `{"Map(3)":[[k,v],…]}` / `{"Set(2)":[a,b]}`, through the engine's own iterators. */
  private collection(o: object, kind: 'Map' | 'Set', size: number, nesting: number): void {
    const label = `${kind}(${size})`;
    if (nesting >= MAX_NESTING) return this.putString(`[${label}]`);
    this.open('{', '}');
    this.putString(label);
    this.put(':');
    this.open('[', ']');
    if (this.stopped) return;
    this.path.push(o);
    const it = call.call(kind === 'Map' ? mapEntries : setValues, o) as object;
    const next = kind === 'Map' ? mapIteratorNext : setIteratorNext;
    for (let i = 0; i < size; i++) {
      const r = call.call(next, it) as IteratorResult<unknown>;
      if (r.done === true || !this.entry(i, size, false)) break;
      const mark = this.len;
      const closers = this.closers.length;
      if (i > 0) this.put(',');
      const valueStart = this.stopped ? -1 : this.len;
      if (kind === 'Map') {
        const pair = r.value as [unknown, unknown]; // an engine-made array: index reads are data reads
        this.step();
        this.open('[', ']');
        this.value(pair[0], nesting + 2);
        this.put(',');
        this.value(pair[1], nesting + 2);
        this.close();
      } else {
        this.value(r.value, nesting + 1);
      }
      if (this.stopped) {
        this.cutEntry(mark, closers, valueStart, i, size, false);
        break;
      }
    }
    this.path.pop();
    this.close();
    this.close();
  }
}

/**
 * Serialises `value` into at most `cap` characters of JSON-like text (see the file comment). When it
 * is cut, `truncated` is set and what was written is still closed (`[1,2,"… 99998 more"]`), unless
 * the cap is too small even for that.
 */
export function serializePayload(value: unknown, cap: number, isProxy: ProxyCheck | undefined, describeHost?: HostDescriber): SerializedPayload {
  const w = new BudgetedWriter(cap, isProxy, describeHost);
  w.value(value, 0);
  return w.result();
}

function failure(what: string, error: unknown, cap: number, isProxy: ProxyCheck | undefined): CapturedPayload {
  // The thrown value is the app's: described by the same rules (no getters, no toString).
  let why = serializePayload(error, Math.max(0, cap - what.length - 6), isProxy).json;
  if (why.length >= 2 && why.startsWith('"') && why.endsWith('"')) {
    try {
      why = JSON.parse(why) as string; // a description: no need to quote it twice
    } catch {
      // cut inside an escape: keep it quoted
    }
  }
  const text = stringify(`[${what}: ${why}]`);
  return text.length <= cap ? { json: text, truncated: false } : { json: text.slice(0, cap), truncated: true };
}

const detectedProxyCheck = detectProxyCheck();

export function capturePayload(
  payload: unknown,
  type: string,
  bus: string,
  sanitize: PayloadSanitizer | undefined,
  cap: number,
  isProxy: ProxyCheck | undefined = detectedProxyCheck,
  describeHost?: HostDescriber,
): CapturedPayload {
  let value: unknown;
  try {
    value = sanitize === undefined ? payload : sanitize(payload, type, bus);
  } catch (error) {
    return failure('sanitize threw', error, cap, isProxy);
  }
  try {
    const { json, truncated } = serializePayload(value, cap, isProxy, describeHost);
    return { json, truncated };
  } catch (error) {
    return failure('unserializable payload', error, cap, isProxy);
  }
}
