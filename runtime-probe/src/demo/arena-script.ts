// The arena's level script. Designers author it as data (it was a JSON file in the editor), so
// event names are plain strings the type checker never sees: the bridge below hands them to the
// buses through an untyped view, the way script bindings usually do.
import type { DemoBusName } from './events';
import { GameObject, type GameContext } from './context';

interface ScriptStep {
  readonly what: string;
  readonly firstMs: number;
  readonly everyMs: number;
  readonly bus: DemoBusName;
  /** `dispatch` runs now; `enqueue` goes through the bus's deferred queue. */
  readonly mode: 'dispatch' | 'enqueue';
  readonly event: string;
  readonly payload: unknown;
}

export const ARENA_SCRIPT: readonly ScriptStep[] = [
  {
    // BUG (script-misspelled-kill-event): `enemy.kiled`. The ambush leader's scripted death is meant
    // to count for the kill feed and achievements, which listen to `enemy.killed`; nobody
    // listens to this name, so every dispatch is delivered to no one.
    what: 'ambush leader falls',
    firstMs: 1000,
    everyMs: 2500,
    bus: 'gameplay',
    mode: 'dispatch',
    event: 'enemy.kiled',
    payload: { enemyId: -1, kind: 'brute', critical: false },
  },
  {
    what: 'explosive barrels go off',
    firstMs: 1500,
    everyMs: 2500,
    bus: 'audio',
    mode: 'enqueue',
    event: 'sfx.play',
    payload: { sound: 'explosion_big', volume: 1 },
  },
  {
    what: 'crowd cheers',
    firstMs: 4000,
    everyMs: 9000,
    bus: 'audio',
    mode: 'enqueue',
    event: 'mixer.duck',
    payload: { amount: 0.2, ms: 800 },
  },
];

/** What script code may do to a bus: name-typed, payload-untyped. */
interface ScriptBus {
  dispatch(type: string, payload?: unknown): unknown;
  enqueue(type: string, payload?: unknown): void;
}

export class ArenaScript extends GameObject {
  readonly name = 'ArenaScript';
  fired = 0;

  constructor(ctx: GameContext, steps: readonly ScriptStep[] = ARENA_SCRIPT) {
    super();
    const buses: Record<DemoBusName, ScriptBus> = {
      gameplay: ctx.gameplay as unknown as ScriptBus,
      ui: ctx.ui as unknown as ScriptBus,
      audio: ctx.audio as unknown as ScriptBus,
    };
    for (const step of steps) {
      ctx.timers.every(
        step.everyMs,
        () => {
          this.fired++;
          const bus = buses[step.bus];
          if (step.mode === 'dispatch') bus.dispatch(step.event, step.payload);
          else bus.enqueue(step.event, step.payload);
        },
        step.firstMs,
      );
    }
  }
}
