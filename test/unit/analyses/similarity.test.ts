import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { editDistance, nameTokens, nearMiss, nearMisses } from '../../../runtime-probe/src/analysis/analyses/similarity';

test('tokens split separators and camelCase', () => {
  assert.deepEqual(nameTokens('enemy.killed'), ['enemy', 'killed']);
  assert.deepEqual(nameTokens('enemyKilled'), ['enemy', 'killed']);
  assert.deepEqual(nameTokens('HTTPRequest:done'), ['http', 'request', 'done']);
  assert.deepEqual(nameTokens('ui/health_changed'), ['ui', 'health', 'changed']);
});

test('edit distance: known values, transposition is one edit, limit exits early', () => {
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('enemy.killed', 'enemy.kiled'), 1);
  assert.equal(editDistance('enmey', 'enemy'), 1);
  assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
});

test('edit distance is a symmetric measure bounded by the longer length', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
      const d = editDistance(a, b);
      assert.equal(d, editDistance(b, a));
      assert.ok(d <= Math.max(a.length, b.length));
      assert.equal(d === 0, a === b);
    }),
  );
});

test('near misses: typos, case and separator variants, reordered words', () => {
  assert.equal(nearMiss('enemy.killed', 'enemy.kiled')?.reason, 'edit-distance');
  assert.equal(nearMiss('enemy.killed', 'enemyKilled')?.reason, 'same-words');
  assert.equal(nearMiss('enemy.killed', 'Enemy.Killed')?.reason, 'same-words');
  assert.equal(nearMiss('enemy.killed', 'killed.enemy')?.reason, 'reordered-words');
  assert.equal(nearMiss('health.changed', 'helth.changed')?.reason, 'edit-distance');
});

test('not near misses: identical names, unrelated names, short names far apart', () => {
  assert.equal(nearMiss('tick', 'tick'), undefined);
  assert.equal(nearMiss('item.picked', 'health.changed'), undefined);
  assert.equal(nearMiss('a.b', 'c.d'), undefined);
  assert.equal(nearMiss('enemy.killed', 'enemy.spawned'), undefined);
  assert.equal(nearMiss('ui.open', 'ui.close'), undefined);
});

test('nearMisses ranks the closest first', () => {
  const got = nearMisses('enemy.killed', ['enemy.kiled', 'enemyKilled', 'tick', 'enemy.kild']).map((m) => m.name);
  assert.deepEqual(got, ['enemyKilled', 'enemy.kiled', 'enemy.kild']);
});
