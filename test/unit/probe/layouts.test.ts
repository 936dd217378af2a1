// The ring's declared layouts: every kind's fields are distinct offsets inside one slot, and every
// record kind the ring carries has exactly one layout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Code, Slot, slotLayouts, SLOT_WIDTH } from '../../../runtime-probe/src/recorder/layouts';
import { RecordCode } from '../../../runtime-probe/src/protocol/records';

test('each layout packs its fields into distinct offsets 1 … n of one slot, and SLOT_WIDTH fits the widest', () => {
  let widest = 0;
  for (const l of slotLayouts()) {
    // The enum object maps names to offsets (and offsets back to names): the names' offsets.
    const offsets = Object.entries(l.fields)
      .filter(([name]) => !/^\d+$/.test(name))
      .map(([, offset]) => offset as number)
      .sort((a, b) => a - b);
    assert.deepEqual(
      offsets,
      Array.from({ length: offsets.length }, (_, i) => i + 1),
      `record code ${l.code}`,
    );
    widest = Math.max(widest, offsets.length + 1);
  }
  assert.equal(SLOT_WIDTH, widest, 'SLOT_WIDTH is the widest slot (the code and its fields)');
  assert.equal(Slot.width, SLOT_WIDTH, 'the hot path writes slots as wide as the drain reads them');
  for (const [name, code] of Object.entries(Code)) {
    if (typeof code === 'number') assert.equal(code, RecordCode[name as keyof typeof RecordCode], `Code.${name}: the recorder writes the code the drain reads`);
  }
});

test("one layout per ring record kind (definitions, drops, dispatch blocks and columns and worker threads' batches never go through the ring)", () => {
  const codes = slotLayouts()
    .map((l) => l.code)
    .sort((a, b) => a - b);
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
