// Achievements: count kills and pickups, announce unlocks with a toast and a jingle.
import { GameObject, type GameContext } from './context';

interface Achievement {
  readonly title: string;
  readonly counter: 'kills' | 'pickups';
  readonly goal: number;
}

const ACHIEVEMENTS: readonly Achievement[] = [
  { title: 'First Blood', counter: 'kills', goal: 1 },
  { title: 'Exterminator', counter: 'kills', goal: 25 },
  { title: 'Magpie', counter: 'pickups', goal: 10 },
  { title: 'Hoarder', counter: 'pickups', goal: 100 },
];

export class Achievements extends GameObject {
  readonly name = 'Achievements';
  kills = 0;
  pickups = 0;
  readonly unlocked = new Set<string>();

  constructor(private readonly ctx: GameContext) {
    super();
    const { gameplay } = ctx;
    gameplay.subscribe(
      'enemy.killed',
      () => {
        this.kills++;
        this.check();
      },
      { owner: this, label: 'Achievements.countKills' },
    );
    gameplay.subscribe(
      'item.picked',
      () => {
        this.pickups++;
        this.check();
      },
      { owner: this, label: 'Achievements.countPickups' },
    );
    // BUG (boss-achievement-never-fires): the boss fight was cut, so nothing ever dispatches
    // `boss.defeated`; this subscription waits forever.
    gameplay.subscribe('boss.defeated', (e) => this.unlock(`Boss Slayer (${e.bossId})`), {
      owner: this,
      label: 'Achievements.bossSlayer',
    });
  }

  private check(): void {
    for (const a of ACHIEVEMENTS) {
      if (!this.unlocked.has(a.title) && this[a.counter] >= a.goal) this.unlock(a.title);
    }
  }

  private unlock(title: string): void {
    this.unlocked.add(title);
    this.ctx.ui.dispatch('toast.show', { text: `Achievement unlocked: ${title}`, durationMs: 2500 });
    this.ctx.audio.enqueue('sfx.play', { sound: 'achievement', volume: 0.9 });
  }
}

/** Stacked notifications in the corner of the screen. */
export class ToastStack extends GameObject {
  readonly name = 'ToastStack';
  readonly visible: string[] = [];

  constructor(ctx: GameContext) {
    super();
    ctx.ui.subscribe(
      'toast.show',
      (e) => {
        this.visible.push(e.text);
        ctx.timers.after(e.durationMs, () => {
          this.visible.shift();
        });
      },
      { owner: this, label: 'ToastStack.show' },
    );
  }
}
