// Which debug session debugs a browser app's page: js-debug gives each page of a `pwa-chrome` /
// `pwa-msedge` launch a child session, where Busscope reads the page's origin and the tab id that
// `busscope-probe/browser` keeps in sessionStorage (PAGE_IDENTITY_EXPRESSION), and matches the app's
// identity (its connection's Origin and tab) against them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';
import { isBrowserDebugType, matchPage, PAGE_IDENTITY_EXPRESSION, parsePageIdentity, type PageTargetFacts } from '../../../extension/src/debugging/matching';

const SHOP = 'http://localhost:5173';
const TAB_A = '0123456789abcdef';
const TAB_B = 'fedcba9876543210';

const target = (id: string, origin: string | undefined, tabId = ''): PageTargetFacts => ({ id, origin, tabId });

test('the browser launch types of the JavaScript debugger are page debuggers; Node types are not', () => {
  for (const t of ['chrome', 'pwa-chrome', 'msedge', 'pwa-msedge']) assert.ok(isBrowserDebugType(t), t);
  for (const t of ['node', 'pwa-node', 'node-terminal', 'pwa-extensionHost', '']) assert.ok(!isBrowserDebugType(t), t);
});

test('a page is matched by its tab id, whichever tabs of the same origin are open', () => {
  const targets = [target('d1', SHOP, TAB_B), target('d2', SHOP, TAB_A), target('d3', 'http://127.0.0.1:8080')];
  assert.deepEqual(matchPage({ origin: SHOP, tabId: TAB_A }, targets, 2), { target: targets[1], reason: 'tab' });
  assert.deepEqual(matchPage({ origin: SHOP, tabId: TAB_B }, targets, 2), { target: targets[0], reason: 'tab' });
});

test('a target that shows another Busscope tab is never the page, not even as the only one of its origin', () => {
  assert.equal(matchPage({ origin: SHOP, tabId: TAB_A }, [target('d1', SHOP, TAB_B)], 1), undefined);
});

test('without a tab id to read (storage denied, or not read yet): the only target of the origin, when the app is the only page of that origin', () => {
  const targets = [target('d1', SHOP), target('d2', 'http://127.0.0.1:8080'), target('d3', undefined)];
  assert.deepEqual(matchPage({ origin: SHOP, tabId: TAB_A }, targets, 1), { target: targets[0], reason: 'origin' });
  assert.deepEqual(matchPage({ origin: SHOP, tabId: '' }, targets, 1), { target: targets[0], reason: 'origin' });
  // Two live pages of that origin: which tab is which cannot be told.
  assert.equal(matchPage({ origin: SHOP, tabId: TAB_A }, targets, 2), undefined);
  // Two targets of that origin (two tabs, or a page and its worker): neither.
  assert.equal(matchPage({ origin: SHOP, tabId: TAB_A }, [...targets, target('d4', SHOP)], 1), undefined);
  // Another origin: never.
  assert.equal(matchPage({ origin: 'http://localhost:3000', tabId: TAB_A }, targets, 1), undefined);
});

test('the identity expression reads the tab id and origin in a page, and gives no tab id where there is no sessionStorage (a worker) or it throws', () => {
  const store = new Map([['busscope.tabId', TAB_A]]);
  const page = vm.runInNewContext(PAGE_IDENTITY_EXPRESSION, {
    location: { origin: SHOP, href: `${SHOP}/cart` },
    sessionStorage: { getItem: (k: string) => store.get(k) ?? null },
  }) as string;
  assert.deepEqual(parsePageIdentity(page), { tabId: TAB_A, origin: SHOP });
  const worker = vm.runInNewContext(PAGE_IDENTITY_EXPRESSION, { location: { origin: SHOP } }) as string;
  assert.deepEqual(parsePageIdentity(worker), { tabId: '', origin: SHOP });
  const denied = vm.runInNewContext(PAGE_IDENTITY_EXPRESSION, {
    location: { origin: SHOP },
    get sessionStorage(): never {
      throw new Error('SecurityError');
    },
  }) as string;
  assert.deepEqual(parsePageIdentity(denied), { tabId: '', origin: SHOP });
});

test("the debugger's quoting is undone; other answers are no identity", () => {
  assert.deepEqual(parsePageIdentity(`'P${TAB_A} ${SHOP}'`), { tabId: TAB_A, origin: SHOP });
  assert.deepEqual(parsePageIdentity(`"P ${SHOP}"`), { tabId: '', origin: SHOP });
  for (const bad of ['', 'undefined', "'P'", `P${TAB_A}`, `PXYZ ${SHOP}`, `P${TAB_A} ${SHOP} extra`, 'ReferenceError: sessionStorage is not defined'])
    assert.equal(parsePageIdentity(bad), undefined, bad);
});
