// Subscriptions that end because their owner was garbage-collected are announced once per subscribe
// site (process 'warning' BusscopeOwnerCollectedWarning), with or without a probe; a bus option
// silences it. Each test uses its own bus name: the once-per-site memory is process-wide.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';

interface Events {
  'order.placed': { id: number };
  'mail.queued': void;
}

function getGc(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = getGc();
const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Collects until `done()` holds, yielding so FinalizationRegistry callbacks run (bounded). */
async function collectUntil(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 30 && !done(); i++) {
    await macrotask();
    gc();
    await macrotask();
    await macrotask();
  }
  return done();
}

/** Owner-collected warnings emitted while `fn` runs (plus a few ticks for emitWarning's nextTick), for one bus. */
async function warningsFor(busName: string, fn: () => Promise<void>): Promise<Error[]> {
  const seen: Error[] = [];
  const listener = (w: Error): void => {
    if (w.name === 'BusscopeOwnerCollectedWarning' && w.message.includes(`bus "${busName}"`)) seen.push(w);
  };
  process.on('warning', listener);
  try {
    await fn();
    for (let i = 0; i < 5; i++) await macrotask();
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

// Handlers that do not close over their owner (that would keep it alive).
function charge(): void {}
function send(): void {}

class Payments {
  constructor(bus: EventBus<Events>) {
    bus.subscribe('order.placed', charge, { owner: this, label: 'charge' });
  }
}
class Mailer {
  constructor(
    readonly id: string,
    bus: EventBus<Events>,
  ) {
    bus.subscribe('mail.queued', send, { owner: this });
  }
}

test('a collected owner is announced once per subscribe site, without a probe', async () => {
  const bus = new EventBus<Events>({ name: 'shop' });
  const warnings = await warningsFor('shop', async () => {
    // Held by nothing but their subscriptions: three Payments (one site) and one Mailer (another).
    (() => {
      for (let i = 0; i < 3; i++) new Payments(bus);
      new Mailer('smtp', bus);
    })();
    assert.equal(bus.listenerCount(), 4);
    assert.ok(await collectUntil(() => bus.listenerCount() === 0), `listeners left: ${bus.listenerCount()}`);
  });
  assert.equal(warnings.length, 2, warnings.map((w) => w.message).join('\n'));
  const payments = warnings.find((w) => w.message.includes('Payments'));
  const mailer = warnings.find((w) => w.message.includes('Mailer#smtp'));
  assert.ok(payments && mailer);
  assert.match(payments.message, /"order\.placed" \(label "charge"\) on bus "shop"/);
  assert.match(payments.message, /garbage-collected/);
  assert.match(payments.message, /unknown site \(start the probe before subscribing/);
  assert.match(payments.message, /Keep a reference to the owner/);
  assert.match(payments.message, /warnOnCollectedOwner: false/);
  assert.equal((payments as Error & { code?: string }).code, 'BUSSCOPE_OWNER_COLLECTED');

  // The same site collected again later: not repeated.
  const again = await warningsFor('shop', async () => {
    (() => new Payments(bus))();
    assert.ok(await collectUntil(() => bus.listenerCount() === 0));
  });
  assert.equal(again.length, 0);
  bus.dispose();
});

test('a dispatch that finds the owner collected before the registry runs warns too', async () => {
  const bus = new EventBus<Events>({ name: 'shop-dispatch' });
  const warnings = await warningsFor('shop-dispatch', async () => {
    (() => new Payments(bus))();
    for (let i = 0; i < 30 && bus.listenerCount() > 0; i++) {
      await macrotask();
      gc();
      bus.dispatch('order.placed', { id: i }); // may find the WeakRef empty first
    }
    assert.equal(bus.listenerCount(), 0);
  });
  assert.equal(warnings.length, 1);
  bus.dispose();
});

test('warnOnCollectedOwner: false silences it', async () => {
  const bus = new EventBus<Events>({ name: 'quiet-shop', warnOnCollectedOwner: false });
  const warnings = await warningsFor('quiet-shop', async () => {
    (() => {
      for (let i = 0; i < 3; i++) new Payments(bus);
    })();
    assert.ok(await collectUntil(() => bus.listenerCount() === 0));
  });
  assert.equal(warnings.length, 0);
  bus.dispose();
});

test('an owner reported dead by isOwnerAlive is not warned about (the app said so)', async () => {
  const bus = new EventBus<Events>({ name: 'dead-shop', isOwnerAlive: () => false });
  const keep = new Payments(bus);
  const warnings = await warningsFor('dead-shop', async () => {
    bus.dispatch('order.placed', { id: 1 });
  });
  assert.equal(bus.listenerCount(), 0);
  assert.equal(warnings.length, 0);
  assert.ok(keep);
  bus.dispose();
});

test('with the probe capturing sites, the warning names the subscribe site; one warning per site', async () => {
  const recorder = new Recorder({ maxBufferedRecords: 256, config: { ...DEFAULT_RECORDING_CONFIG, captureStacks: true }, sanitize: undefined });
  setBusTracer(recorder);
  const bus = new EventBus<Events>({ name: 'sited' });
  try {
    const warnings = await warningsFor('sited', async () => {
      (() => {
        for (let i = 0; i < 2; i++) bus.subscribe('mail.queued', send, { owner: {} }); // one site, two owners
        bus.subscribe('mail.queued', send, { owner: {} }); // a second site
      })();
      assert.ok(await collectUntil(() => bus.listenerCount() === 0));
    });
    assert.equal(warnings.length, 2, warnings.map((w) => w.message).join('\n'));
    for (const w of warnings) assert.match(w.message, /Subscribed at .*owner-warning\.test\.ts:\d+:\d+/);
    const lines = new Set(warnings.map((w) => /owner-warning\.test\.ts:(\d+)/.exec(w.message)?.[1]));
    assert.equal(lines.size, 2);
  } finally {
    setBusTracer(undefined);
    recorder.shutdown();
    bus.dispose();
  }
});
