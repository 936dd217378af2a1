// Small always-on systems: camera, particles, item spawns and waves.
import { GameObject, type GameContext } from './context';
import type { ItemKind } from './events';

export class CameraRig extends GameObject {
  readonly name = 'CameraRig';
  x = 0;
  y = 0;
  private targetX = 0;
  private targetY = 0;
  shake = 0;

  constructor(ctx: GameContext) {
    super();
    const { gameplay } = ctx;
    gameplay.subscribe(
      'player.moved',
      (e) => {
        this.targetX = e.x;
        this.targetY = e.y;
      },
      { owner: this, label: 'CameraRig.follow' },
    );
    gameplay.subscribe(
      'frame.tick',
      () => {
        this.x += (this.targetX - this.x) * 0.2;
        this.y += (this.targetY - this.y) * 0.2;
        this.shake *= 0.9;
      },
      { owner: this, priority: 20, label: 'CameraRig.smooth' },
    );
    gameplay.subscribe(
      'combat.hit',
      (e) => {
        this.shake = Math.min(1, this.shake + e.damage / 40);
      },
      {
        owner: this,
        priority: -20,
        label: 'CameraRig.shakeOnHit',
      },
    );
  }
}

export class Particles extends GameObject {
  readonly name = 'Particles';
  live = 0;

  constructor(ctx: GameContext) {
    super();
    ctx.gameplay.subscribe(
      'frame.tick',
      () => {
        this.live = Math.max(0, this.live - 3);
      },
      { owner: this, label: 'Particles.update' },
    );
    ctx.gameplay.subscribe(
      'enemy.killed',
      () => {
        this.live += 40;
      },
      { owner: this, label: 'Particles.burst' },
    );
  }
}

/** Loot appears about once a second and the player walks over it. */
export class ItemSpawner extends GameObject {
  readonly name = 'ItemSpawner';
  private nextItemId = 1;

  constructor(private readonly ctx: GameContext) {
    super();
    this.schedule(700);
  }

  private schedule(delayMs: number): void {
    const { timers, random, gameplay } = this.ctx;
    timers.after(delayMs, () => {
      const kind = random.pick<ItemKind>(['coin', 'coin', 'coin', 'potion', 'ammo', 'gem']);
      gameplay.dispatch('item.picked', { itemId: this.nextItemId++, kind, picker: 'player' });
      this.schedule(random.int(700, 1300));
    });
  }
}

export class WaveDirector extends GameObject {
  readonly name = 'WaveDirector';
  wave = 0;

  constructor(ctx: GameContext) {
    super();
    ctx.timers.every(20_000, () => ctx.gameplay.dispatch('wave.started', { wave: ++this.wave }), 100);
  }
}
