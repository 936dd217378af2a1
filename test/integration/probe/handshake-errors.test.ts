// Bad clients: a missing or wrong token, a handshake that never comes, garbage bytes, an oversized
// frame and a wrong protocol version each get a clear error and a closed connection — while the app
// keeps dispatching and a good client keeps streaming.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ProbeClient, ProbeClientError } from '../../../runtime-probe/src/client/index';
import {
  FrameKind,
  HANDSHAKE_TIMEOUT_MS,
  MAX_CLIENT_FRAME_BYTES,
  encodeControlFrame,
  encodeFrame,
  utf8Encode,
} from '../../../runtime-probe/src/protocol/index';
import { cleanup, connect, errorOf, rawSession, spawnApp, waitFor } from './helpers';

after(cleanup);

function hello(token: string, versions: number[] = [1]): Uint8Array {
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
    assert.deepEqual(e.supportedVersions, [1]);
    assert.equal(r.messages.length, 1, `${name}: nothing but the error`);
  };
  expectError('no handshake', noHandshake, 'handshake-timeout', /no hello within 3000 ms/);
  assert.ok(noHandshake.closedAfterMs >= HANDSHAKE_TIMEOUT_MS - 100 && noHandshake.closedAfterMs < HANDSHAKE_TIMEOUT_MS + 1500);
  expectError('empty token', emptyToken, 'bad-token', /wrong or missing token/);
  expectError('wrong token', wrongToken, 'bad-token', /wrong or missing token/);
  expectError('garbage', garbage, 'frame-too-large', /does not look like a Busscope peer/);
  expectError('bad JSON', badJson, 'malformed', /not valid JSON/);
  expectError('oversized frame', tooLarge, 'frame-too-large', /65537 bytes exceeds the limit of 65536/);
  expectError('record frame', recordFrame, 'handshake-required', /first message must be hello/);
  expectError('ping first', notHello, 'handshake-required', /got ping/);
  expectError('wrong version', wrongVersion, 'unsupported-version', /client speaks 7, 8, this probe speaks 1/);
  for (const r of [emptyToken, wrongToken, garbage, badJson, tooLarge, recordFrame, notHello, wrongVersion]) {
    assert.ok(r.closedAfterMs < 2000, 'refused at once, not after the handshake timeout');
  }

  // The real client reports a version mismatch clearly too.
  await assert.rejects(
    ProbeClient.connect({ port: info.port, token: info.token, protocolVersions: [2], timeoutMs: 3000 }),
    (e: unknown) => e instanceof ProbeClientError && e.code === 'unsupported-version' && /this probe speaks 1/.test(e.message),
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
