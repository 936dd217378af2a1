// The probe's listener for Node's MaxListenersExceededWarning: a real EventEmitter past its
// maxListeners, watched or not; the message names the watched bus and the event as views show it;
// the probe adds exactly one 'warning' listener while its server runs and removes it on stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { probe } from '../../../runtime-probe/src/index';
import type { EmitterWarningMessage } from '../../../runtime-probe/src/protocol/index';
import { listenForMaxListenersWarnings } from '../../../runtime-probe/src/probe/max-listeners-warning';

test('a watched emitter past maxListeners: the message carries its bus, the event (Symbol(desc)) and the count', async () => {
  const got: EmitterWarningMessage[] = [];
  const stop = listenForMaxListenersWarnings(Date.now(), (m) => got.push(m));
  const tick = Symbol('tick');
  class Clock extends EventEmitter {}
  const watched = new Clock();
  const handle = probe.watch(watched, { name: 'clock' });
  const plain = new EventEmitter();
  try {
    for (let i = 0; i < 11; i++) watched.on(tick, () => undefined);
    for (let i = 0; i < 11; i++) plain.on('data', () => undefined);
    await once(process, 'warning'); // Node emits it on a later tick
    await new Promise((r) => setImmediate(r));
  } finally {
    stop();
    handle.dispose();
  }
  const w = got.find((m) => m.event === 'Symbol(tick)');
  assert.ok(w, JSON.stringify(got));
  assert.deepEqual([w.bus, w.emitter, w.count, w.warning], [handle.busId, 'Clock', 11, 'max-listeners']);
  assert.match(w.message, /MaxListeners is 10/);
  const p = got.find((m) => m.event === 'data');
  assert.ok(p);
  assert.equal(p.bus, null, 'an emitter that is not watched has no bus');
});

test('other warnings are ignored; the listener is added by start and removed by stop', async () => {
  const got: EmitterWarningMessage[] = [];
  const stop = listenForMaxListenersWarnings(Date.now(), (m) => got.push(m));
  process.emitWarning('something else', { type: 'DeprecationWarning', code: 'X' });
  process.emit('warning', Object.assign(new Error('forged'), { name: 'MaxListenersExceededWarning', emitter: 'not an object' }));
  await new Promise((r) => setImmediate(r));
  stop();
  assert.deepEqual(got, []);

  const before = process.listenerCount('warning');
  await probe.start({ discovery: false });
  try {
    assert.equal(process.listenerCount('warning'), before + 1);
  } finally {
    await probe.stop();
  }
  assert.equal(process.listenerCount('warning'), before);
});
