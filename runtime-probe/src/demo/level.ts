// A level: its enemies and its HUD. Unloading a level disposes both by owner, which is also what
// keeps the demo's two growing bugs (HUD re-subscription, zombie enemy AI) bounded over a long run.
import { GameObject, type GameContext } from './context';
import { EnemySpawner } from './enemies';
import { Hud } from './hud';

export class Level extends GameObject {
  readonly name: string;
  readonly spawner: EnemySpawner;
  readonly hud: Hud;

  constructor(
    private readonly ctx: GameContext,
    readonly number: number,
  ) {
    super();
    this.name = `Level ${number}`;
    this.hud = new Hud(ctx);
    this.spawner = new EnemySpawner(ctx);
    ctx.gameplay.dispatch('level.loaded', { level: number });
  }

  unload(): void {
    const { gameplay } = this.ctx;
    this.hud.dispose();
    this.spawner.stop();
    for (const enemy of this.spawner.spawned) gameplay.unsubscribeOwner(enemy);
  }
}
