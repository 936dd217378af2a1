// The near-miss search under many names: tokenising is linear and bounded, the indexed search finds
// what comparing every pair finds, and one analyzer run does bounded work however many types the
// app has, finishing the rest in later runs (and saying so meanwhile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Analyzer, analyze, type Warning } from '../../../runtime-probe/src/analysis/analyses/index';
import { MAX_CANDIDATES } from '../../../runtime-probe/src/analysis/analyses/nearMissSearch';
import { editDistance, MAX_COMPARED_NAME_LENGTH, nameTokens, nearMiss } from '../../../runtime-probe/src/analysis/analyses/similarity';
import { typeIdParts } from '../../../runtime-probe/src/analysis/analyses/typeGroups';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder } from '../model/streamBuilder';
import { manyTypesModel } from './manyTypes';

/** The tokeniser as it was (quadratic on runs of capitals): the reference for short names. */
function regexTokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((t) => t.length > 0)
    .map((t) => t.toLowerCase());
}

const nameChars = fc.constantFrom(...'aAbBzZ09._-:/ HTTPRequestxX'.split(''));

test('a name of 65,536 capital letters is tokenised on its first 256 characters, in one pass', () => {
  const name = 'A'.repeat(65_536);
  const tokens = nameTokens(name);
  assert.deepEqual(tokens, ['a'.repeat(MAX_COMPARED_NAME_LENGTH)]);
  // Capitals then one lower-case letter: the acronym rule still applies within the bound.
  assert.deepEqual(nameTokens(`${'A'.repeat(10)}b`), ['aaaaaaaaa', 'ab']);
  // And such names are never near misses (bounded work), only exact other-bus matches.
  assert.equal(nearMiss(name, `${name}B`), undefined);
  assert.equal(nearMiss(name.slice(1), name), undefined);
});

test('an event named with 65,536 capitals does not stall the analyses', { timeout: 20_000 }, () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'A'.repeat(65_536) });
  s.dispatch({ type: `${'A'.repeat(65_535)}B` });
  s.dispatch({ type: 'enemy.kiled' });
  s.subscribe({ id: 2, type: 'enemy.killed' });
  s.into(model);
  const warnings = new Analyzer(model).run().warnings;
  assert.deepEqual(
    warnings.filter((w) => w.kind === 'unheard-dispatch').map((w) => w.subjects.types[1]?.type),
    ['enemy.killed'],
  );
});

test('the linear tokeniser splits exactly like the regular expressions did', () => {
  fc.assert(
    fc.property(
      fc.array(nameChars, { maxLength: 24 }).map((cs) => cs.join('')),
      (name) => {
        assert.deepEqual(nameTokens(name), regexTokens(name));
      },
    ),
    { numRuns: 2000 },
  );
});

test('the banded edit distance agrees with the full one up to the limit', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 14 }), fc.string({ maxLength: 14 }), fc.integer({ min: 0, max: 4 }), (a, b, limit) => {
      const full = editDistance(a, b);
      assert.equal(editDistance(a, b, limit), full > limit ? limit + 1 : full);
    }),
    { numRuns: 2000 },
  );
});

/**
 * The near-miss rule on one pair, stated in full: names with different id-like parts (what a name
 * family replaces by `#`: `user.17.updated` → `17`) are never near misses; otherwise the same
 * words, the words reordered, or a small edit distance (`nearMiss`'s signals).
 */
function pairRule(a: string, b: string): { score: number } | undefined {
  if (typeIdParts(a) !== typeIdParts(b)) return undefined;
  return nearMiss(a, b);
}

/** Unheard / never-dispatched near misses by comparing every pair with the rule (the old search). */
function naiveNearMisses(model: Model, kind: 'unheard-dispatch' | 'never-dispatched'): string[] {
  const out: string[] = [];
  for (const w of analyze(model, { kinds: [kind] })) {
    if (w.kind !== kind) continue;
    const t = w.subjects.types[0];
    const accept = kind === 'unheard-dispatch' ? (o: { registeredCount: number }) => o.registeredCount > 0 : (o: { dispatches: number }) => o.dispatches > 0;
    const found: { type: string; score: number; listeners: number }[] = [];
    for (const o of model.allTypes()) {
      if (o.isWildcard || (o.name === t.type && o.bus === t.bus) || !accept(o)) continue;
      if (o.name === t.type) {
        found.push({ type: o.name, score: 1, listeners: o.registeredCount });
        continue;
      }
      const m = pairRule(t.type, o.name);
      if (m !== undefined)
        found.push({ type: o.name, score: Math.round((o.bus === t.bus ? m.score : m.score * 0.9) * 1000) / 1000, listeners: o.registeredCount });
    }
    found.sort((a, b) => b.score - a.score || b.listeners - a.listeners || (a.type < b.type ? -1 : 1));
    out.push(
      `${t.type} → ${found
        .slice(0, 3)
        .map((f) => f.type)
        .join(', ')}`,
    );
  }
  return out.sort();
}

function nearMissSummary(warnings: readonly Warning[], kind: 'unheard-dispatch' | 'never-dispatched'): string[] {
  return warnings
    .filter((w) => w.kind === kind)
    .map((w) => `${w.subjects.types[0].type} → ${(w.evidence as { nearMisses: readonly { type: string }[] }).nearMisses.map((m) => m.type).join(', ')}`)
    .sort();
}

test('names with different id parts are never near misses; with the same ones the usual signals apply', () => {
  // Instances of one family, and an instance beside the id-less name: different things, not typos.
  assert.equal(nearMiss('user.17.updated', 'user.18.updated'), undefined);
  assert.equal(nearMiss('user.7.updated', 'user.updated'), undefined);
  assert.equal(nearMiss('player2Joined', 'player3Joined'), undefined);
  assert.equal(nearMiss('session:k3j9zq:closed', 'session:k3j9zz:closed'), undefined);
  // The same id parts: a typo in the words is found by every signal.
  assert.equal(nearMiss('user.17.updated', 'user.17.updatd')?.reason, 'edit-distance');
  assert.equal(nearMiss('user.17.updated', 'USER_17_UPDATED')?.reason, 'same-words');
  assert.equal(nearMiss('user.17.updated', 'updated.user.17')?.reason, 'reordered-words');
  assert.equal(nearMiss('player2Joined', 'player2Joind')?.reason, 'edit-distance');
  assert.equal(typeIdParts('a.k3j9.b.7'), 'k3j9#7');
  assert.equal(typeIdParts('enemy.killed'), '');
});

test('the indexed search finds the same near misses as comparing every pair', () => {
  // Words, and id-like parts (digits, one-case alphanumerics with a digit) so the id rule is exercised.
  const words = ['enemy', 'enmey', 'killed', 'kiled', 'user', 'usr', 'health', 'changed', 'tick', 'tock', 'ui', 'open', '17', '18', 'k3j9', 'v2'];
  const nameArb = fc
    .tuple(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }), fc.constantFrom('.', '_', '', ':'), fc.boolean())
    .map(([ws, sep, camel]) => (camel ? ws.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('') : ws.join(sep)));
  fc.assert(
    fc.property(fc.array(fc.tuple(nameArb, fc.constantFrom('dispatch', 'subscribe', 'both'), fc.constantFrom(1, 2)), { maxLength: 30 }), (events) => {
      const model = new Model();
      const s = new StreamBuilder().welcome();
      s.busCreated(1, 'one', 0).busCreated(2, 'two', 0);
      let id = 1;
      for (const [name, what, bus] of events) {
        if (what !== 'dispatch') s.subscribe({ id: id++, type: name, bus });
        if (what !== 'subscribe') s.dispatch({ type: name, bus });
      }
      s.into(model);
      model.advanceTime(model.now + 10_000);
      const warnings = new Analyzer(model, { nearMissBudget: Infinity, timeBudgetMs: Infinity }).run().warnings;
      for (const kind of ['unheard-dispatch', 'never-dispatched'] as const) assert.deepEqual(nearMissSummary(warnings, kind), naiveNearMisses(model, kind));
    }),
    { numRuns: 150 },
  );
  // Pools larger than (2K + 1)³ go through the piece index rather than a plain scan.
  fc.assert(
    fc.property(
      fc.array(fc.tuple(nameArb, fc.constantFrom('dispatch', 'subscribe', 'both'), fc.constantFrom(1, 2)), { minLength: 300, maxLength: 400 }),
      (events) => {
        const model = new Model();
        const s = new StreamBuilder().welcome();
        s.busCreated(1, 'one', 0).busCreated(2, 'two', 0);
        let id = 1;
        for (const [name, what, bus] of events) {
          if (what !== 'dispatch') s.subscribe({ id: id++, type: `${name}${id % 7}`, bus });
          if (what !== 'subscribe') s.dispatch({ type: `${name}${id % 5}`, bus });
        }
        s.into(model);
        model.advanceTime(model.now + 10_000);
        const warnings = new Analyzer(model, { nearMissBudget: Infinity, timeBudgetMs: Infinity }).run().warnings;
        for (const kind of ['unheard-dispatch', 'never-dispatched'] as const) assert.deepEqual(nearMissSummary(warnings, kind), naiveNearMisses(model, kind));
      },
    ),
    { numRuns: 8 },
  );
});

test(
  'one run over 10,000 user.<id>.updated types does bounded work, then later runs finish the search and equal the uncapped answer',
  { timeout: 120_000 },
  () => {
    const model = manyTypesModel('user-updates', 10_000);
    const budget = 5_000;
    const analyzer = new Analyzer(model, { nearMissBudget: budget, timeBudgetMs: Infinity });
    const first = analyzer.run();
    assert.equal(first.progress.partial, true);
    assert.ok(first.progress.work <= budget * 1.1, `work ${first.progress.work}`);
    assert.ok(first.progress.typesChecked < first.progress.typesToCheck);
    assert.equal(first.progress.typesToCheck, 10_001);
    let runs = 1;
    let update = first;
    while (update.progress.partial) {
      update = analyzer.run();
      assert.ok(update.progress.work <= budget * 1.1, `work ${update.progress.work}`);
      assert.ok(++runs < 50, 'the search finishes in a few runs');
    }
    assert.deepEqual(update.progress, {
      partial: false,
      typesToCheck: 10_001,
      typesChecked: 10_001,
      work: update.progress.work,
      typesExamined: update.progress.typesExamined,
    });
    assert.equal(analyzer.progress.partial, false);
    const uncapped = analyze(model);
    assert.deepEqual(
      update.warnings.map((w) => [w.id, w.title]),
      uncapped.map((w) => [w.id, w.title]),
    );
    // `enemy.kiled` → `enemy.killed`, found despite the cap; `user.<id>.updated` names an instance,
    // not a typo of the listened-to `user.updated` (their id parts differ), so it is no near miss.
    assert.deepEqual(nearMissSummary(update.warnings, 'unheard-dispatch'), ['enemy.kiled → enemy.killed']);
  },
);

test('one run over 100,000 types (random names, half never dispatched) stays within the budget', { timeout: 300_000 }, () => {
  const model = manyTypesModel('random-names', 100_000);
  const analyzer = new Analyzer(model, { timeBudgetMs: Infinity });
  for (let i = 0; i < 2; i++) {
    const { progress } = analyzer.run();
    assert.equal(progress.partial, true);
    assert.ok(progress.work <= 22_000, `work ${progress.work}`);
    assert.ok(progress.typesToCheck >= 100_000);
  }
});

test('a name that shares its words with thousands of id-less names is compared with at most MAX_CANDIDATES of them, its own pieces first, and its typo is still found', () => {
  // 2,000 listened `user.<4 letters>.updated` (letters only: no id parts, so all in one group) and
  // one dispatched typo of one of them: every piece bucket of "user." and ".updated" holds them all.
  const model = new Model();
  const s = new StreamBuilder().welcome();
  let seed = 7;
  const letter = (): string => String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) >>> 0) % 26));
  const names = new Set<string>();
  while (names.size < 2_000) names.add(`user.${letter()}${letter()}${letter()}${letter()}.updated`);
  let id = 1;
  for (const name of names) s.subscribe({ id: id++, type: name });
  s.subscribe({ id, type: 'user.qxzv.updated' });
  s.dispatch({ type: 'user.qxzv.updatd' });
  s.into(model);
  const update = new Analyzer(model, { kinds: ['unheard-dispatch'], nearMissBudget: Infinity, timeBudgetMs: Infinity }).run();
  assert.deepEqual(nearMissSummary(update.warnings, 'unheard-dispatch'), ['user.qxzv.updatd → user.qxzv.updated']);
  // Tokenising and indexing the pool (1 + 1 + 5 pieces per name), then one search: its look-ups
  // (an eighth each) and at most MAX_CANDIDATES comparisons, not the 2,000 names sharing its words.
  const indexing = 7 * (names.size + 1) + 1;
  const search = update.progress.work - indexing;
  assert.ok(search <= MAX_CANDIDATES + 40 && search <= names.size / 10, `search work ${search}`);
});

test('new thresholds restart the search (a match under the old ones may not hold)', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.subscribe({ id: 1, type: 'enemy.killed' });
  s.dispatch({ type: 'enemy.kild' });
  s.into(model);
  const analyzer = new Analyzer(model, { kinds: ['unheard-dispatch'] });
  assert.equal(analyzer.run().warnings.length, 1);
  analyzer.configure({ thresholds: { unheardDispatch: { nearMissMaxDistance: 1 } } });
  assert.equal(analyzer.run().warnings.length, 0);
  analyzer.configure({ thresholds: { unheardDispatch: { nearMissMaxDistance: 2 } } });
  assert.equal(analyzer.run().warnings.length, 1);
});

test('nearMissBudget must be at least 1', () => {
  assert.throws(() => new Analyzer(new Model(), { nearMissBudget: 0 }), TypeError);
  assert.throws(() => new Analyzer(new Model(), { nearMissBudget: Number.NaN }), TypeError);
});
