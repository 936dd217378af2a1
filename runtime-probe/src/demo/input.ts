// Simulated input: a key press every ~350 ms and cursor motion at 20 Hz, on the `ui` bus. Two
// key handlers compete: the debug console (high priority) and the game's hotkeys.
import { GameObject, type GameContext } from './context';

const KEYS = ['w', 'a', 's', 'd', 'm', 'Tab', 'Escape', 'F5', '`'] as const;

export class InputDevice extends GameObject {
  readonly name = 'InputDevice';
  private lastKey = '';

  constructor(ctx: GameContext) {
    super();
    const { ui, random, timers } = ctx;
    timers.every(
      350,
      () => {
        const key = random.pick(KEYS);
        ui.dispatch('input.key', { key, repeat: key === this.lastKey });
        this.lastKey = key;
      },
      200,
    );
    let t = 0;
    timers.every(50, () => {
      t += 0.1;
      ui.dispatch('cursor.moved', { x: Math.round(400 + 300 * Math.sin(t)), y: Math.round(300 + 200 * Math.cos(t * 0.7)) });
    });
  }
}

/** The in-game developer console, toggled with the backtick key. */
export class DebugConsole extends GameObject {
  readonly name = 'DebugConsole';
  open = false;
  swallowed = 0;

  constructor(ctx: GameContext) {
    super();
    ctx.ui.subscribe(
      'input.key',
      (e) => {
        if (e.key === '`') this.open = !this.open;
        this.swallowed++;
        // BUG (debug-console-swallows-keys): meant `return this.open` (swallow keys only while the
        // console is open); as written it consumes every key before the game's hotkeys run.
        return true;
      },
      { owner: this, priority: 100, label: 'DebugConsole.captureKeys' },
    );
  }
}

/** Game hotkeys: M toggles the map, F5 quick-saves, Escape pauses. Starved by the console. */
export class Hotkeys extends GameObject {
  readonly name = 'Hotkeys';
  handled = 0;

  constructor(ctx: GameContext) {
    super();
    ctx.ui.subscribe(
      'input.key',
      (e) => {
        this.handled++;
        if (e.key === 'F5') ctx.ui.dispatch('toast.show', { text: 'Quick-saved', durationMs: 1500 });
      },
      { owner: this, label: 'Hotkeys.onKey' },
    );
  }
}
