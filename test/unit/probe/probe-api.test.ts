// The probe API in-process: option validation, idempotent start/stop, and the rule that the dispatch
// tracer is installed only while something records (otherwise a dispatch pays one branch).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { EventBus, ProbeClient, probe } from '../../../runtime-probe/src/index';
import { currentBusTracer, currentDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import { withTimeout } from '../../support/wait';

test('bad options are TypeErrors naming the option', () => {
  assert.throws(() => probe.start({ port: -1 }), /probe\.start: options\.port must be an integer in 0…65535 \(got -1\)/);
  assert.throws(() => probe.start({ port: 1.5 }), TypeError);
  assert.throws(() => probe.start({ name: '' }), /options\.name must be a non-empty string/);
  assert.throws(() => probe.start({ captureStacks: 'yes' as unknown as boolean }), /options\.captureStacks must be a boolean \(got "yes"\)/);
  assert.throws(() => probe.start({ sanitize: 5 as unknown as () => unknown }), /options\.sanitize must be a function/);
  assert.throws(() => probe.start({ maxBufferedRecords: 10 }), /maxBufferedRecords must be an integer in 64…/);
  assert.throws(() => probe.start({ detail: 'all' as 'handlers' }), /options\.detail must be one of lifecycle, dispatch, handlers/);
  assert.throws(() => probe.start(42 as unknown as object), /options must be an object/);
  assert.throws(() => probe.record(''), /probe\.record: file must be a non-empty string/);
  assert.equal(probe.info, undefined, 'nothing started by the failed calls');
});

test('options passed in code are programmer errors: a misspelt option or an array is a TypeError at the call', () => {
  // Before, these were silently ignored: `captureStack: false` still captured stacks.
  assert.throws(
    () => probe.start({ captureStack: false } as unknown as Parameters<typeof probe.start>[0]),
    (e: unknown) =>
      e instanceof TypeError &&
      /^probe\.start: options\.captureStack is not an option \(known: name, host, allowRemote, port, discovery, captureStacks, /.test(e.message),
  );
  assert.throws(() => probe.start([] as unknown as object), /^TypeError: probe\.start: options must be an object \(got an array\)$/);
  assert.throws(() => probe.record('never.bustrace', { prot: 1 } as unknown as object), /^TypeError: probe\.record: options\.prot is not an option/);
  assert.equal(probe.info, undefined, 'nothing started by the failed calls');
});

test('start is idempotent; the dispatch tracer is installed only while a client records', async () => {
  const bus = new EventBus<{ e: void }>({ name: 'api' });
  bus.subscribe('e', () => undefined);
  const first = probe.start({ discovery: false, name: 'api-test' });
  const second = probe.start({ discovery: false, port: 1 });
  assert.equal(first, second, 'the same promise');
  const info = await first;
  assert.ok(info.port > 0);
  assert.match(info.token, /^[0-9a-f]{32}$/);
  assert.equal(info.discoveryFile, null);
  assert.deepEqual(probe.info, info);
  assert.ok(currentBusTracer() !== undefined, 'lifecycle tracer while started');
  assert.equal(currentDispatchTracer(), undefined, 'no dispatch tracer without a client');

  const client = await ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000 });
  assert.ok(currentDispatchTracer() !== undefined, 'recording while a client is attached');
  assert.equal(client.welcome.app.name, 'api-test');
  client.close();
  for (let i = 0; i < 100 && currentDispatchTracer() !== undefined; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(currentDispatchTracer(), undefined, 'uninstalled when the client left');

  await probe.stop();
  assert.equal(probe.info, undefined);
  assert.equal(currentBusTracer(), undefined);
  await probe.stop(); // idempotent
  const again = await probe.start({ discovery: false });
  assert.notEqual(again.token, info.token, 'a new token per start');
  await probe.stop();
  bus.dispose();
});

// In its own process, where nothing but the probe's (unref'd) sockets is left when the app awaits
// stop(): the promise must settle, or the code after `await probe.stop()` silently never runs.
// Peers: a client that hung up just before stop(), one still connected, and one that never says
// hello nor reads (closed by the grace period).
test('await probe.stop() settles when nothing else keeps the process alive, whatever its clients do', async () => {
  const dist = path.resolve(__dirname, '../../../runtime-probe/dist/index.cjs');
  const app = `
    const net = require('node:net');
    const { ProbeClient, probe } = require(${JSON.stringify(dist)});
    (async () => {
      const info = await probe.start({ discovery: false, name: 'stop-test' });
      const connect = () => ProbeClient.connect({ port: info.port, token: info.token, timeoutMs: 5000, onMessage: () => undefined });
      const hungUp = await connect();
      await connect();
      const silent = net.connect(info.port, '127.0.0.1');
      await new Promise((resolve) => silent.once('connect', resolve));
      silent.unref();
      hungUp.close();
      await probe.stop();
      console.log('stopped');
    })();`;
  const out = await withTimeout(
    new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', app], { timeout: 20_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    ),
    25_000,
    'the app process',
  );
  assert.equal(out.trim(), 'stopped');
});

test('a port in use is reported, not thrown', async () => {
  const first = await probe.start({ discovery: false });
  const { Probe } = await import('../../../runtime-probe/src/probe/probe');
  const other = new Probe();
  const warnings: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
  try {
    const info = await other.start({ discovery: false, port: first.port });
    assert.equal(info.port, 0);
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]), /listening on 127\.0\.0\.1:\d+ failed \(.*EADDRINUSE/);
  } finally {
    console.warn = warn;
    await other.stop();
    await probe.stop();
  }
});

test('listening beyond loopback is an explicit opt-in', async () => {
  const { isLoopbackHost, resolveStartOptions } = await import('../../../runtime-probe/src/probe/options');
  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '127.0.0.1.evil.example']) {
    assert.throws(() => probe.start({ host, discovery: false }), /options\.host .* is not a loopback address; .* allowRemote: true/, host);
    assert.equal(isLoopbackHost(host), false, host);
  }
  assert.equal(probe.info, undefined, 'nothing listens after a refused host');
  for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', 'LOCALHOST', '::1', '::ffff:127.0.0.1']) {
    assert.equal(isLoopbackHost(host), true, host);
    assert.equal(resolveStartOptions('t', { host }).host, host);
  }
  const opted = resolveStartOptions('t', { host: '0.0.0.0', allowRemote: true });
  assert.equal(opted.host, '0.0.0.0');
  assert.equal(opted.allowRemote, true);
  assert.throws(() => resolveStartOptions('t', { host: '0.0.0.0', allowRemote: 'yes' as unknown as boolean }), /options\.allowRemote must be a boolean/);
});
