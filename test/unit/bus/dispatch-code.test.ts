// The fast loop's generated (unrolled) bodies must behave exactly like the plain loop, and where code
// generation is forbidden (a page's Content-Security-Policy; here Node's
// --disallow-code-generation-from-strings) the bus must fall back to the loop with the same results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeGenerationInUse } from '../../../runtime-probe/src/bus/dispatch-code';
import { scenario } from './dispatch-scenario';

test('generated bodies: results, ctx ids, errors and counts for 0 to 14 handlers and every way a handler ends', () => {
  const results = scenario();
  assert.ok(codeGenerationInUse(), 'code generation works in this process');
  // Spot checks that say the scenario covers what it should.
  const at = (n: number, ending: string): Record<string, unknown> =>
    results.find((r) => (r as { n: number; ending: string }).n === n && (r as { ending: string }).ending === ending) as Record<string, unknown>;
  assert.deepEqual(at(10, 'return-true').first, { delivered: 6, consumed: true, consumedBy: 5 });
  assert.deepEqual(at(10, 'consume-then-throw').first, { delivered: 10, consumed: false, consumedBy: undefined });
  assert.deepEqual(at(10, 'consume-then-throw').errors, [5, 5]);
  assert.deepEqual(at(4, 'consume').counts, [2, 2, 2, 0]);
  for (const r of results) assert.ok(!JSON.stringify(r).includes('WRONG'), JSON.stringify(r));
});

test('where code generation is forbidden (CSP), the bus falls back to the loop with the same results', () => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const r = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', path.join(here, 'dispatch-code.child.ts')], {
    cwd: path.resolve(here, '../../..'),
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const child = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { generation: boolean; results: unknown[] };
  assert.equal(child.generation, false, 'the child could not generate code, so it ran the loop');
  assert.deepEqual(child.results, JSON.parse(JSON.stringify(scenario())), 'the loop (child) and the generated bodies (here) agree');
});
