// The layering check (scripts/check-layers.mjs, an early step of `npm test`): the repo passes it, and a
// copy of the repo's runtime-probe/src and webview/src with one bad import or one DOM global fails it,
// with the file, the position and the rule named.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const script = path.join(root, 'scripts/check-layers.mjs');

interface CheckRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function check(dir: string): CheckRun {
  const r = spawnSync(process.execPath, [script, '--root', dir], { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let tmp = '';
before(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'busscope-layers-'));
});
after(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('the repository follows its layering rules', () => {
  const r = check(root);
  assert.equal(r.status, 0, `check-layers failed on the repo:\n${r.stderr}`);
  assert.match(r.stdout, /layering: ok/);
});

// One copy of the checked folders with one deliberate violation per rule, each in a different file
// (one run: the check type-checks the core, which is the slow part).
const BAD_LINES: readonly { readonly file: string; readonly line: string; readonly expected: RegExp }[] = [
  {
    file: 'runtime-probe/src/analysis/model/model.ts',
    line: "import { plural } from '../../../../extension/src/views/format';",
    expected:
      /^runtime-probe\/src\/analysis\/model\/model\.ts:\d+:\d+: \[probe-imports-no-app\] imports '\.\.\/\.\.\/\.\.\/\.\.\/extension\/src\/views\/format' from extension\//m,
  },
  {
    // Type-only counts: the webview may not even borrow a type from the extension.
    file: 'webview/src/store/timelineStore.ts',
    line: "import type { BusscopeNode } from '../../../extension/src/views/nodes';",
    expected:
      /^webview\/src\/store\/timelineStore\.ts:\d+:\d+: \[webview-imports-no-extension\] imports '\.\.\/\.\.\/\.\.\/extension\/src\/views\/nodes' from extension\//m,
  },
  {
    file: 'runtime-probe/src/analysis/analyses/starved.ts',
    line: "import * as vscode from 'vscode';",
    expected: /^runtime-probe\/src\/analysis\/analyses\/starved\.ts:\d+:\d+: \[no-vscode\] imports 'vscode'/m,
  },
  {
    file: 'runtime-probe/src/analysis/analyses/churn.ts',
    line: "import { readFileSync } from 'node:fs';",
    expected: /^runtime-probe\/src\/analysis\/analyses\/churn\.ts:\d+:\d+: \[analysis-no-node-builtins\] imports Node's 'node:fs'/m,
  },
  {
    file: 'runtime-probe/src/bus/event-bus.ts',
    line: "import { trace } from '@opentelemetry/api';",
    expected: /^runtime-probe\/src\/bus\/event-bus\.ts:\d+:\d+: \[otel-only-in-otel\] imports '@opentelemetry\/api'/m,
  },
  {
    file: 'runtime-probe/src/analysis/model/stats.ts',
    line: 'export const pageTitle = (): string => document.title;',
    expected: /^runtime-probe\/src\/analysis\/model\/stats\.ts:\d+:\d+: \[analysis-no-dom\] Cannot find name 'document'/m,
  },
  {
    // Not imported by the browser entry itself: reached through the recorder core, which pages use.
    file: 'runtime-probe/src/recorder/window-clock.ts',
    line: "import { hrtime } from 'node:process';",
    expected:
      /^runtime-probe\/src\/recorder\/window-clock\.ts:\d+:\d+: \[browser-no-node-builtins\] imports Node's 'node:process' \(reached from the browser entry through .*recorder-core\.ts/m,
  },
];

test('a deliberately bad import (or DOM global) fails the check, naming the file, position and rule', () => {
  const dir = path.join(tmp, 'bad');
  for (const part of ['runtime-probe/src', 'webview/src']) cpSync(path.join(root, part), path.join(dir, part), { recursive: true });
  for (const bad of BAD_LINES) appendFileSync(path.join(dir, bad.file), `\n${bad.line}\n`);
  const r = check(dir);
  assert.equal(r.status, 1, `exit 1 on violations\n${r.stderr}`);
  for (const bad of BAD_LINES) assert.match(r.stderr, bad.expected);
  // The check type-checks the core too: an unused `vscode` import without its types is a second
  // finding (analysis-no-dom: cannot find module), so count at least one line per rule.
  const lines = r.stderr.split('\n').filter((l) => /^\S+:\d+:\d+: \[/.test(l));
  assert.ok(lines.length >= BAD_LINES.length, lines.join('\n'));
  assert.match(r.stderr, /^layering: \d+ violations$/m);
});
