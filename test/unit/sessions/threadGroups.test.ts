// The Apps and Subscriptions trees group an app's buses by thread (#16), the part without `vscode`:
// over a real Model fed a main thread's records and two workers' `thread` messages, the threads come
// main first with the buses each created, their lists (classes, libraries, pages) are each thread's
// own with ids of their own, and an app with one thread is not grouped at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import { groupBuses, LibraryClassifier } from '../../../runtime-probe/src/analysis/busGroups';
import type { ThreadMessage } from '../../../runtime-probe/src/protocol/index';
import { busListKey, busListNodes, busListOf, threadOfNode, type BusList } from '../../../extension/src/views/busTree';
import { nodeId, type BusscopeNode } from '../../../extension/src/views/nodes';
import { appsThreadChildren, threadDescription, threadGroups } from '../../../extension/src/views/threadGroups';

const ORIGIN = 1_700_000_000_000;

function worker(thread: number, name: string, buses: readonly [number, string][], exitedAt: number | null = null): ThreadMessage {
  return {
    type: 'thread',
    thread,
    name,
    startedAt: 1,
    exitedAt,
    snapshot: {
      time: 2,
      timeOrigin: ORIGIN,
      lastSeq: 0,
      recording: true,
      buses: buses.map(([id, n]) => ({ id, name: n, createdAt: ORIGIN + 1, subscriptions: 0 })),
      types: [],
      subscriptions: [],
      dispatching: [],
      breakOn: [],
      truncated: false,
    },
  };
}

function mainThreadModel(): Model {
  const m = new Model();
  m.applyRecords([
    { kind: 'bus-created', time: 0, bus: 1, name: 'orders' },
    { kind: 'bus-created', time: 0, bus: 2, name: 'Room#1' },
    { kind: 'bus-created', time: 0, bus: 3, name: 'Room#2' },
  ]);
  return m;
}

function threadedModel(): Model {
  const m = mainThreadModel();
  m.apply(
    worker(1, 'hasher', [
      [10, 'work-hasher'],
      [11, 'Room#1'],
      [12, 'Room#2'],
      [13, 'Room#3'],
    ]),
  );
  m.apply(worker(2, 'resizer', [[20, 'work-resizer']]));
  return m;
}

test('an app with one thread is not grouped: its trees look as before threads', () => {
  const m = mainThreadModel();
  assert.equal(threadGroups(m), null);
  const g = groupBuses(m.buses.values(), new LibraryClassifier());
  const root = busListNodes('s', g, { kind: 'root' });
  assert.deepEqual(root.map(nodeId), ['s:s/c:A:Room', 's:s/b:1'], 'ids as before threads');
  assert.equal(busListKey({ kind: 'class', className: 'Room', library: false }), 'A:Room');
  assert.ok(root.every((n) => threadOfNode(n) === undefined));
});

test('threads come main first, then workers by id, each with the buses it created, labelled "worker <id> · <name>"', () => {
  const m = threadedModel();
  m.apply({ ...worker(2, 'resizer', []), snapshot: null, exitedAt: 9 });
  const groups = threadGroups(m);
  assert.ok(groups !== null);
  assert.deepEqual(
    groups.map((g) => [g.id, g.label, g.buses.map((b) => b.name), g.exited]),
    [
      [0, 'main', ['Room#1', 'Room#2', 'orders'], false],
      [1, 'worker 1 · hasher', ['Room#1', 'Room#2', 'Room#3', 'work-hasher'], false],
      [2, 'worker 2 · resizer', ['work-resizer'], true],
    ],
  );
  assert.deepEqual(groups.map(threadDescription), ['3 buses', '4 buses', '1 bus · exited']);
});

test("a thread's list is its own: classes of the same name in two threads are two nodes, and every id and key says its thread", () => {
  const m = threadedModel();
  const groups = threadGroups(m)!;
  const classifier = new LibraryClassifier();
  const lists = groups.map((t) => ({ t, g: groupBuses(t.buses, classifier), root: { kind: 'root', thread: t.id } as BusList }));
  const [main, hasher] = lists.map(({ g, root }) => busListNodes('s', g, root));
  assert.deepEqual(main.map(nodeId), ['s:s/th:0/c:A:Room', 's:s/b:1']);
  assert.deepEqual(hasher.map(nodeId), ['s:s/th:1/c:A:Room', 's:s/b:10']);
  const hasherRooms = hasher[0];
  assert.equal(hasherRooms.kind, 'bus-class');
  assert.equal(threadOfNode(hasherRooms), 1);
  // The class node opens that thread's instances only, a page at a time, and the "more" node finds its way back.
  const list: BusList = { kind: 'class', className: 'Room', library: false, thread: 1 };
  const page = busListNodes('s', lists[1].g, list, 0, 2);
  assert.deepEqual(
    page.map((n) => (n.kind === 'bus' ? n.bus : n.kind)),
    [11, 12, 'more-buses'],
  );
  const more = page[2] as Extract<BusscopeNode, { kind: 'more-buses' }>;
  assert.equal(more.parent, 'T1/A:Room');
  assert.deepEqual(busListOf(more.parent), list);
  assert.equal(threadOfNode(more), 1);
  assert.deepEqual(
    busListNodes('s', lists[1].g, busListOf(more.parent)!, more.offset, 2).map((n) => (n.kind === 'bus' ? n.bus : n.kind)),
    [13],
  );
  for (const l of [{ kind: 'root' }, { kind: 'libraries', thread: 0 }, { kind: 'class', className: 'A:b', library: true, thread: 12 }] as BusList[])
    assert.deepEqual(busListOf(busListKey(l)), l);
});

test("the Apps tree lists a thread's buses, a page at most, then how many more", () => {
  const groups = threadGroups(threadedModel())!;
  assert.deepEqual(
    appsThreadChildren('s', groups[1]).map((n) => (n.kind === 'bus' ? n.bus : n.kind)),
    [11, 12, 13, 10],
  );
  const paged = appsThreadChildren('s', groups[1], 3);
  assert.deepEqual(
    paged.map((n) => (n.kind === 'bus' ? n.bus : n.kind === 'message' ? n.label : n.kind)),
    [11, 12, 13, '1 more bus (see Subscriptions)'],
  );
  assert.equal(new Set(appsThreadChildren('s', groups[0], 1).map(nodeId)).size, 2);
});
