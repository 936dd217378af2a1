// The ring's declared layouts: every kind's fields are distinct offsets inside one slot, and every
// record kind the ring carries has exactly one layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SLOT_LAYOUTS, SLOT_WIDTH } from '../../../runtime-probe/src/recorder/layouts';
import { RecordCode } from '../../../runtime-probe/src/protocol/records';

test('each layout packs its fields into distinct offsets 1 … width-1 of one slot', () => {
  for (const l of SLOT_LAYOUTS) {
    const offsets = Object.values(l.at).sort((a, b) => a - b);
    assert.deepEqual(
      offsets,
      Array.from({ length: l.width - 1 }, (_, i) => i + 1),
      `record code ${l.code}`,
    );
    assert.ok(l.width <= SLOT_WIDTH);
  }
});

test("one layout per ring record kind (definitions, drops, dispatch blocks and columns and worker threads' batches never go through the ring)", () => {
  const codes = SLOT_LAYOUTS.map((l) => l.code).sort((a, b) => a - b);
  const expected = Object.values(RecordCode)
    .filter(
      (c) =>
        c !== RecordCode.String &&
        c !== RecordCode.Site &&
        c !== RecordCode.Drops &&
        c !== RecordCode.DispatchBlock &&
        c !== RecordCode.DispatchColumns &&
        c !== RecordCode.ThreadRecords,
    )
    .sort((a, b) => a - b);
  assert.deepEqual(codes, expected);
});
