// A `bus-disposed` for a bus the stream never defined (a process-wide emitter whose instance was
// collected between the snapshot and its finalizer, which reports it gone) must not make a nameless
// "bus N" with no types in every view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Model } from '../../../runtime-probe/src/analysis/model/model';

test('a bus-disposed record of a bus never defined leaves no nameless bus behind; a known bus is marked disposed', () => {
  const m = new Model();
  m.applyRecords([
    { kind: 'bus-created', time: 1, bus: 1, name: 'Socket#1', busKind: 'node-emitter', className: 'Socket' },
    { kind: 'bus-disposed', time: 2, bus: 10 },
    { kind: 'bus-disposed', time: 3, bus: 1 },
  ]);
  assert.deepEqual(
    [...m.buses.values()].map((b) => [b.name, b.disposedAt]),
    [['Socket#1', 3]],
  );
});
