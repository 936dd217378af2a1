// A session whose analyses or views throw keeps updating: the failure is reported once (to the
// output channel in the extension), nothing escapes from the update timer, and later data still
// reaches the views. The trigger is the report's: a snapshot whose subscription type is a number
// (which the protocol boundary now refuses — here it is fed past it, as a stand-in for any
// analyzer bug).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { StreamMessage } from '../../../runtime-probe/src/protocol/index';
import { Session } from '../../../extension/src/sessions/session';
import { waitFor } from '../../support/wait';

const ORIGIN = 1_700_000_000_000;
const escaped: unknown[] = [];
const onEscape = (e: unknown) => escaped.push(e);
before(() => process.on('uncaughtException', onEscape));
after(() => process.off('uncaughtException', onEscape));

const welcome: StreamMessage = {
  type: 'welcome',
  protocolVersion: 1,
  probeVersion: '0.1.0',
  app: { pid: 100, name: 'app', cwd: '/app', startTime: ORIGIN, runtime: 'node' },
  timeOrigin: ORIGIN,
  config: { detail: 'handlers', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 0 },
};

function snapshotWithType(type: unknown): StreamMessage {
  return {
    type: 'snapshot',
    requestId: null,
    snapshot: {
      time: 0,
      timeOrigin: ORIGIN,
      lastSeq: 0,
      recording: true,
      dispatching: [],
      breakOn: [],
      truncated: false,
      buses: [{ id: 1, name: 'ui', createdAt: ORIGIN, subscriptions: 2 }],
      types: [{ bus: 1, type: 'click', listeners: 1, dispatches: 0 }],
      subscriptions: [
        { id: 1, bus: 1, type: 'click', priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: ORIGIN },
        { id: 2, bus: 1, type: type as string, priority: 0, label: null, owner: null, once: false, site: null, calls: 0, createdAt: ORIGIN },
      ],
    },
  };
}

test('an analysis that throws is reported once; the session keeps updating from its timer', async () => {
  const reports: string[] = [];
  const session = new Session({
    id: 's',
    source: { kind: 'address', host: '127.0.0.1', port: 1, token: 't' },
    updateIntervalMs: 5,
    onError: (message) => reports.push(message),
  });
  let updates = 0;
  session.onDidUpdate(() => updates++);
  try {
    session.ingest(welcome);
    session.ingest(snapshotWithType(42));
    for (let round = 1; round <= 3; round++) {
      session.ingest({
        type: 'records',
        // Dispatched with no listener: the near-miss search compares it with every subscribed type.
        records: [
          { kind: 'dispatch', seq: round, bus: 1, type: 'clack', start: round, duration: 0.1, delivered: 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null },
        ],
      });
      const seen = updates;
      await waitFor(() => updates > seen, 10_000, `update ${round} to reach the views`);
    }
    assert.deepEqual(escaped, [], 'nothing escaped from the update timer');
    assert.equal(reports.length, 1, 'reported once, not on every run');
    assert.match(reports[0], /analysing app \(pid 100\) failed/);
    assert.equal(session.model.allTypes().length > 0, true);
  } finally {
    session.dispose();
  }
});

test('a view that throws is reported once and the other views still update', async () => {
  const reports: string[] = [];
  const session = new Session({ id: 'v', source: { kind: 'trace', file: '/t/x.bustrace' }, updateIntervalMs: 5, onError: (m) => reports.push(m) });
  let good = 0;
  session.onDidUpdate(() => {
    throw new Error('view bug');
  });
  session.onDidUpdate(() => good++);
  try {
    session.ingest(welcome);
    session.update();
    session.update();
    assert.ok(good >= 2, `${good} updates`);
    assert.equal(reports.length, 1);
    assert.match(reports[0], /a view failed to update/);
    assert.deepEqual(escaped, []);
  } finally {
    session.dispose();
  }
});
