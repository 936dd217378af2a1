// Enemies: spawned by the level, hit by combat, destroyed when their health runs out.
import type { Subscription } from '../bus/index';
import { GameObject, type GameContext } from './context';
import type { EnemyKind, GameplayEvents } from './events';

const HEALTH: Record<EnemyKind, number> = { grunt: 30, archer: 20, brute: 60 };

export class Enemy extends GameObject {
  readonly name: string;
  health: number;
  /**
   * The game's own "is gone" flag. The bus's default owner check looks at `disposed` /
   * `isDisposed`, not at this, so the bus cannot tell that a destroyed enemy is gone.
   */
  destroyed = false;
  heading = 0;
  private readonly hitSubscription: Subscription;

  constructor(
    private readonly ctx: GameContext,
    readonly kind: EnemyKind,
  ) {
    super();
    this.name = `${kind}-${this.id}`;
    this.health = HEALTH[kind];
    const { gameplay } = ctx;
    this.hitSubscription = gameplay.subscribe('combat.hit', (hit) => this.onHit(hit), {
      owner: this,
      label: 'Enemy.onHit',
    });
    // BUG (zombie-enemy-ai): `destroy()` disposes `hitSubscription` but not this one, and the
    // level keeps every enemy it spawned for its end-of-level stats, so a destroyed enemy stays
    // registered (and called at 20 Hz) until the level unloads.
    gameplay.subscribe('player.moved', (e) => this.trackPlayer(e), {
      owner: this,
      label: 'EnemyAI.trackPlayer',
    });
    gameplay.dispatch('enemy.spawned', { enemyId: this.id, kind });
  }

  private trackPlayer(e: GameplayEvents['player.moved']): void {
    if (this.destroyed) return; // the tell-tale guard: "why is this still being called?"
    this.heading = Math.atan2(e.y, e.x);
  }

  private onHit(hit: GameplayEvents['combat.hit']): void {
    if (hit.targetId !== this.id || this.destroyed) return;
    this.health -= hit.damage;
    if (this.health <= 0) this.destroy(hit.critical);
  }

  private destroy(critical: boolean): void {
    this.destroyed = true;
    this.hitSubscription.dispose();
    this.ctx.gameplay.dispatch('enemy.killed', { enemyId: this.id, kind: this.kind, critical });
  }
}

/** Keeps a handful of enemies alive: replaces each kill after a short delay. */
export class EnemySpawner extends GameObject {
  readonly name = 'EnemySpawner';
  /** Every enemy spawned this level, alive or not: the level's stats read it at unload. */
  readonly spawned: Enemy[] = [];
  private readonly alive = new Set<Enemy>();
  private stopped = false;

  constructor(
    private readonly ctx: GameContext,
    population = 5,
  ) {
    super();
    ctx.gameplay.subscribe('enemy.killed', (e) => this.onKilled(e.enemyId), {
      owner: this,
      label: 'EnemySpawner.scheduleReplacement',
    });
    for (let i = 0; i < population; i++) this.spawn();
  }

  /** A live enemy for the player to fight, or undefined while none is up. */
  pickTarget(): Enemy | undefined {
    let best: Enemy | undefined;
    for (const e of this.alive) if (!best || e.health < best.health) best = e;
    return best;
  }

  randomAlive(): Enemy | undefined {
    if (this.alive.size === 0) return undefined;
    const list = [...this.alive];
    return this.ctx.random.pick(list);
  }

  get aliveCount(): number {
    return this.alive.size;
  }

  stop(): void {
    this.stopped = true;
    this.ctx.gameplay.unsubscribeOwner(this);
  }

  private spawn(): void {
    if (this.stopped) return;
    const kind = this.ctx.random.pick<EnemyKind>(['grunt', 'grunt', 'archer', 'brute']);
    const enemy = new Enemy(this.ctx, kind);
    this.spawned.push(enemy);
    this.alive.add(enemy);
  }

  private onKilled(enemyId: number): void {
    for (const e of this.alive) {
      if (e.id === enemyId) {
        this.alive.delete(e);
        this.ctx.timers.after(1200, () => this.spawn());
        return;
      }
    }
  }
}
