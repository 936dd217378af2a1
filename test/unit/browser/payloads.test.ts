// `busscope-probe/browser/payloads` as a page's bundler ships it, run in a fresh process (so no other
// copy registered a capture): importing it fills the shared runtime's `pageCapture`, which previews
// with the probe's serialiser, tells Proxies made after it loaded apart without running their traps,
// describes Events (Node has the DOM's Event classes) and never calls app getters; `sanitizePayloads`
// checks its argument. The DOM nodes and a real page are covered in test/webview/browser-app-debug.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function runPage(body: string): Promise<unknown> {
  const result = await build({
    stdin: {
      // The side-effect import as a page writes it (TypeScript drops an import whose names go unused).
      contents: `import './runtime-probe/src/browser/payloads.ts';
import { sanitizePayloads } from './runtime-probe/src/browser/payloads.ts';
import { runtime } from './runtime-probe/src/bus/runtime.ts';
const capture = (p, type = 't') => runtime.optional.pageCapture(p, type, 'bus', undefined, 1024).json;
const out = {};
${body}
console.log(JSON.stringify(out));`,
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['chrome110'],
    logLevel: 'silent',
  });
  const run = spawnSync(process.execPath, ['--input-type=module'], { input: result.outputFiles[0].text, encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as unknown;
}

test('importing it registers the page capture: Proxies made afterwards are "[Proxy]", their traps never run', async () => {
  const out = await runPage(`
let trapped = 0;
const handler = { ownKeys: (t) => (trapped++, Reflect.ownKeys(t)), getOwnPropertyDescriptor: (t, k) => (trapped++, Reflect.getOwnPropertyDescriptor(t, k)), getPrototypeOf: (t) => (trapped++, Reflect.getPrototypeOf(t)) };
out.plain = capture({ a: 1, b: [1, 'x'] });
out.proxy = capture({ inner: new Proxy({ secret: 1 }, handler) });
out.revocable = capture(Proxy.revocable({ secret: 2 }, handler).proxy);
out.trapped = trapped;
// The wrapped constructor behaves as Proxy did.
out.name = Proxy.name;
out.works = new Proxy({ v: 3 }, {}).v;
out.notCallable = (() => { try { Proxy({}, {}); return 'called'; } catch (e) { return e.constructor.name; } })();
`);
  assert.deepEqual(out, {
    plain: '{"a":1,"b":[1,"x"]}',
    proxy: '{"inner":"[Proxy]"}',
    revocable: '"[Proxy]"',
    trapped: 0,
    name: 'Proxy',
    works: 3,
    notCallable: 'TypeError',
  });
});

test('Events are their type, detail and the fields a subclass adds; getters are never called; other host objects are named', async () => {
  const out = await runPage(`
class CartEvent extends Event { constructor(sku) { super('cart'); this.sku = sku; } get boom() { throw new Error('called'); } }
out.custom = capture(new CustomEvent('ping', { detail: { n: 1 } }));
out.sub = capture(new CartEvent('A-1'));
out.host = capture({ collator: new Intl.Collator('en') });
class Hub extends EventTarget { constructor() { super(); this.name = 'hub'; } }
out.own = capture(new Hub());
out.getter = capture({ get x() { throw new Error('called'); } });
`);
  assert.deepEqual(out, {
    // Node's Event has no own `isTrusted` accessor as a browser's does (the Chromium test sees it).
    custom: '{"CustomEvent":{"type":"ping","detail":{"n":1}}}',
    sub: '{"CartEvent":{"type":"cart","sku":"A-1"}}',
    // An instance of a class the engine made (Node's DOM classes are JavaScript: a browser's are native).
    host: '{"collator":"[Collator]"}',
    own: '{"name":"hub"}',
    getter: '{"x":"[Getter]"}',
  });
});

test('sanitizePayloads: its result is serialised, a throw is recorded, a non-function is a TypeError', async () => {
  const out = await runPage(`
sanitizePayloads((p, type) => (type === 'login' ? { ...p, password: '***' } : p));
out.login = capture({ user: 'ann', password: 'hunter2' }, 'login');
sanitizePayloads(() => { throw new Error('nope'); });
out.threw = capture({ a: 1 });
sanitizePayloads(undefined);
out.off = capture({ password: 'x' }, 'login');
try { sanitizePayloads(42); } catch (e) { out.bad = e.constructor.name + ': ' + e.message; }
`);
  assert.deepEqual(out, {
    login: '{"user":"ann","password":"***"}',
    threw: '"[sanitize threw: [Error: nope]]"',
    off: '{"password":"x"}',
    bad: 'TypeError: sanitizePayloads: sanitize must be a function (payload, type, bus) => value, or undefined',
  });
});
