// Audio: gameplay systems *enqueue* requests on the `audio` bus during the frame; the world flushes
// the queue once at the end of each frame, the way an audio thread would mix a frame's worth.
import { GameObject, type GameContext } from './context';
import type { AudioEvents } from './events';

/** Sounds in the banks that are actually loaded. `explosion_big` lives in the boss bank, which is not. */
const LOADED_SOUNDS = new Set(['hit', 'hit_crit', 'enemy_down', 'pickup', 'death', 'respawn', 'achievement', 'click']);

/** Turns gameplay facts into sound requests (queued, not played on the spot). */
export class AudioCues extends GameObject {
  readonly name = 'AudioCues';

  constructor(ctx: GameContext) {
    super();
    const { gameplay, audio } = ctx;
    const opts = (label: string) => ({ owner: this, label });
    gameplay.subscribe(
      'combat.hit',
      (e) => {
        audio.enqueue('sfx.play', { sound: e.critical ? 'hit_crit' : 'hit', volume: 0.8 });
      },
      opts('AudioCues.onHit'),
    );
    gameplay.subscribe(
      'enemy.killed',
      (e) => {
        audio.enqueue('sfx.play', { sound: e.kind === 'brute' ? 'explosion_big' : 'enemy_down', volume: 1 });
      },
      opts('AudioCues.onEnemyKilled'),
    );
    gameplay.subscribe(
      'item.picked',
      () => {
        audio.enqueue('sfx.play', { sound: 'pickup', volume: 0.6 });
      },
      opts('AudioCues.onItemPicked'),
    );
    gameplay.subscribe(
      'player.died',
      () => {
        audio.enqueue('mixer.duck', { amount: 0.5, ms: 400 });
        audio.enqueue('sfx.play', { sound: 'death', volume: 1 });
      },
      opts('AudioCues.onPlayerDied'),
    );
    gameplay.subscribe(
      'player.respawned',
      () => {
        audio.enqueue('sfx.play', { sound: 'respawn', volume: 0.7 });
      },
      opts('AudioCues.onRespawned'),
    );
  }
}

export class AudioMixer extends GameObject {
  readonly name = 'AudioMixer';
  played = 0;
  duckUntil = 0;

  constructor(private readonly ctx: GameContext) {
    super();
    const { audio } = ctx;
    audio.subscribe('sfx.play', (e) => this.play(e), { owner: this, label: 'AudioMixer.playSfx' });
    audio.subscribe(
      'mixer.duck',
      (e) => {
        this.duckUntil = ctx.clock.now + e.ms;
      },
      { owner: this, priority: 5, label: 'AudioMixer.duck' },
    );
  }

  /**
   * BUG (mixer-missing-sound-bank): a sound from a bank that was never loaded throws. It happens
   * only for `explosion_big` (brute deaths and the arena's barrels), so only sometimes.
   */
  private play(e: AudioEvents['sfx.play']): void {
    if (!LOADED_SOUNDS.has(e.sound)) throw new Error(`sound "${e.sound}" is not in a loaded bank`);
    this.played++;
  }
}

export class MusicDirector extends GameObject {
  readonly name = 'MusicDirector';
  track = 'silence';

  constructor(ctx: GameContext) {
    super();
    const { gameplay, audio } = ctx;
    gameplay.subscribe(
      'wave.started',
      (e) => {
        audio.enqueue('music.cue', { track: e.wave % 2 ? 'battle_a' : 'battle_b' });
      },
      {
        owner: this,
        label: 'MusicDirector.onWaveStarted',
      },
    );
    // The intro stinger plays once, on the first wave only.
    gameplay.subscribe(
      'wave.started',
      () => {
        audio.enqueue('sfx.play', { sound: 'achievement', volume: 0.5 });
      },
      {
        owner: this,
        once: true,
        label: 'MusicDirector.introStinger',
      },
    );
    audio.subscribe(
      'music.cue',
      (e) => {
        this.track = e.track;
      },
      { owner: this, label: 'MusicDirector.crossfade' },
    );
  }
}

/** Counts every audio request by type, for the sound designers' dashboard. */
export class AudioTelemetry extends GameObject {
  readonly name = 'AudioTelemetry';
  readonly counts = new Map<string, number>();

  constructor(ctx: GameContext) {
    super();
    ctx.audio.subscribe(
      '*',
      (_payload, c) => {
        this.counts.set(c.type, (this.counts.get(c.type) ?? 0) + 1);
      },
      {
        owner: this,
        priority: -100,
        label: 'AudioTelemetry.countAll',
      },
    );
  }
}
