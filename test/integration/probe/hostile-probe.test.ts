// The real client against a tiny hostile probe over a real socket: a welcome carrying a 10 MiB
// string, a snapshot whose subscription type is a number, a 32 MiB frame announced and never sent,
// and a stream that keeps defining names. Each ends that connection with a precise error (or, for
// the names, stays bounded and says so); nothing throws from a timer; no large buffer is retained.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { ProbeClient, ProbeClientError } from '../../../runtime-probe/src/client/index';
import {
  FrameDecoder,
  FrameKind,
  MAX_CLIENT_FRAME_BYTES,
  MAX_STRING_TABLE_BYTES,
  MAX_STRING_TABLE_ENTRIES,
  OVERFLOW_NAME,
  RecordWriter,
  encodeControlFrame,
  encodeFrame,
  utf8Encode,
  type BusRecord,
  type StreamMessage,
  type WelcomeMessage,
} from '../../../runtime-probe/src/protocol/index';
import { Session } from '../../../extension/src/sessions/session';
import { deferred, sleep, withTimeout } from '../../support/wait';

const welcome: WelcomeMessage = {
  type: 'welcome',
  protocolVersion: 4, // the version RecordWriter writes
  probeVersion: 'hostile',
  app: { pid: 1, name: 'hostile', cwd: '/', startTime: 1_700_000_000_000, runtime: 'node v20' },
  timeOrigin: 1_700_000_000_000,
  config: { detail: 'dispatch', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 0 },
};

const validSnapshot = {
  type: 'snapshot',
  requestId: null,
  snapshot: {
    time: 1,
    timeOrigin: 1_700_000_000_000,
    lastSeq: 0,
    recording: true,
    buses: [],
    types: [],
    subscriptions: [],
    dispatching: [],
    breakOn: [],
    truncated: false,
  },
};

/** What the hostile probe does once it has read a hello: write to the socket, however it likes. */
type Script = (socket: net.Socket) => void | Promise<void>;

interface Hostile {
  readonly port: number;
  close(): Promise<void>;
}

function hostileProbe(script: Script): Promise<Hostile> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    const frames = new FrameDecoder(MAX_CLIENT_FRAME_BYTES);
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      frames.push(chunk);
      if (!started && frames.next() !== undefined) {
        started = true;
        void script(socket);
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      resolve({
        port,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

// Whatever the client does, nothing may escape from a timer or a socket callback.
const escaped: unknown[] = [];
const onEscape = (error: unknown) => escaped.push(error);
before(() => process.on('uncaughtException', onEscape));
after(() => {
  process.off('uncaughtException', onEscape);
  assert.deepEqual(escaped, [], 'nothing was thrown from a timer or a callback');
});

test('a welcome with a 10 MiB app.runtime is refused at the handshake, naming the field', async () => {
  const probe = await hostileProbe((s) => {
    s.write(encodeControlFrame({ ...welcome, app: { ...welcome.app, runtime: 'x'.repeat(10 * 1024 * 1024) } }));
  });
  try {
    await assert.rejects(
      ProbeClient.connect({ port: probe.port, token: 't', timeoutMs: 5000 }),
      (e: unknown) =>
        e instanceof ProbeClientError && e.code === 'malformed' && /welcome\.app\.runtime must be a string of at most 256 characters/.test(e.message),
    );
  } finally {
    await probe.close();
  }
});

test('a snapshot whose subscription type is a number closes the connection with a precise error', async () => {
  const badSnapshot = {
    ...validSnapshot,
    snapshot: {
      ...validSnapshot.snapshot,
      subscriptions: [{ id: 1, bus: 1, type: 42, priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: 1 }],
    },
  };
  const probe = await hostileProbe((s) => {
    s.write(encodeControlFrame(welcome));
    s.write(encodeFrame(FrameKind.Control, utf8Encode(JSON.stringify(badSnapshot))));
  });
  const messages: StreamMessage[] = [];
  try {
    let closedWith: ProbeClientError | undefined;
    const client = await ProbeClient.connect({
      port: probe.port,
      token: 't',
      onMessage: (m) => messages.push(m),
      onClose: (e) => (closedWith = e),
    });
    const error = await Promise.race([client.closed, sleep(3000).then(() => 'still open after 3 s' as const)]);
    assert.ok(error instanceof ProbeClientError, String(error));
    assert.equal(error.code, 'malformed');
    assert.match(error.message, /snapshot\.snapshot\.subscriptions\[0\]\.type must be a string/);
    assert.equal(closedWith, error);
    assert.deepEqual(
      messages.map((m) => m.type),
      ['welcome'],
      'the bad snapshot never reaches the session',
    );
  } finally {
    await probe.close();
  }
});

test('a 32 MiB frame announced and never sent: closed after the stall timeout, its memory not kept', async () => {
  const header = new Uint8Array(16);
  new DataView(header.buffer).setUint32(0, 32 * 1024 * 1024, true);
  header[4] = FrameKind.Records;
  const probe = await hostileProbe((s) => {
    s.write(encodeControlFrame(welcome));
    s.write(header); // …and nothing more, with the socket left open
  });
  try {
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    const client = await ProbeClient.connect({ port: probe.port, token: 't', frameStallTimeoutMs: 400 });
    await sleep(150);
    // While the frame is pending, the client holds what arrived, not what was announced.
    const pending = process.memoryUsage().arrayBuffers - before;
    assert.ok(pending < 8 * 1024 * 1024, `${pending} bytes held for a frame of which 12 bytes arrived`);
    const started = Date.now();
    const error = await client.closed;
    assert.ok(error instanceof ProbeClientError);
    assert.equal(error.code, 'frame-stalled');
    assert.match(error.message, /started a frame of 33554432 bytes \(12 received\) and sent nothing more for 400 ms/);
    assert.ok(Date.now() - started < 2000);
    assert.equal(client.isClosed, true);
  } finally {
    await probe.close();
  }
});

test('a frame that trickles in keeps the connection while bytes keep coming', async () => {
  const frame = encodeControlFrame(validSnapshot as never);
  const probe = await hostileProbe(async (s) => {
    s.write(encodeControlFrame(welcome));
    for (let i = 0; i < frame.length; i += 16) {
      s.write(frame.subarray(i, i + 16));
      await sleep(25);
    }
  });
  try {
    const snapshot = deferred();
    const client = await ProbeClient.connect({
      port: probe.port,
      token: 't',
      frameStallTimeoutMs: 200,
      onMessage: (m) => m.type === 'snapshot' && snapshot.resolve(),
    });
    await withTimeout(snapshot.promise, 10_000, 'a slow but progressing frame is read whole');
    assert.equal(client.isClosed, false);
    client.close();
  } finally {
    await probe.close();
  }
});

test('a probe that keeps defining names: the client table stays under its caps and the session says so', async () => {
  const distinct = MAX_STRING_TABLE_ENTRIES + 70_000;
  const probe = await hostileProbe(async (s) => {
    s.write(encodeControlFrame(welcome));
    const w = new RecordWriter();
    let id = 0;
    // Many short names …
    while (id < distinct) {
      for (let i = 0; i < 5000 && id < distinct; i++) w.stringDef(++id, `user.${id}.updated`);
      s.write(w.finish());
      await new Promise((r) => setImmediate(r));
    }
    // … then a use of the last one, then a few huge ones past the byte budget.
    w.busCreated(1, 1, id);
    s.write(w.finish());
    for (let i = 0; i < 3; i++) {
      w.stringDef(++id, 'x'.repeat(4 * 1024 * 1024));
      s.write(w.finish());
    }
    s.write(encodeControlFrame({ type: 'pong', requestId: 1 }));
  });
  try {
    const session = new Session({ id: 'hostile', source: { kind: 'address', host: '127.0.0.1', port: probe.port, token: 't' } });
    const records: BusRecord[] = [];
    const pong = deferred();
    const client = await ProbeClient.connect({
      port: probe.port,
      token: 't',
      onMessage: (m) => {
        session.ingest(m);
        if (m.type === 'records') for (const r of m.records) if (r.kind === 'bus-created') records.push(r);
        if (m.type === 'pong') pong.resolve();
      },
    });
    await withTimeout(pong.promise, 10_000, 'the whole hostile stream was read');
    const table = client.stringTable;
    assert.ok(table.count <= MAX_STRING_TABLE_ENTRIES, `${table.count} strings kept`);
    assert.ok(table.bytes <= MAX_STRING_TABLE_BYTES, `${table.bytes} bytes of strings kept`);
    assert.equal(table.overflowed, distinct + 3 - MAX_STRING_TABLE_ENTRIES);
    assert.equal(client.isClosed, false, 'too many names is a state, not an error');
    // A record naming a folded id resolves to the overflow bucket.
    assert.deepEqual(
      records.map((r) => r.kind === 'bus-created' && r.name),
      [OVERFLOW_NAME],
    );
    assert.deepEqual(session.nameOverflow, { folded: distinct + 3 - MAX_STRING_TABLE_ENTRIES, appTableFull: false });
    client.close();
    session.dispose();
  } finally {
    await probe.close();
  }
});

test('a client that pauses reading in the middle of a frame is not timed out for it', async () => {
  const frame = encodeControlFrame(validSnapshot as never);
  let sendRest: () => void = () => undefined;
  const probe = await hostileProbe((s) => {
    s.write(encodeControlFrame(welcome));
    s.write(frame.subarray(0, 10));
    sendRest = () => s.write(frame.subarray(10));
  });
  try {
    const snapshot = deferred();
    const client = await ProbeClient.connect({
      port: probe.port,
      token: 't',
      frameStallTimeoutMs: 150,
      onMessage: (m) => m.type === 'snapshot' && snapshot.resolve(),
    });
    client.pause();
    await sleep(400); // paused well past the stall timeout: time is what this checks
    assert.equal(client.isClosed, false, 'paused on purpose: no stall');
    sendRest();
    client.resume();
    await withTimeout(snapshot.promise, 5000, 'the snapshot after resuming');
    client.close();
  } finally {
    await probe.close();
  }
});

test('a client whose own event loop was blocked past the timeout reads the waiting bytes before judging a stall', async () => {
  const frame = encodeControlFrame(validSnapshot as never);
  let sendRest: () => void = () => undefined;
  const probe = await hostileProbe((s) => {
    s.write(encodeControlFrame(welcome));
    s.write(frame.subarray(0, 10));
    sendRest = () => s.write(frame.subarray(10));
  });
  try {
    const snapshot = deferred();
    const client = await ProbeClient.connect({
      port: probe.port,
      token: 't',
      frameStallTimeoutMs: 100,
      onMessage: (m) => m.type === 'snapshot' && snapshot.resolve(),
    });
    await sleep(20); // the first 10 bytes are in: the watch is armed
    sendRest(); // reaches this process's socket buffer at once …
    const until = Date.now() + 300;
    while (Date.now() < until); // … while this process is busy past the timeout
    await withTimeout(snapshot.promise, 5000, 'the snapshot whose bytes were waiting');
    assert.equal(client.isClosed, false, 'the bytes were waiting: not a stall');
    client.close();
  } finally {
    await probe.close();
  }
});
