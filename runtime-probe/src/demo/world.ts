// The whole simulation, stepped one fixed frame at a time. Nothing here reads the wall clock
// (except the minimap's deliberate busy-wait), so tests drive it frame by frame and a run is
// reproducible from its seed; `loop.ts` drives it in real time.
import { EventBus, type HandlerErrorInfo } from '../bus/index';
import { Achievements, ToastStack } from './achievements';
import { ArenaScript } from './arena-script';
import { AudioCues, AudioMixer, AudioTelemetry, MusicDirector } from './audio';
import { FRAME_MS, FrameClock, Random, Timers } from './clock';
import { CombatDirector, Shield } from './combat';
import { DEFAULT_SETTINGS, type DemoSettings, type GameContext } from './context';
import type { AudioEvents, DemoBusName, GameplayEvents, UiEvents } from './events';
import { DebugConsole, Hotkeys, InputDevice } from './input';
import { Level } from './level';
import { InventoryPanel } from './panels';
import { Player } from './player';
import { TooltipManager } from './tooltips';
import { CameraRig, ItemSpawner, Particles, WaveDirector } from './world-systems';

/** One handler error, as the demo's error sink sees it. */
export interface HandlerErrorReport {
  readonly bus: DemoBusName;
  readonly type: string;
  readonly subscriptionId: number;
  readonly error: unknown;
}

export interface DemoWorldOptions extends Partial<DemoSettings> {
  /** Every handler error of the three buses (the buses' `onError`). Default: counted only. */
  readonly onHandlerError?: (report: HandlerErrorReport) => void;
}

export class DemoWorld implements GameContext {
  readonly settings: DemoSettings;
  readonly clock = new FrameClock();
  readonly timers = new Timers(this.clock);
  readonly random: Random;
  readonly gameplay: EventBus<GameplayEvents>;
  readonly ui: EventBus<UiEvents>;
  readonly audio: EventBus<AudioEvents>;
  /** Handler errors so far, per bus. */
  readonly errorCounts: Record<DemoBusName, number> = { gameplay: 0, ui: 0, audio: 0 };

  readonly player: Player;
  readonly shield: Shield;
  readonly combat: CombatDirector;
  readonly input: InputDevice;
  readonly debugConsole: DebugConsole;
  readonly hotkeys: Hotkeys;
  readonly tooltips: TooltipManager;
  readonly inventory: InventoryPanel;
  readonly achievements: Achievements;
  readonly toasts: ToastStack;
  readonly camera: CameraRig;
  readonly particles: Particles;
  readonly items: ItemSpawner;
  readonly waves: WaveDirector;
  readonly audioCues: AudioCues;
  readonly mixer: AudioMixer;
  readonly music: MusicDirector;
  readonly audioTelemetry: AudioTelemetry;
  readonly script: ArenaScript;
  level: Level;
  levelsLoaded = 1;
  private disposed = false;

  constructor(options: DemoWorldOptions = {}) {
    const { onHandlerError, ...overrides } = options;
    this.settings = { ...DEFAULT_SETTINGS, ...overrides };
    this.random = new Random(this.settings.seed);
    const onError =
      (bus: DemoBusName) =>
      (error: unknown, info: HandlerErrorInfo): void => {
        this.errorCounts[bus]++;
        onHandlerError?.({ bus, type: info.type, subscriptionId: info.subscriptionId, error });
      };
    this.gameplay = new EventBus<GameplayEvents>({ name: 'gameplay', onError: onError('gameplay') });
    this.ui = new EventBus<UiEvents>({ name: 'ui', onError: onError('ui') });
    this.audio = new EventBus<AudioEvents>({ name: 'audio', onError: onError('audio') });

    // Long-lived systems, in the order a game would boot them.
    this.audioTelemetry = new AudioTelemetry(this);
    this.mixer = new AudioMixer(this);
    this.music = new MusicDirector(this);
    this.audioCues = new AudioCues(this);
    this.camera = new CameraRig(this);
    this.particles = new Particles(this);
    this.debugConsole = new DebugConsole(this);
    this.hotkeys = new Hotkeys(this);
    this.toasts = new ToastStack(this);
    this.achievements = new Achievements(this);
    this.inventory = new InventoryPanel(this);
    this.tooltips = new TooltipManager(this);
    this.player = new Player(this);
    this.shield = new Shield(this);
    this.level = new Level(this, 1);
    this.combat = new CombatDirector(this, () => this.level.spawner);
    this.input = new InputDevice(this);
    this.items = new ItemSpawner(this);
    this.waves = new WaveDirector(this);
    this.script = new ArenaScript(this);
    this.timers.every(this.settings.levelDurationMs, () => this.nextLevel());
  }

  /** Simulated milliseconds since start. */
  get now(): number {
    return this.clock.now;
  }

  /** One frame: timers due now, the per-frame event, then the audio queue. */
  step(): void {
    if (this.disposed) return;
    const frame = ++this.clock.frame;
    this.timers.runDue();
    this.gameplay.dispatch('frame.tick', { frame, dt: FRAME_MS });
    this.audio.flush();
  }

  /** Steps as many frames as `ms` of simulated time holds (at least one). */
  advance(ms: number): void {
    const target = this.clock.now + ms;
    do this.step();
    while (this.clock.now + 1e-6 < target);
  }

  /** Ends the simulation: the buses are disposed and every subscription goes with them. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.gameplay.dispose();
    this.ui.dispose();
    this.audio.dispose();
  }

  private nextLevel(): void {
    this.level.unload();
    this.levelsLoaded++;
    this.level = new Level(this, this.levelsLoaded);
  }
}
