// Tooltips pop up over the HUD every 2.5 s and follow the cursor for a second.
import type { Subscription } from '../bus/index';
import { GameObject, type GameContext } from './context';

const TIPS = ['Hold Shift to sprint', 'Brutes are weak to arrows', 'Press ` for the console', 'Potions heal 25'] as const;

export class Tooltip extends GameObject {
  readonly name = 'Tooltip';
  /** Read by the bus's default owner check. */
  disposed = false;
  x = 0;
  y = 0;
  readonly subscription: Subscription;

  constructor(
    private readonly ctx: GameContext,
    readonly text: string,
  ) {
    super();
    this.subscription = ctx.ui.subscribe(
      'cursor.moved',
      (e) => {
        this.x = e.x + 12;
        this.y = e.y + 12;
      },
      {
        owner: this,
        label: 'Tooltip.followCursor',
      },
    );
    ctx.ui.dispatch('widget.opened', { widget: 'tooltip' });
  }

  /**
   * BUG (tooltip-disposed-still-subscribed): marks the tooltip disposed but never disposes its
   * `cursor.moved` subscription. The bus notices the dead owner at the next cursor move and drops
   * the subscription itself (recorded as 'dead-owner') instead of calling it.
   */
  close(): void {
    this.disposed = true;
    this.ctx.ui.dispatch('widget.closed', { widget: 'tooltip' });
  }
}

export class TooltipManager extends GameObject {
  readonly name = 'TooltipManager';
  current: Tooltip | undefined;
  shown = 0;

  constructor(ctx: GameContext) {
    super();
    ctx.timers.every(
      2500,
      () => {
        const tip = new Tooltip(ctx, ctx.random.pick(TIPS));
        this.current = tip;
        this.shown++;
        ctx.timers.after(1000, () => {
          tip.close();
          if (this.current === tip) this.current = undefined;
        });
      },
      500,
    );
  }
}
