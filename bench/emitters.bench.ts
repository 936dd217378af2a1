// What `probe.watch` costs an app's own emitters, side by side in one run, at 1/5/10 listeners, as
// ratios to the plain (unwatched) emitter:
//   plain              an emitter nobody watches (the probe is started: that costs it nothing)
//   plain again        a second unwatched instance: the spread between the two is the noise
//   watched, idle      probe.watch(emitter), probe started, nobody recording (budget: ≤ 1.3× plain)
//   watched, recording probe.record(file) at detail `handlers` (a dispatch record and one timing per
//                      listener call; the recorder does that work)
// For Node's EventEmitter (`emit`) and EventTarget (`dispatchEvent` of one reused Event).
// Then every emitter of the process instrumented through EventEmitter.prototype
// (`probe.start({ emitters: 'all' })`, what BUSSCOPE_EMITTERS=all and busscope-probe/register do),
// side by side with the same emitter with the prototype untouched (the probe restarted between
// measurements to put the patch in and take it out):
//   prototype untouched     probe started with emitters off
//   prototype, idle         emitters 'all', nobody recording (budget: ≤ 1.3× untouched)
//   prototype, recording    emitters 'all', probe.record(file) at detail `handlers`
// Then the cost of adding and removing a listener under process-wide instrumentation (a server adding
// one per request): an on+off pair of a fresh closure on an emitter that has a bus, side by side with
// the prototype untouched, idle and recording, subscribe sites on and off, and an EventBus's own
// subscribe+dispose with its site as the reference for the recording rows.
// Every loop yields to the event loop every BATCH emits in every mode, so the recorder's
// off-hot-path work (encoding, file writes) is inside the measured time. Listeners add the payload's
// field into an accumulator and count their calls; counts are checked after every measurement.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventBus, probe } from 'busscope-probe';
import { formatOps, formatRatio, machineLine, markdownTable, median } from './lib/measure';
import { report } from './lib/report';
import { benchMs, benchRounds } from './lib/settings';

const LISTENER_COUNTS = [1, 5, 10] as const;
const BATCH = 8_192;
const IDLE_BUDGET = 1.3;

interface Tick {
  readonly v: number;
}
const PAYLOAD: Tick = { v: 1 };
class TickEvent extends Event {
  readonly v = 1;
  constructor() {
    super('tick');
  }
}

let accumulator = 0;

type Mode = 'plain' | 'control' | 'idle' | 'recording';
const MODES: readonly { mode: Mode; title: string }[] = [
  { mode: 'plain', title: 'plain (not watched)' },
  { mode: 'control', title: 'plain again, another instance (noise gauge)' },
  { mode: 'idle', title: 'watched, probe started, nobody recording' },
  { mode: 'recording', title: 'watched, recording (detail `handlers`)' },
];

interface Candidate {
  readonly counts: Float64Array;
  /** One batch of emits. */
  readonly batch: () => void;
}

type Kind = 'EventEmitter' | 'EventTarget';

// One loop literal per kind and mode, so each `emit` call site sees one receiver shape: a shared
// literal would make the call site polymorphic across modes and slow every mode down alike.
const emitterLoops: Record<Mode, (ee: EventEmitter) => void> = {
  plain: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  control: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  idle: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  recording: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
};
const targetLoops: Record<Mode, (et: EventTarget, event: Event) => void> = {
  plain: (et, event) => {
    for (let k = 0; k < BATCH; k++) et.dispatchEvent(event);
  },
  control: (et, event) => {
    for (let k = 0; k < BATCH; k++) et.dispatchEvent(event);
  },
  idle: (et, event) => {
    for (let k = 0; k < BATCH; k++) et.dispatchEvent(event);
  },
  recording: (et, event) => {
    for (let k = 0; k < BATCH; k++) et.dispatchEvent(event);
  },
};

function makeCandidate(kind: Kind, n: number, mode: Mode): Candidate {
  const counts = new Float64Array(n);
  const watched = mode === 'idle' || mode === 'recording';
  if (kind === 'EventEmitter') {
    const ee = new EventEmitter();
    for (let i = 0; i < n; i++) {
      ee.on('tick', (e: Tick) => {
        accumulator += e.v;
        counts[i]++;
      });
    }
    if (watched) probe.watch(ee, { name: `bench-ee-${n}` });
    const loop = emitterLoops[mode];
    return { counts, batch: () => loop(ee) };
  }
  const et = new EventTarget();
  for (let i = 0; i < n; i++) {
    et.addEventListener('tick', (e: Event) => {
      accumulator += (e as TickEvent).v;
      counts[i]++;
    });
  }
  if (watched) probe.watch(et, { name: `bench-et-${n}` });
  const event = new TickEvent();
  const loop = targetLoops[mode];
  return { counts, batch: () => loop(et, event) };
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function emitFor(c: Candidate, ms: number): Promise<{ emits: number; seconds: number }> {
  let emits = 0;
  const start = process.hrtime.bigint();
  for (;;) {
    c.batch();
    emits += BATCH;
    await yieldToLoop();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (elapsed >= ms) return { emits, seconds: elapsed / 1000 };
  }
}

function check(what: string, c: Candidate, emits: number): void {
  for (let i = 0; i < c.counts.length; i++) {
    if (c.counts[i] !== emits) throw new Error(`${what}: listener ${i} ran ${c.counts[i]} times, expected ${emits}`);
  }
  if (accumulator !== emits * c.counts.length) throw new Error(`${what}: accumulator ${accumulator}, expected ${emits * c.counts.length}`);
  c.counts.fill(0);
  accumulator = 0;
}

async function benchKind(kind: Kind, rounds: number, ms: number, dir: string): Promise<number[]> {
  const samples = new Map<Mode, number[][]>(MODES.map((m) => [m.mode, LISTENER_COUNTS.map(() => [])]));
  let recordings = 0;
  for (const [ni, n] of LISTENER_COUNTS.entries()) {
    const candidates = new Map<Mode, Candidate>([
      ['plain', makeCandidate(kind, n, 'plain')],
      ['control', makeCandidate(kind, n, 'control')],
      ['idle', makeCandidate(kind, n, 'idle')],
      ['recording', makeCandidate(kind, n, 'recording')],
    ]);
    // Round 0 is warm-up. Each round starts at a different mode.
    for (let round = 0; round <= rounds; round++) {
      for (let j = 0; j < MODES.length; j++) {
        const { mode, title } = MODES[(j + round) % MODES.length];
        const c = candidates.get(mode) as Candidate;
        const recording =
          mode === 'recording' ? probe.record(path.join(dir, `${kind}-${recordings++}.trace`), { detail: 'handlers', discovery: false }) : undefined;
        let result: { emits: number; seconds: number };
        try {
          result = await emitFor(c, round === 0 ? ms / 2 : ms);
        } finally {
          await recording?.stop();
          if (recording !== undefined) fs.rmSync(recording.file, { force: true });
        }
        check(`${kind}, ${title}, ${n} listeners`, c, result.emits);
        if (round > 0) (samples.get(mode) as number[][])[ni].push(result.emits / result.seconds);
      }
    }
  }
  const med = (mode: Mode, ni: number): number => median((samples.get(mode) as number[][])[ni]);
  const rows = MODES.map(({ mode, title }) => {
    const cells = [title];
    LISTENER_COUNTS.forEach((_, ni) => cells.push(formatOps(med(mode, ni)), formatRatio(med('plain', ni) / med(mode, ni))));
    return cells;
  });
  const header = [`${kind === 'EventEmitter' ? 'emit' : 'dispatchEvent'}/s (median)`];
  for (const n of LISTENER_COUNTS) header.push(`${n} listener${n > 1 ? 's' : ''}`, 'cost vs plain');
  const idle = LISTENER_COUNTS.map((_, ni) => med('plain', ni) / med('idle', ni));
  const control = LISTENER_COUNTS.map((_, ni) => med('plain', ni) / med('control', ni));
  report(
    [
      `### ${kind}`,
      ``,
      markdownTable(header, rows),
      ``,
      `- watched idle / plain cost: ${idle.map((r) => formatRatio(r)).join(' / ')} at ${LISTENER_COUNTS.join(' / ')} listeners (budget ≤ ${IDLE_BUDGET}×) — ${idle.every((r) => r <= IDLE_BUDGET) ? 'met' : 'NOT met'}; the same measurement between two plain instances (noise on this machine): ${control.map((r) => formatRatio(r)).join(' / ')}.`,
    ].join('\n'),
  );
  return idle;
}

// ---------------------------------------------------------------------------------------------
// Process-wide: EventEmitter.prototype instrumented

type ProtoMode = 'untouched' | 'untouchedAgain' | 'protoIdle' | 'protoRecording';
const PROTO_MODES: readonly { mode: ProtoMode; title: string }[] = [
  { mode: 'untouched', title: 'prototype untouched (emitters off)' },
  { mode: 'untouchedAgain', title: 'prototype untouched, another instance (noise gauge)' },
  { mode: 'protoIdle', title: "prototype instrumented (emitters 'all'), nobody recording" },
  { mode: 'protoRecording', title: 'prototype instrumented, recording (detail `handlers`)' },
];
const protoLoops: Record<ProtoMode, (ee: EventEmitter) => void> = {
  untouched: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  untouchedAgain: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  protoIdle: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
  protoRecording: (ee) => {
    const p = PAYLOAD;
    for (let k = 0; k < BATCH; k++) ee.emit('tick', p);
  },
};

class BenchEmitter extends EventEmitter {}
const noop = (): void => undefined;

async function benchPrototype(rounds: number, ms: number, dir: string): Promise<number[]> {
  const samples = new Map<ProtoMode, number[][]>(PROTO_MODES.map((m) => [m.mode, LISTENER_COUNTS.map(() => [])]));
  let recordings = 0;
  let buses = 0;
  for (const [ni, n] of LISTENER_COUNTS.entries()) {
    const candidates = new Map<ProtoMode, { c: Candidate; ee: EventEmitter }>();
    for (const { mode } of PROTO_MODES) {
      const counts = new Float64Array(n);
      const ee = new BenchEmitter();
      for (let i = 0; i < n; i++) {
        ee.on('tick', (e: Tick) => {
          accumulator += e.v;
          counts[i]++;
        });
      }
      const loop = protoLoops[mode];
      candidates.set(mode, { c: { counts, batch: () => loop(ee) }, ee });
    }
    for (let round = 0; round <= rounds; round++) {
      for (let j = 0; j < PROTO_MODES.length; j++) {
        const { mode, title } = PROTO_MODES[(j + round) % PROTO_MODES.length];
        const { c, ee } = candidates.get(mode) as { c: Candidate; ee: EventEmitter };
        const instrumented = mode === 'protoIdle' || mode === 'protoRecording';
        await probe.stop();
        await probe.start({ discovery: false, emitters: instrumented ? 'all' : 'off' });
        if (instrumented) {
          // A listener added from here (the app's code) gives the emitter its bus, as in an app.
          ee.on('other', noop);
          ee.off('other', noop);
          if (probe.snapshot().buses.some((b) => b.name.startsWith('BenchEmitter#'))) buses++;
        }
        const recording =
          mode === 'protoRecording' ? probe.record(path.join(dir, `proto-${recordings++}.trace`), { detail: 'handlers', discovery: false }) : undefined;
        let result: { emits: number; seconds: number };
        try {
          result = await emitFor(c, round === 0 ? ms / 2 : ms);
        } finally {
          await recording?.stop();
          if (recording !== undefined) fs.rmSync(recording.file, { force: true });
        }
        check(`prototype, ${title}, ${n} listeners`, c, result.emits);
        if (round > 0) (samples.get(mode) as number[][])[ni].push(result.emits / result.seconds);
      }
    }
  }
  await probe.stop();
  if (buses === 0) throw new Error('prototype instrumentation: the bench emitters never became buses');
  const med = (mode: ProtoMode, ni: number): number => median((samples.get(mode) as number[][])[ni]);
  const rows = PROTO_MODES.map(({ mode, title }) => {
    const cells = [title];
    LISTENER_COUNTS.forEach((_, ni) => cells.push(formatOps(med(mode, ni)), formatRatio(med('untouched', ni) / med(mode, ni))));
    return cells;
  });
  const header = ['emit/s (median)'];
  for (const n of LISTENER_COUNTS) header.push(`${n} listener${n > 1 ? 's' : ''}`, 'cost vs untouched');
  const idle = LISTENER_COUNTS.map((_, ni) => med('untouched', ni) / med('protoIdle', ni));
  const recording = LISTENER_COUNTS.map((_, ni) => med('untouched', ni) / med('protoRecording', ni));
  const control = LISTENER_COUNTS.map((_, ni) => med('untouched', ni) / med('untouchedAgain', ni));
  report(
    [
      `### EventEmitter, every emitter instrumented through its prototype (BUSSCOPE_EMITTERS=all, busscope-probe/register)`,
      ``,
      markdownTable(header, rows),
      ``,
      `- prototype idle / untouched cost: ${idle.map((r) => formatRatio(r)).join(' / ')} at ${LISTENER_COUNTS.join(' / ')} listeners (budget ≤ ${IDLE_BUDGET}×) — ${idle.every((r) => r <= IDLE_BUDGET) ? 'met' : 'NOT met'}; recording: ${recording.map((r) => formatRatio(r)).join(' / ')}; noise between two untouched instances: ${control.map((r) => formatRatio(r)).join(' / ')}.`,
      `- ${machineLine()}`,
    ].join('\n'),
  );
  return idle;
}

// ---------------------------------------------------------------------------------------------
// on + off under process-wide instrumentation

type AddMode = 'untouched' | 'idleSites' | 'idleNoSites' | 'recordingSites' | 'recordingNoSites' | 'busSites';
const ADD_MODES: readonly { mode: AddMode; title: string }[] = [
  { mode: 'untouched', title: 'on+off, prototype untouched (emitters off)' },
  { mode: 'idleSites', title: "on+off, emitters 'all', nobody recording, sites on (default)" },
  { mode: 'idleNoSites', title: "on+off, emitters 'all', nobody recording, captureStacks off" },
  { mode: 'recordingSites', title: "on+off, emitters 'all', recording, sites on" },
  { mode: 'recordingNoSites', title: "on+off, emitters 'all', recording, captureStacks off" },
  { mode: 'busSites', title: 'reference: EventBus subscribe+dispose, recording, sites on' },
];
const PAIRS = 256;

// One loop per mode (monomorphic call sites, as above). Each pair adds a fresh closure, as a
// per-request listener does.
let pairSink = 0;
const pairLoops: Record<Exclude<AddMode, 'busSites'>, (ee: EventEmitter) => void> = {
  untouched: (ee) => {
    for (let k = 0; k < PAIRS; k++) {
      const f = (): void => void pairSink++;
      ee.on('req', f);
      ee.off('req', f);
    }
  },
  idleSites: (ee) => {
    for (let k = 0; k < PAIRS; k++) {
      const f = (): void => void pairSink++;
      ee.on('req', f);
      ee.off('req', f);
    }
  },
  idleNoSites: (ee) => {
    for (let k = 0; k < PAIRS; k++) {
      const f = (): void => void pairSink++;
      ee.on('req', f);
      ee.off('req', f);
    }
  },
  recordingSites: (ee) => {
    for (let k = 0; k < PAIRS; k++) {
      const f = (): void => void pairSink++;
      ee.on('req', f);
      ee.off('req', f);
    }
  },
  recordingNoSites: (ee) => {
    for (let k = 0; k < PAIRS; k++) {
      const f = (): void => void pairSink++;
      ee.on('req', f);
      ee.off('req', f);
    }
  },
};
const busLoop = (bus: EventBus<{ req: number }>): void => {
  for (let k = 0; k < PAIRS; k++) bus.subscribe('req', () => void pairSink++).dispose();
};

async function pairsFor(batch: () => void, ms: number): Promise<number> {
  let pairs = 0;
  const start = process.hrtime.bigint();
  for (;;) {
    batch();
    pairs += PAIRS;
    await yieldToLoop();
    const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
    if (elapsed >= ms) return pairs / (elapsed / 1000);
  }
}

async function benchAddRemove(rounds: number, ms: number, dir: string): Promise<void> {
  const samples = new Map<AddMode, number[]>(ADD_MODES.map((m) => [m.mode, []]));
  let recordings = 0;
  for (let round = 0; round <= rounds; round++) {
    for (let j = 0; j < ADD_MODES.length; j++) {
      const { mode } = ADD_MODES[(j + round) % ADD_MODES.length];
      const sites = mode === 'idleSites' || mode === 'recordingSites' || mode === 'busSites';
      const recorded = mode === 'recordingSites' || mode === 'recordingNoSites' || mode === 'busSites';
      await probe.stop();
      await probe.start({ discovery: false, emitters: mode === 'untouched' || mode === 'busSites' ? 'off' : 'all', captureStacks: sites });
      const recording = recorded
        ? probe.record(path.join(dir, `pairs-${recordings++}.trace`), { detail: 'handlers', discovery: false, captureStacks: sites })
        : undefined;
      let batch: () => void;
      const bus = mode === 'busSites' ? new EventBus<{ req: number }>({ name: 'bench-pairs' }) : undefined;
      if (bus !== undefined) batch = () => busLoop(bus);
      else {
        const ee = new BenchEmitter();
        ee.on('keep', noop); // the app's listener: the emitter has its bus before the loop
        const loop = pairLoops[mode as Exclude<AddMode, 'busSites'>];
        batch = () => loop(ee);
      }
      let rate: number;
      try {
        rate = await pairsFor(batch, round === 0 ? ms / 2 : ms);
      } finally {
        await recording?.stop();
        if (recording !== undefined) fs.rmSync(recording.file, { force: true });
        bus?.dispose();
      }
      if (round > 0) (samples.get(mode) as number[]).push(rate);
    }
  }
  await probe.stop();
  const med = (mode: AddMode): number => median(samples.get(mode) as number[]);
  const rows = ADD_MODES.map(({ mode, title }) => [title, formatOps(med(mode)), formatRatio(med('untouched') / med(mode))]);
  const idle = med('untouched') / med('idleSites');
  report(
    [
      `### Adding and removing a listener (on + off of a fresh closure) under process-wide instrumentation`,
      ``,
      markdownTable(['pairs/s (median)', 'on+off', 'cost vs untouched'], rows),
      ``,
      `- idle (sites on) / untouched: ${formatRatio(idle)} (the emit budget ≤ ${IDLE_BUDGET}× applied to adds) — ${idle <= IDLE_BUDGET ? 'met' : 'NOT met'}; recording with sites: ${formatRatio(med('untouched') / med('recordingSites'))}, against the EventBus's own subscribe with its site at ${formatRatio(med('untouched') / med('busSites'))}.`,
      `- ${machineLine()}`,
    ].join('\n'),
  );
}

export async function run(): Promise<void> {
  const rounds = benchRounds(5);
  const ms = benchMs(200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-bench-emitters-'));
  await probe.start({ discovery: false });
  try {
    report(
      [
        `## Watched emitters (probe.watch)`,
        ``,
        `Median of ${rounds} interleaved rounds of ~${ms} ms per mode (after one warm-up round), yielding to the event loop every ${BATCH} emits in every mode. "cost vs plain" is plain ops/s divided by the mode's (1.00× = free; the idle budget is ≤ ${IDLE_BUDGET}×).`,
      ].join('\n'),
    );
    await benchKind('EventEmitter', rounds, ms, dir);
    await benchKind('EventTarget', rounds, ms, dir);
    await probe.stop();
    await benchPrototype(rounds, ms, dir);
    await benchAddRemove(rounds, ms, dir);
  } finally {
    await probe.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
