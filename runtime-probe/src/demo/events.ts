// The demo's event maps: one per bus. Names are what the inspector shows, so they read like a real
// game's: `area.verb` in the past tense for facts, imperative for requests (`sfx.play`).

export type EnemyKind = 'grunt' | 'archer' | 'brute';
export type ItemKind = 'coin' | 'potion' | 'ammo' | 'gem';

/** Simulation facts: the world, the player, combat. */
export interface GameplayEvents {
  'frame.tick': { frame: number; dt: number };
  'player.moved': { x: number; y: number; speed: number };
  'player.health': { current: number; max: number };
  'player.died': { cause: string };
  'player.respawned': { spawnPoint: number; respawns: number };
  'combat.hit': { attackerId: number; targetId: number; damage: number; critical: boolean };
  'enemy.spawned': { enemyId: number; kind: EnemyKind };
  'enemy.killed': { enemyId: number; kind: EnemyKind; critical: boolean };
  'item.picked': { itemId: number; kind: ItemKind; picker: string };
  'wave.started': { wave: number };
  // Declared for the boss fight that was never implemented: subscribed to, never dispatched.
  'boss.defeated': { bossId: string; timeMs: number };
  'level.loaded': { level: number };
}

/** Widgets and input. */
export interface UiEvents {
  'input.key': { key: string; repeat: boolean };
  'cursor.moved': { x: number; y: number };
  'layout.changed': { widget: string; width: number; height: number };
  'toast.show': { text: string; durationMs: number };
  'widget.opened': { widget: string };
  'widget.closed': { widget: string };
}

/** Requests to the audio engine; queued during the frame and flushed at its end. */
export interface AudioEvents {
  'sfx.play': { sound: string; volume: number };
  'music.cue': { track: string };
  'mixer.duck': { amount: number; ms: number };
}

export type DemoBusName = 'gameplay' | 'ui' | 'audio';
