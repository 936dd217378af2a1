// The contract between the bus and the probe (runtime-probe/src/bus/tracer.ts): which hooks the bus
// calls, when, with what. A small recording tracer stands in for the probe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventBus } from '../../../runtime-probe/src/bus/index';
import {
  allBuses,
  setBusTracer,
  setDispatchTracer,
  type BusTracer,
  type DispatchTracer,
  type TracedBus,
  type TracedSubscription,
} from '../../../runtime-probe/src/bus/tracer';

interface Events {
  hit: { damage: number };
  tick: void;
}

type Call = [string, ...unknown[]];

/** Records every hook call as [hook, ...arguments], with buses and subscriptions by name/id. */
class RecordingTracer implements BusTracer, DispatchTracer {
  readonly calls: Call[] = [];
  private seq = 100;
  breakOn = new Set<string>();
  stackAtSubscribe: string | undefined;

  private rec(...call: Call): void {
    this.calls.push(call);
  }
  busCreated(bus: TracedBus): void {
    this.rec('busCreated', bus.name);
  }
  busDisposed(bus: TracedBus): void {
    this.rec('busDisposed', bus.name);
  }
  subscribed(bus: TracedBus, sub: TracedSubscription): void {
    this.stackAtSubscribe = new Error('site').stack;
    sub.site = { file: 'here.ts', line: 1, column: 2, functionName: undefined };
    this.rec('subscribed', bus.name, sub.id, sub.type);
  }
  unsubscribed(bus: TracedBus, sub: TracedSubscription, reason: string): void {
    this.rec('unsubscribed', bus.name, sub.id, reason);
  }
  ownerCollected(bus: TracedBus, ownerDescription: string | undefined, removed: number): void {
    this.rec('ownerCollected', bus.name, ownerDescription, removed);
  }
  enqueued(bus: TracedBus, type: string, queueLength: number): void {
    this.rec('enqueued', bus.name, type, queueLength);
  }
  flushed(bus: TracedBus, dispatched: number): void {
    this.rec('flushed', bus.name, dispatched);
  }
  depthLimitHit(bus: TracedBus, type: string, depth: number): void {
    this.rec('depthLimitHit', bus.name, type, depth);
  }
  dispatchStart(bus: TracedBus, type: string, depth: number, parentSeq: number, payload: unknown): number {
    const seq = ++this.seq;
    this.rec('dispatchStart', bus.name, type, depth, parentSeq, payload, seq);
    return seq;
  }
  handlerStart(seq: number, sub: TracedSubscription): void {
    this.rec('handlerStart', seq, sub.id);
  }
  handlerEnd(seq: number, sub: TracedSubscription, consumed: boolean): void {
    this.rec('handlerEnd', seq, sub.id, consumed);
  }
  handlerError(seq: number, bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    this.rec('handlerError', seq, bus.name, sub.id, (error as Error).message);
  }
  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    this.rec('dispatchEnd', seq, delivered, consumedBy);
  }
  shouldBreak(bus: TracedBus, type: string): boolean {
    this.rec('shouldBreak', bus.name, type);
    return this.breakOn.has(type);
  }
  /** The calls of the given hooks only. */
  only(...hooks: string[]): Call[] {
    return this.calls.filter((c) => hooks.includes(c[0]));
  }
}

/** Runs `fn` with the tracer installed in both slots, detaching afterwards whatever happens. */
async function traced(fn: (t: RecordingTracer) => void | Promise<void>, slots: { dispatch?: boolean } = {}): Promise<RecordingTracer> {
  const t = new RecordingTracer();
  setBusTracer(t);
  if (slots.dispatch !== false) setDispatchTracer(t);
  try {
    await fn(t);
  } finally {
    setBusTracer(undefined);
    setDispatchTracer(undefined);
  }
  return t;
}

test('every bus registers itself and reports creation and disposal', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'reg' });
    assert.ok(bus.busId > 0);
    assert.ok(bus.createdAt <= Date.now());
    assert.ok([...allBuses()].includes(bus));
    bus.dispose();
    assert.ok(![...allBuses()].includes(bus));
    bus.dispose();
    assert.deepEqual(t.only('busCreated', 'busDisposed'), [
      ['busCreated', 'reg'],
      ['busDisposed', 'reg'],
    ]);
  });
});

test('a bus created before the probe started is found by allBuses, with its live subscriptions', () => {
  const bus = new EventBus<Events>({ name: 'early' });
  const a = bus.subscribe('hit', () => {}, { label: 'A', priority: 3, owner: { id: 'p1' } });
  const gone = bus.subscribe('tick', () => {});
  const b = bus.subscribe('*', () => {}, { once: true });
  gone.dispose();
  const found = [...allBuses()].find((x) => x === bus);
  assert.ok(found);
  const subs = [...found.tracedSubscriptions()].sort((x, y) => x.id - y.id);
  assert.deepEqual(
    subs.map((s) => ({ id: s.id, type: s.type, priority: s.priority, label: s.label, once: s.once, owner: s.ownerDescription, calls: s.calls })),
    [
      { id: a.id, type: 'hit', priority: 3, label: 'A', once: false, owner: 'Object#p1', calls: 0 },
      { id: b.id, type: '*', priority: 0, label: undefined, once: true, owner: undefined, calls: 0 },
    ],
  );
  bus.dispose();
});

test('subscribed is called from inside subscribe, with the caller two frames up, and may set the site', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'sites' });
    const sub = bus.subscribe('hit', () => {}, { label: 'x' });
    assert.deepEqual(t.only('subscribed'), [['subscribed', 'sites', sub.id, 'hit']]);
    const frames = (t.stackAtSubscribe ?? '').split('\n').slice(1);
    assert.match(frames[0], /subscribed/);
    assert.match(frames[1], /subscribe/);
    assert.match(frames[2], /tracer\.test\.ts/);
    const [info] = [...bus.tracedSubscriptions()];
    assert.equal(info.site?.file, 'here.ts');
    bus.dispose();
  });
});

test('unsubscribed reports every way a subscription ends, with its reason', async () => {
  const t = await traced((t) => {
    const bus = new EventBus<Events>({ name: 'reasons' });
    const owner = { name: 'w' };
    const dead = { disposed: false };
    const controller = new AbortController();
    const byDispose = bus.subscribe('tick', () => {});
    const byUnsubscribe = bus.subscribe('tick', () => {});
    const byId = bus.subscribe('tick', () => {});
    const byOnce = bus.subscribe('hit', () => {}, { once: true });
    const bySignal = bus.subscribe('tick', () => {}, { signal: controller.signal });
    const byOwner = bus.subscribe('tick', () => {}, { owner });
    const byDeadOwner = bus.subscribe('hit', () => {}, { owner: dead });
    const byClear = bus.subscribe('tick', () => {});
    const byBusDispose = bus.subscribe('*', () => {});
    byDispose.dispose();
    byDispose.dispose(); // idempotent: reported once
    bus.unsubscribe(byUnsubscribe);
    bus.unsubscribe(byId.id);
    bus.dispatch('hit', { damage: 1 }); // once ends before its call
    controller.abort();
    bus.unsubscribeOwner(owner);
    dead.disposed = true;
    bus.dispatch('hit', { damage: 2 });
    bus.clear();
    const late = bus.subscribe('tick', () => {});
    bus.dispose();
    const ids = { byDispose, byUnsubscribe, byId, byOnce, bySignal, byOwner, byDeadOwner, byClear, byBusDispose, late };
    const nameOf = new Map(Object.entries(ids).map(([k, v]) => [v.id, k]));
    assert.deepEqual(
      t.only('unsubscribed').map(([, , id, reason]) => [nameOf.get(id as number), reason]),
      [
        ['byDispose', 'dispose'],
        ['byUnsubscribe', 'dispose'],
        ['byId', 'dispose'],
        ['byOnce', 'once'],
        ['bySignal', 'signal'],
        ['byOwner', 'owner'],
        ['byDeadOwner', 'dead-owner'],
        ['byClear', 'clear'],
        ['byBusDispose', 'clear'],
        ['late', 'clear'],
      ],
    );
  });
  assert.ok(t.calls.length > 0);
});

test('a dispatch is reported as start, handler start/end around each call, and end with delivered and consumer', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'd' });
    const first = bus.subscribe('hit', () => {}, { priority: 1 });
    const consumer = bus.subscribe('hit', () => true);
    bus.subscribe('hit', () => {});
    t.calls.length = 0;
    const payload = { damage: 5 };
    const result = bus.dispatch('hit', payload);
    assert.deepEqual(t.calls, [
      ['shouldBreak', 'd', 'hit'],
      ['dispatchStart', 'd', 'hit', 0, 0, payload, 101],
      ['handlerStart', 101, first.id],
      ['handlerEnd', 101, first.id, false],
      ['handlerStart', 101, consumer.id],
      ['handlerEnd', 101, consumer.id, true],
      ['dispatchEnd', 101, 2, consumer.id],
    ]);
    assert.deepEqual(result, { delivered: 2, consumed: true, consumedBy: consumer.id });
    bus.dispose();
  });
});

test('a dispatch nobody consumes ends with consumedBy 0, and one to nobody is still reported', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'e' });
    bus.dispatch('tick');
    bus.subscribe('tick', () => {});
    bus.dispatch('tick');
    assert.deepEqual(
      t.only('dispatchStart', 'dispatchEnd').map((c) => (c[0] === 'dispatchStart' ? [c[0], c[6]] : c)),
      [
        ['dispatchStart', 101],
        ['dispatchEnd', 101, 0, 0],
        ['dispatchStart', 102],
        ['dispatchEnd', 102, 1, 0],
      ],
    );
    bus.dispose();
  });
});

test('a failing handler is reported with handlerError, then handlerEnd, and the error still reaches onError', async () => {
  const errors: unknown[] = [];
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'f', onError: (e) => errors.push(e) });
    const failing = bus.subscribe('tick', () => {
      throw new Error('broken');
    });
    t.calls.length = 0;
    bus.dispatch('tick');
    assert.deepEqual(t.only('handlerStart', 'handlerError', 'handlerEnd', 'dispatchEnd'), [
      ['handlerStart', 101, failing.id],
      ['handlerError', 101, 'f', failing.id, 'broken'],
      ['handlerEnd', 101, failing.id, false],
      ['dispatchEnd', 101, 1, 0],
    ]);
    bus.dispose();
  });
  assert.equal(errors.length, 1);
});

test('nested dispatches carry their depth and the sequence number of the dispatch they run in', async () => {
  await traced((t) => {
    const outer = new EventBus<Events>({ name: 'outer' });
    const inner = new EventBus<Events>({ name: 'inner' });
    inner.subscribe('tick', () => {});
    outer.subscribe('hit', () => {
      inner.dispatch('tick');
      inner.dispatch('tick');
    });
    outer.dispatch('hit', { damage: 1 });
    outer.dispatch('hit', { damage: 2 });
    assert.deepEqual(
      t.only('dispatchStart').map(([, bus, type, depth, parent, , seq]) => [bus, type, depth, parent, seq]),
      [
        ['outer', 'hit', 0, 0, 101],
        ['inner', 'tick', 1, 101, 102],
        ['inner', 'tick', 1, 101, 103],
        ['outer', 'hit', 0, 0, 104],
        ['inner', 'tick', 1, 104, 105],
        ['inner', 'tick', 1, 104, 106],
      ],
    );
    outer.dispose();
    inner.dispose();
  });
});

test("a '*' subscriber's calls are traced like any other", async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'star' });
    const typed = bus.subscribe('tick', () => {});
    const star = bus.subscribe('*', () => {}, { priority: 1 });
    t.calls.length = 0;
    bus.dispatch('tick');
    assert.deepEqual(
      t.only('handlerStart').map((c) => c[2]),
      [star.id, typed.id],
    );
    bus.dispose();
  });
});

test('hitting the depth limit is reported with the refused type and depth', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'deep', maxDepth: 2, onError: () => {} });
    bus.subscribe('tick', () => {
      bus.dispatch('tick');
    });
    bus.dispatch('tick');
    assert.deepEqual(t.only('depthLimitHit'), [['depthLimitHit', 'deep', 'tick', 3]]);
    assert.equal(t.only('dispatchStart').length, 3);
    assert.equal(t.only('dispatchEnd').length, 3);
    bus.dispose();
  });
});

test('the depth limit is reported without a dispatch tracer as well', async () => {
  await traced(
    (t) => {
      const bus = new EventBus<Events>({ name: 'deep2', maxDepth: 1, onError: () => {} });
      bus.subscribe('tick', () => {
        bus.dispatch('tick');
      });
      bus.dispatch('tick');
      assert.deepEqual(t.only('depthLimitHit'), [['depthLimitHit', 'deep2', 'tick', 2]]);
      assert.equal(t.only('dispatchStart').length, 0);
      bus.dispose();
    },
    { dispatch: false },
  );
});

test('queue activity is reported: enqueued with the queue length, flushed with the count', async () => {
  await traced((t) => {
    const bus = new EventBus<Events>({ name: 'q' });
    bus.enqueue('tick');
    bus.enqueue('hit', { damage: 3 });
    bus.flush();
    bus.flush(); // empty: not reported
    assert.deepEqual(t.only('enqueued', 'flushed'), [
      ['enqueued', 'q', 'tick', 1],
      ['enqueued', 'q', 'hit', 2],
      ['flushed', 'q', 2],
    ]);
    bus.dispose();
  });
});

test('an event breakpoint asks shouldBreak on every traced dispatch and the dispatch goes on', async () => {
  await traced((t) => {
    t.breakOn.add('hit');
    const bus = new EventBus<Events>({ name: 'bp' });
    let calls = 0;
    bus.subscribe('hit', () => {
      calls++;
    });
    // No debugger is attached, so the `debugger` statement in dispatch is a no-op here.
    assert.equal(bus.dispatch('hit', { damage: 1 }).delivered, 1);
    bus.dispatch('tick');
    assert.equal(calls, 1);
    assert.deepEqual(t.only('shouldBreak'), [
      ['shouldBreak', 'bp', 'hit'],
      ['shouldBreak', 'bp', 'tick'],
    ]);
    bus.dispose();
  });
});

test('with only the bus tracer installed, dispatch calls no dispatch hooks', async () => {
  await traced(
    (t) => {
      const bus = new EventBus<Events>({ name: 'quiet' });
      bus.subscribe('tick', () => {});
      bus.dispatch('tick');
      assert.deepEqual(t.only('shouldBreak', 'dispatchStart', 'handlerStart', 'handlerEnd', 'dispatchEnd'), []);
      bus.dispose();
    },
    { dispatch: false },
  );
});

test('a garbage-collected owner is reported as ownerCollected plus unsubscribed/collected for each subscription', async () => {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing !== 'function') setFlagsFromString('--expose-gc');
  const gc = existing ?? (runInNewContext('gc') as () => void);
  const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  class Turret {
    constructor(readonly id: number) {}
  }
  function noop(): void {}
  await traced(async (t) => {
    const bus = new EventBus<Events>({ name: 'gc' });
    (() => {
      const turret = new Turret(9);
      bus.subscribe('tick', noop, { owner: turret });
      bus.subscribe('hit', noop, { owner: turret });
    })();
    for (let i = 0; i < 20 && t.only('ownerCollected').length === 0; i++) {
      await macrotask();
      gc();
      await macrotask();
      await macrotask();
    }
    assert.deepEqual(t.only('ownerCollected'), [['ownerCollected', 'gc', 'Turret#9', 2]]);
    assert.deepEqual(
      t.only('unsubscribed').map((c) => c[3]),
      ['collected', 'collected'],
    );
    assert.equal(bus.listenerCount(), 0);
    bus.dispose();
  });
});

test('a tracer that throws never breaks the app, and is reported once', async () => {
  const thrower = new Proxy(
    {},
    {
      get: () => () => {
        throw new Error('tracer bug');
      },
    },
  ) as BusTracer & DispatchTracer;
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args);
  };
  setDispatchTracer(thrower);
  let calls = 0;
  let bus: EventBus<Events> | undefined;
  try {
    bus = new EventBus<Events>({ name: 'robust' });
    setBusTracer(thrower);
    const sub = bus.subscribe('tick', () => {
      calls++;
    });
    bus.enqueue('tick');
    assert.equal(bus.flush(), 1);
    assert.equal(bus.dispatch('tick').delivered, 1);
    sub.dispose();
    bus.dispose();
  } finally {
    setBusTracer(undefined);
    setDispatchTracer(undefined);
    console.error = original;
  }
  assert.equal(calls, 2);
  assert.equal(bus.disposed, true);
  assert.ok(lines.length <= 1, 'reported at most once per process');
});
