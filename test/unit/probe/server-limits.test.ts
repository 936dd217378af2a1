// The probe server under hostile local clients, in-process: a flood of connections that never say
// hello stays bounded (the oldest pending ones are dropped at once, not after the handshake
// timeout), and a real client can still attach in the middle of it.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { ProbeClient } from '../../../runtime-probe/src/client/index';
import { PROTOCOL_VERSION, type WelcomeMessage } from '../../../runtime-probe/src/protocol/index';
import { appInfo } from '../../../runtime-probe/src/probe/app-info';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { buildSnapshot } from '../../../runtime-probe/src/recorder/snapshot';
import { MAX_PENDING_HANDSHAKES, ProbeServer } from '../../../runtime-probe/src/server/probe-server';
import { sleep } from '../../support/wait';

/** The server's sockets are unref'd (it never keeps an app alive): keep the loop up while it closes. */
async function closeServer(server: ProbeServer): Promise<void> {
  const keepAlive = setInterval(() => undefined, 50);
  try {
    await server.close();
  } finally {
    clearInterval(keepAlive);
  }
}

async function listen(): Promise<ProbeServer> {
  const recorder = new Recorder({ maxBufferedRecords: 1024, config: DEFAULT_RECORDING_CONFIG, sanitize: undefined });
  return ProbeServer.listen({
    host: '127.0.0.1',
    port: 0,
    recorder,
    maxPendingBytes: 1 << 20,
    welcome: (protocolVersion): WelcomeMessage => ({
      type: 'welcome',
      protocolVersion,
      probeVersion: 'test',
      app: appInfo('limits', 0),
      timeOrigin: recorder.timeOrigin,
      config: recorder.config,
    }),
    snapshot: () => buildSnapshot(recorder),
  });
}

test('1,000 connections that never send hello stay capped; a real client still attaches', async () => {
  const server = await listen();
  const sockets: net.Socket[] = [];
  let closedEarly = 0;
  try {
    const opened = Array.from(
      { length: 1000 },
      () =>
        new Promise<void>((resolve) => {
          const s = net.connect({ host: '127.0.0.1', port: server.port });
          sockets.push(s);
          s.on('error', () => undefined);
          s.once('close', () => closedEarly++);
          s.once('connect', () => resolve());
          s.once('close', () => resolve());
        }),
    );
    await Promise.all(opened);
    // Give the server's accept loop time to see all of them (well under the 3 s handshake timeout).
    for (let i = 0; i < 100 && server.pendingCount > MAX_PENDING_HANDSHAKES; i++) await sleep(10);
    assert.ok(server.pendingCount <= MAX_PENDING_HANDSHAKES, `pending ${server.pendingCount} > ${MAX_PENDING_HANDSHAKES}`);
    for (let i = 0; i < 200 && closedEarly < 1000 - MAX_PENDING_HANDSHAKES; i++) await sleep(10);
    assert.ok(closedEarly >= 1000 - MAX_PENDING_HANDSHAKES, `only ${closedEarly} idle connections were dropped before the timeout`);

    const client = await ProbeClient.connect({ port: server.port, token: server.token, timeoutMs: 2000 });
    assert.equal(client.welcome.protocolVersion, PROTOCOL_VERSION);
    assert.equal(server.clientCount, 1);
    await client.ping();
    // A fresh flood evicts only unauthenticated connections: the attached client is untouched.
    for (let i = 0; i < 200; i++) {
      const s = net.connect({ host: '127.0.0.1', port: server.port });
      s.on('error', () => undefined);
      sockets.push(s);
    }
    await sleep(100);
    await client.ping();
    assert.equal(client.isClosed, false);
    assert.ok(server.pendingCount <= MAX_PENDING_HANDSHAKES);
    client.close();
  } finally {
    for (const s of sockets) s.destroy();
    await closeServer(server);
  }
});

test('a constant-time token check that refuses other lengths and near misses', async () => {
  const server = await listen();
  try {
    assert.equal(server.checkToken(server.token), true);
    assert.equal(server.checkToken(''), false);
    assert.equal(server.checkToken(server.token.slice(0, -1)), false);
    assert.equal(server.checkToken(`${server.token}0`), false);
    const last = server.token.at(-1) === '0' ? '1' : '0';
    assert.equal(server.checkToken(server.token.slice(0, -1) + last), false);
    assert.equal(server.checkToken('é'.repeat(16)), false, 'multi-byte input of the same character count');
  } finally {
    await closeServer(server);
  }
});
