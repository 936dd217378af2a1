// The demo world in-process, stepped frame by frame on simulated time: its traffic, its owners'
// lifecycles, and that each deliberate bug in bugs.ts really happens, early, and is bounded.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DispatchDepthError } from '../../../runtime-probe/src/bus/index';
import { DEMO_BUGS } from '../../../runtime-probe/src/demo/bugs';
import { FRAME_MS } from '../../../runtime-probe/src/demo/clock';
import { DemoWorld, type DemoWorldOptions, type HandlerErrorReport } from '../../../runtime-probe/src/demo/world';
import { RecordingTracer } from './recording-tracer';

// The minimap's busy-wait is real CPU time; most tests shrink it so they stay fast.
const FAST: DemoWorldOptions = { slowRedrawMs: 0.05 };

let tracer: RecordingTracer;
let worlds: DemoWorld[] = [];
function makeWorld(options: DemoWorldOptions = FAST): DemoWorld {
  const w = new DemoWorld(options);
  worlds.push(w);
  return w;
}
afterEach(() => {
  for (const w of worlds) w.dispose();
  worlds = [];
  tracer?.uninstall();
});
function record(): RecordingTracer {
  tracer = new RecordingTracer().install();
  return tracer;
}

const count = <T>(items: readonly T[], pred: (t: T) => boolean): number => items.filter(pred).length;

describe('demo world: traffic', () => {
  test('three buses carry the expected event types at their rates', () => {
    const rec = record();
    const world = makeWorld();
    world.advance(10_000);
    assert.deepEqual([...new Set(rec.busesCreated)].sort(), ['audio', 'gameplay', 'ui']);
    const top = rec.dispatches.filter((d) => d.depth === 0 || d.bus === 'audio');
    const per = (bus: string, type: string): number => count(rec.dispatches, (d) => d.bus === bus && d.type === type) / 10;
    assert.ok(Math.abs(per('gameplay', 'frame.tick') - 60) <= 1, `frame.tick ${per('gameplay', 'frame.tick')}/s`);
    assert.ok(Math.abs(per('gameplay', 'player.moved') - 20) <= 1, `player.moved ${per('gameplay', 'player.moved')}/s`);
    assert.ok(Math.abs(per('ui', 'cursor.moved') - 20) <= 1);
    assert.ok(Math.abs(per('gameplay', 'player.respawned') - 2) <= 0.1);
    const pickups = per('gameplay', 'item.picked');
    assert.ok(pickups >= 0.7 && pickups <= 1.5, `item.picked ${pickups}/s`);
    assert.ok(per('gameplay', 'combat.hit') >= 2, 'combat bursts');
    assert.ok(per('gameplay', 'enemy.killed') > 0.2, 'enemies die');
    assert.ok(count(rec.dispatches, (d) => d.type === 'enemy.spawned') > 5, 'enemies are (re)spawned');
    for (const type of ['sfx.play', 'music.cue', 'mixer.duck']) assert.ok(per('audio', type) > 0, `audio ${type}`);
    for (const type of ['input.key', 'layout.changed', 'toast.show', 'widget.opened', 'widget.closed']) assert.ok(per('ui', type) > 0, `ui ${type}`);
    assert.ok(top.length > 0);
  });

  test('audio requests go through the deferred queue and are flushed once per frame', () => {
    const rec = record();
    const world = makeWorld();
    world.advance(3000);
    const frames = world.clock.frame;
    assert.equal(
      count(rec.dispatches, (d) => d.bus === 'audio' && d.depth > 0),
      0,
      'flushed at top level, never nested',
    );
    assert.ok(rec.enqueues.filter((e) => e.bus === 'audio').length > 10);
    const audioDispatches = count(rec.dispatches, (d) => d.bus === 'audio');
    const flushed = rec.flushes.filter((f) => f.bus === 'audio').reduce((n, f) => n + f.dispatched, 0);
    assert.equal(flushed, audioDispatches, 'every audio dispatch came from a flush');
    assert.ok(rec.flushes.filter((f) => f.bus === 'audio').length <= frames);
  });

  test('owners come and go with every way of unsubscribing', () => {
    const rec = record();
    const world = makeWorld({ ...FAST, levelDurationMs: 6000 });
    world.advance(8000);
    const reasons = new Set(rec.unsubscribes.map((u) => u.reason));
    for (const r of ['dispose', 'once', 'signal', 'owner', 'dead-owner'] as const) assert.ok(reasons.has(r), `reason ${r}`);
    const damageNumbers = rec.subscribes.filter((s) => s.label === 'DamageNumber.animate');
    assert.ok(damageNumbers.length > 10, 'damage numbers are created');
    assert.ok(count(rec.unsubscribes, (u) => u.label === 'DamageNumber.animate' && u.reason === 'signal') >= damageNumbers.length - 10);
    assert.ok(world.levelsLoaded >= 2);
  });

  test('priorities order handlers and the shield consumes some hits legitimately', () => {
    const rec = record();
    const world = makeWorld();
    world.advance(10_000);
    const shield = rec.subscribes.find((s) => s.label === 'Shield.block');
    assert.ok(shield && shield.priority === 10);
    const hits = rec.dispatches.filter((d) => d.type === 'combat.hit');
    const blocked = count(hits, (d) => d.consumedBy === shield.id);
    assert.ok(blocked > 0 && blocked < hits.length, `blocked ${blocked} of ${hits.length}`);
    const labels = world.gameplay.subscriptions('frame.tick').map((s) => s.label);
    assert.equal(labels[0], 'CameraRig.smooth', 'priority 20 runs first');
  });

  test("handler errors reach the world's error sink with bus, type and subscription", () => {
    const reports: HandlerErrorReport[] = [];
    const world = makeWorld({ ...FAST, onHandlerError: (r) => reports.push(r) });
    world.advance(3000);
    const kinds = new Set(reports.map((r) => `${r.bus}/${r.type}`));
    assert.deepEqual([...kinds].sort(), ['audio/sfx.play', 'ui/layout.changed']);
    assert.equal(reports.length, world.errorCounts.audio + world.errorCounts.ui + world.errorCounts.gameplay);
    const mixer = world.audio.subscriptions('sfx.play').find((s) => s.label === 'AudioMixer.playSfx');
    assert.ok(reports.some((r) => r.subscriptionId === mixer?.id));
  });

  test('same seed, same run', () => {
    const rec = record();
    const a = makeWorld();
    a.advance(4000);
    const first = rec.dispatches.map((d) => `${d.bus}/${d.type}/${d.delivered}/${d.consumedBy > 0}`);
    a.dispose();
    rec.uninstall();
    const rec2 = record();
    const b = makeWorld();
    b.advance(4000);
    const second = rec2.dispatches.map((d) => `${d.bus}/${d.type}/${d.delivered}/${d.consumedBy > 0}`);
    assert.deepEqual(second, first);
  });
});

describe('demo world: every deliberate bug happens within 3 s', () => {
  let rec: RecordingTracer;
  let world: DemoWorld;
  before(() => {
    rec = new RecordingTracer().install();
    world = new DemoWorld(); // the real busy-wait: the slow handler must really be slow
    world.advance(3000);
  });
  after(() => {
    world.dispose();
    rec.uninstall();
  });

  const checks: Record<string, () => void> = {
    'hud-healthbar-resubscribe': () => {
      const subs = rec.subscribes.filter((s) => s.label === 'HealthBar.onHealthChanged');
      assert.ok(subs.length >= 6, `${subs.length} HealthBar subscriptions after 3 s`);
      assert.equal(new Set(subs.map((s) => s.owner)).size, 1, 'one owner, the same widget');
      assert.equal(
        count(rec.unsubscribes, (u) => u.label === 'HealthBar.onHealthChanged'),
        0,
        'never unsubscribed',
      );
      assert.equal(world.gameplay.listenerCount('player.health'), subs.length, 'all still listening');
    },
    'tooltip-disposed-still-subscribed': () => {
      const deadOwner = rec.unsubscribes.filter((u) => u.label === 'Tooltip.followCursor' && u.reason === 'dead-owner');
      assert.ok(deadOwner.length >= 1);
      assert.equal(
        count(rec.unsubscribes, (u) => u.label === 'Tooltip.followCursor' && u.reason !== 'dead-owner'),
        0,
      );
    },
    'zombie-enemy-ai': () => {
      const killedOwners = rec.unsubscribes.filter((u) => u.label === 'Enemy.onHit' && u.reason === 'dispose').map((u) => u.owner);
      assert.ok(killedOwners.length >= 1, 'an enemy died');
      for (const owner of killedOwners) {
        const ai = world.gameplay.subscriptions('player.moved').find((s) => s.label === 'EnemyAI.trackPlayer' && s.owner === owner);
        assert.ok(ai, `${owner}'s AI is still subscribed after its death`);
      }
      const liveAi = count(world.gameplay.subscriptions('player.moved'), (s) => s.label === 'EnemyAI.trackPlayer');
      assert.ok(liveAi > world.level.spawner.aliveCount, `${liveAi} AI subscriptions for ${world.level.spawner.aliveCount} live enemies`);
    },
    'script-misspelled-kill-event': () => {
      const typo = rec.dispatches.filter((d) => d.bus === 'gameplay' && d.type === 'enemy.kiled');
      assert.ok(typo.length >= 1);
      assert.ok(typo.every((d) => d.delivered === 0));
      assert.ok(world.gameplay.listenerCount('enemy.killed') > 0, 'the near miss has listeners');
    },
    'boss-achievement-never-fires': () => {
      assert.equal(
        count(world.gameplay.subscriptions('boss.defeated'), (s) => s.label === 'Achievements.bossSlayer'),
        1,
      );
      assert.equal(
        count(rec.dispatches, (d) => d.type === 'boss.defeated'),
        0,
      );
    },
    'minimap-slow-redraw': () => {
      const redraw = rec.subscribes.find((s) => s.label === 'Minimap.redraw');
      assert.ok(redraw);
      const calls = rec.handlerCalls.filter((c) => c.id === redraw.id);
      const slow = count(calls, (c) => c.duration >= 2);
      assert.ok(slow >= calls.length / 6 - 2 && slow <= calls.length / 6 + 2, `${slow} slow of ${calls.length}`);
      const ticks = rec.dispatches.filter((d) => d.type === 'frame.tick');
      assert.ok(count(ticks, (d) => d.duration >= 2) >= ticks.length / 6 - 2);
    },
    'debug-console-swallows-keys': () => {
      const consoleSub = rec.subscribes.find((s) => s.label === 'DebugConsole.captureKeys');
      assert.ok(consoleSub && consoleSub.priority === 100);
      const keys = rec.dispatches.filter((d) => d.type === 'input.key');
      assert.ok(keys.length >= 7);
      assert.ok(keys.every((d) => d.consumedBy === consoleSub.id && d.delivered === 1));
      assert.equal(world.hotkeys.handled, 0);
      assert.equal(world.ui.subscriptions('input.key').find((s) => s.label === 'Hotkeys.onKey')?.calls, 0);
    },
    'inventory-relayout-loop': () => {
      assert.ok(rec.depthLimits.some((h) => h.bus === 'ui' && h.type === 'layout.changed'));
      const errors = rec.handlerErrors.filter((e) => e.label === 'InventoryPanel.relayout');
      assert.ok(errors.length >= 1);
      assert.ok(errors.every((e) => e.error instanceof DispatchDepthError));
    },
    'mixer-missing-sound-bank': () => {
      const errors = rec.handlerErrors.filter((e) => e.label === 'AudioMixer.playSfx');
      assert.ok(errors.length >= 1);
      assert.match(String(errors[0]?.error), /explosion_big/);
      assert.ok(world.mixer.played > errors.length, 'only sometimes');
    },
  };

  test('each bug in bugs.ts has a check here', () => {
    assert.deepEqual(Object.keys(checks).sort(), DEMO_BUGS.map((b) => b.id).sort());
  });
  for (const bug of DEMO_BUGS) {
    test(`${bug.id} (${bug.kind})`, () => {
      const check = checks[bug.id];
      assert.ok(check, `no check for ${bug.id}`);
      check();
    });
  }
  test("bugs.ts names each bug's bus, event type and labels as the app uses them", () => {
    const labelsByBus = new Map<string, Set<string>>();
    for (const s of rec.subscribes) {
      if (!labelsByBus.has(s.bus)) labelsByBus.set(s.bus, new Set());
      labelsByBus.get(s.bus)?.add(`${s.type}|${s.label}`);
    }
    for (const bug of DEMO_BUGS) {
      if (bug.label !== null) assert.ok(labelsByBus.get(bug.bus)?.has(`${bug.eventType}|${bug.label}`), `${bug.id}: ${bug.bus} ${bug.eventType} ${bug.label}`);
      else
        assert.ok(
          rec.dispatches.some((d) => d.bus === bug.bus && d.type === bug.eventType),
          `${bug.id}: dispatch of ${bug.eventType}`,
        );
      if (bug.related?.label)
        assert.ok(
          rec.subscribes.some((s) => s.label === bug.related?.label),
          `${bug.id}: related ${bug.related.label}`,
        );
    }
  });
});

describe('demo world: bounded over a long run', () => {
  test('the leaks reset at each level unload; subscriptions, timers and heap stay bounded', async () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    const world = makeWorld({ ...FAST, levelDurationMs: 20_000 });
    let maxSubs = 0;
    let maxHealthBar = 0;
    let maxTimers = 0;
    let heapAfterWarmUp = 0;
    const healthBarCount = (): number => count(world.gameplay.subscriptions('player.health'), (s) => s.label === 'HealthBar.onHealthChanged');
    const heapNow = async (): Promise<number> => {
      // WeakRef targets and pending microtasks live until the job ends: measure between jobs.
      await new Promise((r) => setImmediate(r));
      gc?.();
      return process.memoryUsage().heapUsed;
    };
    const seconds = 360;
    for (let t = 1; t <= seconds; t++) {
      world.advance(1000);
      await new Promise((r) => setImmediate(r)); // one job per simulated second, as in real time
      const subs = world.gameplay.listenerCount() + world.ui.listenerCount() + world.audio.listenerCount();
      maxSubs = Math.max(maxSubs, subs);
      maxHealthBar = Math.max(maxHealthBar, healthBarCount());
      maxTimers = Math.max(maxTimers, world.timers.size);
      if (t === 60) heapAfterWarmUp = await heapNow();
    }
    assert.ok(world.levelsLoaded >= 18);
    assert.ok(maxHealthBar >= 39 && maxHealthBar <= 41, `HealthBar listeners peak at ${maxHealthBar} (20 s of 500 ms respawns)`);
    assert.ok(healthBarCount() <= 21, 'reset by the last level unload');
    assert.ok(maxSubs < 250, `at most ${maxSubs} subscriptions`);
    assert.ok(maxTimers < 60, `at most ${maxTimers} timers`);
    assert.ok(Math.abs(world.clock.frame * FRAME_MS - seconds * 1000) < FRAME_MS * 2);
    if (gc) {
      const growth = (await heapNow()) - heapAfterWarmUp;
      assert.ok(growth < 2_000_000, `heap grew ${(growth / 1e6).toFixed(2)} MB over 5 simulated minutes`);
    }
  });
});
