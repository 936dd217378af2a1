// Unheard dispatches on watched emitters (#10 item 4, "events emitted with no listener while a
// near-miss name has listeners"). Emitting an event nobody listens to is how Node works: a
// ClientRequest emits `close`, `finish`, `socket` whether or not anyone listens. Under
// BUSSCOPE_EMITTERS=all the warnings must not fill with those: an emitter bus (`Class#n`) speaks up
// only for a near miss on the emitter itself (or a misspelt name its siblings listen to), and a
// library bus (listeners all from Node's internals or node_modules) never.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analyzer } from '../../../runtime-probe/src/analysis/analyses/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, site } from '../model/streamBuilder';
import { warningsOf } from './helpers';

const APP = site('/srv/app/server.js', 12, 'onResponse');
const APP_HUB = site('/srv/app/hub.js', 3, 'countVisit');
const NET = site('node:net', 1720, 'onReadableStreamEnd');
const AGENT = site('node:_http_agent', 132, 'Agent');
const LIB = site('/srv/app/node_modules/pg/lib/client.js', 88, 'Client');

const titles = (model: Model, thresholds = {}): string[] => warningsOf(model, 'unheard-dispatch', thresholds).map((w) => w.title);

test("Node's own emits with no listener: the same name listened to on another emitter is no near miss", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  // The app's request (its `response` listener is the app's) emits `close` and `finish`; nobody listens.
  s.busCreated(1, 'ClientRequest#3', 0).subscribe({ id: 1, bus: 1, type: 'response', label: 'onResponse', site: APP, time: 0 });
  // Node's socket listens to `close` and `finish`, the app's response stream to `close`.
  s.busCreated(2, 'Socket#2', 0)
    .subscribe({ id: 2, bus: 2, type: 'close', site: NET, time: 0 })
    .subscribe({ id: 3, bus: 2, type: 'finish', site: NET, time: 0 });
  s.busCreated(3, 'IncomingMessage#4', 0).subscribe({ id: 4, bus: 3, type: 'close', label: 'onClose', site: APP, time: 0 });
  for (let i = 0; i < 5; i++) {
    s.dispatch({ bus: 1, type: 'close', start: 10 + i });
    s.dispatch({ bus: 1, type: 'finish', start: 20 + i });
  }
  s.into(model);
  assert.deepEqual(titles(model), []);
  // Also when the user asks for unheard dispatches without a near miss: an emitter's silence is normal.
  assert.deepEqual(titles(model, { unheardDispatch: { reportWithoutNearMiss: true } }), []);
});

test('a library emitter (listeners from node internals or node_modules) is never reported, near miss or not', () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'Agent#1', 0)
    .subscribe({ id: 1, bus: 1, type: 'free', site: AGENT, time: 0 })
    .subscribe({ id: 2, bus: 1, type: 'timeout', site: AGENT, time: 0 });
  s.busCreated(2, 'Client#1', 0).subscribe({ id: 3, bus: 2, type: 'notice', site: LIB, time: 0 });
  s.dispatch({ bus: 1, type: 'frees', start: 5 });
  s.dispatch({ bus: 2, type: 'notices', start: 6 });
  s.into(model);
  assert.deepEqual(titles(model), []);
});

test("an app bus's unheard dispatch is not a typo of a library emitter's listener", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'orders', 0).subscribe({ id: 1, bus: 1, type: 'placed', site: APP, time: 0 });
  s.busCreated(2, 'Socket#7', 0).subscribe({ id: 2, bus: 2, type: 'close', site: NET, time: 0 });
  s.dispatch({ bus: 1, type: 'close', start: 5 });
  s.into(model);
  assert.deepEqual(titles(model), []);
});

test("still reported on emitters: a misspelt name on the app's own emitter, or one its sibling instances listen to; plain buses unchanged", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'TicketHub#1', 0).subscribe({ id: 1, bus: 1, type: 'visit', label: 'countVisit', site: APP_HUB, time: 0 });
  s.dispatch({ bus: 1, type: 'visti', start: 5 });
  s.busCreated(2, 'Conn#1', 0).subscribe({ id: 2, bus: 2, type: 'message', label: 'onMessage', site: APP, time: 0 });
  s.busCreated(3, 'Conn#2', 0);
  s.dispatch({ bus: 3, type: 'mesage', start: 6 });
  // A plain bus keeps its options: without a near miss only when asked.
  s.busCreated(4, 'orders', 0);
  s.dispatch({ bus: 4, type: 'shipped', start: 7 });
  s.into(model);
  assert.deepEqual(titles(model).sort(), [
    '"mesage" is dispatched but nobody listens — did you mean "message"?',
    '"visti" is dispatched but nobody listens — did you mean "visit"?',
  ]);
  assert.ok(titles(model, { unheardDispatch: { reportWithoutNearMiss: true } }).includes('"shipped" is dispatched but nobody listens'));
});

test("a library bus's verdict, kept between runs, is judged again once the app subscribes to it", () => {
  const model = new Model();
  const s = new StreamBuilder().welcome();
  s.busCreated(2, 'Client#1', 0).subscribe({ id: 3, bus: 2, type: 'notice', site: LIB, time: 0 });
  s.dispatch({ bus: 2, type: 'notices', start: 6 });
  s.into(model);
  const analyzer = new Analyzer(model, { kinds: ['unheard-dispatch'] });
  assert.deepEqual(analyzer.run().warnings, []);
  assert.deepEqual(analyzer.run().warnings, []);
  // The app's own listener on the same emitter: no longer a library's, so the typo counts now.
  const more = new StreamBuilder();
  more.clock = 10;
  more.subscribe({ id: 4, bus: 2, type: 'notice', site: APP, time: 10 }).dispatch({ bus: 2, type: 'notices', start: 11 });
  more.into(model);
  assert.deepEqual(
    analyzer.run().warnings.map((w) => w.id),
    ['unheard-dispatch:2:notices'],
  );
});
