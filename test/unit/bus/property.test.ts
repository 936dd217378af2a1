// Property test: random programs of subscribe / unsubscribe / dispose / owner death /
// unsubscribeOwner / clear / dispatch — including all of those from inside handlers, with nested
// dispatch across two buses — run once against the real EventBus and once against a small reference
// model written straight from the Semantics list of runtime-probe/README.md. Both runs must produce the same trace: who was
// called, in what order, at which ctx.depth, with which ctx.type / payload, every dispatch's
// delivered / consumedBy (or depth error), every onError, and after each top-level step the same
// live subscriptions, `active` flags, listener counts and per-subscription call counts. A second run
// does it all again with the probe's tracers installed (the traced dispatch loop) and also compares
// each subscription's unsubscribe reason and the tracer's view of dispatch nesting.
//
// Subscriptions are named by creation index (0, 1, 2, … in the order the program creates them) so the
// two runs can be compared; real ids are mapped back to creation indices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DispatchDepthError, EventBus } from '../../../runtime-probe/src/index';
import type { Subscription } from '../../../runtime-probe/src/index';
// The probe's seam (internal): installing tracers switches `dispatch` to its traced loop, which must
// keep exactly the same semantics, and lets the test see every unsubscribe reason.
import { setBusTracer, setDispatchTracer } from '../../../runtime-probe/src/bus/tracer';
import type { BusTracer, DispatchTracer, TracedBus, TracedSubscription, UnsubscribeReason } from '../../../runtime-probe/src/bus/tracer';

// ---------------------------------------------------------------------------------------------
// Programs

interface Events {
  a: { n: number };
  b: { n: number };
  c: void;
}
type EventName = keyof Events;
type SubType = EventName | '*';
const EVENT_NAMES: readonly EventName[] = ['a', 'b', 'c'];
const BUS_COUNT = 2;
const OWNER_COUNT = 3;
/** Handler calls per program after which handlers stop acting (they are still called and logged). */
const CALL_BUDGET = 120;

type Action =
  | { kind: 'subscribe'; bus: number; type: SubType; priority: number | undefined; once: boolean; owner: number; script: number }
  | { kind: 'unsubscribe'; target: number; via: 'dispose' | 'bus' | 'id' | 'other-bus' }
  | { kind: 'kill-owner'; owner: number; flag: OwnerDeath }
  | { kind: 'unsubscribe-owner'; bus: number; owner: number }
  | { kind: 'clear'; bus: number }
  | { kind: 'dispatch'; bus: number; type: EventName }
  | { kind: 'bad-call'; bus: number; call: BadCall };

/**
 * Calls that must throw a TypeError at the call and leave the bus exactly as it was ("before anything
 * changes", runtime-probe/README.md, Errors) — also when made from inside a handler, in the middle of a dispatch.
 */
const BAD_CALLS = [
  'dispatch-empty-name',
  'dispatch-wildcard',
  'enqueue-empty-name',
  'subscribe-empty-name',
  'subscribe-non-function',
  'subscribe-nan-priority',
  'subscribe-infinite-priority',
  'subscribe-primitive-owner',
  'unsubscribe-zero-id',
  'unsubscribe-fractional-id',
] as const;
type BadCall = (typeof BAD_CALLS)[number];

/**
 * How an owner dies. Bus 0 uses the default `isOwnerAlive` (the `disposed` / `isDisposed` flags); bus 1
 * is given its own `isOwnerAlive`, which only looks at a "custom" dead set — so a flag kills an owner
 * on bus 0 only, and 'custom' on bus 1 only.
 */
type OwnerDeath = 'disposed' | 'isDisposed' | 'custom';

/** How a handler ends: normally, consuming (two ways), returning a truthy non-`true`, or throwing. */
type Terminal = 'none' | 'return-true' | 'ctx-consume' | 'return-truthy' | 'throw';
interface Script {
  readonly actions: readonly Action[];
  readonly terminal: Terminal;
}
interface Program {
  readonly maxDepth: number;
  readonly scripts: readonly Script[];
  readonly steps: readonly Action[];
}

const SCRIPT_COUNT = 6;

function actionArb(inHandler: boolean): fc.Arbitrary<Action> {
  // Skewed towards bus 0 and event 'a' so subscriptions and dispatches meet often.
  const bus = fc.constantFrom(0, 0, 0, 1);
  const eventName = fc.constantFrom<EventName>('a', 'a', 'b', 'c');
  const owner = fc.integer({ min: 0, max: OWNER_COUNT - 1 });
  const priority = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom<number | undefined>(undefined, 0, 0, 1, 2, -1) },
    { weight: 1, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  );
  const subscribe = fc.record({
    kind: fc.constant('subscribe' as const),
    bus,
    type: fc.oneof({ weight: 3, arbitrary: eventName }, { weight: 1, arbitrary: fc.constant<SubType>('*') }),
    priority,
    once: fc.boolean(),
    owner: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: OWNER_COUNT - 1 })),
    script: fc.integer({ min: 0, max: SCRIPT_COUNT - 1 }),
  });
  const unsubscribe = fc.record({
    kind: fc.constant('unsubscribe' as const),
    target: fc.nat({ max: 1000 }),
    via: fc.constantFrom('dispose' as const, 'bus' as const, 'id' as const, 'other-bus' as const),
  });
  const killOwner = fc.record({
    kind: fc.constant('kill-owner' as const),
    owner,
    flag: fc.constantFrom<OwnerDeath>('disposed', 'isDisposed', 'custom'),
  });
  const unsubscribeOwner = fc.record({ kind: fc.constant('unsubscribe-owner' as const), bus, owner });
  const clear = fc.record({ kind: fc.constant('clear' as const), bus });
  const dispatch = fc.record({ kind: fc.constant('dispatch' as const), bus, type: eventName });
  const badCall = fc.record({ kind: fc.constant('bad-call' as const), bus, call: fc.constantFrom(...BAD_CALLS) });
  // Top-level programs mostly subscribe and dispatch (clear wipes a bus, so it stays rare there).
  const w = inHandler
    ? { subscribe: 6, unsubscribe: 4, killOwner: 1, unsubscribeOwner: 2, clear: 1, dispatch: 6, badCall: 1 }
    : { subscribe: 12, unsubscribe: 4, killOwner: 1, unsubscribeOwner: 2, clear: 1, dispatch: 12, badCall: 1 };
  return fc.oneof(
    { weight: w.subscribe, arbitrary: subscribe },
    { weight: w.unsubscribe, arbitrary: unsubscribe },
    { weight: w.killOwner, arbitrary: killOwner },
    { weight: w.unsubscribeOwner, arbitrary: unsubscribeOwner },
    { weight: w.clear, arbitrary: clear },
    { weight: w.dispatch, arbitrary: dispatch },
    { weight: w.badCall, arbitrary: badCall },
  );
}

const scriptArb: fc.Arbitrary<Script> = fc.record({
  actions: fc.array(actionArb(true), { maxLength: 3, size: 'max' }),
  terminal: fc.oneof(
    { weight: 4, arbitrary: fc.constant<Terminal>('none') },
    { weight: 2, arbitrary: fc.constantFrom<Terminal>('return-true', 'ctx-consume', 'return-truthy', 'throw') },
  ),
});

const programArb: fc.Arbitrary<Program> = fc.record({
  // Mostly small limits (depth errors happen); sometimes limits around and beyond the bus's
  // preallocated per-depth contexts, which a self-dispatching handler can reach within the budget.
  maxDepth: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) }, { weight: 1, arbitrary: fc.constantFrom(62, 63, 64, 65, 100) }),
  scripts: fc.array(scriptArb, { minLength: SCRIPT_COUNT, maxLength: SCRIPT_COUNT }),
  steps: fc.array(actionArb(false), { minLength: 4, maxLength: 40, size: 'max' }),
});

// ---------------------------------------------------------------------------------------------
// Traces: what both runs must agree on

type TraceEntry =
  /** `payload`: the payload's `n`, or 'none' when the handler got `undefined` (void events). */
  | { at: 'call'; sub: number; bus: number; type: string; depth: number; ctxSub: number; payload: number | 'none' }
  | { at: 'dispatch'; bus: number; type: EventName; delivered: number; consumedBy: number | undefined }
  | { at: 'depth-error'; bus: number; type: EventName }
  | { at: 'error'; bus: number; type: string; sub: number; error: string }
  | { at: 'unsubscribe'; target: number; via: string; result: boolean | undefined }
  | { at: 'unsubscribe-owner'; bus: number; owner: number; removed: number }
  /** `outcome`: 'TypeError', or what happened instead ('returned', another error's name). */
  | { at: 'bad-call'; bus: number; call: BadCall; outcome: string }
  | { at: 'state'; step: number; buses: BusState[]; active: boolean[]; reasons?: (UnsubscribeReason | null)[] };

interface BusState {
  /** Live subscriptions by creation index, ascending. */
  readonly live: number[];
  readonly total: number;
  /** listenerCount(type) for 'a', 'b', 'c': typed subscriptions of that type plus '*' ones (whatever is live). */
  readonly byType: number[];
  /** Call count per live subscription (same order as `live`). */
  readonly calls: number[];
}

/** One side of the comparison. Both sides are driven by the same interpreter (`runAction`). */
interface World {
  readonly trace: TraceEntry[];
  /** Number of subscriptions created so far. */
  created(): number;
  subscribe(a: Extract<Action, { kind: 'subscribe' }>): void;
  unsubscribe(target: number, via: Extract<Action, { kind: 'unsubscribe' }>['via']): boolean | undefined;
  killOwner(owner: number, how: OwnerDeath): void;
  unsubscribeOwner(bus: number, owner: number): number;
  clear(bus: number): void;
  /** Makes a call that must be rejected; returns 'TypeError' or what happened instead. */
  badCall(bus: number, call: BadCall): string;
  /** Throws (after tracing) when the nested depth limit is hit. */
  dispatch(bus: number, type: EventName, payload: number | undefined): void;
  state(step: number): TraceEntry;
}

class Budget {
  calls = 0;
}

function runAction(world: World, action: Action, payloadSeq: { n: number }): void {
  switch (action.kind) {
    case 'subscribe':
      world.subscribe(action);
      return;
    case 'unsubscribe': {
      const n = world.created();
      if (n === 0) return;
      const target = action.target % n;
      world.trace.push({ at: 'unsubscribe', target, via: action.via, result: world.unsubscribe(target, action.via) });
      return;
    }
    case 'kill-owner':
      world.killOwner(action.owner, action.flag);
      return;
    case 'unsubscribe-owner':
      world.trace.push({ at: 'unsubscribe-owner', bus: action.bus, owner: action.owner, removed: world.unsubscribeOwner(action.bus, action.owner) });
      return;
    case 'clear':
      world.clear(action.bus);
      return;
    case 'dispatch':
      world.dispatch(action.bus, action.type, action.type === 'c' ? undefined : ++payloadSeq.n);
      return;
    case 'bad-call':
      world.trace.push({ at: 'bad-call', bus: action.bus, call: action.call, outcome: world.badCall(action.bus, action.call) });
      return;
    default: {
      const never: never = action;
      throw new Error(`unknown action ${JSON.stringify(never)}`);
    }
  }
}

/**
 * The body of every handler, real or modelled: trace the call, run the script's actions (unless the
 * budget is spent), then end as the script says. Returns the handler's return value.
 */
function runHandler(
  world: World,
  program: Program,
  budget: Budget,
  payloadSeq: { n: number },
  sub: { index: number; bus: number; script: number },
  call: { type: string; depth: number; ctxSub: number; payload: number | 'none' },
  consume: () => void,
): unknown {
  world.trace.push({ at: 'call', sub: sub.index, bus: sub.bus, ...call });
  const script = program.scripts[sub.script];
  if (budget.calls++ < CALL_BUDGET) {
    for (const action of script.actions) runAction(world, action, payloadSeq);
  }
  switch (script.terminal) {
    case 'none':
      return undefined;
    case 'return-true':
      return true;
    case 'ctx-consume':
      consume();
      return undefined;
    case 'return-truthy':
      return 1; // only `true` consumes
    case 'throw':
      throw new Error('boom');
    default: {
      const never: never = script.terminal;
      throw new Error(`unknown terminal ${String(never)}`);
    }
  }
}

function describeError(error: unknown, isDepthError: (e: unknown) => boolean): string {
  if (isDepthError(error)) return 'depth';
  if (error instanceof Error && error.message === 'boom') return 'boom';
  return `unexpected: ${String(error)}`;
}

// ---------------------------------------------------------------------------------------------
// The real bus

type Owner = { disposed: boolean; isDisposed: boolean; name: string };
type Payload = { n: number } | undefined;

class RealWorld implements World {
  readonly trace: TraceEntry[] = [];
  private readonly buses: EventBus<Events>[];
  private readonly subs: { sub: Subscription; bus: number }[] = [];
  private readonly indexById = new Map<number, number>();
  private readonly owners: Owner[];
  private readonly customDead = new Set<object>();
  private readonly budget = new Budget();
  private readonly payloadSeq = { n: 0 };

  constructor(
    private readonly program: Program,
    private readonly allIds: Set<number>,
    /** Installed tracers, when running attached: their unsubscribe reasons go into each state entry. */
    private readonly tracers: RecordingTracers | undefined,
  ) {
    this.owners = Array.from({ length: OWNER_COUNT }, (_, i) => ({ disposed: false, isDisposed: false, name: `owner${i}` }));
    this.buses = Array.from(
      { length: BUS_COUNT },
      (_, bus) =>
        new EventBus<Events>({
          name: `prop-${bus}`,
          maxDepth: program.maxDepth,
          ...(bus === 1 ? { isOwnerAlive: (owner: object) => !this.customDead.has(owner) } : {}),
          onError: (error, info) => {
            this.trace.push({
              at: 'error',
              bus,
              type: info.type,
              sub: this.indexOf(info.subscriptionId),
              error: describeError(error, (e) => e instanceof DispatchDepthError),
            });
          },
        }),
    );
  }

  run(): TraceEntry[] {
    try {
      this.program.steps.forEach((step, i) => {
        runAction(this, step, this.payloadSeq);
        this.trace.push(this.state(i));
      });
    } finally {
      for (const bus of this.buses) bus.dispose();
    }
    return this.trace;
  }

  private indexOf(id: number): number {
    const index = this.indexById.get(id);
    if (index === undefined) throw new Error(`id ${id} is not a subscription of this program`);
    return index;
  }

  created(): number {
    return this.subs.length;
  }

  subscribe(a: Extract<Action, { kind: 'subscribe' }>): void {
    const index = this.subs.length;
    const record = { index, bus: a.bus, script: a.script };
    const handler = (payload: Payload, ctx: { type: string; depth: number; subscriptionId: number; consume(): void }): unknown =>
      runHandler(
        this,
        this.program,
        this.budget,
        this.payloadSeq,
        record,
        { type: ctx.type, depth: ctx.depth, ctxSub: this.indexOf(ctx.subscriptionId), payload: payload === undefined ? 'none' : payload.n },
        () => ctx.consume(),
      );
    const options: { priority?: number; once?: boolean; owner?: object } = {};
    if (a.priority !== undefined) options.priority = a.priority;
    if (a.once) options.once = true;
    if (a.owner >= 0) options.owner = this.owners[a.owner];
    const bus = this.buses[a.bus];
    const sub = a.type === '*' ? bus.subscribe('*', handler, options) : bus.subscribe(a.type, handler, options);
    assert.ok(Number.isInteger(sub.id) && sub.id > 0, `id ${sub.id} is a positive integer`);
    assert.ok(!this.allIds.has(sub.id), `id ${sub.id} was handed out before`);
    assert.equal(sub.type, a.type);
    assert.equal(sub.active, true);
    this.allIds.add(sub.id);
    this.indexById.set(sub.id, index);
    this.subs.push({ sub, bus: a.bus });
  }

  unsubscribe(target: number, via: Extract<Action, { kind: 'unsubscribe' }>['via']): boolean | undefined {
    const { sub, bus } = this.subs[target];
    switch (via) {
      case 'dispose':
        sub.dispose();
        return undefined;
      case 'bus':
        return this.buses[bus].unsubscribe(sub);
      case 'id':
        return this.buses[bus].unsubscribe(sub.id);
      case 'other-bus':
        return this.buses[(bus + 1) % BUS_COUNT].unsubscribe(sub);
      default: {
        const never: never = via;
        throw new Error(String(never));
      }
    }
  }

  killOwner(owner: number, how: OwnerDeath): void {
    if (how === 'custom') this.customDead.add(this.owners[owner]);
    else this.owners[owner][how] = true;
  }

  unsubscribeOwner(bus: number, owner: number): number {
    return this.buses[bus].unsubscribeOwner(this.owners[owner]);
  }

  clear(bus: number): void {
    this.buses[bus].clear();
  }

  badCall(bus: number, call: BadCall): string {
    // Deliberately ill-typed calls, as plain JavaScript (or an `any`) would make them.
    const b = this.buses[bus] as unknown as EventBus<Record<string, unknown>>;
    const handler = (): void => {};
    try {
      switch (call) {
        case 'dispatch-empty-name':
          b.dispatch('', undefined);
          break;
        case 'dispatch-wildcard':
          b.dispatch('*', undefined);
          break;
        case 'enqueue-empty-name':
          b.enqueue('', undefined);
          break;
        case 'subscribe-empty-name':
          b.subscribe('', handler);
          break;
        case 'subscribe-non-function':
          b.subscribe('a', 'handler' as unknown as () => void);
          break;
        case 'subscribe-nan-priority':
          b.subscribe('a', handler, { priority: Number.NaN });
          break;
        case 'subscribe-infinite-priority':
          b.subscribe('a', handler, { priority: Number.POSITIVE_INFINITY });
          break;
        case 'subscribe-primitive-owner':
          b.subscribe('a', handler, { owner: 5 as unknown as object });
          break;
        case 'unsubscribe-zero-id':
          b.unsubscribe(0);
          break;
        case 'unsubscribe-fractional-id':
          b.unsubscribe(1.5);
          break;
        default: {
          const never: never = call;
          throw new Error(String(never));
        }
      }
    } catch (error) {
      return error instanceof TypeError ? 'TypeError' : `threw ${String(error)}`;
    }
    return 'returned';
  }

  dispatch(bus: number, type: EventName, payloadN: number | undefined): void {
    const b = this.buses[bus];
    let result;
    try {
      result = type === 'c' ? b.dispatch('c') : b.dispatch(type, { n: payloadN ?? 0 });
    } catch (error) {
      if (error instanceof DispatchDepthError) this.trace.push({ at: 'depth-error', bus, type });
      throw error;
    }
    this.trace.push({
      at: 'dispatch',
      bus,
      type,
      delivered: result.delivered,
      consumedBy: result.consumedBy === undefined ? undefined : this.indexOf(result.consumedBy),
    });
    assert.equal(result.consumed, result.consumedBy !== undefined, 'consumed iff consumedBy is set');
    if (this.tracers !== undefined) {
      // The tracer's record of this dispatch (its dispatchEnd came last) must agree with the result.
      assert.deepEqual(this.tracers.lastEnded, { delivered: result.delivered, consumedBy: result.consumedBy ?? 0 }, 'tracer dispatchEnd matches the result');
    }
  }

  state(step: number): TraceEntry {
    const buses: BusState[] = this.buses.map((b) => {
      const infos = b.subscriptions().map((info) => ({ index: this.indexOf(info.id), calls: info.calls }));
      infos.sort((x, y) => x.index - y.index);
      return {
        live: infos.map((i) => i.index),
        total: b.listenerCount(),
        byType: EVENT_NAMES.map((t) => b.listenerCount(t)),
        calls: infos.map((i) => i.calls),
      };
    });
    const entry: TraceEntry = { at: 'state', step, buses, active: this.subs.map((s) => s.sub.active) };
    const tracers = this.tracers;
    if (tracers !== undefined) entry.reasons = this.subs.map((s) => tracers.reasons.get(s.sub.id) ?? null);
    return entry;
  }
}

/**
 * Both probe tracers, recording what the test compares: the unsubscribe reason of every subscription,
 * and whether dispatchStart/handlerStart/dispatchEnd nest properly (depth, parent sequence, delivered).
 * The bus swallows tracer exceptions (a probe must never break the app), so problems are collected
 * and checked after each program instead of thrown.
 */
class RecordingTracers implements BusTracer, DispatchTracer {
  readonly reasons = new Map<number, UnsubscribeReason>();
  readonly problems: string[] = [];
  lastEnded: { delivered: number; consumedBy: number } | undefined;
  private seq = 0;
  private readonly open: { seq: number; handlers: number }[] = [];

  busCreated(): void {}
  busDisposed(): void {}
  subscribed(): void {}
  unsubscribed(_bus: TracedBus, sub: TracedSubscription, reason: UnsubscribeReason): void {
    const before = this.reasons.get(sub.id);
    if (before !== undefined) this.problems.push(`subscription ${sub.id} unsubscribed twice (${before}, then ${reason})`);
    else this.reasons.set(sub.id, reason);
  }
  ownerCollected(): void {}
  enqueued(): void {}
  flushed(): void {}
  depthLimitHit(): void {}

  dispatchStart(_bus: TracedBus, type: string, depth: number, parentSeq: number): number {
    const parent = this.open.length === 0 ? 0 : this.open[this.open.length - 1].seq;
    if (depth !== this.open.length) this.problems.push(`dispatchStart(${type}) at depth ${depth}, but ${this.open.length} dispatches are open`);
    if (parentSeq !== parent) this.problems.push(`dispatchStart(${type}) with parent ${parentSeq}, expected ${parent}`);
    this.open.push({ seq: ++this.seq, handlers: 0 });
    return this.seq;
  }
  handlerStart(seq: number): void {
    const top = this.open[this.open.length - 1];
    if (top?.seq !== seq) this.problems.push(`handlerStart for ${seq}, but the innermost open dispatch is ${top?.seq}`);
    else top.handlers++;
  }
  handlerEnd(seq: number): void {
    const top = this.open[this.open.length - 1];
    if (top?.seq !== seq) this.problems.push(`handlerEnd for ${seq}, but the innermost open dispatch is ${top?.seq}`);
  }
  handlerError(): void {}
  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    const top = this.open.pop();
    if (top?.seq !== seq) this.problems.push(`dispatchEnd for ${seq}, but the innermost open dispatch is ${top?.seq}`);
    else if (top.handlers !== delivered) this.problems.push(`dispatchEnd(${seq}) says delivered ${delivered}, handlerStart counted ${top.handlers}`);
    this.lastEnded = { delivered, consumedBy };
  }
  shouldBreak(): boolean {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// The reference model: a flat array of subscription records, filtered and sorted at every dispatch.

interface ModelSub {
  readonly index: number;
  readonly bus: number;
  readonly type: SubType;
  readonly priority: number;
  readonly once: boolean;
  readonly owner: number;
  readonly script: number;
  active: boolean;
  calls: number;
  reason: UnsubscribeReason | null;
}

function retire(s: ModelSub, reason: UnsubscribeReason): void {
  if (!s.active) return;
  s.active = false;
  s.reason = reason;
}

class ModelDepthError extends Error {}

/** How often the model took each interesting branch, summed over the whole property run. */
const coverage = {
  calls: 0,
  nestedCalls: 0,
  badCalls: 0,
  /** Calls at depth ≥ 60 (beyond typical preallocation). */
  deepCalls: 0,
  wildcardCalls: 0,
  /** In the dispatch's snapshot but unsubscribed (any way) before its turn. */
  skippedUnsubscribed: 0,
  /** Subscribed during a dispatch of its type (so that dispatch must not call it). */
  subscribedDuringOwnDispatch: 0,
  deadOwnerRemovals: 0,
  onceRemovals: 0,
  consumedDispatches: 0,
  depthErrors: 0,
  handlerErrors: 0,
};

class ModelWorld implements World {
  readonly trace: TraceEntry[] = [];
  private readonly subs: ModelSub[] = [];
  /** Dead by flag (bus 0's default isOwnerAlive) and by the custom set (bus 1's isOwnerAlive). */
  private readonly ownerFlagged: boolean[] = Array.from({ length: OWNER_COUNT }, () => false);
  private readonly ownerCustomDead: boolean[] = Array.from({ length: OWNER_COUNT }, () => false);
  /** Dispatches in progress, on any bus: depth is process-wide. */
  private depth = 0;
  /** Dispatches in progress (for coverage only). */
  private readonly running: { bus: number; type: EventName }[] = [];
  private readonly budget = new Budget();
  private readonly payloadSeq = { n: 0 };

  constructor(
    private readonly program: Program,
    private readonly withReasons: boolean,
  ) {}

  run(): TraceEntry[] {
    this.program.steps.forEach((step, i) => {
      runAction(this, step, this.payloadSeq);
      this.trace.push(this.state(i));
    });
    return this.trace;
  }

  created(): number {
    return this.subs.length;
  }

  subscribe(a: Extract<Action, { kind: 'subscribe' }>): void {
    if (this.running.some((r) => r.bus === a.bus && (a.type === '*' || a.type === r.type))) coverage.subscribedDuringOwnDispatch++;
    this.subs.push({
      index: this.subs.length,
      bus: a.bus,
      type: a.type,
      priority: a.priority ?? 0,
      once: a.once,
      owner: a.owner,
      script: a.script,
      active: true,
      calls: 0,
      reason: null,
    });
  }

  unsubscribe(target: number, via: Extract<Action, { kind: 'unsubscribe' }>['via']): boolean | undefined {
    const sub = this.subs[target];
    if (via === 'other-bus') return false;
    const was = sub.active;
    retire(sub, 'dispose');
    return via === 'dispose' ? undefined : was;
  }

  killOwner(owner: number, how: OwnerDeath): void {
    if (how === 'custom') this.ownerCustomDead[owner] = true;
    else this.ownerFlagged[owner] = true;
  }

  private ownerDead(bus: number, owner: number): boolean {
    return owner >= 0 && (bus === 1 ? this.ownerCustomDead[owner] : this.ownerFlagged[owner]);
  }

  unsubscribeOwner(bus: number, owner: number): number {
    let removed = 0;
    for (const s of this.subs) {
      if (s.active && s.bus === bus && s.owner === owner) {
        retire(s, 'owner');
        removed++;
      }
    }
    return removed;
  }

  clear(bus: number): void {
    for (const s of this.subs) if (s.bus === bus) retire(s, 'clear');
  }

  badCall(): string {
    coverage.badCalls++;
    return 'TypeError'; // and nothing changes
  }

  dispatch(bus: number, type: EventName, payload: number | undefined): void {
    const depth = this.depth;
    if (depth > this.program.maxDepth) {
      coverage.depthErrors++;
      this.trace.push({ at: 'depth-error', bus, type });
      throw new ModelDepthError();
    }
    // Who may be called is fixed when the dispatch starts (later subscribers wait for the next one);
    // higher priority first, ties in subscription order, '*' interleaved with typed subscriptions.
    const snapshot = this.subs
      .filter((s) => s.active && s.bus === bus && (s.type === type || s.type === '*'))
      .sort((x, y) => y.priority - x.priority || x.index - y.index);
    let delivered = 0;
    let consumedBy: number | undefined;
    this.depth++;
    this.running.push({ bus, type });
    try {
      for (const s of snapshot) {
        if (!s.active) {
          coverage.skippedUnsubscribed++;
          continue; // unsubscribed earlier in this dispatch
        }
        if (this.ownerDead(bus, s.owner)) {
          coverage.deadOwnerRemovals++;
          retire(s, 'dead-owner'); // removed instead of called
          continue;
        }
        if (s.once) {
          coverage.onceRemovals++;
          retire(s, 'once'); // removed before its handler runs
        }
        delivered++;
        s.calls++;
        coverage.calls++;
        if (depth > 0) coverage.nestedCalls++;
        if (depth >= 60) coverage.deepCalls++;
        if (s.type === '*') coverage.wildcardCalls++;
        let consumed = false;
        try {
          const r = runHandler(this, this.program, this.budget, this.payloadSeq, s, { type, depth, ctxSub: s.index, payload: payload ?? 'none' }, () => {
            consumed = true;
          });
          if (r === true) consumed = true;
        } catch (error) {
          coverage.handlerErrors++;
          this.trace.push({ at: 'error', bus, type, sub: s.index, error: describeError(error, (e) => e instanceof ModelDepthError) });
          consumed = false;
        }
        if (consumed) {
          coverage.consumedDispatches++;
          consumedBy = s.index;
          break;
        }
      }
    } finally {
      this.depth--;
      this.running.pop();
    }
    this.trace.push({ at: 'dispatch', bus, type, delivered, consumedBy });
  }

  state(step: number): TraceEntry {
    const buses: BusState[] = [];
    for (let bus = 0; bus < BUS_COUNT; bus++) {
      const live = this.subs.filter((s) => s.active && s.bus === bus);
      buses.push({
        live: live.map((s) => s.index),
        total: live.length,
        byType: EVENT_NAMES.map((t) => live.filter((s) => s.type === t).length),
        calls: live.map((s) => s.calls),
      });
    }
    const entry: TraceEntry = { at: 'state', step, buses, active: this.subs.map((s) => s.active) };
    if (this.withReasons) entry.reasons = this.subs.map((s) => s.reason);
    return entry;
  }
}

// ---------------------------------------------------------------------------------------------

/** The trace up to and including the first difference, so a failure message stays readable. */
function firstDifference(real: TraceEntry[], model: TraceEntry[]): string | undefined {
  const n = Math.max(real.length, model.length);
  for (let i = 0; i < n; i++) {
    if (JSON.stringify(real[i]) !== JSON.stringify(model[i])) {
      const from = Math.max(0, i - 8);
      return [
        `traces differ at entry ${i}:`,
        `  real : ${JSON.stringify(real[i])}`,
        `  model: ${JSON.stringify(model[i])}`,
        `  preceding (agreed):`,
        ...model.slice(from, i).map((e) => `    ${JSON.stringify(e)}`),
      ].join('\n');
    }
  }
  return undefined;
}

function checkAgainstModel(tracers: RecordingTracers | undefined, numRuns: number): void {
  for (const key of Object.keys(coverage) as (keyof typeof coverage)[]) coverage[key] = 0;
  const allIds = new Set<number>();
  fc.assert(
    fc.property(programArb, (program) => {
      const model = new ModelWorld(program, tracers !== undefined).run();
      const real = new RealWorld(program, allIds, tracers).run();
      const diff = firstDifference(real, model);
      if (diff !== undefined) throw new Error(diff);
      if (tracers !== undefined && tracers.problems.length > 0) throw new Error(`tracer saw: ${tracers.problems.join('; ')}`);
    }),
    { numRuns, seed: 20261201, includeErrorInReport: true },
  );
  if (process.env.BUSSCOPE_PROPERTY_STATS) console.log(coverage);
  // The generator must actually reach every rule in the README's Semantics list, or the property proves little.
  // Floors are roughly 40% of what a run typically reaches.
  const floor: Record<keyof typeof coverage, number> = {
    calls: numRuns * 5,
    nestedCalls: numRuns * 2,
    deepCalls: numRuns / 10,
    badCalls: numRuns / 2,
    wildcardCalls: numRuns * 2,
    skippedUnsubscribed: numRuns / 5,
    subscribedDuringOwnDispatch: numRuns,
    deadOwnerRemovals: numRuns / 10,
    onceRemovals: numRuns,
    consumedDispatches: numRuns / 2,
    depthErrors: numRuns,
    handlerErrors: numRuns,
  };
  for (const key of Object.keys(floor) as (keyof typeof coverage)[]) {
    assert.ok(coverage[key] >= floor[key], `coverage: ${key} = ${coverage[key]} (want ≥ ${floor[key]}); all: ${JSON.stringify(coverage)}`);
  }
}

test('the bus behaves like the reference model under random programs, including actions inside handlers', () => {
  checkAgainstModel(undefined, 300);
});

test('with the probe attached (traced dispatch loop): same behaviour, right unsubscribe reasons, proper nesting', () => {
  const tracers = new RecordingTracers();
  setBusTracer(tracers);
  setDispatchTracer(tracers);
  try {
    checkAgainstModel(tracers, 200);
  } finally {
    setDispatchTracer(undefined);
    setBusTracer(undefined);
  }
});
