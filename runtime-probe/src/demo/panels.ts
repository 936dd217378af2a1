// The inventory panel pops open when the player picks something up (every other pickup, starting
// with the first), and closes again a second later.
import { GameObject, type GameContext } from './context';

const BASE_WIDTH = 320;
const SCROLLBAR = 14;

export class InventoryPanel extends GameObject {
  readonly name = 'InventoryPanel';
  open = false;
  width = BASE_WIDTH;
  height = 240;
  items = 0;
  opened = 0;

  constructor(private readonly ctx: GameContext) {
    super();
    const { gameplay, ui } = ctx;
    gameplay.subscribe('item.picked', () => this.onItemPicked(), { owner: this, label: 'InventoryPanel.onItemPicked' });
    ui.subscribe(
      'layout.changed',
      (e) => {
        if (e.widget === 'inventory' && this.open) this.relayout();
      },
      { owner: this, label: 'InventoryPanel.relayout' },
    );
  }

  private onItemPicked(): void {
    this.items++;
    if (this.open || this.items % 2 !== 1) return;
    const { ui, timers } = this.ctx;
    this.open = true;
    this.opened++;
    ui.dispatch('widget.opened', { widget: 'inventory' });
    ui.dispatch('layout.changed', { widget: 'inventory', width: this.width, height: this.height });
    timers.after(1000, () => {
      this.open = false;
      this.width = BASE_WIDTH;
      ui.dispatch('widget.closed', { widget: 'inventory' });
    });
  }

  /**
   * BUG (inventory-relayout-loop): adding the scrollbar changes the panel's size, which announces
   * another `layout.changed`, which this handler answers by relaying out again... The loop only
   * stops when the bus refuses to nest deeper (DispatchDepthError at the depth limit).
   */
  private relayout(): void {
    this.width += SCROLLBAR; // make room for the scrollbar (again: it never checks it already did)
    this.ctx.ui.dispatch('layout.changed', { widget: 'inventory', width: this.width, height: this.height });
  }
}
