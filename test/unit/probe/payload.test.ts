// Payload capture runs inside the app's dispatch: its work is bounded by payloadSizeCap whatever the
// payload's size, and it never runs app code (getters, toJSON, Proxy traps) — only `sanitize`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { types } from 'node:util';
import { EventBus } from '../../../runtime-probe/src/index';
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordDecoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';
import { capturePayload, serializePayload } from '../../../runtime-probe/src/recorder/payload';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

const isProxy = types.isProxy;
const ser = (value: unknown, cap = 1024): string => serializePayload(value, cap, isProxy).json;

class PayloadSink extends RecordSink {
  readonly payloads: { json: string; truncated: boolean }[] = [];
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  private readonly decoder = new RecordDecoder();
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame);
    const records: BusRecord[] = [];
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.decoder.decode(f.body, records);
    for (const r of records) if (r.kind === 'payload') this.payloads.push({ json: r.json, truncated: r.truncated });
  }
}

/** Dispatches each payload through a real bus with a recording Recorder (capturePayloads on); returns what was recorded. */
function captured(payloads: unknown[], cap = 1024, sanitize?: (p: unknown) => unknown): { json: string; truncated: boolean }[] {
  const r = new Recorder({ maxBufferedRecords: 1024, config: { ...DEFAULT_RECORDING_CONFIG, capturePayloads: true, payloadSizeCap: cap }, sanitize });
  setBusTracer(r);
  const bus = new EventBus<{ e: unknown }>({ name: 'payloads' });
  try {
    const sink = new PayloadSink();
    r.attach(sink, [], () => undefined);
    bus.subscribe('e', () => undefined);
    for (const p of payloads) bus.dispatch('e', p);
    r.flushTo(sink);
    return sink.payloads;
  } finally {
    bus.dispose();
    setBusTracer(undefined);
    r.shutdown();
  }
}

test('capture never runs app code: getters, toJSON, Proxy traps are described, not invoked', () => {
  const calls: string[] = [];
  const withGetter = { id: 1 };
  Object.defineProperty(withGetter, 'secret', {
    enumerable: true,
    get() {
      calls.push('getter');
      throw new Error('getter ran');
    },
  });
  const withToJSON = {
    n: 2,
    toJSON() {
      calls.push('toJSON');
      return 'replaced';
    },
  };
  // Every trap of this handler records its name (the handler is itself a Proxy, so no trap is missed).
  const recordingHandler = new Proxy({}, { get: (_t, trap) => (calls.push(`trap ${String(trap)}`), undefined) });
  const proxy = new Proxy({ hidden: 1 }, recordingHandler);
  const throwingProxy = new Proxy([1, 2], {
    ownKeys: () => {
      calls.push('ownKeys');
      throw new Error('trap ran');
    },
    get: () => {
      calls.push('get');
      throw new Error('trap ran');
    },
  });
  const behindProxy = Object.create(proxy) as object; // a Proxy on the prototype chain
  Object.defineProperty(behindProxy, 'own', { value: 3, enumerable: true }); // (assigning would run the Proxy's set trap)
  class TaggedMap extends Map<string, number> {
    override get size(): number {
      calls.push('size');
      return 0;
    }
    override entries(): MapIterator<[string, number]> {
      calls.push('entries');
      return super.entries();
    }
  }
  const arrayWithGetter: unknown[] = [1];
  Object.defineProperty(arrayWithGetter, 1, { enumerable: true, get: () => (calls.push('index getter'), 2) });
  const error = new RangeError('bad');
  Object.defineProperty(error, 'stack', { get: () => (calls.push('stack'), '') });
  const date = new Date(0);
  date.toISOString = () => (calls.push('toISOString'), '');

  const payloads = [
    withGetter,
    withToJSON,
    proxy,
    { nested: { proxy, list: [throwingProxy] } },
    behindProxy,
    new TaggedMap([['a', 1]]),
    arrayWithGetter,
    error,
    date,
    new Proxy(() => 1, recordingHandler),
  ];
  const out = captured(payloads);
  assert.deepEqual(calls, []);
  assert.deepEqual(
    out.map((p) => p.json),
    [
      '{"id":1,"secret":"[Getter]"}',
      '{"n":2,"toJSON":"[function toJSON]"}',
      '"[Proxy]"',
      '{"nested":{"proxy":"[Proxy]","list":["[Proxy]"]}}',
      '{"own":3}',
      '{"Map(1)":[["a",1]]}',
      '[1,"[Getter]"]',
      '"[RangeError: bad]"',
      '"1970-01-01T00:00:00.000Z"',
      '"[Proxy]"',
    ],
  );
});

test('cycles, BigInt, typed arrays, buffers, Map/Set, Date, Symbol, functions, Errors', () => {
  const cyclic: { name: string; self?: unknown; list?: unknown[] } = { name: 'loop' };
  cyclic.self = cyclic;
  cyclic.list = [cyclic];
  assert.equal(ser(cyclic), '{"name":"loop","self":"[Circular]","list":["[Circular]"]}');
  const shared = { v: 1 };
  assert.equal(ser([shared, shared]), '[{"v":1},{"v":1}]', 'a repeated object is not a cycle');
  assert.equal(ser({ big: 12345678901234567890n }), '{"big":"12345678901234567890n"}');
  assert.equal(ser(10n), '"10n"');
  assert.equal(
    ser({ bytes: new Uint8Array(1048576), floats: new Float64Array(3), buf: new ArrayBuffer(16), view: new DataView(new ArrayBuffer(8)) }),
    '{"bytes":"Uint8Array(1048576)","floats":"Float64Array(3)","buf":"ArrayBuffer(16)","view":"DataView(8)"}',
  );
  assert.equal(
    ser(
      new Map<unknown, unknown>([
        ['a', 1],
        [{ k: 2 }, [3]],
      ]),
    ),
    '{"Map(2)":[["a",1],[{"k":2},[3]]]}',
  );
  assert.equal(ser(new Set([1, 'two'])), '{"Set(2)":[1,"two"]}');
  assert.equal(ser({ at: new Date(Date.UTC(2024, 0, 2)), bad: new Date(Number.NaN) }), '{"at":"2024-01-02T00:00:00.000Z","bad":"Invalid Date"}');
  assert.equal(ser({ s: Symbol('tag'), f: function save() {}, a: () => 1 }), '{"s":"Symbol(tag)","f":"[function save]","a":"[function a]"}');
  class PaymentError extends Error {
    override name = 'PaymentError';
  }
  assert.equal(ser({ e: new TypeError('boom'), p: new PaymentError('declined') }), '{"e":"[TypeError: boom]","p":"[PaymentError: declined]"}');
  // eslint-disable-next-line no-sparse-arrays -- a hole, which JSON writes as null
  assert.equal(ser({ u: undefined, n: null, nan: Number.NaN, arr: [undefined, , 1] }), '{"n":null,"nan":"NaN","arr":[null,null,1]}');
  assert.equal(ser(undefined), 'null');
  assert.equal(
    ser({ re: /a+/g, w: new WeakMap(), pr: Promise.resolve(1), boxed: new String('x') }),
    '{"re":"/a+/g","w":"[WeakMap]","pr":"[Promise]","boxed":"[String: x]"}',
  );
  // What is not cut is valid JSON.
  assert.doesNotThrow(() => JSON.parse(ser({ x: [1, { y: 'q"\n' }], m: new Map([[1, 2]]) })));
});

test('a cut payload stays within the cap, is marked, and says how much more there was', () => {
  const longString = serializePayload('x'.repeat(5_000_000), 64, isProxy);
  assert.equal(longString.truncated, true);
  assert.ok(longString.json.length <= 64);
  assert.match(longString.json, /^"x+… \(5000000 chars\)"$/);

  const longArray = serializePayload(
    Array.from({ length: 100_000 }, (_, i) => i),
    100,
    isProxy,
  );
  assert.equal(longArray.truncated, true);
  assert.ok(longArray.json.length <= 100);
  const shown = (JSON.parse(longArray.json) as unknown[]).length - 1;
  assert.match(longArray.json, new RegExp(`,"… ${100_000 - shown} more"\\]$`));

  const wide: Record<string, number> = {};
  for (let i = 0; i < 10_000; i++) wide[`k${i}`] = i;
  const cutObject = serializePayload({ outer: wide }, 200, isProxy);
  assert.ok(cutObject.json.length <= 200);
  const inner = (JSON.parse(cutObject.json) as { outer: Record<string, unknown> }).outer;
  const keys = Object.keys(inner);
  assert.equal(keys[keys.length - 1], '…');
  assert.equal(inner['…'], `${10_000 - (keys.length - 1)} more`);

  for (const cap of [1, 2, 5, 20, 64, 1024]) {
    for (const value of [{ user: 'a', password: 'secret' }, 'x'.repeat(100), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], new Map([[1, { a: [1, 2] }]])]) {
      const r = serializePayload(value, cap, isProxy);
      assert.ok(r.json.length <= cap, `cap ${cap}: ${r.json}`);
      if (!r.truncated) assert.doesNotThrow(() => JSON.parse(r.json), r.json);
    }
  }
});

test('a 50 MB payload costs work bounded by the cap, not by its size', () => {
  const cap = 1024;
  // ~50 MB of JSON: 400,000 order records of ~130 characters, plus a 50 MB string and a 50 MB buffer.
  const orders = Array.from({ length: 400_000 }, (_, i) => ({
    id: i,
    customer: `customer-${i}`,
    items: [{ sku: `sku-${i % 977}`, qty: 1 + (i % 5), price: 19.99 }],
    note: 'leave at the door',
  }));
  const payloads = [{ orders }, { blob: 'x'.repeat(50 * 1024 * 1024) }, new Uint8Array(50 * 1024 * 1024), orders];
  for (const payload of payloads) {
    const r = serializePayload(payload, cap, isProxy);
    assert.ok(r.json.length <= cap, `${r.json.length} characters`);
    assert.equal(r.truncated, payload instanceof Uint8Array ? false : true);
    assert.ok(r.visited <= cap, `visited ${r.visited} values`);
  }
  const r = serializePayload({ orders }, cap, isProxy);
  assert.ok(r.visited < 200, `visited ${r.visited} values of ${orders.length * 9}`);
  const shown = JSON.parse(r.json) as { orders: unknown[] };
  assert.equal(shown.orders.at(-1), `… ${orders.length - (shown.orders.length - 1)} more`);
  // And through the real recorder, capped the same way.
  const [one] = captured([{ orders }], cap);
  assert.equal(one.truncated, true);
  assert.ok(one.json.length <= cap);
  assert.ok(one.json.startsWith('{"orders":[{"id":0,"customer":"customer-0",'));
});

test('sanitize still applies first; a throwing sanitize is described without running more app code', () => {
  const out = captured([{ user: 'ann', password: 'hunter2' }, { fail: true }], 1024, (p) => {
    if ((p as { fail?: boolean }).fail) throw new TypeError('cannot sanitize');
    return { ...(p as object), password: '***' };
  });
  assert.equal(out[0].json, '{"user":"ann","password":"***"}');
  assert.equal(out[1].json, '"[sanitize threw: [TypeError: cannot sanitize]]"');
  assert.ok(!out.some((p) => p.json.includes('hunter2')));
});

test('without a Proxy check (no Node built-ins) objects are only described, primitives still written', () => {
  assert.equal(serializePayload({ a: 1 }, 100, undefined).json, '"[Object]"');
  assert.equal(serializePayload('text', 100, undefined).json, '"text"');
  assert.equal(capturePayload(12, 't', 'b', undefined, 100, undefined).json, '12');
});
