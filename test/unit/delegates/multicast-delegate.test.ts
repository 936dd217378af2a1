// MulticastDelegate: many functions behind one broadcast; handles, owners, removal during broadcast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MulticastDelegate } from '../../../runtime-probe/src/bus/index';

test('broadcast calls every added function with the arguments, in the order they were added', () => {
  const d = new MulticastDelegate<[string, number]>();
  const seen: string[] = [];
  d.add((s, n) => seen.push(`a ${s} ${n}`));
  d.add((s, n) => seen.push(`b ${s} ${n}`));
  d.broadcast('x', 1);
  assert.deepEqual(seen, ['a x 1', 'b x 1']);
});

test('broadcast with nothing added does nothing', () => {
  const d = new MulticastDelegate();
  assert.doesNotThrow(() => d.broadcast());
  assert.equal(d.size, 0);
});

test('handles are positive integers, increasing, and never reused', () => {
  const one = new MulticastDelegate();
  const two = new MulticastDelegate();
  const handles: number[] = [];
  for (let i = 0; i < 10; i++) {
    const h = (i % 2 ? one : two).add(() => {});
    handles.push(h);
    if (i % 3 === 0) (i % 2 ? one : two).remove(h);
  }
  for (const h of handles) assert.ok(Number.isInteger(h) && h > 0);
  for (let i = 1; i < handles.length; i++) assert.ok(handles[i] > handles[i - 1]);
  assert.equal(new Set(handles).size, handles.length);
});

test('remove(handle) removes that function and returns whether it was there', () => {
  const d = new MulticastDelegate();
  let a = 0;
  let b = 0;
  const ha = d.add(() => a++);
  d.add(() => b++);
  assert.equal(d.remove(ha), true);
  assert.equal(d.remove(ha), false);
  assert.equal(d.remove(123456789), false);
  d.broadcast();
  assert.deepEqual([a, b, d.size], [0, 1, 1]);
});

test('a stale handle never removes a function added later', () => {
  const d = new MulticastDelegate();
  const old = d.add(() => {});
  d.remove(old);
  d.add(() => {});
  assert.equal(d.remove(old), false);
  assert.equal(d.size, 1);
});

test('removing a later function during broadcast means it is not called in that broadcast', () => {
  const d = new MulticastDelegate();
  const calls: string[] = [];
  let victim = 0;
  d.add(() => {
    calls.push('remover');
    d.remove(victim);
  });
  victim = d.add(() => calls.push('victim'));
  d.add(() => calls.push('last'));
  d.broadcast();
  assert.deepEqual(calls, ['remover', 'last']);
  assert.equal(d.size, 2);
});

test('a function removing itself during broadcast does not make the next one skipped', () => {
  const d = new MulticastDelegate();
  const calls: string[] = [];
  let self = 0;
  self = d.add(() => {
    calls.push('self');
    d.remove(self);
  });
  d.add(() => calls.push('next'));
  d.broadcast();
  d.broadcast();
  assert.deepEqual(calls, ['self', 'next', 'next']);
});

test('a function added during broadcast is first called by the next broadcast', () => {
  const d = new MulticastDelegate();
  const calls: string[] = [];
  let added = false;
  d.add(() => {
    calls.push('adder');
    if (!added) {
      added = true;
      d.add(() => calls.push('new'));
    }
  });
  d.broadcast();
  assert.deepEqual(calls, ['adder']);
  d.broadcast();
  assert.deepEqual(calls, ['adder', 'adder', 'new']);
});

test('removeAll(owner) removes the functions added with that owner and returns how many', () => {
  const d = new MulticastDelegate<[number]>();
  const owner = { name: 'panel' };
  const other = {};
  const seen: string[] = [];
  d.add((n) => seen.push(`owned ${n}`), { owner });
  d.add((n) => seen.push(`other ${n}`), { owner: other });
  d.add((n) => seen.push(`owned again ${n}`), { owner });
  d.add((n) => seen.push(`free ${n}`));
  assert.equal(d.removeAll(owner), 2);
  assert.equal(d.removeAll(owner), 0);
  d.broadcast(1);
  assert.deepEqual(seen, ['other 1', 'free 1']);
});

test("removeAll during broadcast stops the owner's later functions in that broadcast", () => {
  const d = new MulticastDelegate();
  const owner = {};
  const calls: string[] = [];
  d.add(() => {
    calls.push('first');
    d.removeAll(owner);
  });
  d.add(() => calls.push('owned'), { owner });
  d.add(() => calls.push('free'));
  d.broadcast();
  assert.deepEqual(calls, ['first', 'free']);
});

test('clear removes everything', () => {
  const d = new MulticastDelegate();
  d.add(() => {});
  d.add(() => {});
  d.clear();
  assert.equal(d.size, 0);
});

test('size counts the functions currently added', () => {
  const d = new MulticastDelegate();
  const h = d.add(() => {});
  d.add(() => {});
  assert.equal(d.size, 2);
  d.remove(h);
  assert.equal(d.size, 1);
});

test('a throwing function does not stop the others; the error goes to onError', () => {
  const errors: unknown[] = [];
  const d = new MulticastDelegate<[number]>({ onError: (e) => errors.push(e) });
  const seen: number[] = [];
  d.add(() => {
    throw new Error('bad');
  });
  d.add((n) => seen.push(n));
  d.broadcast(7);
  assert.deepEqual(seen, [7]);
  assert.equal((errors[0] as Error).message, 'bad');
});

test('without onError, errors go to console.error and the broadcast continues', () => {
  const d = new MulticastDelegate();
  let after = 0;
  d.add(() => {
    throw new Error('loud');
  });
  d.add(() => after++);
  const original = console.error;
  const lines: unknown[][] = [];
  console.error = (...args: unknown[]) => {
    lines.push(args);
  };
  try {
    d.broadcast();
  } finally {
    console.error = original;
  }
  assert.equal(after, 1);
  assert.equal(lines.length, 1);
});

test('an onError that throws does not break the broadcast', () => {
  const d = new MulticastDelegate({
    onError: () => {
      throw new Error('onError broken');
    },
  });
  let after = 0;
  d.add(() => {
    throw new Error('bad');
  });
  d.add(() => after++);
  const original = console.error;
  console.error = () => {};
  try {
    d.broadcast();
  } finally {
    console.error = original;
  }
  assert.equal(after, 1);
});

test("owners are held weakly: a collected owner's function is dropped instead of called", async () => {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing !== 'function') setFlagsFromString('--expose-gc');
  const gc = existing ?? (runInNewContext('gc') as () => void);
  const d = new MulticastDelegate();
  let calls = 0;
  function count(): void {
    calls++;
  }
  (() => {
    d.add(count, { owner: { name: 'temporary' } });
  })();
  d.add(count);
  for (let i = 0; i < 20 && d.size === 2; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    calls = 0;
    d.broadcast();
  }
  assert.equal(d.size, 1);
  assert.equal(calls, 1);
});

test('bad arguments get a TypeError naming them', () => {
  const d = new MulticastDelegate();
  const loose = d as unknown as { add(...a: unknown[]): number; remove(h: unknown): boolean; removeAll(o: unknown): number };
  assert.throws(() => loose.add('x'), /MulticastDelegate\.add: fn must be a function/);
  assert.throws(() => loose.add(() => {}, { owner: 3 }), /MulticastDelegate\.add: options\.owner must be an object/);
  assert.throws(() => loose.add(() => {}, 'opts'), /MulticastDelegate\.add: options must be an object/);
  assert.throws(() => loose.remove(0), /MulticastDelegate\.remove: handle must be a positive integer/);
  assert.throws(() => loose.remove('1'), TypeError);
  assert.throws(() => loose.removeAll(null), /MulticastDelegate\.removeAll: owner must be an object/);
  assert.throws(() => new MulticastDelegate({ onError: 1 as unknown as () => void }), /options\.onError must be a function/);
  assert.equal(d.size, 0);
});
