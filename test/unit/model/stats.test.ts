import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DurationHistogram, WindowedCounter } from '../../../runtime-probe/src/analysis/model/stats';

test('histogram: count, total, max and mean are exact', () => {
  const h = new DurationHistogram();
  for (const d of [0.5, 1, 2, 40]) h.add(d);
  assert.equal(h.count, 4);
  assert.equal(h.total, 43.5);
  assert.equal(h.max, 40);
  assert.equal(h.min, 0.5);
  assert.equal(h.mean, 43.5 / 4);
});

test('histogram: quantiles are within 15% of the exact nearest-rank value', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.001, max: 5000, noNaN: true }), { minLength: 1, maxLength: 300 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (values, q) => {
        const h = new DurationHistogram();
        for (const v of values) h.add(v);
        const sorted = [...values].sort((a, b) => a - b);
        const exact = sorted[Math.max(1, Math.ceil(q * values.length)) - 1];
        const got = h.quantile(q);
        // Microsecond rounding plus the bucket width (a quarter of a power of two).
        assert.ok(Math.abs(got - exact) <= exact * 0.15 + 0.002, `q=${q} exact=${exact} got=${got}`);
      },
    ),
  );
});

test('histogram: p95 sees a slow tail; empty histogram answers 0; bad q throws', () => {
  const h = new DurationHistogram();
  assert.equal(h.quantile(0.95), 0);
  for (let i = 0; i < 90; i++) h.add(1);
  for (let i = 0; i < 10; i++) h.add(50);
  assert.ok(h.quantile(0.5) <= 1.2);
  assert.ok(h.quantile(0.95) >= 40 && h.quantile(0.95) <= 50);
  assert.throws(() => h.quantile(1.5), TypeError);
  h.clear();
  assert.equal(h.count, 0);
  assert.equal(h.quantile(0.5), 0);
});

test('histogram: countAtLeast counts the tail (upper estimate by one bucket)', () => {
  const h = new DurationHistogram();
  for (let i = 0; i < 10; i++) h.add(0.01);
  for (let i = 0; i < 3; i++) h.add(2.6);
  assert.equal(h.countAtLeast(2.5), 3);
  assert.equal(h.countAtLeast(0.005), 13);
  assert.equal(h.countAtLeast(3), 0);
  assert.equal(h.countAtLeast(1), 3);
});

test('windowed counter: sums the window and forgets older buckets', () => {
  const c = new WindowedCounter(1000, 5); // 5 s window
  c.add(0);
  c.add(500, 2);
  c.add(4999);
  assert.equal(c.sum(4999), 4);
  assert.equal(c.sum(5000), 1); // bucket 0 (t 0..999) has left the window
  c.add(100); // older than the window now: ignored
  assert.equal(c.sum(5000), 1);
  assert.equal(c.sum(20_000), 0); // far jump clears everything
});

test('windowed counter: rate per second uses the observed time before a full window', () => {
  const c = new WindowedCounter(100, 10); // 1 s window
  for (let t = 0; t < 500; t += 10) c.add(t); // 100/s for 0.5 s
  assert.ok(Math.abs(c.ratePerSecond(499) - 100) < 5, String(c.ratePerSecond(499)));
  for (let t = 500; t < 3000; t += 10) c.add(t);
  assert.ok(Math.abs(c.ratePerSecond(2999) - 100) < 5);
  assert.equal(c.ratePerSecond(10_000), 0);
});

test('windowed counter: signed amounts give net growth', () => {
  const c = new WindowedCounter(1000, 10);
  c.add(0, 1);
  c.add(10, 1);
  c.add(20, -1);
  assert.equal(c.sum(100), 1);
});

test('windowed counter: bad arguments throw TypeError', () => {
  assert.throws(() => new WindowedCounter(0, 5), TypeError);
  assert.throws(() => new WindowedCounter(100, 0), TypeError);
  assert.throws(() => new WindowedCounter(100, 1.5), TypeError);
});
