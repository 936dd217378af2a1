// The demo's deliberate bugs, machine-readable: the inspector's analyses are tested against this
// list (each bug must be found), and the demo's own tests check that each one really happens.
// Labels are the subscription labels used in the code, so a finding can be matched to its bug.
// Every bug shows within ~1.6 s of start and recurs at least every 2.5 s (the never-dispatched one
// is there from the start), so any 3 s of attached time sees each of them.
import type { DemoBusName } from './events';

/** Which of the inspector's warnings should find the bug. */
export type DemoBugKind =
  | 'listener-growth'
  | 'dead-owner'
  | 'owner-gone-still-registered'
  | 'dispatch-without-listeners'
  | 'never-dispatched'
  | 'slow-handler'
  | 'starved-subscriber'
  | 'depth-limit'
  | 'throwing-handler';

export interface DemoBug {
  readonly id: string;
  readonly kind: DemoBugKind;
  /** One sentence for people. */
  readonly description: string;
  readonly bus: DemoBusName;
  /** The event type the finding is about. */
  readonly eventType: string;
  /** The label of the subscription at fault, or null when the fault is a dispatch (no subscription). */
  readonly label: string | null;
  /** The source file (under runtime-probe/src/demo/) holding the faulty line. */
  readonly file: string;
  /** What shows it in the probe's records, and how soon after start. */
  readonly signal: string;
  /** The other party, where there is one: the near-miss name, the consumer that starves this one. */
  readonly related?: { readonly eventType?: string; readonly label?: string };
}

export const DEMO_BUGS: readonly DemoBug[] = [
  {
    id: 'hud-healthbar-resubscribe',
    kind: 'listener-growth',
    description:
      'The HUD re-binds its health bar on every player respawn and never disposes the previous subscription: one more `player.health` listener per respawn, all from one subscribe site and one live owner.',
    bus: 'gameplay',
    eventType: 'player.health',
    label: 'HealthBar.onHealthChanged',
    file: 'hud.ts',
    signal:
      'A subscribe record from the same site (HealthBar.bindToPlayer) every respawn (500 ms), none unsubscribed: +10 listeners in the first 5 s, up to 180 per 90 s level. Level unload removes them by owner (reason owner), then growth starts over.',
  },
  {
    id: 'tooltip-disposed-still-subscribed',
    kind: 'dead-owner',
    description:
      'Closing a tooltip sets `disposed = true` but never disposes its `cursor.moved` subscription; the bus finds the dead owner at the next cursor move and removes the subscription instead of calling it.',
    bus: 'ui',
    eventType: 'cursor.moved',
    label: 'Tooltip.followCursor',
    file: 'tooltips.ts',
    signal: "An unsubscribe record with reason 'dead-owner' for each tooltip, ~1.55 s after start and then every 2.5 s (never a 'dispose').",
  },
  {
    id: 'zombie-enemy-ai',
    kind: 'owner-gone-still-registered',
    description:
      "A destroyed enemy disposes its `combat.hit` subscription but not its AI's `player.moved` one; it marks itself with the game's own `destroyed` flag, which the bus's owner check does not know, and the level keeps every spawned enemy for its stats, so the dead enemy's AI stays registered and is called at 20 Hz until the level unloads.",
    bus: 'gameplay',
    eventType: 'player.moved',
    label: 'EnemyAI.trackPlayer',
    file: 'enemies.ts',
    signal:
      "For an owner Enemy#N: `enemy.killed` for enemyId N and its 'Enemy.onHit' subscription unsubscribed (reason 'dispose'), while its 'EnemyAI.trackPlayer' subscription stays and keeps being called; live EnemyAI.trackPlayer subscriptions grow past the 5 live enemies (to ~100 by the end of a 90 s level). First kill within ~0.5 s, then kills in every combat burst (1.8 s).",
    related: { label: 'Enemy.onHit' },
  },
  {
    id: 'script-misspelled-kill-event',
    kind: 'dispatch-without-listeners',
    description:
      'The arena level script (data, so the type checker never sees it) dispatches `enemy.kiled` instead of `enemy.killed`; nobody listens to the misspelled name.',
    bus: 'gameplay',
    eventType: 'enemy.kiled',
    label: null,
    file: 'arena-script.ts',
    signal: "A dispatch of 'enemy.kiled' with delivered 0 at 1 s and every 2.5 s; 'enemy.killed' (the near miss) has listeners and is dispatched.",
    related: { eventType: 'enemy.killed' },
  },
  {
    id: 'boss-achievement-never-fires',
    kind: 'never-dispatched',
    description: 'The achievements system subscribes to `boss.defeated`, but the boss fight was cut and nothing dispatches it.',
    bus: 'gameplay',
    eventType: 'boss.defeated',
    label: 'Achievements.bossSlayer',
    file: 'achievements.ts',
    signal: "A live subscription to 'boss.defeated' from start (in the snapshot), and no dispatch of that type ever.",
  },
  {
    id: 'minimap-slow-redraw',
    kind: 'slow-handler',
    description: 'The minimap fully redraws on every 6th `frame.tick` (a 60 Hz event) and the redraw busy-waits ~2.5 ms of CPU.',
    bus: 'gameplay',
    eventType: 'frame.tick',
    label: 'Minimap.redraw',
    file: 'hud.ts',
    signal:
      "One 'frame.tick' dispatch in six (10/s) takes ≥ 2.5 ms, all of it in the Minimap.redraw handler (handler records); the event's other handlers take microseconds.",
  },
  {
    id: 'debug-console-swallows-keys',
    kind: 'starved-subscriber',
    description: 'The debug console (priority 100) consumes every key, open or not, so the game hotkeys (priority 0) never run.',
    bus: 'ui',
    eventType: 'input.key',
    label: 'Hotkeys.onKey',
    file: 'input.ts',
    signal:
      "Every 'input.key' dispatch (every 350 ms from 0.2 s) is consumed by DebugConsole.captureKeys with delivered 1; Hotkeys.onKey's call count stays 0.",
    related: { label: 'DebugConsole.captureKeys' },
  },
  {
    id: 'inventory-relayout-loop',
    kind: 'depth-limit',
    description:
      'The inventory panel answers `layout.changed` by widening itself and announcing another `layout.changed`, which recurses until the bus refuses to nest deeper.',
    bus: 'ui',
    eventType: 'layout.changed',
    label: 'InventoryPanel.relayout',
    file: 'panels.ts',
    signal:
      "A depth-limit hit for 'layout.changed' (and a DispatchDepthError handler error from InventoryPanel.relayout) each time the inventory opens: at the first item pickup (~0.7 s), then every other pickup (~2 s).",
  },
  {
    id: 'mixer-missing-sound-bank',
    kind: 'throwing-handler',
    description: 'The audio mixer throws for sounds whose bank was never loaded (`explosion_big`: brute deaths and the arena barrels).',
    bus: 'audio',
    eventType: 'sfx.play',
    label: 'AudioMixer.playSfx',
    file: 'audio.ts',
    signal: "A handler error from AudioMixer.playSfx during the audio queue's flush, at 1.5 s and every 2.5 s (barrels) and at each brute death.",
  },
];

/** The bug with this id, if any. */
export function demoBugById(id: string): DemoBug | undefined {
  return DEMO_BUGS.find((b) => b.id === id);
}
