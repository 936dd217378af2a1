// Event breakpoints and payload previews of a page, in real Chromium: the page loads the BUILT entries
// (dist/browser.mjs, dist/browser-payloads.mjs, and in its Web Worker dist/browser-worker.mjs); the
// extension-side server, session manager, model and the extension's breakpoint store and `breakOn`
// sync (debugging/breakpoints.ts, breakOnSync.ts) run for real. A debugger is attached over CDP
// (Debugger.enable) as DevTools or VS Code's js-debug would be: a breakpoint set in the store stops the
// page at the matching dispatch only — one frame below the app's own dispatch line — and honours the
// payload conditions and mutes the extension's debugger expression installs; nothing stops without
// breakOn. The same for the page's worker (its own CDP target). With `busscope-probe/browser/payloads`
// the model sees the budgeted previews of the page's and the worker's dispatches, DOM events included.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { BrowserAppServer } from '../../extension/src/browserApps/browserAppServer';
import { BreakOnSync } from '../../extension/src/debugging/breakOnSync';
import { EventBreakpointStore, type BreakpointMemento } from '../../extension/src/debugging/breakpoints';
import { installConditionsExpression } from '../../extension/src/debugging/conditions';
import { readPausedState, type PausedState } from '../../extension/src/debugging/pausedState';
import type { Session } from '../../extension/src/sessions/session';
import { SessionManager } from '../../extension/src/sessions/sessionManager';
import { CHROMIUM_ARGS, ROOT, chromiumExecutable, chromiumUnavailable, tearDown } from './support/chromium';
import { modulePage, script, serveFiles, type StaticServer } from './support/static-app';
import { waitFor } from '../support/wait';

const skip = chromiumUnavailable();
const DIST = path.join(ROOT, 'runtime-probe/dist');
const ENTRIES = ['browser.mjs', 'browser-worker.mjs', 'browser-payloads.mjs'];

const APP_JS = `
import { sanitizePayloads } from '/dist/browser-payloads.mjs';
import { addWorker, connect, EventBus, watch } from '/dist/browser.mjs';
const q = new URLSearchParams(location.search);
const state = (window.__busscope = { state: 'starting', fromWorker: [] });
const c = connect({ url: q.get('ws'), token: q.get('token'), name: 'chromium-debug', retryMs: 0 });
const shop = new EventBus({ name: 'shop' });
sanitizePayloads((p, type) => (type === 'login' ? { ...p, password: '***' } : p));
shop.subscribe('login', function onLogin() {});
shop.subscribe('cart.add', function onAdd() {});
shop.subscribe('cart.view', function onView() {});
const hub = new EventTarget();
watch(hub, { name: 'hub' });
hub.addEventListener('ping', function onPing() {});
const buy = document.createElement('button');
buy.id = 'buy';
buy.className = 'primary large';
buy.textContent = 'buy';
document.body.append(buy);
watch(buy, { name: 'buy-button', types: ['click'] });
buy.addEventListener('click', function onBuy() {});
const worker = new Worker('/worker.js', { type: 'module', name: 'pricing' });
addWorker(worker);
worker.onmessage = (e) => state.fromWorker.push(e.data);
window.__trapRan = false;
window.__app = {
  add(qty) {
    shop.dispatch('cart.add', { sku: 'A-1', qty }); // CART_ADD_LINE
  },
  view() {
    shop.dispatch('cart.view', { page: 1 });
  },
  ping() {
    hub.dispatchEvent(new CustomEvent('ping', { detail: { sku: 'B-2', el: buy } })); // PING_LINE
  },
  login() {
    shop.dispatch('login', { user: 'ann', password: 'hunter2' });
  },
  proxied() {
    const secret = new Proxy({ card: '4111' }, {
      ownKeys(t) { window.__trapRan = true; return Reflect.ownKeys(t); },
      getOwnPropertyDescriptor(t, k) { window.__trapRan = true; return Reflect.getOwnPropertyDescriptor(t, k); },
      getPrototypeOf(t) { window.__trapRan = true; return Reflect.getPrototypeOf(t); },
    });
    shop.dispatch('cart.view', { secret, when: new Date(0), tags: new Set(['a']), big: 'x'.repeat(5000) });
  },
  worker,
};
c.ready.then(() => { state.state = 'open'; }, (e) => { state.state = c.state; state.refusal = String(e && e.message); });
`;

const WORKER_JS = `
import { connectToPage, EventBus } from '/dist/browser-worker.mjs';
import '/dist/browser-payloads.mjs';
const prices = new EventBus({ name: 'prices' });
prices.subscribe('price.quote', function onQuote() {});
const link = connectToPage();
link.ready.then(() => postMessage({ t: 'joined', state: link.state }), (e) => postMessage({ t: 'refused', reason: String(e.message) }));
self.onmessage = (e) => {
  if (e.data.t !== 'quote') return;
  prices.dispatch('price.quote', { sku: e.data.sku, cents: e.data.cents }); // QUOTE_LINE
  postMessage({ t: 'quoted', n: e.data.n });
};
`;

class MemoryMemento implements BreakpointMemento {
  readonly data = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  update(key: string, value: unknown): Promise<void> {
    this.data.set(key, JSON.parse(JSON.stringify(value)));
    return Promise.resolve();
  }
}

function serveApp(): Promise<StaticServer> {
  const files = Object.fromEntries(ENTRIES.map((f) => [`/dist/${f}`, script(readFileSync(path.join(DIST, f)))]));
  return serveFiles({
    ...files,
    '/': modulePage('/app.js', { title: 'debug' }),
    '/app.js': script(APP_JS),
    '/worker.js': script(WORKER_JS),
  });
}

/** 0-based line of `marker` in `source` (CDP's line numbers). */
function lineOf(source: string, marker: string): number {
  const i = source.split('\n').findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, marker);
  return i;
}

interface CallFrame {
  readonly callFrameId: string;
  readonly functionName: string;
  readonly location: { readonly scriptId: string; readonly lineNumber: number };
}

/** One stop of the attached debugger: the event break the hook says it is, and the two top frames. */
interface Stop {
  readonly hit: { type: string; bus: string; payload: unknown } | null;
  readonly top: { url: string; fn: string };
  readonly caller: { url: string; line: number; fn: string };
  /** With `readState`: what the extension's pause tracker reads on the stopped frame (or why it could not). */
  readonly state?: PausedState | string;
}

const HIT_EXPRESSION = `(() => { const h = globalThis[Symbol.for('busscope.eventBreaks')]; const c = h && h.current; return JSON.stringify(c ? { type: c.type, bus: c.bus, payload: c.payload } : null); })()`;

/** What a CDP target (a page, a worker) needs here: send a command, hear an event. */
interface Target {
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  on(event: string, listener: (params: Record<string, unknown>) => void): void;
}

/**
 * Attaches a debugger to `target` (Debugger.enable, as DevTools / js-debug do): every stop is noted,
 * with the event break the hook reports on the stopped frame (and, with `readState`, the paused state
 * as the extension reads it: debugging/pausedState.ts), and resumed.
 */
async function attachDebugger(target: Target, readState = false): Promise<Stop[]> {
  const stops: Stop[] = [];
  const scripts = new Map<string, string>();
  target.on('Debugger.scriptParsed', (e) => scripts.set(e.scriptId as string, e.url as string));
  target.on('Debugger.paused', (e) => {
    const frames = e.callFrames as CallFrame[];
    const url = (f: CallFrame | undefined): string => (f === undefined ? '' : (scripts.get(f.location.scriptId) ?? ''));
    void (async () => {
      const r = await target.send('Debugger.evaluateOnCallFrame', { callFrameId: frames[0].callFrameId, expression: HIT_EXPRESSION, returnByValue: true });
      const value = (r.result as { value?: string } | undefined)?.value;
      let state: PausedState | string | undefined;
      if (readState) {
        state = await readPausedState(async (expression) => {
          const e = await target.send('Debugger.evaluateOnCallFrame', { callFrameId: frames[0].callFrameId, expression, returnByValue: true });
          if (e.exceptionDetails !== undefined) throw new Error(JSON.stringify(e.exceptionDetails));
          return String((e.result as { value?: unknown }).value);
        }).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
      }
      stops.push({
        state,
        hit: typeof value === 'string' ? (JSON.parse(value) as Stop['hit']) : null,
        top: { url: url(frames[0]), fn: frames[0].functionName },
        caller: { url: url(frames[1]), line: frames[1]?.location.lineNumber ?? -1, fn: frames[1]?.functionName ?? '' },
      });
      await target.send('Debugger.resume');
    })().catch(() => undefined);
  });
  await target.send('Debugger.enable');
  return stops;
}

function pageTarget(cdp: CDPSession): Target {
  return {
    send: (method, params) => cdp.send(method as 'Debugger.enable', params) as Promise<Record<string, unknown>>,
    on: (event, listener) => cdp.on(event as 'Debugger.paused', listener as never),
  };
}

/**
 * A worker's own CDP target, reached from the browser session (Target.attachToTarget; Playwright's
 * sessions are per page), its messages carried by Target.sendMessageToTarget.
 */
async function workerTarget(browser: Browser, url: string): Promise<Target> {
  const root = await browser.newBrowserCDPSession();
  const { targetInfos } = (await root.send('Target.getTargets')) as { targetInfos: { targetId: string; type: string; url: string }[] };
  const info = targetInfos.find((t) => t.type === 'worker' && t.url.endsWith(url));
  assert.ok(info !== undefined, `the worker target ${url} (${targetInfos.map((t) => `${t.type} ${t.url}`).join(', ')})`);
  const { sessionId } = await root.send('Target.attachToTarget', { targetId: info.targetId, flatten: false });
  let next = 1;
  const pending = new Map<number, (r: Record<string, unknown>) => void>();
  const listeners = new Map<string, ((p: Record<string, unknown>) => void)[]>();
  root.on('Target.receivedMessageFromTarget', (e) => {
    if (e.sessionId !== sessionId) return;
    const m = JSON.parse(e.message) as { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown };
    if (m.id !== undefined) pending.get(m.id)?.(m.result ?? { error: m.error });
    else if (m.method !== undefined) for (const l of listeners.get(m.method) ?? []) l(m.params ?? {});
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = next++;
        pending.set(id, resolve);
        void root.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
      }),
    on: (event, listener) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
  };
}

interface AppWindow {
  __busscope?: { state: string; fromWorker: { t: string; [k: string]: unknown }[] };
  __trapRan: boolean;
  __app: { add(qty: number): void; view(): void; ping(): void; login(): void; proxied(): void; worker: Worker };
}

describe('event breakpoints and payload previews of a page in real Chromium', { skip: skip ?? undefined, timeout: 180_000 }, () => {
  let browser: Browser;
  let app: StaticServer;
  let server: BrowserAppServer;
  let manager: SessionManager;
  let store: EventBreakpointStore;
  let sync: BreakOnSync;
  const logs: string[] = [];
  let page: Page;
  let session: Session;

  before(async () => {
    for (const f of ENTRIES) assert.ok(existsSync(path.join(DIST, f)), `runtime-probe/dist/${f} is missing: run \`npm run build\` first`);
    browser = await chromium.launch({ executablePath: chromiumExecutable(), args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    app = await serveApp();
    // As the extension runs it with `busscope.capturePayloads` on.
    manager = new SessionManager({ updateIntervalMs: 100, capturePayloads: () => true });
    server = await BrowserAppServer.listen({ onApp: (a) => void manager.attachBrowserApp(a).catch(() => undefined), onRefused: () => undefined });
    store = new EventBreakpointStore(new MemoryMemento());
    sync = new BreakOnSync(manager, store, (m) => logs.push(m));
    page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`http://127.0.0.1:${app.port}/?${new URLSearchParams({ ws: server.url, token: server.token }).toString()}`);
    await waitFor(async () => (await page.evaluate(() => (window as unknown as AppWindow).__busscope?.state)) === 'open', 15_000, 'the page connected');
    await waitFor(() => manager.sessions.some((s) => s.isLive), 10_000, "the page's session");
    session = manager.sessions[0];
    await waitFor(
      async () => (await page.evaluate(() => (window as unknown as AppWindow).__busscope?.fromWorker.some((m) => m.t === 'joined'))) === true,
      15_000,
      'the worker joined',
    );
    assert.deepEqual(errors, []);
  });
  after(() => tearDown([() => browser?.close(), () => sync?.dispose(), () => manager?.dispose(), () => server?.close(), () => app?.close()]));

  /** Sets the store's breakpoints and waits until the page acknowledged exactly them. */
  const breakOn = async (types: string[]): Promise<void> => {
    if (JSON.stringify(store.types) === JSON.stringify([...types].sort())) return;
    const n = logs.length;
    await store.replace(types.map((type) => ({ type })));
    const want = types.length === 0 ? 'none' : [...types].sort().join(', ');
    await waitFor(() => logs.slice(n).some((l) => l.endsWith(`: ${want}`)), 10_000, `the page acknowledged ${want}`);
  };

  test('a debugger attached to the page stops at the dispatches of the listed types only, one frame below the dispatch line', async () => {
    const cdp = await page.context().newCDPSession(page);
    const stops = await attachDebugger(pageTarget(cdp));
    // No breakOn: a debugger is attached, yet nothing stops.
    await page.evaluate(() => {
      const w = window as unknown as AppWindow;
      w.__app.add(1);
      w.__app.view();
      w.__app.ping();
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, 0, JSON.stringify(stops));

    await breakOn(['cart.add', 'ping']);
    await page.evaluate(() => {
      const w = window as unknown as AppWindow;
      w.__app.view();
      w.__app.add(2);
      w.__app.ping();
    });
    await waitFor(() => stops.length >= 2, 10_000, 'two stops');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, 2, JSON.stringify(stops));
    const [add, ping] = stops;
    assert.deepEqual(add.hit, { type: 'cart.add', bus: 'shop', payload: { sku: 'A-1', qty: 2 } });
    // The statement is the probe's (dispatch); the frame below it is the app's dispatch line, where
    // the extension moves the focus (debugging/dispatchingFrame.ts).
    assert.match(add.top.url, /\/dist\/browser\.mjs$/);
    assert.match(add.caller.url, /\/app\.js$/);
    assert.equal(add.caller.line, lineOf(APP_JS, 'CART_ADD_LINE'));
    assert.equal(ping.hit?.type, 'ping');
    assert.equal(ping.hit?.bus, 'hub');
    assert.match(ping.top.url, /\/dist\/browser\.mjs$/);
    assert.equal(ping.caller.line, lineOf(APP_JS, 'PING_LINE'));
    assert.deepEqual(session.model.drops.records, 0);
    await breakOn([]);
    await cdp.detach();
  });

  test('payload conditions and mutes installed by the debugger decide, as in Node; removing the breakpoint stops the stops', async () => {
    const cdp = await page.context().newCDPSession(page);
    const stops = await attachDebugger(pageTarget(cdp));
    await breakOn(['cart.add']);
    // What the extension's pause tracker evaluates through the debug session.
    const install = async (conditions: { type: string; condition: string }[], muted: string[] = []): Promise<string> =>
      ((await cdp.send('Runtime.evaluate', { expression: installConditionsExpression(conditions, muted), returnByValue: true })).result.value as string) ?? '';
    assert.equal(await install([{ type: 'cart.add', condition: 'payload.qty > 5' }]), 'set:1');
    await page.evaluate(() => {
      const w = window as unknown as AppWindow;
      for (const qty of [3, 7, 4]) w.__app.add(qty);
    });
    await waitFor(() => stops.length >= 1, 10_000, 'the stop the condition allows');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      stops.map((s) => s.hit?.payload),
      [{ sku: 'A-1', qty: 7 }],
    );
    // Muted (a breakpoint just removed while paused): no stop, condition or not.
    assert.equal(await install([], ['cart.add']), 'set:0');
    await page.evaluate(() => (window as unknown as AppWindow).__app.add(9));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, 1);
    assert.equal(await install([], []), 'set:0');
    await page.evaluate(() => (window as unknown as AppWindow).__app.add(10));
    await waitFor(() => stops.length === 2, 10_000, 'unmuted');
    await breakOn([]);
    await page.evaluate(() => (window as unknown as AppWindow).__app.add(11));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, 2);
    await cdp.detach();
  });

  test("the paused page's state reads through the debugger as a Node app's does: its snapshot (buses, listeners, break types) and the event break", async () => {
    const cdp = await page.context().newCDPSession(page);
    const states: (PausedState | string)[] = [];
    cdp.on('Debugger.paused', (e) => {
      const frame = (e.callFrames as CallFrame[])[0];
      // What the extension's pause tracker evaluates on the stopped frame (debugging/pausedState.ts), here over CDP.
      const evaluate = async (expression: string): Promise<string> => {
        const r = await cdp.send('Debugger.evaluateOnCallFrame', { callFrameId: frame.callFrameId, expression, returnByValue: true });
        if (r.exceptionDetails !== undefined) throw new Error(JSON.stringify(r.exceptionDetails));
        return String(r.result.value);
      };
      void readPausedState(evaluate)
        .then(
          (state) => states.push(state),
          (err: unknown) => states.push(err instanceof Error ? err.message : String(err)),
        )
        .finally(() => void cdp.send('Debugger.resume').catch(() => undefined));
    });
    await cdp.send('Debugger.enable');
    await breakOn(['cart.add']);
    await page.evaluate(() => (window as unknown as AppWindow).__app.add(5));
    await waitFor(() => states.length >= 1, 10_000, 'the paused state read');
    await breakOn([]);
    await cdp.detach();
    const state = states[0];
    assert.ok(typeof state !== 'string', `reading the paused page failed: ${String(state)}`);
    assert.equal(state.pid, null, 'a page has no pid');
    assert.deepEqual(state.eventBreak, { busId: state.eventBreak?.busId, bus: 'shop', type: 'cart.add', payload: JSON.stringify({ sku: 'A-1', qty: 5 }) });
    assert.ok(state.snapshot !== null, 'the paused page reported no snapshot');
    const shop = state.snapshot.buses.find((b) => b.name === 'shop');
    assert.ok(shop !== undefined, `no shop bus in ${JSON.stringify(state.snapshot.buses.map((b) => b.name))}`);
    assert.equal(shop.id, state.eventBreak?.busId);
    assert.deepEqual(
      state.snapshot.types.filter((t) => t.bus === shop.id).map((t) => [t.type, t.listeners]),
      [
        ['cart.add', 1],
        ['cart.view', 1],
        ['login', 1],
      ],
    );
    assert.ok(
      state.snapshot.subscriptions.some((s) => s.bus === shop.id && s.type === 'cart.add'),
      'the snapshot lists the cart.add subscription',
    );
    assert.deepEqual(state.snapshot.breakOn, ['cart.add']);
  });

  test("the page's Web Worker stops at its listed types too, under a debugger attached to the worker", async () => {
    const worker = await workerTarget(browser, '/worker.js');
    const stops = await attachDebugger(worker, true);
    const quote = async (n: number): Promise<void> => {
      await page.evaluate((k) => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'quote', sku: 'C-3', cents: 100 * k, n: k }), n);
      await waitFor(
        async () =>
          (await page.evaluate((k) => (window as unknown as AppWindow).__busscope?.fromWorker.some((m) => m.t === 'quoted' && m.n === k), n)) === true,
        10_000,
        `quote ${n} done`,
      );
    };
    await breakOn([]);
    await quote(1);
    assert.equal(stops.length, 0, JSON.stringify(stops));
    await breakOn(['price.quote']);
    // The page passes the list on to its worker through the threads port: wait until the worker has it.
    let k = 1;
    await waitFor(
      async () => {
        await quote(++k);
        return stops.length > 0;
      },
      10_000,
      'the worker stopped',
      100,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, 1, 'one stop: the page passed the list on once, and the worker stopped from then on');
    assert.deepEqual(stops[0].hit, { type: 'price.quote', bus: 'prices', payload: { sku: 'C-3', cents: 100 * k } });
    assert.match(stops[0].top.url, /\/dist\/browser\.mjs$/);
    assert.match(stops[0].caller.url, /\/worker\.js$/);
    assert.equal(stops[0].caller.line, lineOf(WORKER_JS, 'QUOTE_LINE'));
    // The paused worker reports its own buses, as a paused page or Node app does (the page cannot answer for it).
    const state = stops[0].state;
    assert.ok(state !== undefined && typeof state !== 'string', `reading the paused worker failed: ${String(state)}`);
    assert.equal(state.pid, null);
    assert.equal(state.eventBreak?.type, 'price.quote');
    assert.ok(state.snapshot !== null, 'the paused worker reported no snapshot');
    const prices = state.snapshot.buses.find((b) => b.name === 'prices');
    assert.ok(prices !== undefined, `no prices bus in ${JSON.stringify(state.snapshot.buses.map((b) => b.name))}`);
    assert.equal(prices.id, state.eventBreak?.busId);
    assert.ok(
      state.snapshot.types.some((t) => t.bus === prices.id && t.type === 'price.quote' && t.listeners >= 1),
      JSON.stringify(state.snapshot.types),
    );
    assert.ok(!state.snapshot.buses.some((b) => b.name === 'shop'), "the page's buses are not the worker's");
    // A condition set in the page holds in its worker (compiled there, as for Node's workers).
    const n = stops.length;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Runtime.evaluate', { expression: installConditionsExpression([{ type: 'price.quote', condition: 'payload.cents > 1000' }]) });
    await new Promise((r) => setTimeout(r, 200));
    await quote(3);
    await quote(200);
    await waitFor(() => stops.length === n + 1, 10_000, 'the stop the condition allows');
    assert.deepEqual(stops[n].hit?.payload, { sku: 'C-3', cents: 20000 });
    await breakOn([]);
    await quote(300);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stops.length, n + 1);
    await worker.send('Debugger.disable');
  });

  test("with busscope-probe/browser/payloads the model sees budgeted, sanitized previews of the page's and the worker's dispatches", async () => {
    // Each type name here belongs to one bus (`bus` names it for the reader).
    const previews = (_bus: string, type: string): string[] => {
      const m = session.model;
      const out: string[] = [];
      for (let k = 0; k < m.timeline.size; k++) {
        const row = m.timeline.row(k);
        if (m.typeAt(row.typeIndex)?.name !== type) continue;
        const p = m.payloadOf(row.seq);
        if (p !== null) out.push(p);
      }
      return out;
    };
    await page.evaluate(() => {
      const w = window as unknown as AppWindow;
      w.__app.add(42);
      w.__app.ping();
      w.__app.proxied();
      w.__app.login();
    });
    await page.click('#buy');
    await page.evaluate(() => (window as unknown as AppWindow).__app.worker.postMessage({ t: 'quote', sku: 'D-4', cents: 99, n: 99 }));
    await waitFor(() => previews('shop', 'cart.add').includes('{"sku":"A-1","qty":42}'), 10_000, 'the cart.add preview');
    await waitFor(() => previews('prices', 'price.quote').includes('{"sku":"D-4","cents":99}'), 10_000, "the worker's preview");
    await waitFor(() => previews('buy-button', 'click').length > 0, 10_000, 'the click preview');
    // A DOM event: its type, whether the browser made it, its detail with the element described (no
    // target yet: a script's dispatchEvent is recorded before the browser sets it).
    assert.ok(
      previews('hub', 'ping').includes('{"CustomEvent":{"type":"ping","isTrusted":false,"detail":{"sku":"B-2","el":"<button#buy.primary.large>"}}}'),
      previews('hub', 'ping').join('\n'),
    );
    const click = JSON.parse(previews('buy-button', 'click')[0]) as { PointerEvent?: Record<string, unknown>; MouseEvent?: Record<string, unknown> };
    const fields = click.PointerEvent ?? click.MouseEvent;
    assert.ok(fields !== undefined, JSON.stringify(click));
    assert.equal(fields.type, 'click');
    assert.equal(fields.isTrusted, true);
    assert.equal(fields.target, '<button#buy.primary.large>');
    assert.equal(typeof fields.clientX, 'number');
    // A Proxy is described, never read through its traps; the budget cuts a long payload at the cap.
    const view = previews('shop', 'cart.view').find((p) => p.includes('secret'));
    assert.ok(view !== undefined, previews('shop', 'cart.view').join('\n'));
    assert.match(view, /^\{"secret":"\[Proxy\]","when":"1970-01-01T00:00:00\.000Z","tags":\{"Set\(1\)":\["a"\]\},"big":"x+… \(5000 chars\)"\} …$/);
    assert.ok(view.length <= 1024 + 2, `${view.length} characters`);
    assert.equal(await page.evaluate(() => (window as unknown as AppWindow).__trapRan), false);
    // The page's sanitize hook (sanitizePayloads) decides what is serialised.
    await waitFor(() => previews('shop', 'login').length > 0, 10_000, 'the login preview');
    assert.deepEqual(previews('shop', 'login'), ['{"user":"ann","password":"***"}']);
  });
});
