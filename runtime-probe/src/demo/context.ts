// What every game system receives: the three buses, simulated time, and the run's settings.
import type { EventBus } from '../bus/index';
import type { FrameClock, Random, Timers } from './clock';
import type { AudioEvents, GameplayEvents, UiEvents } from './events';

export interface DemoSettings {
  /** Seed of the simulation's random numbers. */
  readonly seed: number;
  /** Real CPU time the minimap burns on a full redraw (every 6th frame, 10 Hz). */
  readonly slowRedrawMs: number;
  /** A level lasts this long; unloading it disposes its HUD and enemies (this bounds the leaks). */
  readonly levelDurationMs: number;
  /** Player respawn period: each respawn leaks one HUD subscription. */
  readonly respawnPeriodMs: number;
}

export const DEFAULT_SETTINGS: DemoSettings = {
  seed: 0xb055c0,
  slowRedrawMs: 2.5,
  levelDurationMs: 90_000,
  respawnPeriodMs: 500,
};

export interface GameContext {
  readonly gameplay: EventBus<GameplayEvents>;
  readonly ui: EventBus<UiEvents>;
  readonly audio: EventBus<AudioEvents>;
  readonly clock: FrameClock;
  readonly timers: Timers;
  readonly random: Random;
  readonly settings: DemoSettings;
}

/** Base of every object that owns subscriptions: `name` and `id` make the inspector's owner label. */
export abstract class GameObject {
  private static nextId = 1;
  readonly id = GameObject.nextId++;
  abstract readonly name: string;
}
