import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DispatchRing } from '../../../runtime-probe/src/analysis/model/dispatchRing';
import { HandlerRing } from '../../../runtime-probe/src/analysis/model/handlerRing';

function pushSimple(r: DispatchRing, seq: number, start: number, duration = 1): void {
  r.push(seq, 1, 0, start, duration, 1, 0, 0, 0, -1);
}

test('dispatch ring: keeps the newest rows, oldest first, after wrap-around', () => {
  const r = new DispatchRing(4);
  for (let s = 1; s <= 10; s++) pushSimple(r, s, s * 10);
  assert.equal(r.size, 4);
  assert.equal(r.written, 10);
  assert.equal(r.overwritten, 6);
  assert.deepEqual(
    [0, 1, 2, 3].map((k) => r.row(k).seq),
    [7, 8, 9, 10],
  );
  assert.throws(() => r.row(4), RangeError);
  r.clear();
  assert.equal(r.size, 0);
});

test('dispatch ring: memory is fixed by the capacity', () => {
  const r = new DispatchRing(1000);
  const before = r.byteLength;
  for (let s = 1; s <= 50_000; s++) pushSimple(r, s, s);
  assert.equal(r.byteLength, before);
  assert.equal(r.byteLength, 1000 * 68); // 64 bytes + the start bound (float32)
});

test('dispatch ring: capacity must be a positive integer', () => {
  assert.throws(() => new DispatchRing(0), TypeError);
  assert.throws(() => new DispatchRing(2.5), TypeError);
});

// Nested dispatches arrive when they end, children before their parent, so rows are not in start
// order; the range query must still find exactly the overlapping rows. Reference: a linear scan.
test('dispatch ring: range query equals a linear scan, with out-of-order nested rows and wrap-around', () => {
  const tree = fc.array(fc.record({ gap: fc.double({ min: 0, max: 5, noNaN: true }), dur: fc.double({ min: 0, max: 20, noNaN: true }), kids: fc.nat(3) }), {
    minLength: 1,
    maxLength: 80,
  });
  fc.assert(
    fc.property(
      tree,
      fc.integer({ min: 1, max: 60 }),
      fc.double({ min: -10, max: 600, noNaN: true }),
      fc.double({ min: 0, max: 200, noNaN: true }),
      (items, cap, from, len) => {
        const r = new DispatchRing(cap);
        const all: { seq: number; start: number; duration: number }[] = [];
        let t = 0;
        let seq = 0;
        for (const it of items) {
          t += it.gap;
          const parent = { seq: ++seq, start: t, duration: it.dur };
          const kids = [];
          for (let k = 0; k < it.kids; k++) kids.push({ seq: ++seq, start: t + (it.dur * (k + 1)) / (it.kids + 2), duration: it.dur / (it.kids + 3) });
          for (const row of [...kids, parent]) {
            r.push(row.seq, 1, 0, row.start, row.duration, 0, 0, 0, 0, -1);
            all.push(row);
          }
          t += it.dur;
        }
        const retained = all.slice(Math.max(0, all.length - cap));
        const to = from + len;
        const expected = retained.filter((x) => x.start <= to && x.start + x.duration >= from).map((x) => x.seq);
        const got: number[] = [];
        r.forEachInRange(from, to, (i) => void got.push(r.seq[i]));
        assert.deepEqual(got, expected);
      },
    ),
  );
});

test('handler ring: wraps, finds slices of a dispatch and marks a throw', () => {
  const r = new HandlerRing(3);
  r.push(1, 10, 0, 1, 0);
  r.push(2, 10, 5, 1, 0);
  r.push(2, 11, 6, 1, 1);
  r.push(3, 10, 9, 1, 0);
  assert.equal(r.size, 3);
  assert.deepEqual(
    r.slicesOf(2).map((s) => [s.subscription, s.consumed]),
    [
      [10, false],
      [11, true],
    ],
  );
  assert.deepEqual(r.slicesOf(1), []);
  assert.ok(r.markThrew(2, 10));
  assert.equal(r.slicesOf(2)[0].threw, true);
  assert.equal(r.markThrew(1, 10), false);
  assert.equal(r.byteLength, 3 * 29);
});
