// NestedTime answers like the Map it wraps (the model's handler self time depends on it), whatever
// the mix of adds, deletes, lookups and clears — also for seqs that share their low bits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { NestedTime } from '../../../runtime-probe/src/analysis/model/nestedTime';

test('NestedTime behaves as a Map of seq → nested ms under any sequence of operations', () => {
  // Seqs from a small set spread over many multiples of 1024 (they collide in the low-bit counts).
  const seqArb = fc.integer({ min: 0, max: 40 }).map((k) => 1 + (k % 5) + 1024 * Math.floor(k / 5) + (k > 35 ? 2 ** 33 : 0));
  const opArb = fc.oneof(
    fc.record({ op: fc.constant('add' as const), seq: seqArb, ms: fc.double({ min: 0, max: 10, noNaN: true }) }),
    fc.record({ op: fc.constant('delete' as const), seq: seqArb }),
    fc.record({ op: fc.constant('get' as const), seq: seqArb }),
    fc.record({ op: fc.constant('clear' as const) }),
  );
  fc.assert(
    fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
      const nested = new NestedTime();
      const reference = new Map<number, number>();
      for (const o of ops) {
        switch (o.op) {
          case 'add':
            nested.add(o.seq, o.ms);
            reference.set(o.seq, (reference.get(o.seq) ?? 0) + o.ms);
            break;
          case 'delete':
            nested.delete(o.seq);
            reference.delete(o.seq);
            break;
          case 'get':
            assert.equal(nested.get(o.seq), reference.get(o.seq));
            break;
          case 'clear':
            nested.clear();
            reference.clear();
            break;
        }
        assert.equal(nested.size, reference.size);
      }
      for (const [seq, ms] of reference) assert.equal(nested.get(seq), ms);
    }),
    { numRuns: 500 },
  );
});
