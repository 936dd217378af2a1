// The inspector host's parts that need no VS Code: the page's Content Security Policy, the delta
// pacing, the message guard, where a source file is, and the feed's budgets.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentSecurityPolicy, inspectorHtml, makeNonce } from '../../../extension/src/inspector/html';
import { DeltaPump } from '../../../extension/src/inspector/pump';
import { isAbsoluteSourcePath, localSourcePath, resolveSourcePath } from '../../../extension/src/inspector/sourcePath';
import { isWebviewToHost } from '../../../runtime-probe/src/analysis/inspector-messages';
import { FixtureApp } from '../../webview/fixtures/fixtureApp';
import { FixtureSource, loopback, ManualClock } from './loopback';

describe('inspector page', () => {
  test('strict CSP: nothing but nonce’d script, local styles, images and fonts', () => {
    const nonce = makeNonce((n) => new Uint8Array(n).map((_, i) => i * 7));
    assert.match(nonce, /^[A-Za-z0-9]{32}$/);
    const csp = contentSecurityPolicy('vscode-resource:', nonce);
    assert.equal(
      csp,
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src vscode-resource: 'nonce-${nonce}'; img-src vscode-resource: data:; font-src vscode-resource:`,
    );
    const html = inspectorHtml({
      cspSource: 'vscode-resource:',
      scriptUri: 'https://x/dist/webview/main.js',
      styleUri: 'https://x/dist/webview/main.css',
      nonce,
    });
    assert.ok(html.includes(`<script nonce="${nonce}" src="https://x/dist/webview/main.js"></script>`));
    assert.ok(!/unsafe-(inline|eval)/.test(html));
    assert.equal((html.match(/<script/g) ?? []).length, 1, 'one script, no inline code');
    assert.throws(() => inspectorHtml({ cspSource: 'x', scriptUri: 'a', styleUri: 'b', nonce: 'short' }), TypeError);
  });
});

describe('delta pacing', () => {
  test('coalesces bursts into at most one send per interval, only while active', () => {
    const clock = new ManualClock();
    let sends = 0;
    const pump = new DeltaPump(() => sends++, 1000 / 30, clock);
    pump.poke();
    clock.advance(100);
    assert.equal(sends, 0, 'inactive: nothing');
    pump.setActive(true);
    clock.advance(0);
    assert.equal(sends, 1, 'activated with pending changes: sends');
    for (let i = 0; i < 1000; i++) {
      pump.poke();
      clock.advance(1);
    }
    assert.ok(sends >= 29 && sends <= 32, `${sends} sends in ~1 s`);
    pump.setActive(false);
    const before = sends;
    pump.poke();
    clock.advance(1000);
    assert.equal(sends, before);
    pump.dispose();
    pump.setActive(true);
    clock.advance(1000);
    assert.equal(sends, before, 'disposed: nothing');
  });
});

describe('webview message guard', () => {
  test('accepts well-formed requests and rejects anything the host should not act on', () => {
    assert.ok(isWebviewToHost({ type: 'openSource', file: '/a.ts', line: 3, column: 1 }));
    assert.ok(!isWebviewToHost({ type: 'openSource', file: '', line: 3, column: 1 }));
    assert.ok(!isWebviewToHost({ type: 'openSource', file: '/a.ts', line: 0, column: 1 }));
    assert.ok(!isWebviewToHost({ type: 'openSource', file: '/a.ts', line: 1.5, column: 1 }));
    assert.ok(!isWebviewToHost({ type: 'runCommand', command: 'workbench.action.terminal.new' }));
    assert.ok(isWebviewToHost({ type: 'runCommand', command: 'attach' }));
    assert.ok(!isWebviewToHost({ type: 'rangeStats', requestId: 1, from: 5, to: 1 }));
    assert.ok(!isWebviewToHost({ type: 'nope' }));
    assert.ok(!isWebviewToHost(null));
    // A selection is looked up by the host: only known kinds with well-formed fields.
    assert.ok(isWebviewToHost({ type: 'select', target: { kind: 'subscription', id: 7 } }));
    assert.ok(isWebviewToHost({ type: 'select', target: { kind: 'group', key: 'a.ts:1:1', subscriptions: [1, 2] } }));
    assert.ok(isWebviewToHost({ type: 'select', target: null }));
    assert.ok(!isWebviewToHost({ type: 'select', target: { kind: 'evil' } }));
    assert.ok(!isWebviewToHost({ type: 'select', target: { kind: 'subscription', id: '7' } }));
    assert.ok(!isWebviewToHost({ type: 'select', target: { kind: 'dispatch', seq: -1 } }));
    assert.ok(!isWebviewToHost({ type: 'select', target: { kind: 'group', key: 'k', subscriptions: [1, 'x'] } }));
    assert.ok(!isWebviewToHost('ready'));
  });
});

describe('source paths', () => {
  const files = new Set(['/ws/src/app.ts', '/abs/lib.ts']);
  const exists = (p: string): boolean => files.has(p);
  test('absolute paths and file URLs open when the file exists', () => {
    assert.deepEqual(resolveSourcePath('/abs/lib.ts', [], exists), { path: '/abs/lib.ts' });
    assert.deepEqual(resolveSourcePath('file:///abs/lib.ts', [], exists), { path: '/abs/lib.ts' });
    assert.ok('error' in resolveSourcePath('/abs/missing.ts', [], exists));
  });
  test('relative paths are looked up in the workspace folders', () => {
    assert.deepEqual(resolveSourcePath('src/app.ts', ['/other', '/ws'], exists), { path: '/ws/src/app.ts' });
    assert.ok('error' in resolveSourcePath('src/none.ts', ['/ws'], exists));
  });
  test('only local files: other URL schemes are refused', () => {
    assert.ok('error' in resolveSourcePath('https://evil.example/x.ts', ['/ws'], () => true));
    assert.ok('error' in resolveSourcePath('command:workbench.action.quit', ['/ws'], () => true));
  });
  test('network paths from an app are refused before any file-system access', () => {
    const touched: string[] = [];
    const exists = (p: string) => (touched.push(p), true);
    for (const file of ['\\\\attacker\\share\\x.ts', '//attacker/share/x.ts', '\\\\?\\UNC\\attacker\\x.ts']) {
      const r = resolveSourcePath(file, ['/ws'], exists);
      assert.ok('error' in r && /network path/.test(r.error), file);
    }
    assert.deepEqual(touched, [], 'the existence check never saw a network path');
  });
  test('one rule for every opener: the trees (openSite, Problems) refuse what the inspector refuses', () => {
    // views/sites.ts opens through resolveSourcePath and makes Problems URIs through localSourcePath;
    // before, it accepted `//host/share/x.ts` as an absolute path and opened it.
    for (const file of ['\\\\attacker\\share\\x.ts', '//attacker/share/x.ts', 'file://attacker/share/x.ts', 'https://evil.example/x.ts', 'vscode://x', '']) {
      const local = localSourcePath(file);
      assert.ok('error' in local, `refused: ${file}`);
      assert.deepEqual(
        resolveSourcePath(file, ['/ws'], () => true),
        local,
        `the same answer from both: ${file}`,
      );
    }
    assert.deepEqual(localSourcePath('file:///abs/lib.ts'), { path: '/abs/lib.ts' });
    assert.ok(isAbsoluteSourcePath('/abs/lib.ts') && isAbsoluteSourcePath('C:\\app\\x.ts') && !isAbsoluteSourcePath('src/x.ts'));
  });
});

describe('feed budgets', () => {
  test('a delta carries at most the budget of dispatches; the rest is an exact "skipped" marker', () => {
    const app = new FixtureApp({ dispatches: 50, feed: { maxDispatchesPerDelta: 100 } });
    app.snapshot();
    const before = app.model.timeline.written;
    app.run(400, false);
    const d = app.feed.delta(app.analyzer.warnings, true)!;
    const added = app.model.timeline.written - before;
    assert.equal(d.dispatches!.count, 100);
    const skipped = d.markers!.filter((m) => m.kind === 'skipped');
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0].kind === 'skipped' ? skipped[0].count : 0, added - 100);
    // The newest ones are the ones sent.
    const ring = app.model.timeline;
    assert.equal(d.dispatches!.seq.at(-1), ring.seq[ring.physicalIndex(ring.size - 1)]);
  });

  test('nothing changed: no delta', () => {
    const app = new FixtureApp({ dispatches: 20 });
    app.snapshot();
    app.feed.delta(app.analyzer.warnings, true);
    assert.equal(app.feed.delta(app.analyzer.warnings, true), null);
  });
});

describe('host connection', () => {
  test('ignores malformed messages and reports a webview of another version', () => {
    const app = new FixtureApp({ dispatches: 20 });
    const lb = loopback(new FixtureSource(app));
    lb.connection.receive({ type: 'openSource', file: 'x', line: -1, column: 1 });
    lb.connection.receive({ type: 'select' });
    lb.connection.receive(42);
    assert.equal(lb.opened.length, 0);
    assert.equal(lb.fromHost.length, 0, 'nothing before ready');
    assert.throws(() => lb.connection.receive({ type: 'ready', version: 999, state: null }), /message version 999/);
    assert.equal(lb.fromHost.length, 0);
    lb.connection.dispose();
  });

  test('a reveal requested before the page is ready is delivered after its snapshot', () => {
    const app = new FixtureApp({ dispatches: 20 });
    const lb = loopback(new FixtureSource(app));
    lb.connection.reveal({ kind: 'type', index: 0 });
    assert.equal(lb.fromHost.length, 0);
    lb.port.postMessage({ type: 'ready', version: 1, state: null });
    assert.deepEqual(
      lb.fromHost.map((m) => m.type),
      ['snapshot', 'reveal'],
    );
    lb.connection.dispose();
  });

  test('the page restores the session it showed before a reload', () => {
    const a = new FixtureApp({ dispatches: 10, sessionId: 'a', label: 'a (pid 1)' });
    const b = new FixtureApp({ dispatches: 10, sessionId: 'b', label: 'b (pid 2)' });
    const lb = loopback(new FixtureSource(a, b));
    lb.port.postMessage({
      type: 'ready',
      version: 1,
      state: {
        v: 1,
        sessionId: 'b',
        selection: null,
        filterText: '',
        busFilter: '',
        collapsedBuses: [],
        expandedBuses: [],
        follow: true,
        timelineSpanMs: 5000,
        timelineView: null,
        brush: null,
        graphTransform: null,
        focusedWarning: '',
      },
    });
    assert.equal(lb.connection.shownSessionId, 'b');
    const snap = lb.hostOf('snapshot')[0].snapshot;
    assert.equal(snap.session.sessionId, 'b');
    assert.deepEqual(
      snap.session.sessions.map((s) => s.id),
      ['a', 'b'],
    );
    lb.port.postMessage({ type: 'selectSession', sessionId: 'a' });
    assert.equal(lb.hostOf('snapshot').at(-1)!.snapshot.session.sessionId, 'a');
    lb.connection.dispose();
  });
});
