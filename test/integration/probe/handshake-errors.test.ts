// Bad clients: a missing or wrong token, a handshake that never comes, garbage bytes, an oversized
// frame and a wrong protocol version each get a clear error and a closed connection — while the app
// keeps dispatching and a good client keeps streaming.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ProbeClient, ProbeClientError } from '../../../runtime-probe/src/client/index';
import {
  FRAME_STALL_TIMEOUT_MS,
  FrameKind,
  HANDSHAKE_TIMEOUT_MS,
  MAX_CLIENT_FRAME_BYTES,
  MAX_PREAUTH_FRAME_BYTES,
  encodeControlFrame,
  encodeFrame,
  utf8Encode,
} from '../../../runtime-probe/src/protocol/index';
import { cleanup, connect, errorOf, rawSession, spawnApp, waitFor } from './helpers';

after(cleanup);

function hello(token: string, versions: number[] = [4]): Uint8Array {
  return encodeControlFrame({ type: 'hello', token, protocolVersions: versions, clientName: 'bad-client' });
}

test('every bad client is refused with a clear message; the app and a good client carry on', async () => {
  const app = await spawnApp();
  const info = app.info;
  assert.ok(info);
  const good = await connect(info);
  await app.call('startBackground', { everyMs: 2, perTick: 20 });
  const goodDispatches = () => good.records().filter((r) => r.kind === 'dispatch').length;
  await waitFor(() => goodDispatches() > 100, 5000, 'the good client streaming');
  const appCountBefore = await app.call<number>('backgroundCount');
  const streamedBefore = goodDispatches();

  const oversized = new Uint8Array(8);
  new DataView(oversized.buffer).setUint32(0, MAX_CLIENT_FRAME_BYTES + 1, true);
  oversized[4] = FrameKind.Control;

  // All at once: the slowest (no handshake) bounds the test's duration.
  const [noHandshake, emptyToken, wrongToken, garbage, badJson, tooLarge, recordFrame, notHello, wrongVersion] = await Promise.all([
    rawSession(info.port, undefined),
    rawSession(info.port, hello('')),
    rawSession(info.port, hello('0'.repeat(32))),
    rawSession(info.port, utf8Encode('GET / HTTP/1.1\r\nHost: x\r\n\r\n')),
    rawSession(info.port, encodeFrame(FrameKind.Control, utf8Encode('{"type":"hello",'))),
    rawSession(info.port, oversized),
    rawSession(info.port, encodeFrame(FrameKind.Records, new Uint8Array([1, 2, 3]))),
    rawSession(info.port, encodeControlFrame({ type: 'ping', requestId: 1 })),
    rawSession(info.port, hello(info.token, [7, 8])),
  ]);

  const expectError = (name: string, r: Awaited<ReturnType<typeof rawSession>>, code: string, pattern: RegExp) => {
    const e = errorOf(r);
    assert.ok(e, `${name}: an error message before the close`);
    assert.equal(e.code, code, `${name}: ${e.message}`);
    assert.match(e.message, pattern, name);
    assert.deepEqual(e.supportedVersions, [6, 5, 4]);
    assert.equal(r.messages.length, 1, `${name}: nothing but the error`);
  };
  expectError('no handshake', noHandshake, 'handshake-timeout', /no hello within 3000 ms/);
  assert.ok(noHandshake.closedAfterMs >= HANDSHAKE_TIMEOUT_MS - 100 && noHandshake.closedAfterMs < HANDSHAKE_TIMEOUT_MS + 1500);
  expectError('empty token', emptyToken, 'bad-token', /wrong or missing token/);
  expectError('wrong token', wrongToken, 'bad-token', /wrong or missing token/);
  expectError('garbage', garbage, 'frame-too-large', /does not look like a Busscope peer/);
  expectError('bad JSON', badJson, 'malformed', /not valid JSON/);
  expectError('oversized frame', tooLarge, 'frame-too-large', /65537 bytes exceeds the limit of 4096 bytes before hello/);
  expectError('record frame', recordFrame, 'handshake-required', /first message must be hello/);
  expectError('ping first', notHello, 'handshake-required', /got ping/);
  expectError('wrong version', wrongVersion, 'unsupported-version', /client speaks 7, 8, this probe speaks 6, 5, 4/);
  for (const r of [emptyToken, wrongToken, garbage, badJson, tooLarge, recordFrame, notHello, wrongVersion]) {
    assert.ok(r.closedAfterMs < 2000, 'refused at once, not after the handshake timeout');
  }

  // The real client reports a version mismatch clearly too; a version-1 client (it offers only 1)
  // is told the probe writes versions 5 and 4 (batches are encoded once for all clients; 4 is 5 without the worker threads).
  await assert.rejects(
    ProbeClient.connect({ port: info.port, token: info.token, protocolVersions: [1], timeoutMs: 3000 }),
    (e: unknown) => e instanceof ProbeClientError && e.code === 'unsupported-version' && /client speaks 1, this probe speaks 6, 5, 4/.test(e.message),
  );
  await assert.rejects(
    ProbeClient.connect({ port: info.port, token: 'nope', timeoutMs: 3000 }),
    (e: unknown) => e instanceof ProbeClientError && e.code === 'bad-token',
  );

  // Meanwhile: the app kept dispatching and the good client kept streaming.
  const appCountAfter = await app.call<number>('backgroundCount');
  assert.ok(appCountAfter > appCountBefore + 500, `app dispatched ${appCountAfter - appCountBefore} during the abuse`);
  await good.client.ping();
  assert.ok(goodDispatches() > streamedBefore + 500);
  assert.equal(good.client.isClosed, false);
  // Exact: with nothing dropped, the good client saw every background dispatch since it attached.
  await app.call('stopBackground');
  await good.client.ping();
  const bg = good.records().filter((r) => r.kind === 'dispatch' && r.type === 'bg.tick').length;
  const drops = good.records().filter((r) => r.kind === 'drops');
  assert.deepEqual(drops, []);
  assert.equal(bg, await app.call<number>('backgroundCount'));
});

test('a second good client can attach while others stream; clients close independently', async () => {
  const app = await spawnApp();
  assert.ok(app.info);
  const a = await connect(app.info);
  const b = await connect(app.info);
  await app.call('scenario');
  await Promise.all([a.client.ping(), b.client.ping()]);
  const count = (c: typeof a) => c.records().filter((r) => r.kind === 'dispatch').length;
  assert.ok(count(a) > 0);
  assert.equal(count(a), count(b));
  a.client.close();
  await app.call('scenario');
  await b.client.ping();
  assert.equal(count(b), 2 * count(a));
});

test('before hello, frames over 4 KiB and deeply nested JSON close that connection at once; an attached client streams on', async () => {
  const app = await spawnApp();
  const info = app.info;
  assert.ok(info);
  const good = await connect(info);
  await app.call('startBackground', { everyMs: 2, perTick: 20 });
  const goodDispatches = () => good.records().filter((r) => r.kind === 'dispatch').length;
  await waitFor(() => goodDispatches() > 100, 5000, 'the good client streaming');
  const streamedBefore = goodDispatches();

  // A hello padded past the pre-authentication cap (a real one is well under 1 KiB) …
  const padded = hello('0'.repeat(32));
  const bigHello = encodeFrame(FrameKind.Control, utf8Encode(`{"type":"hello","pad":"${'x'.repeat(MAX_PREAUTH_FRAME_BYTES)}"}`));
  assert.ok(bigHello.length > MAX_PREAUTH_FRAME_BYTES && padded.length < MAX_PREAUTH_FRAME_BYTES);
  // … the 32,000-deep array of the report, and one deep array that fits in 4 KiB.
  const deepArray = (depth: number) => encodeFrame(FrameKind.Control, utf8Encode('['.repeat(depth) + ']'.repeat(depth)));
  const sessions = await Promise.all([
    ...Array.from({ length: 10 }, () => rawSession(info.port, deepArray(32_000))),
    rawSession(info.port, bigHello),
    rawSession(info.port, deepArray(2000)),
  ]);
  for (const [i, r] of sessions.entries()) {
    const e = errorOf(r);
    assert.ok(e, `session ${i}: an error before the close`);
    assert.ok(r.closedAfterMs < 1000, `session ${i}: closed at once (${r.closedAfterMs} ms)`);
    if (i < 11) {
      assert.equal(e.code, 'frame-too-large', e.message);
      assert.match(e.message, /exceeds the limit of 4096 bytes before hello/);
    } else {
      assert.equal(e.code, 'malformed', e.message);
      assert.match(e.message, /nests deeper than 8 levels/);
    }
  }
  await good.client.ping();
  assert.ok(goodDispatches() > streamedBefore, 'the attached client kept streaming');
  assert.equal(good.client.isClosed, false);
  // After hello the usual 64 KiB limit applies: an attached client may send larger messages.
  const many = Array.from({ length: 1024 }, (_, i) => `type.${i}.${'x'.repeat(20)}`);
  assert.deepEqual(await good.client.breakOn(many), many);
  await good.client.breakOn([]);
  await app.call('stopBackground');
});

test('a frame started after hello and never finished is closed after the stall timeout', async () => {
  const app = await spawnApp();
  const info = app.info;
  assert.ok(info);
  const partial = new Uint8Array(12);
  new DataView(partial.buffer).setUint32(0, 1000, true);
  partial[4] = FrameKind.Control;
  const bytes = new Uint8Array([...hello(info.token), ...partial]);
  const r = await rawSession(info.port, bytes, FRAME_STALL_TIMEOUT_MS + 4000);
  assert.equal(r.messages[0]?.type, 'welcome', 'the hello was accepted');
  const e = errorOf(r);
  assert.ok(e, 'an error before the close');
  assert.equal(e.code, 'frame-timeout');
  assert.match(e.message, new RegExp(`nothing more arrived for ${FRAME_STALL_TIMEOUT_MS} ms`));
  assert.ok(r.closedAfterMs >= FRAME_STALL_TIMEOUT_MS - 100 && r.closedAfterMs < FRAME_STALL_TIMEOUT_MS + 2000, `closed after ${r.closedAfterMs} ms`);
});
