// The frame an event break shows the user: the code that called the bus's `dispatch` (or an emitter's
// `emit`), past the probe's frames, Node's internals and frames the debugger hides. Frames as js-debug
// sends them in a DAP `stackTrace` response.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchingFrame, isProbeFrame, stepsTo, type DapStackFrame } from '../../../extension/src/debugging/dispatchingFrame';

let nextId = 1000;
function frame(name: string, path: string | undefined, line: number, extra: Partial<DapStackFrame> = {}): DapStackFrame {
  return { id: nextId++, name, line, column: 5, source: path === undefined ? undefined : { path, name: path.split('/').pop() }, ...extra };
}
const internal = (name: string, module: string): DapStackFrame =>
  frame(name, `<node_internals>/${module}`, 10, { source: { name: `node:${module}`, path: `<node_internals>/${module}`, presentationHint: 'deemphasize' } });

const APP = '/home/u/shop/server.js';
const PKG = '/home/u/shop/node_modules/busscope-probe/dist/index.cjs';
const PKG_ESM = '/home/u/shop/node_modules/busscope-probe/dist/index.mjs';
const REGISTER = '/home/u/.vscode/extensions/busscope.busscope-0.1.0/dist/probe/register.cjs';

test('a bus from node_modules: the caller of EventBus.dispatch', () => {
  const app = frame('placeOrder', APP, 42);
  const frames = [frame('EventBus.dispatch', PKG, 1290), app, frame('Server.<anonymous>', APP, 60), internal('emit', 'events')];
  assert.equal(dispatchingFrame(frames), app);
});

test('the ESM build and a dispatch reached through other probe frames (a nested dispatch from a handler)', () => {
  const app = frame('onPlaced', APP, 17);
  const frames = [frame('EventBus.dispatch', PKG_ESM, 1290), frame('dispatchTraced', PKG_ESM, 1400), frame('EventBus.dispatch', PKG_ESM, 1290), app];
  assert.equal(dispatchingFrame(frames), app);
});

test("an instrumented emitter: the register script under the extension's folder is the probe's (by the file it was told)", () => {
  const app = frame('Server.<anonymous>', APP, 18);
  const frames = [frame('emit', REGISTER, 5120), frame('tracedNodeEmit', REGISTER, 5000), app];
  assert.equal(dispatchingFrame(frames, new Set([REGISTER])), app);
  // Without being told, frames in the top frame's file are the app's (it may have bundled the probe).
  assert.equal(dispatchingFrame(frames)?.name, 'tracedNodeEmit');
});

test("frames in the top frame's file are the probe's when that file is the package's", () => {
  const app = frame('main', APP, 3);
  const frames = [frame('EventBus.dispatch', PKG, 1290), frame('flushQueue', PKG, 900), app];
  assert.equal(dispatchingFrame(frames), app);
});

test("Node's internals, async labels, hidden (skipFiles) and source-less frames are passed over", () => {
  const app = frame('tick', APP, 77);
  const frames = [
    frame('EventBus.dispatch', PKG, 1290),
    internal('processTicksAndRejections', 'internal/process/task_queues'),
    frame('node-named', 'node:timers', 4),
    frame('Async call from setTimeout', undefined, 0, { presentationHint: 'label' }),
    frame('lib', '/home/u/shop/node_modules/lib/index.js', 9, { presentationHint: 'deemphasize' }),
    frame('<anonymous>', undefined, 0),
    app,
  ];
  assert.equal(dispatchingFrame(frames), app);
});

test('an app that bundled the probe into its own file: the caller in that file', () => {
  const bundle = '/home/u/game/dist/game.js';
  const caller = frame('Player.hit', bundle, 5001);
  assert.equal(dispatchingFrame([frame('EventBus.dispatch', bundle, 812), caller]), caller);
});

test('nothing of the app below the stop: no frame (the user stays where it stopped)', () => {
  assert.equal(dispatchingFrame([]), undefined);
  assert.equal(dispatchingFrame([frame('EventBus.dispatch', PKG, 1290)]), undefined);
  assert.equal(dispatchingFrame([frame('emit', REGISTER, 5120), internal('parserOnIncoming', '_http_server')], new Set([REGISTER])), undefined);
});

test("a stop is an event break when its top frame is the probe's: the package, a bundled bus by name, the injected register script", () => {
  assert.equal(isProbeFrame(frame('EventBus.dispatch', PKG, 1290)), true);
  assert.equal(isProbeFrame(frame('dispatch', PKG_ESM, 1290)), true);
  assert.equal(isProbeFrame(frame('EventBus.dispatch', '/home/u/game/dist/game.js', 812)), true);
  assert.equal(isProbeFrame(frame('emit', REGISTER, 5120), new Set([REGISTER])), true);
  // The user's own `debugger` statement, or a stop in Node's code, is not.
  assert.equal(isProbeFrame(frame('placeOrder', APP, 42), new Set([REGISTER])), false);
  assert.equal(isProbeFrame(internal('emit', 'events')), false);
});

test('the steps of VS Code\'s "Navigate Down Call Stack" to the dispatching frame: hidden frames are stepped over, labels are not', () => {
  const app = frame('tick', APP, 77);
  const frames = [
    frame('EventBus.dispatch', PKG, 1290),
    frame('dispatchTraced', PKG, 1400),
    internal('emit', 'events'),
    frame('Async call from setTimeout', undefined, 0, { presentationHint: 'label' }),
    app,
  ];
  assert.equal(dispatchingFrame(frames), app);
  assert.equal(stepsTo(frames, app), 3);
  assert.equal(stepsTo(frames, frames[0]), 0);
});

test("in a remote window paths arrive as URIs: the register script and the package are still the probe's", () => {
  const remote = (p: string): string => `vscode-remote://127.0.0.1:42875${p}`;
  const app = frame('<anonymous>', remote(APP), 16);
  const frames = [frame('TicketHub.emit', remote(REGISTER), 4), app, frame('Oe', remote(REGISTER), 4)];
  assert.equal(isProbeFrame(frames[0], new Set([REGISTER])), true);
  assert.equal(dispatchingFrame(frames, new Set([REGISTER])), app);
  const spaced = frame('EventBus.dispatch', remote('/home/u/my%20shop/node_modules/busscope-probe/dist/index.cjs'), 1314);
  assert.equal(isProbeFrame(spaced), true);
  assert.equal(dispatchingFrame([spaced, frame('placeOrder', remote('/home/u/my%20shop/app.js'), 11)])?.name, 'placeOrder');
});

test("a page's event break: past the page entry's frames (as shipped, served from the workspace, or pre-bundled by Vite) to the page's dispatch line", () => {
  const shop = frame('addToCart', '/home/u/shop/src/cart.js', 12);
  for (const entry of [
    '/home/u/shop/node_modules/busscope-probe/dist/browser.mjs',
    '/home/u/shop/node_modules/.vite/deps/busscope-probe_browser.js?v=4f2a9c1d',
    '/home/u/shop/node_modules/busscope-probe/dist/browser-worker.mjs',
  ]) {
    const frames = [frame('dispatch', entry, 900), frame('dispatchTraced', entry, 1200), shop, frame('onclick', '/home/u/shop/src/main.js', 3)];
    assert.ok(isProbeFrame(frames[0]), entry);
    assert.equal(dispatchingFrame(frames), shop, entry);
  }
  // The page's own file named like the entry is not the probe.
  assert.ok(!isProbeFrame(frame('dispatch', '/home/u/shop/src/browser.mjs', 1)));
});
