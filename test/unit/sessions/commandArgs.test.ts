// Arguments the commands accept from code and from tree nodes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_PID_WAIT_MS, parseAddressArg, parseAttachArg, parseFileArg } from '../../../extension/src/commands/args';
import { sessionIdOf } from '../../../extension/src/views/nodes';

describe('command arguments', () => {
  it('attach: nothing → pick; { pid } → by pid; a discovered-app node → that app', () => {
    assert.deepEqual(parseAttachArg(undefined), { kind: 'pick' });
    assert.deepEqual(parseAttachArg({ pid: 42 }), { kind: 'pid', pid: 42, waitMs: DEFAULT_PID_WAIT_MS });
    assert.deepEqual(parseAttachArg({ pid: 42, waitMs: 0 }), { kind: 'pid', pid: 42, waitMs: 0 });
    const app = { pid: 1, host: '127.0.0.1', port: 2, token: 't', name: 'n', cwd: '/', protocolVersion: 1, probeVersion: '', startTime: 0, file: '' };
    assert.deepEqual(parseAttachArg({ kind: 'discovered', app }), { kind: 'app', app });
    assert.deepEqual(parseAttachArg({ kind: 'session', sessionId: 's' }), { kind: 'pick' });
    assert.throws(() => parseAttachArg({ pid: 'x' }), /pid must be a positive integer/);
    assert.throws(() => parseAttachArg({ pid: 3, waitMs: -1 }), /waitMs/);
    assert.throws(() => parseAttachArg({ app: { pid: 1 } }), /discovered app/);
    assert.throws(() => parseAttachArg(7), TypeError);
  });

  it('attach to address: host defaults to loopback; bad fields are named', () => {
    assert.equal(parseAddressArg(undefined), undefined);
    assert.deepEqual(parseAddressArg({ port: 5000, token: 'abc' }), { host: '127.0.0.1', port: 5000, token: 'abc' });
    assert.throws(() => parseAddressArg({ port: 0, token: 'a' }), /port/);
    assert.throws(() => parseAddressArg({ port: 5000 }), /token/);
    assert.throws(() => parseAddressArg({ host: '', port: 5000, token: 'a' }), /host/);
  });

  it('files from strings, { file } and file Uris', () => {
    assert.equal(parseFileArg('/t/a.bustrace'), '/t/a.bustrace');
    assert.equal(parseFileArg({ file: '/t/b.json' }), '/t/b.json');
    assert.equal(parseFileArg({ scheme: 'file', fsPath: '/t/c.bustrace' }), '/t/c.bustrace');
    assert.equal(parseFileArg({ scheme: 'untitled', fsPath: 'x' }), undefined);
    assert.equal(parseFileArg(''), undefined);
  });

  it('sessionIdOf reads tree nodes and { sessionId }', () => {
    assert.equal(sessionIdOf({ kind: 'bus', sessionId: 'session-3', bus: 1 }), 'session-3');
    assert.equal(sessionIdOf({ sessionId: 'session-4' }), 'session-4');
    assert.equal(sessionIdOf({ kind: 'discovered' }), undefined);
    assert.equal(sessionIdOf(undefined), undefined);
  });
});
