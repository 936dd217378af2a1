// The player: walks a loop around the arena (movement at 20 Hz), takes hits, and — this is an
// arena practice mode — dies and respawns on a short fixed period.
import { GameObject, type GameContext } from './context';

export const PLAYER_ID = 0;
const MAX_HEALTH = 100;

export class Player extends GameObject {
  readonly name = 'Player';
  x = 0;
  y = 0;
  health = MAX_HEALTH;
  respawns = 0;
  private angle = 0;

  constructor(private readonly ctx: GameContext) {
    super();
    const { gameplay, timers } = ctx;
    gameplay.subscribe('combat.hit', (hit) => this.onHit(hit.targetId, hit.damage), {
      owner: this,
      label: 'Player.takeDamage',
    });
    timers.every(50, () => this.move());
    timers.every(ctx.settings.respawnPeriodMs, () => this.dieAndRespawn());
  }

  private move(): void {
    this.angle += 0.05 + this.ctx.random.next() * 0.02;
    const speed = 3 + Math.sin(this.angle * 3);
    this.x = Math.round(200 + 150 * Math.cos(this.angle));
    this.y = Math.round(120 + 90 * Math.sin(this.angle));
    this.ctx.gameplay.dispatch('player.moved', { x: this.x, y: this.y, speed });
  }

  private onHit(targetId: number, damage: number): void {
    if (targetId !== PLAYER_ID) return;
    this.health = Math.max(1, this.health - damage); // the practice mode never kills on damage
    this.ctx.gameplay.dispatch('player.health', { current: this.health, max: MAX_HEALTH });
  }

  private dieAndRespawn(): void {
    const { gameplay, random } = this.ctx;
    gameplay.dispatch('player.died', { cause: random.pick(['fell', 'arrow', 'brute smash']) });
    this.health = MAX_HEALTH;
    this.respawns++;
    gameplay.dispatch('player.respawned', { spawnPoint: random.int(0, 3), respawns: this.respawns });
    gameplay.dispatch('player.health', { current: this.health, max: MAX_HEALTH });
  }
}
