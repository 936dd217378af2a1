// The built demo app (runtime-probe/dist/demo.cjs) as the extension runs it: a real process with
// BUSSCOPE=1, found through its discovery file, attached with the real ProbeClient over the real
// socket. Asserts that the three buses, their traffic and each deliberate bug's raw signal reach
// the client, and that SIGTERM ends the app cleanly and removes its discovery file. A second run
// records with BUSSCOPE_RECORD and --duration and reads the trace back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProbeClient, readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord, ProbeSnapshot, StreamMessage, SubscribeRecord, SubscriptionSnapshot } from '../../../runtime-probe/src/protocol/index';
import { DEMO_BUGS } from '../../../runtime-probe/src/demo/bugs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DEMO = path.join(root, 'runtime-probe/dist/demo.cjs');
const ATTACHED_MS = 3000;
/** On a loaded machine the demo may run slower than real time: keep reading until every signal is in. */
const MAX_ATTACHED_MS = 10_000;

interface RunningDemo {
  readonly child: ChildProcess;
  readonly startLine: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: string;
}

function startDemo(args: readonly string[], env: NodeJS.ProcessEnv): Promise<RunningDemo> {
  const child = spawn(process.execPath, ['--enable-source-maps', DEMO, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const demo: { stderr: string } = { stderr: '' };
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      demo.stderr += d;
    });
    const timer = setTimeout(() => reject(new Error(`no start line within 10 s; stderr: ${demo.stderr}`)), 10_000);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0 && timer) {
        clearTimeout(timer);
        resolve(Object.assign(demo, { child, startLine: out.slice(0, nl), exited }) as RunningDemo);
      }
    });
    void exited.then(({ code }) => reject(new Error(`demo exited (${code}) before its start line; stderr: ${demo.stderr}`)));
  });
}

function field(line: string, key: string): string | undefined {
  return new RegExp(`\\b${key}=(\\S+)`).exec(line)?.[1];
}

/** What the client saw: snapshot subscriptions and records, with subscription ids resolved to labels. */
class Observed {
  readonly records: BusRecord[] = [];
  snapshot: ProbeSnapshot | undefined;
  readonly subs = new Map<number, { label: string | null; type: string; owner: string | null; bus: number; site: SubscribeRecord['site'] }>();
  readonly busNames = new Map<number, string>();

  add(m: StreamMessage): void {
    if (m.type === 'snapshot') {
      this.snapshot ??= m.snapshot;
      for (const b of m.snapshot.buses) this.busNames.set(b.id, b.name);
      for (const s of m.snapshot.subscriptions) this.noteSub(s);
    } else if (m.type === 'records') {
      for (const r of m.records) {
        this.records.push(r);
        if (r.kind === 'subscribe') this.noteSub(r);
        if (r.kind === 'bus-created') this.busNames.set(r.bus, r.name);
      }
    }
  }
  private noteSub(s: SubscribeRecord | SubscriptionSnapshot): void {
    const id = 'subscriptionId' in s ? s.subscriptionId : s.id;
    this.subs.set(id, { label: s.label, type: s.type, owner: s.owner, bus: s.bus, site: s.site });
  }
  of<K extends BusRecord['kind']>(kind: K): Extract<BusRecord, { kind: K }>[] {
    return this.records.filter((r): r is Extract<BusRecord, { kind: K }> => r.kind === kind);
  }
  idsLabelled(label: string): number[] {
    return [...this.subs].filter(([, s]) => s.label === label).map(([id]) => id);
  }
  label(id: number): string | null | undefined {
    return this.subs.get(id)?.label;
  }
  bus(name: string): number {
    const id = [...this.busNames].find(([, n]) => n === name)?.[0];
    assert.ok(id !== undefined, `bus ${name} seen`);
    return id;
  }
}

/** One check per deliberate bug: the raw signal the inspector's analyses start from. */
const bugChecks: Record<string, (o: Observed) => void> = {
  'hud-healthbar-resubscribe': (o) => {
    const subs = o.of('subscribe').filter((r) => r.label === 'HealthBar.onHealthChanged');
    assert.ok(subs.length >= 4, `${subs.length} HealthBar subscribes in ${ATTACHED_MS} ms`);
    const sites = new Set(subs.map((s) => `${s.site?.file}:${s.site?.line}:${s.site?.column}`));
    assert.equal(sites.size, 1, 'all from one subscribe site');
    assert.match(subs[0]?.site?.file ?? '', /src[\\/]demo[\\/]hud\.ts$/, 'source-mapped to the demo source');
    assert.equal(new Set(subs.map((s) => s.owner)).size, 1, 'one owner');
    const ids = new Set(o.idsLabelled('HealthBar.onHealthChanged'));
    assert.equal(o.of('unsubscribe').filter((u) => ids.has(u.subscriptionId)).length, 0, 'never unsubscribed');
  },
  'tooltip-disposed-still-subscribed': (o) => {
    const dead = o.of('unsubscribe').filter((u) => u.reason === 'dead-owner');
    assert.ok(
      dead.some((u) => o.label(u.subscriptionId) === 'Tooltip.followCursor'),
      'a dead-owner unsubscribe of Tooltip.followCursor',
    );
  },
  'zombie-enemy-ai': (o) => {
    const deadOwners = o
      .of('unsubscribe')
      .filter((u) => u.reason === 'dispose' && o.label(u.subscriptionId) === 'Enemy.onHit')
      .map((u) => o.subs.get(u.subscriptionId)?.owner);
    assert.ok(deadOwners.length >= 1, 'an enemy died (its Enemy.onHit disposed)');
    const removed = new Set(o.of('unsubscribe').map((u) => u.subscriptionId));
    for (const owner of deadOwners) {
      const ai = [...o.subs].find(([id, s]) => s.owner === owner && s.label === 'EnemyAI.trackPlayer' && !removed.has(id));
      assert.ok(ai, `${owner}'s EnemyAI.trackPlayer is still registered`);
    }
  },
  'script-misspelled-kill-event': (o) => {
    const typo = o.of('dispatch').filter((d) => d.type === 'enemy.kiled');
    assert.ok(typo.length >= 1, 'enemy.kiled dispatched');
    assert.ok(typo.every((d) => d.delivered === 0 && d.bus === o.bus('gameplay')));
  },
  'boss-achievement-never-fires': (o) => {
    assert.ok(o.idsLabelled('Achievements.bossSlayer').length === 1);
    assert.equal(o.of('dispatch').filter((d) => d.type === 'boss.defeated').length, 0);
  },
  'minimap-slow-redraw': (o) => {
    const [redraw] = o.idsLabelled('Minimap.redraw');
    const calls = o.of('handler').filter((h) => h.subscriptionId === redraw);
    const slow = calls.filter((h) => h.duration >= 2);
    assert.ok(calls.length > 100 && slow.length >= calls.length / 6 - 3, `${slow.length} slow of ${calls.length}`);
  },
  'debug-console-swallows-keys': (o) => {
    const [consoleId] = o.idsLabelled('DebugConsole.captureKeys');
    const keys = o.of('dispatch').filter((d) => d.type === 'input.key');
    assert.ok(keys.length >= 5);
    assert.ok(keys.every((d) => d.consumedBy === consoleId && d.delivered === 1));
    const [hotkeys] = o.idsLabelled('Hotkeys.onKey');
    assert.equal(o.of('handler').filter((h) => h.subscriptionId === hotkeys).length, 0, 'Hotkeys.onKey never runs');
  },
  'inventory-relayout-loop': (o) => {
    assert.ok(o.of('depth-limit').some((d) => d.type === 'layout.changed' && d.bus === o.bus('ui')));
    assert.ok(o.of('handler-error').some((e) => o.label(e.subscriptionId) === 'InventoryPanel.relayout' && /DispatchDepthError/.test(e.message)));
  },
  'mixer-missing-sound-bank': (o) => {
    const errors = o.of('handler-error').filter((e) => o.label(e.subscriptionId) === 'AudioMixer.playSfx');
    assert.ok(errors.length >= 1);
    assert.match(errors[0]?.message ?? '', /explosion_big/);
  },
};

function allSignalsSeen(o: Observed): boolean {
  try {
    for (const check of Object.values(bugChecks)) check(o);
    return true;
  } catch {
    return false;
  }
}

describe('demo app, live through the probe', { timeout: 30_000 }, () => {
  const discoveryDir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-demo-test-'));
  const observed = new Observed();
  let demo: RunningDemo;
  let discoveryFile: string;
  let exit: { code: number | null; signal: NodeJS.Signals | null };
  let clientClosed: Promise<unknown>;

  before(async () => {
    assert.ok(fs.existsSync(DEMO), `${DEMO} is built (npm run build)`);
    demo = await startDemo(['--quiet'], { BUSSCOPE: '1', BUSSCOPE_DISCOVERY_DIR: discoveryDir });
    discoveryFile = field(demo.startLine, 'discovery') ?? '';
    const entry = JSON.parse(fs.readFileSync(discoveryFile, 'utf8')) as { port: number; token: string; pid: number; name: string };
    assert.equal(entry.pid, demo.child.pid);
    assert.equal(entry.name, 'busscope-demo');
    assert.equal(String(entry.port), field(demo.startLine, 'port'));
    const client = await ProbeClient.connect({ port: entry.port, token: entry.token, clientName: 'demo-test', onMessage: (m) => observed.add(m) });
    clientClosed = client.closed;
    const attachedAt = Date.now();
    await new Promise((r) => setTimeout(r, ATTACHED_MS));
    while (!allSignalsSeen(observed) && Date.now() - attachedAt < MAX_ATTACHED_MS) await new Promise((r) => setTimeout(r, 250));
    demo.child.kill('SIGTERM');
    exit = await demo.exited;
    await clientClosed;
  });
  after(() => {
    if (demo?.child.exitCode === null) demo.child.kill('SIGKILL');
    fs.rmSync(discoveryDir, { recursive: true, force: true });
  });

  test('the start line names pid, port and discovery file', () => {
    assert.match(demo.startLine, new RegExp(`^busscope-demo running: pid=${demo.child.pid} port=\\d+ discovery=\\S+$`));
  });

  test('SIGTERM ends it cleanly and removes its discovery file', () => {
    assert.deepEqual(exit, { code: 0, signal: null }, demo.stderr);
    assert.equal(fs.existsSync(discoveryFile), false);
    assert.deepEqual(fs.readdirSync(discoveryDir), []);
    assert.equal(demo.stderr, '', '--quiet prints nothing else');
  });

  test('three buses with the expected traffic', () => {
    assert.ok(observed.snapshot, 'a snapshot first');
    assert.deepEqual(observed.snapshot.buses.map((b) => b.name).sort(), ['audio', 'gameplay', 'ui']);
    const seen = new Set(observed.of('dispatch').map((d) => `${observed.busNames.get(d.bus)}/${d.type}`));
    for (const t of [
      'gameplay/frame.tick',
      'gameplay/player.moved',
      'gameplay/player.health',
      'gameplay/player.respawned',
      'gameplay/combat.hit',
      'gameplay/enemy.killed',
      'gameplay/item.picked',
      'ui/input.key',
      'ui/cursor.moved',
      'ui/layout.changed',
      'audio/sfx.play',
    ])
      assert.ok(seen.has(t), `${t} dispatched`);
    const ticks = observed.of('dispatch').filter((d) => d.type === 'frame.tick').length;
    assert.ok(ticks > (ATTACHED_MS / 1000) * 30, `${ticks} frame ticks in at least ${ATTACHED_MS} ms`);
    assert.ok(observed.of('enqueue').length > 0 && observed.of('flush').length > 0, 'the audio queue');
    assert.equal(observed.of('drops').length, 0, 'nothing dropped at this rate');
  });

  test('each bug in bugs.ts has a check here', () => {
    assert.deepEqual(Object.keys(bugChecks).sort(), DEMO_BUGS.map((b) => b.id).sort());
  });
  for (const bug of DEMO_BUGS) {
    test(`bug ${bug.id} (${bug.kind}) shows in the records`, () => {
      const check = bugChecks[bug.id];
      assert.ok(check);
      check(observed);
    });
  }
});

describe('demo app, recorded with BUSSCOPE_RECORD and --duration', { timeout: 30_000 }, () => {
  test('stops by itself and leaves a readable trace with the same signals', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-demo-trace-'));
    try {
      const trace = path.join(dir, 'demo.bustrace');
      const demo = await startDemo(['--duration', '2', '--quiet'], { BUSSCOPE_RECORD: trace });
      assert.equal(field(demo.startLine, 'trace'), trace);
      assert.equal(field(demo.startLine, 'port'), undefined, 'no server without BUSSCOPE=1');
      assert.deepEqual(await demo.exited, { code: 0, signal: null });
      const o = new Observed();
      for (const m of await readTraceFileMessages(trace)) o.add(m);
      assert.ok(o.of('dispatch').some((d) => d.type === 'enemy.kiled' && d.delivered === 0));
      assert.ok(o.of('unsubscribe').some((u) => u.reason === 'dead-owner'));
      assert.ok(o.of('handler-error').length >= 2);
      assert.ok(o.of('depth-limit').length >= 1);
      assert.ok(o.of('subscribe').filter((s) => s.label === 'HealthBar.onHealthChanged').length >= 4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
