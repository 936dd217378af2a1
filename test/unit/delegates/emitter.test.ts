// Emitter<T>: hand out `event`, keep `fire`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Emitter } from '../../../runtime-probe/src/bus/index';
import type { Disposable, EmitterEvent } from '../../../runtime-probe/src/bus/index';

/** The VS Code idiom: the class keeps the Emitter private and exposes only its event. */
class Document {
  private readonly onDidSaveEmitter = new Emitter<{ path: string }>();
  readonly onDidSave: EmitterEvent<{ path: string }> = this.onDidSaveEmitter.event;
  save(path: string): void {
    this.onDidSaveEmitter.fire({ path });
  }
  close(): void {
    this.onDidSaveEmitter.dispose();
  }
}

test('listeners subscribed through the handed-out event receive fired values in order', () => {
  const doc = new Document();
  const seen: string[] = [];
  doc.onDidSave((e) => seen.push(`a ${e.path}`));
  doc.onDidSave((e) => seen.push(`b ${e.path}`));
  doc.save('/x');
  assert.deepEqual(seen, ['a /x', 'b /x']);
});

test('the event function can be passed around detached from the emitter', () => {
  const emitter = new Emitter<number>();
  const { event } = emitter;
  const seen: number[] = [];
  event((n) => seen.push(n));
  emitter.fire(1);
  assert.deepEqual(seen, [1]);
});

test('disposing the returned Disposable stops the listener; disposing twice is harmless', () => {
  const emitter = new Emitter<number>();
  const seen: number[] = [];
  const sub = emitter.event((n) => seen.push(n));
  emitter.fire(1);
  sub.dispose();
  sub.dispose();
  emitter.fire(2);
  assert.deepEqual(seen, [1]);
  assert.equal(emitter.listenerCount, 0);
});

test('thisArgs becomes `this` inside the listener', () => {
  const emitter = new Emitter<number>();
  const target = {
    total: 0,
    add(n: number): void {
      this.total += n;
    },
  };
  emitter.event(target.add, target);
  emitter.fire(5);
  assert.equal(target.total, 5);
});

test('disposables passed to event collect the returned Disposable', () => {
  const emitter = new Emitter<void>();
  const bag: Disposable[] = [];
  let calls = 0;
  const d = emitter.event(() => calls++, undefined, bag);
  assert.deepEqual(bag, [d]);
  emitter.fire();
  for (const x of bag) x.dispose();
  emitter.fire();
  assert.equal(calls, 1);
});

test('a void Emitter fires without a value', () => {
  const emitter = new Emitter<void>();
  let calls = 0;
  emitter.event(() => calls++);
  emitter.fire();
  assert.equal(calls, 1);
});

test('a listener removed while firing is not called later in that fire', () => {
  const emitter = new Emitter<void>();
  const calls: string[] = [];
  let victim: Disposable | undefined;
  emitter.event(() => {
    calls.push('remover');
    victim?.dispose();
  });
  victim = emitter.event(() => calls.push('victim'));
  emitter.fire();
  assert.deepEqual(calls, ['remover']);
});

test('a listener added while firing is first called by the next fire', () => {
  const emitter = new Emitter<void>();
  const calls: string[] = [];
  let once = true;
  emitter.event(() => {
    calls.push('first');
    if (once) {
      once = false;
      emitter.event(() => calls.push('added'));
    }
  });
  emitter.fire();
  emitter.fire();
  assert.deepEqual(calls, ['first', 'first', 'added']);
});

test('a throwing listener does not stop the others; onError receives the error', () => {
  const errors: unknown[] = [];
  const emitter = new Emitter<number>({ onError: (e) => errors.push(e) });
  const seen: number[] = [];
  emitter.event(() => {
    throw new Error('listener bug');
  });
  emitter.event((n) => seen.push(n));
  emitter.fire(3);
  assert.deepEqual(seen, [3]);
  assert.equal((errors[0] as Error).message, 'listener bug');
});

test('without onError, listener errors go to console.error', () => {
  const emitter = new Emitter<void>();
  emitter.event(() => {
    throw new Error('x');
  });
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args);
  };
  try {
    emitter.fire();
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 1);
});

test('dispose removes every listener; later subscriptions get a no-op Disposable and fire does nothing', () => {
  const doc = new Document();
  let calls = 0;
  doc.onDidSave(() => calls++);
  doc.close();
  doc.save('/a');
  const late = doc.onDidSave(() => calls++);
  late.dispose();
  doc.save('/b');
  assert.equal(calls, 0);
  doc.close(); // idempotent
});

test('Disposables and the Emitter work with `using`', () => {
  const emitter = new Emitter<number>();
  const seen: number[] = [];
  {
    using _sub = emitter.event((n) => seen.push(n)) as Disposable & globalThis.Disposable;
    emitter.fire(1);
  }
  emitter.fire(2);
  assert.deepEqual(seen, [1]);
  {
    using e = new Emitter<number>();
    e.event((n) => seen.push(n));
    e.fire(3);
  }
  assert.deepEqual(seen, [1, 3]);
});

test('bad arguments get a TypeError naming them', () => {
  const emitter = new Emitter<number>();
  const loose = emitter.event as unknown as (...a: unknown[]) => Disposable;
  assert.throws(() => loose('x'), /Emitter\.event: listener must be a function/);
  assert.throws(() => loose(() => {}, undefined, 'bag'), /Emitter\.event: disposables must be an array/);
  assert.throws(() => new Emitter({ onError: 'x' as unknown as () => void }), /Emitter: options\.onError must be a function/);
  assert.equal(emitter.listenerCount, 0);
});
