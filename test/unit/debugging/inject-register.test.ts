// Under the debugger, nothing to install (#10 item 3): a Node launch gets the register script the
// extension ships through NODE_OPTIONS, after the user's own NODE_OPTIONS, quoted the way Node parses
// them, once, and never against the user's explicit choice. The launches here are real Node processes
// started with the environment the injection produces.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  EMITTER_SETTING,
  EMITTER_SETTING_DEFAULTS,
  INJECTION_NOTICE_ACTION,
  INJECTION_NOTICE_KEY,
  InjectionNotice,
  injectLaunchEnvironment,
  injectProbeEnvironment,
  loadsBusscopeRegister,
  quoteNodeOption,
  readEmitterSettings,
  splitNodeOptions,
  type EmitterInjection,
  type InjectableConfiguration,
} from '../../../extension/src/debugging/environment';

const REGISTER = '/ext/busscope.busscope-0.1.0/dist/probe/register.cjs';
const emitters = (over: Partial<EmitterInjection> = {}): EmitterInjection => ({
  registerScript: REGISTER,
  scope: 'all',
  classes: [],
  inheritedNodeOptions: undefined,
  ...over,
});

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

describe('register injection: the launch environment', () => {
  test('a Node launch gets --require <register>, BUSSCOPE_EMITTERS and the classes, next to BUSSCOPE=1', () => {
    const r = injectLaunchEnvironment(
      { type: 'node', request: 'launch', program: 'app.js' },
      '/tmp/apps',
      emitters({ scope: 'app', classes: ['Server', 'Socket'] }),
    );
    assert.equal(r.register, 'injected');
    assert.deepEqual(r.config.env, {
      BUSSCOPE: '1',
      BUSSCOPE_DISCOVERY_DIR: '/tmp/apps',
      NODE_OPTIONS: `--require ${REGISTER}`,
      BUSSCOPE_EMITTERS: 'app',
      BUSSCOPE_EMITTER_CLASSES: 'Server,Socket',
    });
    for (const type of ['pwa-node', 'node-terminal']) {
      assert.equal(injectLaunchEnvironment({ type, request: 'launch' }, '/tmp/apps', emitters()).register, 'injected', type);
    }
  });

  test("the user's NODE_OPTIONS come first and stay: the configuration's, else the inherited ones", () => {
    const own = injectProbeEnvironment(
      { type: 'node', request: 'launch', env: { NODE_OPTIONS: '--max-old-space-size=200 ' } },
      '',
      emitters({ inheritedNodeOptions: '--inherited' }),
    );
    assert.equal(own.env?.NODE_OPTIONS, `--max-old-space-size=200 --require ${REGISTER}`);
    const inherited = injectProbeEnvironment({ type: 'node', request: 'launch' }, '', emitters({ inheritedNodeOptions: '--enable-source-maps' }));
    assert.equal(inherited.env?.NODE_OPTIONS, `--enable-source-maps --require ${REGISTER}`);
  });

  test('never twice: the second resolve pass, or a NODE_OPTIONS that already loads a Busscope register script, is left alone', () => {
    const first = injectLaunchEnvironment({ type: 'node', request: 'launch', env: { NODE_OPTIONS: '-r ./mine.js' } }, '/d', emitters());
    const second = injectLaunchEnvironment({ ...first.config, type: 'pwa-node' }, '/d', emitters());
    assert.equal(second.register, 'already');
    assert.deepEqual(second.config.env, first.config.env);
    assert.equal((second.config.env?.NODE_OPTIONS?.match(/register\.cjs/g) ?? []).length, 1);
    // The user's own busscope-probe/register (--require or --import), another version of this extension's, or one inherited.
    for (const nodeOptions of [
      '--require busscope-probe/register',
      '--import=busscope-probe/register',
      '-r /x/node_modules/busscope-probe/register.js',
      '--require "/home/me/.vscode/extensions/busscope.busscope-0.0.9/dist/probe/register.cjs"',
    ]) {
      const launch: InjectableConfiguration = { type: 'node', request: 'launch', env: { NODE_OPTIONS: nodeOptions } };
      const r = injectLaunchEnvironment(launch, '', emitters());
      assert.equal(r.register, 'already', nodeOptions);
      assert.equal(r.config.env?.NODE_OPTIONS, nodeOptions);
      assert.equal(r.config.env?.BUSSCOPE_EMITTERS, undefined, nodeOptions);
    }
    assert.equal(
      injectLaunchEnvironment({ type: 'node', request: 'launch' }, '', emitters({ inheritedNodeOptions: `--require ${REGISTER}` })).register,
      'already',
    );
  });

  test("the user's choices win: null NODE_OPTIONS or BUSSCOPE, BUSSCOPE_EMITTERS=off, their own BUSSCOPE_EMITTERS and classes", () => {
    for (const env of [{ NODE_OPTIONS: null }, { BUSSCOPE: null }, { BUSSCOPE_EMITTERS: 'off' }, { BUSSCOPE_EMITTERS: null }]) {
      const r = injectLaunchEnvironment({ type: 'node', request: 'launch', env }, '', emitters({ inheritedNodeOptions: '--x' }));
      assert.equal(r.register, 'user-declined', JSON.stringify(env));
      assert.ok(!('NODE_OPTIONS' in (r.config.env ?? {})) || r.config.env?.NODE_OPTIONS === null, JSON.stringify(env));
    }
    const mine = injectProbeEnvironment(
      { type: 'node', request: 'launch', env: { BUSSCOPE_EMITTERS: 'app', BUSSCOPE_EMITTER_CLASSES: 'Mine' } },
      '',
      emitters({ scope: 'all', classes: ['Other'] }),
    );
    assert.equal(mine.env?.BUSSCOPE_EMITTERS, 'app');
    assert.equal(mine.env?.BUSSCOPE_EMITTER_CLASSES, 'Mine');
  });

  test('setting off, attach configurations and other debuggers: no NODE_OPTIONS', () => {
    const launch: InjectableConfiguration = { type: 'node', request: 'launch' };
    const off = injectLaunchEnvironment(launch, '/d', undefined);
    assert.equal(off.register, 'off');
    assert.deepEqual(off.config.env, { BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: '/d' });
    const attach = { type: 'node', request: 'attach', port: 9229 };
    assert.equal(injectProbeEnvironment(attach, '/d', emitters()), attach);
    const chrome = { type: 'chrome', request: 'launch' };
    assert.equal(injectLaunchEnvironment(chrome, '/d', emitters()).register, 'not-a-launch');
  });

  test("quoting follows Node's NODE_OPTIONS parser: spaces, quotes and backslashes survive a round trip", () => {
    for (const p of ['/plain/register.cjs', '/home/a b/register.cjs', '/q"uote/x.cjs', 'C:\\Users\\A B\\register.cjs', 'C:\\x\\']) {
      assert.deepEqual(splitNodeOptions(`--max-old-space-size=200 --require ${quoteNodeOption(p)}`), ['--max-old-space-size=200', '--require', p], p);
    }
    assert.equal(quoteNodeOption('/plain/register.cjs'), '/plain/register.cjs');
    assert.equal(splitNodeOptions('--require "unterminated'), undefined);
    assert.equal(loadsBusscopeRegister('--require "/a b/other.cjs"', REGISTER), false);
  });
});

describe('register injection: real Node processes started with the injected environment', () => {
  test("a register script in a folder with spaces and a quote loads, and the user's --max-old-space-size and --require survive", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'busscope inject "q" '));
    temps.push(dir);
    mkdirSync(path.join(dir, 'dist probe'));
    const register = path.join(dir, 'dist probe', 'register.cjs');
    const userHook = path.join(dir, 'my hook.cjs');
    const out = path.join(dir, 'out.json');
    // Stand-ins that leave evidence: the order they ran in, and what the environment said.
    writeFileSync(register, "(globalThis.__order ??= []).push('register'); globalThis.__emitters = process.env.BUSSCOPE_EMITTERS;\n");
    writeFileSync(userHook, "(globalThis.__order ??= []).push('user'); globalThis.userHookRan = true;\n");
    const config = injectProbeEnvironment(
      { type: 'node', request: 'launch', env: { NODE_OPTIONS: `--max-old-space-size=200 --require ${quoteNodeOption(userHook)}` } },
      path.join(dir, 'apps'),
      emitters({ registerScript: register, scope: 'app' }),
    );
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(config.env ?? {})) if (typeof v === 'string') env[k] = v;
    const app = `require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify({ order: globalThis.__order, user: globalThis.userHookRan, emitters: globalThis.__emitters,
      heapMb: Math.round(require('node:v8').getHeapStatistics().heap_size_limit / 1048576) }))`;
    const r = spawnSync(process.execPath, ['-e', app], { env, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    const seen = JSON.parse(readFileSync(out, 'utf8')) as { order: string[]; user: boolean; emitters: string; heapMb: number };
    assert.deepEqual(seen.order, ['user', 'register']);
    assert.equal(seen.user, true);
    assert.equal(seen.emitters, 'app');
    assert.ok(seen.heapMb < 400, `--max-old-space-size=200 did not survive: heap limit ${seen.heapMb} MB`);
  });
});

describe('register injection: settings and the one-time notice', () => {
  test('the manifest declares the emitter settings with the defaults the code uses', () => {
    const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
      contributes: {
        configuration: { properties: Record<string, { default: unknown; enum?: unknown[]; markdownDescription?: string; description?: string }> };
      };
    };
    const props = manifest.contributes.configuration.properties;
    for (const key of Object.values(EMITTER_SETTING)) {
      const p = props[`busscope.debug.${key}`];
      assert.ok(p, `busscope.debug.${key} is declared`);
      assert.deepEqual(p.default, EMITTER_SETTING_DEFAULTS[key]);
      assert.ok((p.markdownDescription ?? p.description ?? '').length > 60, `busscope.debug.${key} is described`);
    }
    assert.deepEqual(props['busscope.debug.emitters'].enum, ['all', 'app']);
    assert.deepEqual(
      readEmitterSettings(() => undefined),
      { instrumentEmitters: true, scope: 'all', classes: [] },
    );
  });

  test('hand-edited bad values fall back to the defaults; class names are cleaned', () => {
    const values: Record<string, unknown> = {
      instrumentEmitters: 'no',
      emitters: 'everything',
      emitterClasses: [' Socket ', '', 'A,B', 3, 'Socket', 'Server'],
    };
    assert.deepEqual(
      readEmitterSettings((k) => values[k]),
      { instrumentEmitters: true, scope: 'all', classes: ['Socket', 'Server'] },
    );
    assert.deepEqual(
      readEmitterSettings((k) => ({ instrumentEmitters: false, emitters: 'app', emitterClasses: 'Socket' })[k]),
      { instrumentEmitters: false, scope: 'app', classes: [] },
    );
  });

  test('the notice shows once (remembered), even for launches resolved together; its action turns the setting off', async () => {
    const data = new Map<string, unknown>();
    const state = { get: <T>(k: string) => data.get(k) as T | undefined, update: (k: string, v: unknown) => (data.set(k, v), Promise.resolve()) };
    const shown: string[] = [];
    let turnedOff = 0;
    let answer: (a: string | undefined) => void = () => undefined;
    const notice = new InjectionNotice(
      state,
      (message, action) => {
        shown.push(`${message} [${action}]`);
        return new Promise((resolve) => (answer = resolve));
      },
      () => {
        turnedOff++;
        return Promise.resolve();
      },
    );
    const first = notice.injected();
    const second = notice.injected();
    await new Promise((r) => setImmediate(r));
    answer(INJECTION_NOTICE_ACTION);
    await Promise.all([first, second]);
    assert.equal(shown.length, 1);
    assert.match(shown[0], /NODE_OPTIONS/);
    assert.match(shown[0], /busscope\.debug\.instrumentEmitters/);
    assert.equal(turnedOff, 1);
    assert.equal(data.get(INJECTION_NOTICE_KEY), true);
    // A new window (a new notice over the same globalState) says nothing.
    await new InjectionNotice(
      state,
      () => assert.fail('shown again'),
      () => assert.fail('turned off again'),
    ).injected();
    // Dismissed without the action: remembered too, setting untouched.
    const fresh = new Map<string, unknown>();
    let offs = 0;
    await new InjectionNotice(
      { get: <T>(k: string) => fresh.get(k) as T | undefined, update: (k, v) => (fresh.set(k, v), Promise.resolve()) },
      () => Promise.resolve(undefined),
      () => (offs++, Promise.resolve()),
    ).injected();
    assert.equal(offs, 0);
    assert.equal(fresh.get(INJECTION_NOTICE_KEY), true);
  });
});
