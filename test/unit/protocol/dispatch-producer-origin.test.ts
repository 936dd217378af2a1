// A dispatch of an event posted from another thread carries the producer's thread id and enqueue
// time as optional dispatch extension fields (keys 1 and 4, PROTOCOL.md): through the protocol's own
// encoder and decoder they reach the Model's dispatch ring, and the inspector feed hands them to the
// webview as the `fromThread` / `enqueuedAt` columns it draws cross-thread flows from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { SessionView } from '../../../runtime-probe/src/analysis/inspector-messages';
import type { DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { InspectorFeed } from '../../../extension/src/inspector/feed';
import { StreamBuilder } from '../model/streamBuilder';

const SESSION: SessionView = { phase: 'attached', sessionId: 'flow', label: 'flow', detail: '', droppedRecords: 0, offline: false, sessions: [] };

function dispatch(seq: number, start: number, extra: Partial<DispatchRecord> = {}): DispatchRecord {
  return {
    kind: 'dispatch',
    seq,
    bus: 1,
    type: 'job.done',
    start,
    startBound: 0,
    duration: 0.5,
    delivered: 1,
    consumedBy: 0,
    depth: 0,
    parentSeq: 0,
    site: null,
    ...extra,
  };
}

test('dispatch extension keys 1 and 4: the producer thread and enqueue time reach the model and the feed; local dispatches carry neither', () => {
  const b = new StreamBuilder().welcome().busCreated(1, 'jobs');
  b.record(dispatch(1, 10));
  b.record(dispatch(2, 20, { threadId: 3, enqueuedAt: 18.25 }));
  b.record(dispatch(3, 30, { threadId: 4, enqueuedAt: 29.5, traceId: 'abc' }));
  const messages = b.take();
  const decoded = messages.flatMap((m) => (m.type === 'records' ? m.records : [])).filter((r): r is DispatchRecord => r.kind === 'dispatch');
  assert.deepEqual(
    decoded.map((r) => [r.seq, r.threadId, r.enqueuedAt, r.traceId]),
    [
      [1, undefined, undefined, undefined],
      [2, 3, 18.25, undefined],
      [3, 4, 29.5, 'abc'],
    ],
  );
  const model = new Model();
  for (const m of messages) model.apply(m);
  const d = new InspectorFeed(model, {}, () => 0).snapshot(SESSION, []).dispatches;
  assert.deepEqual(d.seq, [1, 2, 3]);
  assert.deepEqual(d.fromThread, [-1, 3, 4]);
  assert.deepEqual(d.enqueuedAt, [0, 18.25, 29.5]);
});

test('a batch without cross-thread dispatches has no cross-thread columns', () => {
  const b = new StreamBuilder().welcome().busCreated(1, 'jobs');
  b.record(dispatch(1, 10));
  const model = new Model();
  for (const m of b.take()) model.apply(m);
  const d = new InspectorFeed(model, {}, () => 0).snapshot(SESSION, []).dispatches;
  assert.equal(d.fromThread, undefined);
  assert.equal(d.enqueuedAt, undefined);
});
