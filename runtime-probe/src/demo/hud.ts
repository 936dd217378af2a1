// The in-game HUD: health bar, kill feed, minimap, floating damage numbers. It lives as long as a
// level; `dispose()` at level unload removes everything its widgets subscribed.
import { busyWait } from './clock';
import { GameObject, type GameContext } from './context';
import type { GameplayEvents } from './events';

abstract class Widget extends GameObject {
  /** Read by the bus's default owner check: a disposed widget is never called again. */
  disposed = false;
}

export class HealthBar extends Widget {
  readonly name = 'HealthBar';
  fill = 1;

  constructor(private readonly ctx: GameContext) {
    super();
  }

  /**
   * Hooks the bar up to the player's health. BUG (hud-healthbar-resubscribe): the HUD calls this
   * on every respawn and nothing disposes the previous subscription, so each respawn adds one
   * more `player.health` listener from this line, all owned by this same (live) widget.
   */
  bindToPlayer(): void {
    this.ctx.gameplay.subscribe('player.health', (e) => this.onHealthChanged(e), {
      owner: this,
      label: 'HealthBar.onHealthChanged',
    });
  }

  private onHealthChanged(e: GameplayEvents['player.health']): void {
    this.fill = e.current / e.max;
  }
}

export class KillFeed extends Widget {
  readonly name = 'KillFeed';
  readonly lines: string[] = [];

  constructor(ctx: GameContext) {
    super();
    ctx.gameplay.subscribe('enemy.killed', (e) => this.push(`${e.kind} #${e.enemyId} down${e.critical ? ' (crit)' : ''}`), {
      owner: this,
      label: 'KillFeed.onEnemyKilled',
    });
  }

  private push(line: string): void {
    this.lines.push(line);
    if (this.lines.length > 5) this.lines.shift();
  }
}

/** The minimap repaints cheaply each frame and fully on every 6th (10 Hz): the full repaint is too slow. */
export class Minimap extends Widget {
  readonly name = 'Minimap';
  playerX = 0;
  playerY = 0;
  fullRedraws = 0;

  constructor(private readonly ctx: GameContext) {
    super();
    const { gameplay } = ctx;
    // BUG (minimap-slow-redraw): the full repaint burns ~2.5 ms on the 60 Hz frame event.
    gameplay.subscribe('frame.tick', (e) => this.redraw(e.frame), { owner: this, label: 'Minimap.redraw' });
    gameplay.subscribe(
      'player.moved',
      (e) => {
        this.playerX = e.x;
        this.playerY = e.y;
      },
      {
        owner: this,
        label: 'Minimap.trackPlayer',
      },
    );
  }

  private redraw(frame: number): void {
    if (frame % 6 !== 0) return;
    this.fullRedraws++;
    busyWait(this.ctx.settings.slowRedrawMs); // stands for rasterising the fog-of-war layer
  }
}

/**
 * A floating "-12" over a hit target; animates for ~0.6 s, then its AbortSignal ends its frame
 * subscription. Pooled, as games do with short-lived widgets: the same few objects come back.
 */
class DamageNumber extends Widget {
  readonly name = 'DamageNumber';
  private lifetime = new AbortController();
  private framesLeft = 0;
  amount = 0;
  y = 0;

  constructor(
    private readonly ctx: GameContext,
    private readonly release: (n: DamageNumber) => void,
  ) {
    super();
  }

  show(amount: number): void {
    this.amount = amount;
    this.y = 0;
    this.framesLeft = 36;
    this.disposed = false;
    this.lifetime = new AbortController();
    this.ctx.gameplay.subscribe('frame.tick', () => this.animate(), {
      owner: this,
      signal: this.lifetime.signal,
      label: 'DamageNumber.animate',
    });
  }

  private animate(): void {
    this.y -= 1;
    if (--this.framesLeft <= 0) {
      this.lifetime.abort();
      this.disposed = true;
      this.release(this);
    }
  }
}

export class DamageNumbers extends Widget {
  readonly name = 'DamageNumbers';
  static readonly MAX_ON_SCREEN = 12;
  spawned = 0;
  private readonly free: DamageNumber[] = [];
  private live = 0;

  constructor(ctx: GameContext) {
    super();
    const release = (n: DamageNumber): void => {
      this.live--;
      this.free.push(n);
    };
    ctx.gameplay.subscribe(
      'combat.hit',
      (hit) => {
        if (this.live >= DamageNumbers.MAX_ON_SCREEN) return; // too many on screen: skip this one
        const n = this.free.pop() ?? new DamageNumber(ctx, release);
        this.live++;
        this.spawned++;
        n.show(hit.damage);
      },
      { owner: this, priority: -10, label: 'DamageNumbers.spawn' },
    );
  }
}

/** Everything on screen during a level. */
export class Hud extends Widget {
  readonly name = 'Hud';
  readonly healthBar: HealthBar;
  readonly killFeed: KillFeed;
  readonly minimap: Minimap;
  readonly damageNumbers: DamageNumbers;

  constructor(private readonly ctx: GameContext) {
    super();
    this.healthBar = new HealthBar(ctx);
    this.killFeed = new KillFeed(ctx);
    this.minimap = new Minimap(ctx);
    this.damageNumbers = new DamageNumbers(ctx);
    this.healthBar.bindToPlayer();
    ctx.gameplay.subscribe('player.respawned', () => this.healthBar.bindToPlayer(), {
      owner: this,
      label: 'Hud.onPlayerRespawned',
    });
  }

  /** Level unload: every widget gives up its subscriptions by owner. */
  dispose(): void {
    const { gameplay } = this.ctx;
    for (const w of [this.healthBar, this.killFeed, this.minimap, this.damageNumbers, this]) {
      gameplay.unsubscribeOwner(w);
      w.disposed = true;
    }
  }
}
