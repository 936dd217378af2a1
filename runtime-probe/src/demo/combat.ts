// Combat comes in bursts: every couple of seconds the player trades a quick flurry of blows with
// the weakest enemy in range. A raised shield blocks (consumes) some hits aimed at the player.
import { GameObject, type GameContext } from './context';
import type { EnemySpawner } from './enemies';
import { PLAYER_ID } from './player';

export class CombatDirector extends GameObject {
  readonly name = 'CombatDirector';

  constructor(
    private readonly ctx: GameContext,
    private readonly enemies: () => EnemySpawner | undefined,
  ) {
    super();
    ctx.timers.every(1800, () => this.startBurst(), 400);
  }

  private startBurst(): void {
    const { random, timers } = this.ctx;
    const hits = random.int(5, 8);
    for (let i = 0; i < hits; i++) timers.after(i * 50, () => this.exchangeBlow());
  }

  private exchangeBlow(): void {
    const { gameplay, random } = this.ctx;
    const spawner = this.enemies();
    const target = spawner?.pickTarget();
    if (!target) return;
    const critical = random.chance(0.15);
    const damage = random.int(10, 18) * (critical ? 2 : 1);
    if (random.chance(0.7)) {
      gameplay.dispatch('combat.hit', { attackerId: PLAYER_ID, targetId: target.id, damage, critical });
    } else {
      const attacker = spawner?.randomAlive() ?? target;
      gameplay.dispatch('combat.hit', { attackerId: attacker.id, targetId: PLAYER_ID, damage: Math.round(damage / 2), critical });
    }
  }
}

/** The player's shield: while raised it swallows hits aimed at the player (intended consumption). */
export class Shield extends GameObject {
  readonly name = 'Shield';
  raised = false;

  constructor(ctx: GameContext) {
    super();
    ctx.timers.every(700, () => {
      this.raised = ctx.random.chance(0.4);
    });
    ctx.gameplay.subscribe('combat.hit', (hit) => hit.targetId === PLAYER_ID && this.raised, {
      owner: this,
      priority: 10,
      label: 'Shield.block',
    });
  }
}
