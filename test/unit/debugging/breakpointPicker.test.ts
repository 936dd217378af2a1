// The event-breakpoint picker's rows over a real Model fed the records an instrumented server sends:
// 2,000 sockets and 1,200 requests (listeners from Node's internals) next to the app's own hub. Each
// row's description stays short however many buses know the type (it named every bus: 2,001 names
// for `close`), groups buses by class, names the app's emitter first, and types only library
// emitters know come after the app's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { breakpointPickEntries, PICK_GROUPS_SHOWN, PICK_NAME_CHARS } from '../../../extension/src/debugging/breakpointPicker';
import { Model } from '../../../runtime-probe/src/analysis/model/model';
import type { BusRecord, SiteInfo } from '../../../runtime-probe/src/protocol/index';

const NODE_SITE: SiteInfo = { file: 'node:_http_server', line: 10, column: 3, functionName: 'connectionListener' };
const LIB_SITE: SiteInfo = { file: '/srv/app/node_modules/ws/lib/websocket.js', line: 80, column: 5, functionName: 'setSocket' };
const APP_SITE: SiteInfo = { file: '/srv/app/server.js', line: 12, column: 9, functionName: 'countVisit' };

interface BusSpec {
  readonly name: string;
  /** type → listener sites */
  readonly types: Readonly<Record<string, readonly (SiteInfo | null)[]>>;
}

function model(buses: readonly BusSpec[]): Model {
  const m = new Model();
  const records: BusRecord[] = [];
  let sub = 0;
  let seq = 0;
  buses.forEach((b, i) => {
    const bus = i + 1;
    records.push({ kind: 'bus-created', time: 0, bus, name: b.name });
    for (const [type, sites] of Object.entries(b.types)) {
      for (const site of sites)
        records.push({ kind: 'subscribe', time: 1, subscriptionId: ++sub, bus, type, priority: 0, label: null, owner: null, once: false, site });
      // A type nobody listens to is known from its dispatches.
      if (sites.length === 0)
        records.push({ kind: 'dispatch', seq: ++seq, bus, type, start: 2, duration: 0.001, delivered: 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
    }
  });
  m.applyRecords(records);
  return m;
}

function busyServer(sockets: number, requests: number): BusSpec[] {
  const buses: BusSpec[] = [{ name: 'TicketHub#1', types: { visit: [APP_SITE], close: [APP_SITE] } }];
  for (let i = 1; i <= sockets; i++) buses.push({ name: `Socket#${i}`, types: { data: [NODE_SITE], close: [NODE_SITE], end: [NODE_SITE] } });
  for (let i = 1; i <= requests; i++) buses.push({ name: `IncomingMessage#${i}`, types: { close: [NODE_SITE], end: [LIB_SITE] } });
  return buses;
}

describe('event-breakpoint picker rows', () => {
  test("with 3,200 buses a row names a few groups by class, the app's first, and stays short", () => {
    const entries = breakpointPickEntries([{ model: model(busyServer(2000, 1200)) }]);
    const byType = new Map(entries.map((e) => [e.type, e]));
    const close = byType.get('close');
    assert.ok(close);
    assert.equal(close.buses, 3201);
    assert.equal(close.library, false, 'the app listens to close on its hub');
    assert.equal(close.description, 'TicketHub#1 · Socket ×2,000 · IncomingMessage ×1,200');
    assert.equal(byType.get('visit')?.description, 'TicketHub#1');
    assert.equal(byType.get('data')?.description, 'Socket ×2,000');
    // Bounded however many buses: at most PICK_GROUPS_SHOWN names of at most PICK_NAME_CHARS, and a count.
    const bound = PICK_GROUPS_SHOWN * (PICK_NAME_CHARS + 12) + 20;
    for (const e of entries) assert.ok(e.description.length <= bound, `${e.type}: ${e.description.length} characters`);
  });

  test("types only library emitters know come after the app's, each side by name", () => {
    const entries = breakpointPickEntries([{ model: model(busyServer(50, 20)) }]);
    assert.deepEqual(
      entries.map((e) => [e.type, e.library]),
      [
        ['close', false],
        ['visit', false],
        ['data', true],
        ['end', true],
      ],
    );
  });

  test('many singly named buses: the description counts the rest; long names are cut', () => {
    const long = `lobby-${'x'.repeat(200)}`;
    const buses: BusSpec[] = [{ name: long, types: { tick: [APP_SITE] } }];
    for (let i = 0; i < 1500; i++) buses.push({ name: `room-${i}`, types: { tick: [APP_SITE] } });
    const [tick] = breakpointPickEntries([{ model: model(buses) }]);
    assert.equal(tick.buses, 1501);
    const parts = tick.description.split(' · ');
    assert.equal(parts.length, PICK_GROUPS_SHOWN + 1);
    assert.equal(parts.at(-1), `+${(1501 - PICK_GROUPS_SHOWN).toLocaleString('en-US')} more`);
    assert.ok(tick.description.length < 200, tick.description);
    assert.ok(
      parts.some((p) => p.endsWith('…') && p.length === PICK_NAME_CHARS),
      `a cut name: ${tick.description}`,
    );
  });

  test("several sources merge; listeners without a site count as the app's; a bus nobody listens to is not; stored and paused types are listed", () => {
    const a = model([
      { name: 'Socket#1', types: { close: [NODE_SITE] } },
      { name: 'ui', types: { 'menu.open': [null] } },
    ]);
    const b = model([
      { name: 'Socket#7', types: { close: [NODE_SITE] } },
      { name: 'Emitter#1', types: { quiet: [] } },
    ]);
    const entries = breakpointPickEntries([{ model: a, pausedTypes: ['combat.hit', '*'] }, { model: b }], ['saved.type']);
    const byType = new Map(entries.map((e) => [e.type, e]));
    assert.equal(byType.get('close')?.description, 'Socket ×2');
    assert.equal(byType.get('close')?.library, true);
    assert.equal(byType.get('menu.open')?.library, false);
    assert.equal(byType.get('quiet')?.library, true);
    assert.deepEqual([byType.get('combat.hit')?.buses, byType.get('saved.type')?.buses], [0, 0]);
    assert.equal(byType.has('*'), false);
  });
});
