// Models with many event types, for the near-miss search's bounded-work tests and the analyses
// bench. Records go straight to `Model.apply` as decoded `records` messages (the encoder's string
// table is not what these measure). Times are ms since the time origin.
import type { BusRecord, StreamMessage, SubscriptionSnapshot } from '../../../runtime-probe/src/protocol/index';
import { Model } from '../../../runtime-probe/src/analysis/model/index';
import { StreamBuilder, TIME_ORIGIN } from '../model/streamBuilder';
import { mulberry32 as random } from '../../support/random';

export type ManyTypesScenario =
  /** The app dispatches `user.<id>.updated` per id, nobody listens; a few ordinary typed events besides. */
  | 'user-updates'
  /** A late attach: the snapshot holds `n` subscribed types (`user.<id>.updated`) never dispatched. */
  | 'never-dispatched-snapshot'
  /** Random dotted / camelCase names: half dispatched and unheard, half subscribed and never dispatched. */
  | 'random-names'
  /**
   * The hard case for the search: `user.<id>.updated` dispatched and unheard, `user.<id>.update`
   * subscribed and never dispatched, so both pools are large and every name has many near misses.
   */
  | 'dense-near-misses';

const WORDS = [
  'user',
  'order',
  'cart',
  'item',
  'player',
  'enemy',
  'health',
  'session',
  'payment',
  'invoice',
  'route',
  'panel',
  'socket',
  'frame',
  'level',
  'score',
];
const VERBS = ['updated', 'created', 'removed', 'changed', 'opened', 'closed', 'killed', 'spawned', 'loaded', 'saved', 'failed', 'started'];

function randomName(next: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const id = Math.floor(next() * 1e9).toString(36);
  return next() < 0.5 ? `${pick(WORDS)}.${id}.${pick(VERBS)}` : `${pick(WORDS)}${id.toUpperCase()}${pick(VERBS).replace(/^./, (c) => c.toUpperCase())}`;
}

/** Ordinary events beside the many: each listened to and dispatched, plus one classic typo. */
function ordinary(records: BusRecord[], firstSub: number, time: number): number {
  let sub = firstSub;
  for (const type of ['session.started', 'cart.checkout', 'user.updated', 'enemy.killed']) {
    records.push({ kind: 'subscribe', time, subscriptionId: sub, bus: 1, type, priority: 0, label: `On.${type}`, owner: null, once: false, site: null });
    records.push({ kind: 'dispatch', seq: sub, bus: 1, type, start: time, duration: 0.01, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
    sub++;
  }
  // `enemy.kiled` dispatched, nobody listens: the one near miss the analyses must still find.
  records.push({
    kind: 'dispatch',
    seq: sub,
    bus: 1,
    type: 'enemy.kiled',
    start: time,
    duration: 0.01,
    delivered: 0,
    consumedBy: 0,
    depth: 0,
    parentSeq: 0,
    site: null,
  });
  return sub + 1;
}

/** A model with about `n` event types in `scenario`, judged 10 s after the last record (past every grace period). */
export function manyTypesModel(scenario: ManyTypesScenario, n: number, seed = 17): Model {
  const model = new Model();
  for (const m of manyTypesMessages(scenario, n, seed)) model.apply(m);
  model.advanceTime(model.now + 10_000);
  return model;
}

/** The stream behind `manyTypesModel` (welcome, bus, snapshot or records), for a Session to ingest. */
export function manyTypesMessages(scenario: ManyTypesScenario, n: number, seed = 17): StreamMessage[] {
  const out: StreamMessage[] = [];
  const s = new StreamBuilder().welcome();
  s.busCreated(1, 'app', 0);
  out.push(...s.take());
  const records: BusRecord[] = [];
  let seq = 1000;
  let sub = 1000;
  const dispatch = (type: string, time: number): void => {
    records.push({ kind: 'dispatch', seq: seq++, bus: 1, type, start: time, duration: 0.01, delivered: 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
  };
  const subscribe = (type: string, time: number): void => {
    records.push({ kind: 'subscribe', time, subscriptionId: sub++, bus: 1, type, priority: 0, label: null, owner: null, once: false, site: null });
  };
  ordinary(records, 1, 1);
  switch (scenario) {
    case 'user-updates':
      for (let id = 0; id < n; id++) dispatch(`user.${id}.updated`, 10 + id * 0.01);
      break;
    case 'never-dispatched-snapshot': {
      const subs: SubscriptionSnapshot[] = [];
      for (let id = 0; id < n; id++) {
        subs.push({
          id: sub++,
          bus: 1,
          type: `user.${id}.updated`,
          priority: 0,
          label: null,
          owner: null,
          once: false,
          site: null,
          calls: 0,
          createdAt: TIME_ORIGIN + 5,
        });
      }
      const snap = new StreamBuilder();
      snap.clock = 20;
      snap.snapshot({
        buses: [{ id: 1, name: 'app', createdAt: TIME_ORIGIN, subscriptions: subs.length }],
        types: subs.map((x) => ({ bus: 1, type: x.type, listeners: 1, dispatches: 0 })),
        subscriptions: subs,
      });
      out.push(...snap.take());
      break;
    }
    case 'random-names': {
      const next = random(seed);
      for (let i = 0; i < n; i++) {
        const name = randomName(next);
        if (i % 2 === 0) dispatch(name, 10 + i * 0.01);
        else subscribe(name, 10 + i * 0.01);
      }
      break;
    }
    case 'dense-near-misses':
      for (let id = 0; id < n / 2; id++) {
        dispatch(`user.${id}.updated`, 10 + id * 0.01);
        subscribe(`user.${id}.update`, 10 + id * 0.01);
      }
      break;
    default: {
      const never: never = scenario;
      throw new TypeError(`unknown scenario ${String(never)}`);
    }
  }
  for (let i = 0; i < records.length; i += 10_000) out.push({ type: 'records', records: records.slice(i, i + 10_000) });
  return out;
}
