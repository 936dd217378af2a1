// While the analyses' near-miss search is still catching up (its per-run budget ran out), the
// inspector's warnings list says the results are partial, and stops saying it once they are
// complete: a real Session (its Analyzer with a small budget, re-running on its own throttle), the
// real InspectorConnection and the real renderer in jsdom.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Session } from '../../../extension/src/sessions/session';
import { inspectorSessionInfo } from '../../../extension/src/sessions/inspectorSource';
import type { InspectorSource } from '../../../extension/src/inspector/source';
import { createInspector } from '../../../webview/src/inspector';
import { manyTypesMessages } from '../analyses/manyTypes';
import { createDom } from './dom';
import { loopback } from './loopback';

test('the warnings list says "analysis partial: N of M types" until the search completes', { timeout: 120_000 }, async () => {
  const session = new Session({
    id: 'many',
    source: { kind: 'trace', file: '/tmp/many.trace' },
    analyzer: { nearMissBudget: 1_000, timeBudgetMs: Infinity },
    updateIntervalMs: 0,
  });
  for (const m of manyTypesMessages('user-updates', 3_000)) session.ingest(m);
  session.update();
  const first = session.analyzer.progress;
  assert.equal(first.partial, true, 'the first run is capped');
  const source: InspectorSource = {
    sessions: () => [inspectorSessionInfo(session)],
    onDidChangeSessions: () => ({ dispose() {} }),
    onDidUpdateSession: (listener) => session.onDidUpdate(() => listener(session.id)),
  };
  const dom = createDom();
  const lb = loopback(source);
  const ins = createInspector(dom.root, lb.port);
  try {
    ins.flush();
    const note = dom.document.querySelector<HTMLElement>('[data-testid=analysis-partial]');
    assert.ok(note);
    assert.equal(note.hidden, false);
    assert.match(note.textContent ?? '', /^Analysis partial: [\d,]+ of 3,001 types checked for similar names so far/);
    // The session runs its analyses again by itself (a trace: no new data, no ticker) until complete.
    const deadline = Date.now() + 60_000;
    while (session.analyzer.progress.partial && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(session.analyzer.progress.partial, false, 'the search completed over later runs');
    lb.clock.advance(1_000);
    ins.flush();
    assert.equal(note.hidden, true);
    assert.equal(note.textContent, '');
    // …and the complete result has the near misses the capped first run had not reached.
    assert.ok(session.warnings.some((w) => w.kind === 'unheard-dispatch' && w.subjects.types[0].type === 'enemy.kiled'));
  } finally {
    ins.dispose();
    lb.connection.dispose();
    dom.close();
    session.dispose();
  }
});
