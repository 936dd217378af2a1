// Control messages: every message type round-trips; client input is validated field by field;
// version negotiation; trace header.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FrameDecoder,
  FrameKind,
  PROBE_PROTOCOL_VERSIONS,
  PROTOCOL_VERSION,
  ProtocolError,
  StreamDecoder,
  encodeControlFrame,
  encodeFrame,
  encodeTraceHeader,
  negotiateProtocolVersion,
  parseClientMessage,
  parseProbeMessage,
  parseTraceHeader,
  utf8Encode,
  type ClientMessage,
  type ClientMessageType,
  type ProbeMessage,
  type ProbeMessageType,
  type RecordingConfig,
} from '../../../runtime-probe/src/protocol/index';

const config: RecordingConfig = { detail: 'handlers', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 100 };

const clientMessages: { [K in ClientMessageType]: Extract<ClientMessage, { type: K }> } = {
  hello: { type: 'hello', token: 'abc123', protocolVersions: [1, 2], clientName: 'test', features: ['emitter-warning'] },
  'snapshot-request': { type: 'snapshot-request', requestId: 1 },
  configure: {
    type: 'configure',
    requestId: 2,
    config: { detail: 'dispatch', capturePayloads: true, payloadSizeCap: 10, dispatchSiteEvery: 0, captureStacks: false },
  },
  'break-on': { type: 'break-on', requestId: 3, types: ['combat.damage', 'tick'] },
  focus: { type: 'focus', requestId: 5, buses: [3, 7] },
  ping: { type: 'ping', requestId: 4 },
};

const probeMessages: { [K in ProbeMessageType]: Extract<ProbeMessage, { type: K }> } = {
  welcome: {
    type: 'welcome',
    protocolVersion: 1,
    probeVersion: '0.1.0',
    app: { pid: 123, name: 'demo', cwd: '/tmp/x', startTime: 1_700_000_000_000, runtime: 'node v20.0.0' },
    timeOrigin: 1_700_000_000_000.25,
    config,
  },
  error: { type: 'error', code: 'bad-token', message: 'wrong token', supportedVersions: [1] },
  snapshot: {
    type: 'snapshot',
    requestId: null,
    snapshot: {
      time: 12.5,
      timeOrigin: 1_700_000_000_000.25,
      lastSeq: 3,
      recording: true,
      buses: [{ id: 1, name: 'gameplay', createdAt: 1_700_000_000_001, subscriptions: 1 }],
      types: [{ bus: 1, type: 'tick', listeners: 1, dispatches: 3 }],
      subscriptions: [
        {
          id: 1,
          bus: 1,
          type: 'tick',
          priority: 0,
          label: null,
          owner: 'Hud#1',
          once: false,
          site: { file: '/a.ts', line: 1, column: 2, functionName: null },
          calls: 3,
          createdAt: 1_700_000_000_002,
        },
      ],
      dispatching: [{ seq: 3, bus: 1, type: 'tick', depth: 0, start: 12, subscriptionId: 1 }],
      breakOn: ['tick'],
      truncated: false,
    },
  },
  configured: { type: 'configured', requestId: 2, config },
  breakpoints: { type: 'breakpoints', requestId: 3, types: ['tick'] },
  pong: { type: 'pong', requestId: 4 },
  'emitter-warning': {
    type: 'emitter-warning',
    warning: 'max-listeners',
    time: 12.75,
    bus: 3,
    emitter: 'EventEmitter',
    event: 'Symbol(tick)',
    count: 11,
    message: 'Possible EventEmitter memory leak detected. 11 Symbol(tick) listeners added to [EventEmitter]. MaxListeners is 10.',
  },
  'producer-connected': { type: 'producer-connected', time: 3.25, bus: 4, site: { file: '/app/worker.mjs', line: 9, column: 18, functionName: null } },
  'producer-drops': { type: 'producer-drops', time: 20.5, bus: 4, dropped: 117, totalDropped: 350, policy: 'oldest', cap: 100 },
  thread: {
    type: 'thread',
    thread: 2,
    name: 'crunch',
    startedAt: 4.5,
    exitedAt: null,
    snapshot: {
      time: 5,
      timeOrigin: 1_700_000_000_000.25,
      lastSeq: 2 * 2 ** 32,
      recording: true,
      buses: [{ id: 9, name: 'work', createdAt: 1_700_000_000_004, subscriptions: 0 }],
      types: [],
      subscriptions: [],
      dispatching: [],
      breakOn: [],
      truncated: false,
    },
  },
};

function body(frame: Uint8Array): Uint8Array {
  const d = new FrameDecoder(1 << 20);
  d.push(frame);
  const f = d.next();
  assert.ok(f && f.kind === FrameKind.Control);
  return f.body;
}

test('every client message round-trips', () => {
  for (const m of Object.values(clientMessages)) assert.deepEqual(parseClientMessage(body(encodeControlFrame(m))), m);
});

test('every probe message round-trips, also through StreamDecoder', () => {
  for (const m of Object.values(probeMessages)) {
    assert.deepEqual(parseProbeMessage(body(encodeControlFrame(m))), m);
    assert.deepEqual(new StreamDecoder().push(encodeControlFrame(m)), [m]);
  }
});

function rejects(json: string, code: string, pattern: RegExp): void {
  assert.throws(
    () => parseClientMessage(utf8Encode(json)),
    (e: unknown) => e instanceof ProtocolError && e.code === code && pattern.test(e.message),
    json,
  );
}

test('client messages are validated field by field', () => {
  rejects('{"type":"hello"', 'malformed', /not valid JSON/);
  rejects('[1]', 'malformed', /not a JSON object/);
  rejects('{"token":"x"}', 'malformed', /no "type"/);
  rejects('{"type":"dance"}', 'unknown-kind', /unknown client message type "dance"/);
  rejects('{"type":"hello","token":5,"protocolVersions":[1],"clientName":"c"}', 'malformed', /hello.token must be a string/);
  rejects(`{"type":"hello","token":"${'x'.repeat(300)}","protocolVersions":[1],"clientName":"c"}`, 'malformed', /hello.token/);
  rejects('{"type":"hello","token":"t","protocolVersions":"1","clientName":"c"}', 'malformed', /hello.protocolVersions must be an array/);
  rejects('{"type":"hello","token":"t","protocolVersions":[1.5],"clientName":"c"}', 'malformed', /protocolVersions must be an array of integers/);
  rejects('{"type":"ping"}', 'malformed', /ping.requestId must be an integer/);
  rejects('{"type":"configure","requestId":1,"config":{"detail":"everything"}}', 'malformed', /detail must be one of lifecycle, dispatch, handlers/);
  rejects('{"type":"configure","requestId":1,"config":{"payloadSizeCap":0}}', 'malformed', /payloadSizeCap must be an integer in 1…65536/);
  rejects('{"type":"configure","requestId":1,"config":{"sanitize":"x"}}', 'malformed', /unknown field "sanitize"/);
  rejects('{"type":"break-on","requestId":1,"types":[""]}', 'malformed', /break-on.types must be an array of non-empty strings/);
  rejects('{"type":"focus","requestId":1,"buses":[0]}', 'malformed', /focus.buses must be an array of bus ids/);
  rejects('{"type":"focus","requestId":1,"buses":["3"]}', 'malformed', /focus.buses must be an array of bus ids/);
  assert.throws(
    () => parseClientMessage(new Uint8Array([0xff, 0xfe])),
    (e: unknown) => e instanceof ProtocolError && /UTF-8/.test(e.message),
  );
});

test('probe messages with the wrong shape are rejected', () => {
  assert.throws(() => parseProbeMessage(utf8Encode('{"type":"welcome","protocolVersion":1}')), /welcome.probeVersion/);
  assert.throws(() => parseProbeMessage(utf8Encode('{"type":"nope"}')), /unknown probe message type "nope"/);
  // An error code this version does not know is kept (a newer probe may send it).
  const m = parseProbeMessage(utf8Encode('{"type":"error","code":"future","message":"m","supportedVersions":[3]}'));
  assert.equal(m.type, 'error');
});

test('version negotiation picks the highest common version', () => {
  assert.equal(PROTOCOL_VERSION, 6);
  // A reader reads 6 … 1 (old traces, old probes); the probe writes 6, and 5 or 4 (without dispatch
  // columns; 4 also without the worker threads' messages and batches) to a client that offers nothing higher.
  assert.equal(negotiateProtocolVersion([1]), 1);
  assert.equal(negotiateProtocolVersion([0, 1, 2, 7]), 2);
  assert.equal(negotiateProtocolVersion([0, 1, 2, 3, 7]), 3);
  assert.equal(negotiateProtocolVersion([0, 1, 2, 3, 4, 7]), 4);
  assert.equal(negotiateProtocolVersion([0, 1, 2, 3, 4, 5, 7]), 5);
  assert.equal(negotiateProtocolVersion([0, 1, 2, 3, 4, 5, 6, 7]), 6);
  assert.equal(negotiateProtocolVersion([7, 8]), undefined);
  assert.equal(negotiateProtocolVersion([1, 2, 3], PROBE_PROTOCOL_VERSIONS), undefined);
  assert.equal(negotiateProtocolVersion([1, 2, 3, 4], PROBE_PROTOCOL_VERSIONS), 4);
  assert.equal(negotiateProtocolVersion([1, 2, 3, 4, 5], PROBE_PROTOCOL_VERSIONS), 5);
  assert.equal(negotiateProtocolVersion([1, 2, 3, 4, 5, 6], PROBE_PROTOCOL_VERSIONS), 6);
  assert.equal(negotiateProtocolVersion([1, 2, 3], [3, 2]), 3);
  assert.equal(negotiateProtocolVersion([]), undefined);
});

test('a record frame where a control frame belongs is decoded by kind, not guessed', () => {
  const msgs = new StreamDecoder().push(encodeFrame(FrameKind.Records, new Uint8Array(0)));
  assert.deepEqual(msgs, [{ type: 'records', records: [] }]);
});

test('trace header round-trips and rejects foreign files', () => {
  assert.deepEqual(parseTraceHeader(encodeTraceHeader(1)), { formatVersion: 1, protocolVersion: 1 });
  const code = (bytes: Uint8Array) => {
    try {
      parseTraceHeader(bytes);
      return 'ok';
    } catch (e) {
      return e instanceof ProtocolError ? e.code : String(e);
    }
  };
  assert.equal(code(utf8Encode('{"json": true}   ')), 'not-a-trace');
  assert.equal(code(encodeTraceHeader(1).subarray(0, 10)), 'truncated');
  assert.equal(code(encodeTraceHeader(9)), 'malformed');
});

function rejectsProbe(value: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseProbeMessage(utf8Encode(JSON.stringify(value))),
    (e: unknown) => e instanceof ProtocolError && e.code === 'malformed' && pattern.test(e.message),
    JSON.stringify(value).slice(0, 200),
  );
}

test('probe messages are validated field by field: types, ranges, string lengths', () => {
  const w = probeMessages.welcome;
  rejectsProbe({ ...w, app: { ...w.app, runtime: 'x'.repeat(10 * 1024 * 1024) } }, /welcome\.app\.runtime must be a string of at most 256 characters/);
  rejectsProbe({ ...w, app: { ...w.app, pid: -1 } }, /welcome\.app\.pid must be an integer/);
  rejectsProbe({ ...w, timeOrigin: 'now' }, /welcome\.timeOrigin must be a finite number/);
  rejectsProbe({ ...w, config: { ...config, detail: 'all' } }, /welcome\.config\.detail must be one of/);
  rejectsProbe({ ...w, config: { ...config, payloadSizeCap: 1e9 } }, /welcome\.config\.payloadSizeCap must be an integer in 1…65536/);
  const s = probeMessages.snapshot;
  const sub = s.snapshot.subscriptions[0];
  const withSub = (patch: object) => ({ ...s, snapshot: { ...s.snapshot, subscriptions: [{ ...sub, ...patch }] } });
  rejectsProbe(withSub({ type: 42 }), /snapshot\.snapshot\.subscriptions\[0\]\.type must be a string/);
  rejectsProbe(withSub({ priority: '1' }), /subscriptions\[0\]\.priority must be a finite number/);
  rejectsProbe(withSub({ site: { file: '/a.ts', line: 'one', column: 1, functionName: null } }), /subscriptions\[0\]\.site\.line must be an integer/);
  rejectsProbe(withSub({ label: 7 }), /subscriptions\[0\]\.label must be null or a string/);
  rejectsProbe(withSub({ ownerId: 'x' }), /subscriptions\[0\]\.ownerId must be an integer/);
  rejectsProbe({ ...s, snapshot: { ...s.snapshot, types: [{ bus: 1, type: null, listeners: 1, dispatches: 0 }] } }, /types\[0\]\.type must be a string/);
  rejectsProbe({ ...s, snapshot: { ...s.snapshot, buses: ['x'] } }, /snapshot\.snapshot\.buses\[0\] must be an object/);
  rejectsProbe({ ...s, snapshot: { ...s.snapshot, breakOn: [1] } }, /breakOn\[0\] must be a string/);
  rejectsProbe(
    { ...s, snapshot: { ...s.snapshot, dispatching: [{ seq: 1, bus: 1, type: 't', depth: -1, start: 0, subscriptionId: 0 }] } },
    /dispatching\[0\]\.depth must be an integer/,
  );
  rejectsProbe({ ...s, snapshot: { ...s.snapshot, truncated: 'no' } }, /snapshot\.snapshot\.truncated must be a boolean/);
  rejectsProbe({ ...s, requestId: 'a' }, /snapshot\.requestId must be an integer/);
  rejectsProbe({ type: 'configured', requestId: null, config: { ...config, captureStacks: 1 } }, /configured\.config\.captureStacks must be a boolean/);
  rejectsProbe({ type: 'breakpoints', requestId: 1, types: [{}] }, /breakpoints\.types\[0\] must be a string/);
  rejectsProbe({ type: 'error', code: 'x', message: 'm', supportedVersions: ['1'] }, /error\.supportedVersions must be an array of integers/);
  rejectsProbe({ type: 'error', code: 'x'.repeat(100), message: 'm', supportedVersions: [1] }, /error\.code must be a string of at most 64/);
});

test('probe messages keep only the fields this version knows', () => {
  const m = parseProbeMessage(
    utf8Encode(JSON.stringify({ ...probeMessages.welcome, future: 'x'.repeat(1000), app: { ...probeMessages.welcome.app, extra: 1 } })),
  );
  assert.deepEqual(m, probeMessages.welcome, 'unknown fields are ignored, not kept');
});

test('deeply nested client JSON is refused before it is parsed', () => {
  rejects('['.repeat(32_000) + ']'.repeat(32_000), 'malformed', /nests deeper than 8 levels/);
  // Brackets inside strings (escaped quotes included) are text, not nesting.
  const m = parseClientMessage(utf8Encode(`{"type":"hello","token":"\\"${'['.repeat(100)}","protocolVersions":[1],"clientName":"c"}`));
  assert.equal(m.type === 'hello' && m.token, `"${'['.repeat(100)}`);
});
