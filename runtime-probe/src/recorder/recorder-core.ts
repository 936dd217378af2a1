// The recorder core: the bus's tracer, writing records into a preallocated ring and draining it into batches for its sinks.
// No Node built-ins (browser pages and workers reuse it); what differs per runtime (the clock, Proxy
// detection, source mapping, the debugger gate) comes in through `RecorderHost` (recorder-host.ts).
// recorder.ts wires the Node host.
//
// The recorder implements the bus's tracer interfaces. Hot path (the DispatchTracer calls): intern the
// type (one map lookup), read the clock, write a fixed-width slot into a preallocated Float64Array
// ring — no allocation per dispatch. Off the hot path (a 10 ms timer armed by the first record after
// the ring empties, so an idle recorder wakes nothing; `flushTo`; or inline when the
// ring passes its high-water mark): encode the ring into one record batch and offer it to every sink.
//
// Drops are exact: a record that does not fit the ring is counted (`buffer-full`), a batch a sink
// cannot take is counted for that sink (`slow-client`); each sink then receives `drops` records.

import {
  currentTraceIdSource,
  primaryDispatchTracer,
  setDispatchTracer,
  type BusTracer,
  type DispatchTracer,
  type TracedBus,
  type TracedSubscription,
  type UnsubscribeReason as TracerUnsubscribeReason,
} from '../bus/tracer';

// The protocol's modules by name, not its index: a page bundle must not keep the reader's module state.
import { MAX_PAYLOAD_CAP_BYTES, TARGET_BATCH_BYTES } from '../protocol/limits';
import { DETAIL_LEVELS, type DetailLevel, type RecordingConfig } from '../protocol/messages';
import { RecordWriter } from '../protocol/record-writer';
import { UNSUBSCRIBE_REASONS, type UnsubscribeReason } from '../protocol/records';
import { BUS_KINDS } from '../protocol/records';
import { SITE_ORIGINS } from '../protocol/site-origin';
import { reportProbeFailure } from '../probe/report';
import { runtime, type ProducedOrigin } from '../bus/runtime';
import type { PayloadSanitizer, ProxyCheck } from './payload';
import type { RecorderClock, RecorderCoreOptions, RecorderHost } from './recorder-host';
import { SinkDelivery } from './sink-delivery';
import type { RecordSink } from './sink';
import { captureSite } from './sites';
import { SiteTable, StringTable, type SiteEntry } from './tables';
import {
  BusCreatedSlot,
  BusDisposedSlot,
  DepthLimitSlot,
  DispatchSlot,
  EnqueueSlot,
  FlushSlot,
  HandlerErrorSlot,
  HandlerSlot,
  OwnerCollectedSlot,
  PayloadSlot,
  SubscribeSlot,
  UnsubscribeSlot,
  Slot,
  Code,
} from './layouts';
import { Row, rowToSlot } from './dispatch-stack';
import { encodeSlot, type RunEncoder, type SideStrings } from './ring-encoder';
import { readTraceId } from './trace-id';
import { WindowClock } from './window-clock';
import { HandlerSampler } from './handler-sampler';
import { SiteSampler } from './site-sampler';

// The bus's reasons and the wire's reasons are the same list (checked at compile time).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const reasonsMatch: Same<TracerUnsubscribeReason, UnsubscribeReason> = true;
void reasonsMatch;

const DRAIN_INTERVAL_MS = 10;
const MAX_ERROR_TEXT = 16 * 1024;
/** The dispatched-type id cache (an enum: a bundler writes its members in as numbers). */
enum TypeCache {
  /** Slots (a power of two). */
  slots = 64,
}

const REASON_CODE: { readonly [R in UnsubscribeReason]: number } = Object.fromEntries(UNSUBSCRIBE_REASONS.map((r, i) => [r, i])) as {
  [R in UnsubscribeReason]: number;
};

// Indexes into DETAIL_LEVELS; 1 ('dispatch') is never tested for by itself.
const DETAIL_LIFECYCLE = 0;
const DETAIL_HANDLERS = 2;

export {
  DEFAULT_MAX_BUFFERED_RECORDS,
  DEFAULT_RECORDING_CONFIG,
  type RecorderClock,
  type RecorderCoreOptions,
  type RecorderHost,
  type RecorderOptions,
} from './recorder-host';

/**
 * Records after which the hot path drains: few enough that the slots written since the last drain
 * (112 bytes each) are still in the core's cache when the drain reads them. At 0.75 of the default
 * ring (7 MB) every drain streamed megabytes from memory, which cost more than encoding them.
 */
const DRAIN_RECORDS = 4096;

function highWaterOf(capacity: number): number {
  return Math.max(1, Math.min(DRAIN_RECORDS, Math.floor(capacity * 0.75)));
}

function detailCode(d: DetailLevel): number {
  return DETAIL_LEVELS.indexOf(d);
}

export class RecorderCore implements BusTracer, DispatchTracer {
  readonly strings = new StringTable();
  readonly sites: SiteTable;
  /** Epoch ms of time 0 of every record. */
  readonly timeOrigin: number;
  /**
   * The first subscription this recorder saw made (as bus tracer) since it was installed; 0 until
   * one is. Subscription ids only grow, so a smaller id without a site was made before the probe
   * watched: `SubscriptionSnapshot.beforeProbe`.
   */
  firstTracedSubscriptionId = 0;
  private readonly clock: RecorderClock;
  private readonly encodeColumns: RunEncoder | undefined;
  private readonly encodeBlock: RunEncoder | undefined;
  private readonly watchDebugger: (on: boolean) => void;

  private cfg: RecordingConfig;
  private detail: number;
  protected sanitize: PayloadSanitizer | undefined;
  private readonly isProxy: ProxyCheck | undefined;
  /** Read for `capturePayload` on each use: a page's payload capture may join later (busscope-probe/browser/payloads). */
  private readonly host: RecorderHost;
  private readonly skipLines = new Map<string, number>();

  // --- sinks and recording state
  private readonly sinks: RecordSink[] = [];
  /** True while at least one sink is attached: only then are records written. */
  private recording = false;
  /** Install the dispatch tracer without sinks (stack tracking for snapshots taken under a debugger). */
  protected tracking = false;
  /** The drain timer, armed while the ring holds records or a sink has drops to send (see `allocSlot`). */
  private timer: ReturnType<typeof setTimeout> | undefined;

  // --- the ring (allocated while recording)
  protected capacity: number;
  protected nextCapacity: number;
  protected highWater: number;
  protected ring: Float64Array | null = null;
  /** Strings that do not fit a slot (owner descriptions, error texts, payload JSON), by slot. */
  private sideA: (string | null)[] = [];
  /** Side strings; a dispatch's `sideB` is its producer-port origin (not a string). */
  private sideB: (string | ProducedOrigin | null)[] = [];
  protected readPos = 0;
  protected size = 0;
  private fullDropped = 0;
  private fullDroppedDispatches = 0;
  protected draining = false;

  // --- dispatches in progress: one row of Row.width doubles per stack position (not the bus's global
  // depth), in one array so the hot path touches one object
  protected stackCap = 64;
  protected top = -1;
  protected stack = new Float64Array(this.stackCap * Row.width);
  /** Per stack entry, the producer-port origin of its event (`runtime.produced` at its start). */
  /** One entry per stack row, present from the start: a read past an array's end can be a slow path. */
  protected readonly origins: (ProducedOrigin | undefined)[] = new Array<ProducedOrigin | undefined>(this.stackCap).fill(undefined);
  protected lastSeq = 0;
  /**
   * The last clock reading at a handler boundary (dispatch start, handler end). Between such a
   * boundary and the next handler start only the bus's own loop runs, so the reading is reused
   * instead of calling the clock again: N handlers cost N+1 clock reads, not 2N+2.
   */
  private boundary = 0;
  private boundaryValid = false;
  /** Dispatch times at detail `dispatch`: ticks, resolved at drain (window-clock.ts). */
  readonly windowClock: WindowClock;
  /** Recording at detail `dispatch` or `handlers`: only then are dispatches timed (the clock is the hot path's main cost). */
  protected timed = false;
  /** Recording at detail `handlers`. */
  protected handlersTimed = false;
  /** At detail `handlers`: which dispatches get handler timings (handler-sampler.ts). */
  protected readonly sampler = new HandlerSampler();
  /**
   * Whether the bus must call handlerStart/handlerEnd (DispatchTracer.handlerHooks): for the running
   * subscription of a dispatch a debugger may stop in (tracking), and — set by `dispatchStart` for
   * that dispatch only — for a dispatch whose handlers are timed. The bus reads it again after
   * `dispatchStart`, so an untimed dispatch at detail `handlers` runs at its detail-`dispatch` cost.
   */
  handlerHooks = true;
  /** `handlerHooks` outside a timed dispatch. */
  private hooksBase = true;
  /** Recording payloads (detail `dispatch` or `handlers`). */
  protected payloads = false;
  /**
   * Direct-mapped cache of dispatched types' string ids, by a cheap hash of the name: an app
   * interleaves a handful of types, and a one-entry cache missed on nearly every dispatch of them.
   */
  private readonly typeKeys: (string | undefined)[] = new Array<string | undefined>(TypeCache.slots).fill(undefined);
  private readonly typeIds = new Int32Array(TypeCache.slots);
  /** Which dispatches have their site captured (site-sampler.ts). */
  protected siteSampler: SiteSampler;

  // --- event breakpoints and per-type counts
  protected breakTypes: ReadonlySet<string> = new Set();
  protected focusBuses: ReadonlySet<number> = new Set();
  /** Per bus id: dispatch records seen per type id (typed, so the drain adds without a map update per record). */
  private readonly typeDispatches = new Map<number, Float64Array>();
  /** (bus, type) keys with a recorded enqueue (a type may be enqueued and never dispatched yet). */
  private readonly typeEnqueued = new Set<number>();

  // --- encoding
  private readonly writer = new RecordWriter(TARGET_BATCH_BYTES * 2);
  private readonly delivery: SinkDelivery;

  constructor(options: RecorderCoreOptions) {
    const host = options.host;
    this.clock = host.clock;
    this.encodeColumns = host.encodeColumns;
    this.encodeBlock = host.encodeBlock;
    this.windowClock = new WindowClock(host.clock, () => this.drain());
    this.timeOrigin = host.clock.timeOrigin;
    this.sites = new SiteTable(this.strings, host.sourceMaps);
    this.delivery = new SinkDelivery(this.strings, this.sites);
    this.watchDebugger = host.watchDebugger ?? (() => undefined);
    this.capacity = this.nextCapacity = options.maxBufferedRecords;
    this.highWater = highWaterOf(options.maxBufferedRecords);
    this.sanitize = options.sanitize;
    this.isProxy = options.isProxy ?? host.isProxy;
    this.host = host;
    this.cfg =
      host.capturePayload === undefined && options.config.capturePayloads ? Object.freeze({ ...options.config, capturePayloads: false }) : options.config;
    this.detail = detailCode(this.cfg.detail);
    this.siteSampler = new SiteSampler(this.cfg.dispatchSiteEvery);
    this.lastSeq = options.seqBase ?? 0;
  }

  // ------------------------------------------------------------------------------------------
  // Configuration, sinks

  get config(): RecordingConfig {
    return this.cfg;
  }

  get isRecording(): boolean {
    return this.recording;
  }

  get sinkCount(): number {
    return this.sinks.length;
  }

  /** Highest dispatch sequence assigned. */
  get lastSequence(): number {
    return this.lastSeq;
  }

  configure(patch: Partial<RecordingConfig>): RecordingConfig {
    const next: RecordingConfig = { ...this.cfg, ...patch };
    if (this.host.capturePayload === undefined && next.capturePayloads) (next as { capturePayloads: boolean }).capturePayloads = false;
    if (next.payloadSizeCap > MAX_PAYLOAD_CAP_BYTES) (next as { payloadSizeCap: number }).payloadSizeCap = MAX_PAYLOAD_CAP_BYTES;
    this.cfg = Object.freeze(next);
    this.detail = detailCode(next.detail);
    this.updateModes();
    this.updateInstall();
    if (next.dispatchSiteEvery !== this.siteSampler.every) this.siteSampler = new SiteSampler(next.dispatchSiteEvery);
    return this.cfg;
  }

  setBreakOn(types: ReadonlySet<string>): void {
    this.breakTypes = types;
    // While there is something to break on, the bus skips the `debugger` statement when no debugger can listen.
    this.watchDebugger(types.size > 0);
    this.updateInstall();
  }

  /**
   * Library buses (emitters whose listeners all come from Node's internals or node_modules) that
   * some client wants at full detail; the others record at `lifecycle` detail.
   */
  setFocus(buses: ReadonlySet<number>): void {
    this.focusBuses = buses;
  }

  get breakOn(): ReadonlySet<string> {
    return this.breakTypes;
  }

  /**
   * Attaches a sink: what was recorded before goes to the existing sinks, then this sink gets
   * `preamble` (welcome), every definition so far, then `afterDefinitions()` (the snapshot) — all
   * synchronously, so the snapshot and the stream that follows fit together exactly.
   */
  attach(sink: RecordSink, preamble: readonly Uint8Array[], afterDefinitions: () => Uint8Array | undefined): void {
    this.drain();
    for (const frame of preamble) sink.write(frame);
    this.delivery.sendDefinitions(sink);
    this.sinks.push(sink);
    if (!this.recording) this.startRecording();
    const snapshot = afterDefinitions();
    if (snapshot !== undefined) sink.write(snapshot);
  }

  /** Detaches a sink; with `flush`, first delivers everything recorded so far to it. */
  detach(sink: RecordSink, flush: boolean): void {
    const i = this.sinks.indexOf(sink);
    if (i < 0) return;
    if (flush) this.flushTo(sink);
    this.sinks.splice(i, 1);
    if (this.sinks.length === 0) this.stopRecording();
  }

  /** Delivers every record produced so far (or its drop count) to `sink`, definitions included. */
  flushTo(sink: RecordSink): void {
    this.drain();
    this.delivery.sendDefinitions(sink);
    if (sink.hasPendingDrops) this.delivery.writeDrops(sink);
  }

  protected startRecording(): void {
    this.capacity = this.nextCapacity;
    this.highWater = highWaterOf(this.capacity);
    this.ring = new Float64Array(this.capacity * Slot.width);
    this.sideA = new Array<string | null>(this.capacity).fill(null);
    this.sideB = new Array<string | ProducedOrigin | null>(this.capacity).fill(null);
    this.readPos = 0;
    this.size = 0;
    this.fullDropped = 0;
    this.fullDroppedDispatches = 0;
    this.recording = true;
    this.sampler.reset();
    this.updateModes();
    this.updateInstall();
  }

  private stopRecording(): void {
    this.recording = false;
    this.updateModes();
    // Dispatches still running keep a start time (recording may resume before they end).
    this.windowClock.close();
    this.resolveOpenStarts();
    this.windowClock.reset();
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.ring = null;
    this.sideA = [];
    this.sideB = [];
    this.size = 0;
    this.updateInstall();
  }

  protected updateModes(): void {
    this.timed = this.recording && this.detail !== DETAIL_LIFECYCLE;
    this.handlersTimed = this.recording && this.detail === DETAIL_HANDLERS;
    this.handlerHooks = this.hooksBase = this.tracking || !this.recording;
    this.payloads = this.timed && this.cfg.capturePayloads;
  }

  /**
   * The dispatch tracer is installed while dispatches are recorded, tracked for a debugger, or
   * event breakpoints are set. At detail `lifecycle` with none of those, nothing needs to see a
   * dispatch, so it is not installed and a dispatch costs what it costs detached.
   */
  protected updateInstall(): void {
    const want = (this.recording && (this.detail !== DETAIL_LIFECYCLE || this.breakTypes.size > 0)) || this.tracking;
    const installed = primaryDispatchTracer() === this;
    if (want && !installed) setDispatchTracer(this);
    else if (!want && installed) setDispatchTracer(undefined);
  }

  /** Stops everything (probe shutdown): no sinks, no dispatch tracer. */
  shutdown(): void {
    this.sinks.length = 0;
    this.tracking = false;
    this.stopRecording();
    this.updateModes();
  }

  // ------------------------------------------------------------------------------------------
  // Ring

  /** Base index of a free slot, or -1 when the ring is full (the caller counts the drop). */
  private alloc(): number {
    if (this.size >= this.highWater && !this.draining) this.drain();
    return this.allocSlot();
  }

  /** `alloc` without the drain (the caller drains after writing). */
  private allocSlot(): number {
    const size = this.size;
    if (size === this.capacity) return -1;
    // The first record since the ring emptied: it must reach the sinks within DRAIN_INTERVAL_MS.
    if (size === 0) this.drainSoon();
    let pos = this.readPos + size;
    if (pos >= this.capacity) pos -= this.capacity;
    this.size = size + 1;
    return pos * Slot.width;
  }

  /**
   * Drains within DRAIN_INTERVAL_MS (the timer runs only while there is something to deliver). A
   * thread hub that counts drops into a sink calls it: the drops must reach the sink even when this
   * recorder records nothing itself.
   */
  drainSoon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.drain();
      // Records made during the drain, or drops a sink could not take yet: come back for them.
      if (this.size !== 0 || this.sinks.some((s) => s.hasPendingDrops)) this.drainSoon();
    }, DRAIN_INTERVAL_MS);
    (this.timer as { unref?: () => void }).unref?.();
  }

  protected dropFull(isDispatch: boolean): void {
    this.fullDropped++;
    if (isDispatch) this.fullDroppedDispatches++;
  }

  // ------------------------------------------------------------------------------------------
  // DispatchTracer (hot path)

  dispatchStart(bus: TracedBus, type: string, depth: number, parentSeq: number, payload: unknown): number {
    const seq = ++this.lastSeq;
    const slot = (type.charCodeAt(0) * 31 + type.charCodeAt(type.length >> 1) + type.length) & (TypeCache.slots - 1);
    const typeId = this.typeKeys[slot] === type ? this.typeIds[slot] : this.typeIdOf(type, slot);
    const top = ++this.top;
    if (top >= this.stackCap) this.growStack();
    // A producer port's event (set by flush): taken, so the dispatches its handlers make are not from
    // that producer. Only a flushing bus can have one (the shared runtime is slow to read).
    const origin = bus.flushing === false ? undefined : runtime.produced;
    if (origin !== undefined) runtime.produced = undefined;
    if (origin !== undefined || this.origins[top] !== undefined) this.origins[top] = origin;
    const st = this.stack;
    const b = top * Row.width;
    if (top > 0 && st[b - Row.width + Row.seq] !== parentSeq) {
      // The innermost dispatch running is this stack's top, whatever the bus says: a bus of another
      // copy of the package (ESM vs CJS build) is dispatching around this one, and each copy counts
      // only its own depth (an outer dispatch of this copy, or none).
      parentSeq = st[b - Row.width + Row.seq];
      depth = st[b - Row.width + Row.depth] + 1;
    }
    st[b + Row.seq] = seq;
    st[b + Row.bus] = bus.busId;
    st[b + Row.type] = typeId;
    st[b + Row.depth] = depth;
    st[b + Row.parent] = parentSeq;
    st[b + Row.sub] = 0;
    st[b + Row.sample] = 0;
    // Row.handlerStart and Row.startBound are read only once set (a timed dispatch, a resolved start).
    st[b + Row.start] = NaN;
    st[b + Row.startTick] = 0;
    if (!this.timed) {
      // Lifecycle detail, or tracking for snapshots only: no clock, no record.
      st[b + Row.site] = 0;
      return seq;
    }
    // Site and payload first, so their cost is not counted in the dispatch's (or its first handler's) time.
    st[b + Row.site] = this.siteSampler.due(typeId) ? this.sampleSite() : 0;
    if (this.payloads) this.recordPayload(seq, bus, type, payload);
    if (this.handlersTimed) {
      if (this.sampler.due(typeId)) {
        // Handlers timed: exact reads at every handler boundary, and the bus calls the hooks.
        const t = this.clock.now();
        st[b + Row.start] = t;
        st[b + Row.startBound] = 0;
        st[b + Row.handlerStart] = NaN;
        st[b + Row.sample] = this.sampler.take(typeId, t);
        this.boundary = t;
        this.boundaryValid = true;
        this.handlerHooks = true;
        return seq;
      }
      // Not timed: as at detail `dispatch` (a nested one may run inside a timed handler).
      this.handlerHooks = this.hooksBase;
      this.boundaryValid = false;
    }
    // Detail `dispatch`: a tick; the clock is read once per window, the time resolved at drain.
    st[b + Row.startTick] = this.windowClock.next();
    return seq;
  }

  private typeIdOf(type: string, slot: number): number {
    const id = this.strings.intern(type);
    // Not a name that got the shared overflow id: each dispatch of those is counted by the table.
    if (this.strings.texts[id] === type) {
      this.typeKeys[slot] = type;
      this.typeIds[slot] = id;
    }
    return id;
  }

  handlerStart(seq: number, sub: TracedSubscription): void {
    const top = this.top;
    if (top < 0) return;
    const st = this.stack;
    const b = top * Row.width;
    if (st[b + Row.seq] !== seq) return;
    st[b + Row.sub] = sub.id;
    if (st[b + Row.sample] !== 0) st[b + Row.handlerStart] = this.boundaryValid ? this.boundary : this.clock.now();
    // The handler runs now: the dispatch's end (or the next handler's start) needs a fresh reading.
    this.boundaryValid = false;
  }

  handlerEnd(seq: number, sub: TracedSubscription, consumed: boolean): void {
    const top = this.top;
    if (top < 0) return;
    const st = this.stack;
    const b = top * Row.width;
    if (st[b + Row.seq] !== seq) return;
    st[b + Row.sub] = 0;
    const every = st[b + Row.sample];
    if (every === 0) return;
    const t = this.clock.now();
    this.boundary = t;
    this.boundaryValid = true;
    const start = st[b + Row.handlerStart];
    if (start !== start) return; // NaN: began before handler timing was on
    const r = this.alloc();
    if (r < 0) return this.dropFull(false);
    const ring = this.ring as Float64Array;
    ring[r] = Code.Handler;
    ring[r + HandlerSlot.seq] = seq;
    ring[r + HandlerSlot.subscription] = sub.id;
    ring[r + HandlerSlot.start] = start;
    ring[r + HandlerSlot.duration] = t - start;
    ring[r + HandlerSlot.consumed] = consumed ? 1 : 0;
    ring[r + HandlerSlot.sampleEvery] = every;
  }

  handlerError(seq: number, _bus: TracedBus, sub: TracedSubscription, error: unknown): void {
    if (!this.recording || this.detail === DETAIL_LIFECYCLE) return;
    let message: string;
    let stack: string | null = null;
    try {
      if (error instanceof Error) {
        message = `${error.name}: ${error.message}`;
        if (typeof error.stack === 'string') stack = error.stack.length > MAX_ERROR_TEXT ? error.stack.slice(0, MAX_ERROR_TEXT) : error.stack;
      } else {
        message = `thrown ${typeof error === 'string' ? JSON.stringify(error) : String(error)}`;
      }
    } catch {
      message = 'thrown value (not printable)';
    }
    if (message.length > MAX_ERROR_TEXT) message = message.slice(0, MAX_ERROR_TEXT);
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.HandlerError;
    r[b + HandlerErrorSlot.seq] = seq;
    r[b + HandlerErrorSlot.subscription] = sub.id;
    r[b + HandlerErrorSlot.time] = this.clock.now();
    this.sideA[b / Slot.width] = message;
    this.sideB[b / Slot.width] = stack;
  }

  dispatchEnd(seq: number, delivered: number, consumedBy: number): void {
    let top = this.top;
    const st = this.stack;
    if (top < 0 || st[top * Row.width + Row.seq] !== seq) {
      // A dispatch that began before the tracer was (re)installed: unwind to it if it is there.
      do top--;
      while (top >= 0 && st[top * Row.width + Row.seq] !== seq);
      if (top < 0) return;
    }
    if (!this.timed) {
      this.top = top - 1;
      return;
    }
    // The end first (a tick may drain, which resolves the starts of dispatches still on the stack).
    let end = NaN;
    let endTick = 0;
    const b = top * Row.width;
    if (st[b + Row.sample] !== 0) {
      // Handlers timed. Without a handler hook for it (none ran, or a bus that ignored the hooks) the
      // last boundary may be the dispatch's own start: read the clock.
      end = this.boundaryValid && st[b + Row.handlerStart] === st[b + Row.handlerStart] ? this.boundary : this.clock.now();
      // The parent's handler (if any) resumes: its end needs a fresh reading.
      this.boundaryValid = false;
      this.handlerHooks = this.hooksBase;
    } else {
      endTick = this.windowClock.next();
    }
    this.top = top - 1;
    // Read after the end's tick: a drain there resolves a ticked start (then `start` is known, the tick 0).
    const start = st[b + Row.start];
    const startTick = st[b + Row.startTick];
    if (startTick === 0 && start !== start) return; // began before dispatches were timed
    const r = this.allocSlot();
    if (r < 0) return this.dropFull(true);
    const ring = this.ring as Float64Array;
    ring[r] = Code.Dispatch;
    rowToSlot(ring, r, st, b, startTick, endTick, start, end, delivered, consumedBy);
    // The OpenTelemetry span's trace id, while one is open for this dispatch (a string the SDK holds).
    // A free slot's side strings are null (the drain clears what it used): set only what there is.
    const traceIdOf = currentTraceIdSource();
    if (traceIdOf !== undefined) this.sideA[r / Slot.width] = readTraceId(traceIdOf);
    const origin = this.origins[top];
    if (origin !== undefined) {
      this.sideB[r / Slot.width] = origin;
      this.origins[top] = undefined;
    }
    // Drained after the write, not before (as `alloc` does): this record's ticks must be resolved
    // by the drain that trims the clock reads they need.
    if (this.size >= this.highWater && !this.draining) this.drain();
  }

  shouldBreak(_bus: TracedBus, type: string): boolean {
    return this.breakTypes.size !== 0 && this.breakTypes.has(type);
  }

  protected growStack(): void {
    const cap = this.stackCap * 2;
    const next = new Float64Array(cap * Row.width);
    next.set(this.stack);
    this.stack = next;
    this.stackCap = cap;
    while (this.origins.length < cap) this.origins.push(undefined);
  }

  /** A due dispatch's site (site-sampler.ts). */
  private sampleSite(): number {
    try {
      return captureSite(RecorderCore.prototype.dispatchStart, this.sites, this.skipLines)?.id ?? 0;
    } catch (error) {
      reportProbeFailure('capturing a dispatch site', error);
      return 0;
    }
  }

  private recordPayload(seq: number, bus: TracedBus, type: string, payload: unknown): void {
    const capture = this.host.capturePayload;
    if (capture === undefined) return;
    const captured = capture(payload, type, bus.name, this.sanitize, this.cfg.payloadSizeCap, this.isProxy);
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.Payload;
    r[b + PayloadSlot.seq] = seq;
    r[b + PayloadSlot.truncated] = captured.truncated ? 1 : 0;
    this.sideA[b / Slot.width] = captured.json;
  }

  // ------------------------------------------------------------------------------------------
  // BusTracer (lifecycle; called while the probe is started)

  busCreated(bus: TracedBus): void {
    if (!this.recording) return;
    const nameId = this.strings.intern(bus.name);
    const classNameId = bus.className === undefined ? 0 : this.strings.intern(bus.className);
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.BusCreated;
    r[b + BusCreatedSlot.time] = this.clock.now();
    r[b + BusCreatedSlot.bus] = bus.busId;
    r[b + BusCreatedSlot.name] = nameId;
    r[b + BusCreatedSlot.busKind] = bus.busKind === undefined ? 0 : BUS_KINDS.indexOf(bus.busKind) + 1;
    r[b + BusCreatedSlot.className] = classNameId;
  }

  busDisposed(bus: TracedBus): void {
    if (!this.recording) return;
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.BusDisposed;
    r[b + BusDisposedSlot.time] = this.clock.now();
    r[b + BusDisposedSlot.bus] = bus.busId;
  }

  /** Installed as the bus tracer (again): subscriptions made before now were not seen. */
  tracingStarted(): void {
    this.firstTracedSubscriptionId = 0;
  }

  subscribed(bus: TracedBus, sub: TracedSubscription): void {
    if (this.firstTracedSubscriptionId === 0) this.firstTracedSubscriptionId = sub.id;
    let site: SiteEntry | undefined;
    if (this.cfg.captureStacks) {
      try {
        site = captureSite(RecorderCore.prototype.subscribed, this.sites, this.skipLines);
      } catch (error) {
        reportProbeFailure('capturing a subscribe site', error);
      }
      sub.site = site;
    }
    if (!this.recording) return;
    const typeId = this.strings.intern(sub.type);
    const labelId = sub.label === undefined ? 0 : this.strings.intern(sub.label);
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.Subscribe;
    r[b + SubscribeSlot.time] = this.clock.now();
    r[b + SubscribeSlot.subscription] = sub.id;
    r[b + SubscribeSlot.bus] = bus.busId;
    r[b + SubscribeSlot.type] = typeId;
    r[b + SubscribeSlot.priority] = sub.priority;
    r[b + SubscribeSlot.label] = labelId;
    r[b + SubscribeSlot.once] = sub.once ? 1 : 0;
    r[b + SubscribeSlot.site] = site === undefined ? 0 : site.id;
    r[b + SubscribeSlot.ownerId] = sub.ownerId ?? 0;
    r[b + SubscribeSlot.origin] = sub.origin === undefined ? 0 : SITE_ORIGINS.indexOf(sub.origin) + 1;
    this.sideA[b / Slot.width] = sub.ownerDescription ?? null;
  }

  unsubscribed(_bus: TracedBus, sub: TracedSubscription, reason: TracerUnsubscribeReason): void {
    if (!this.recording) return;
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.Unsubscribe;
    r[b + UnsubscribeSlot.time] = this.clock.now();
    r[b + UnsubscribeSlot.subscription] = sub.id;
    r[b + UnsubscribeSlot.reason] = REASON_CODE[reason];
    r[b + UnsubscribeSlot.calls] = sub.calls;
  }

  ownerCollected(bus: TracedBus, ownerDescription: string | undefined, removed: number, ownerId?: number): void {
    if (!this.recording) return;
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.OwnerCollected;
    r[b + OwnerCollectedSlot.time] = this.clock.now();
    r[b + OwnerCollectedSlot.bus] = bus.busId;
    r[b + OwnerCollectedSlot.removed] = removed;
    r[b + OwnerCollectedSlot.ownerId] = ownerId ?? 0;
    this.sideA[b / Slot.width] = ownerDescription ?? null;
  }

  enqueued(bus: TracedBus, type: string, queueLength: number): void {
    if (!this.recording) return;
    const typeId = this.strings.intern(type);
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.Enqueue;
    r[b + EnqueueSlot.time] = this.clock.now();
    r[b + EnqueueSlot.bus] = bus.busId;
    r[b + EnqueueSlot.type] = typeId;
    r[b + EnqueueSlot.queueLength] = queueLength;
  }

  flushed(bus: TracedBus, dispatched: number): void {
    if (!this.recording) return;
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.Flush;
    r[b + FlushSlot.time] = this.clock.now();
    r[b + FlushSlot.bus] = bus.busId;
    r[b + FlushSlot.dispatched] = dispatched;
  }

  depthLimitHit(bus: TracedBus, type: string, depth: number): void {
    if (!this.recording) return;
    const typeId = this.strings.intern(type);
    const parentSeq = this.top >= 0 ? this.stack[this.top * Row.width + Row.seq] : 0;
    const b = this.alloc();
    if (b < 0) return this.dropFull(false);
    const r = this.ring as Float64Array;
    r[b] = Code.DepthLimit;
    r[b + DepthLimitSlot.time] = this.clock.now();
    r[b + DepthLimitSlot.bus] = bus.busId;
    r[b + DepthLimitSlot.type] = typeId;
    r[b + DepthLimitSlot.depth] = depth;
    r[b + DepthLimitSlot.parentSeq] = parentSeq;
  }

  // ------------------------------------------------------------------------------------------
  // Snapshot support

  /**
   * Dispatches in progress, outermost first. A dispatch that is not timed (detail `lifecycle`, or
   * tracked without recording) reports `now` (default: the current time) as its start.
   */
  dispatching(now?: number): { seq: number; bus: number; type: string; depth: number; start: number; subscriptionId: number }[] {
    const out = [];
    const st = this.stack;
    for (let i = 0; i <= this.top; i++) {
      const b = i * Row.width;
      const start = st[b + Row.start];
      out.push({
        seq: st[b + Row.seq],
        bus: st[b + Row.bus],
        type: this.strings.texts[st[b + Row.type]] ?? '',
        depth: st[b + Row.depth],
        start: start === start ? start : (now ??= this.clock.now()),
        subscriptionId: st[b + Row.sub],
      });
    }
    return out;
  }

  /** Dispatch records seen per (bus, type) while recording. */
  dispatchCount(busId: number, type: string): number {
    const typeId = this.strings.idOf(type);
    if (typeId === 0) return 0;
    const counts = this.typeDispatches.get(busId);
    return counts !== undefined && typeId < counts.length ? counts[typeId] : 0;
  }

  /** Types with recorded dispatches or enqueues, per bus id. */
  recordedTypes(): Map<number, Set<string>> {
    const out = new Map<number, Set<string>>();
    const add = (busId: number, typeId: number): void => {
      let set = out.get(busId);
      if (set === undefined) out.set(busId, (set = new Set()));
      set.add(this.strings.texts[typeId]);
    };
    for (const [busId, counts] of this.typeDispatches) {
      for (let typeId = 1; typeId < counts.length; typeId++) if (counts[typeId] !== 0) add(busId, typeId);
    }
    for (const key of this.typeEnqueued) add(Math.floor(key / 0x4000000), key % 0x4000000);
    return out;
  }

  /** The dispatch counters of one bus, with room for `typeId`. */
  private countsFor(busId: number, typeId: number): Float64Array {
    let counts = this.typeDispatches.get(busId);
    if (counts === undefined || typeId >= counts.length) {
      const grown = new Float64Array(Math.max(16, typeId + 1, counts === undefined ? 0 : counts.length * 2));
      if (counts !== undefined) grown.set(counts);
      this.typeDispatches.set(busId, (counts = grown));
    }
    return counts;
  }

  // ------------------------------------------------------------------------------------------
  // Drain: ring → batches → sinks (off the hot path)

  drain(): void {
    if (this.draining) return;
    this.draining = true;
    const clock = this.windowClock;
    try {
      clock.close();
      this.siteSampler.tick(this.clock.now());
      this.resolveOpenStarts();
      this.encodeRing();
      if (this.fullDropped !== 0) {
        for (const sink of this.sinks) {
          sink.fullDropped += this.fullDropped;
          sink.fullDroppedDispatches += this.fullDroppedDispatches;
        }
        this.fullDropped = 0;
        this.fullDroppedDispatches = 0;
      }
      for (const sink of this.sinks) {
        if (sink.hasPendingDrops && sink.canAccept(64)) this.delivery.writeDrops(sink);
      }
    } catch (error) {
      // Never let a drain failure repeat forever on the same records: discard them, count them.
      this.discardAfterFailure();
      reportProbeFailure('encoding records', error);
    } finally {
      // Empty: the next record goes to slot 0 again, so a busy app keeps writing (and the drain
      // reading) the same front of the ring instead of sweeping all of it (7 MB at the default
      // capacity) through the caches.
      if (this.size === 0) this.readPos = 0;
      // Every tick so far is resolved (in a record or on the stack): only the newest read is needed.
      clock.trim();
      this.draining = false;
    }
  }

  /** Dispatches still running whose start is a tick: resolved now, while the reads around it are kept. */
  private resolveOpenStarts(): void {
    const st = this.stack;
    for (let i = 0; i <= this.top; i++) {
      const b = i * Row.width;
      const tick = st[b + Row.startTick];
      if (tick === 0) continue;
      const t = this.windowClock.resolve(tick);
      st[b + Row.start] = t.time;
      st[b + Row.startBound] = t.bound;
      st[b + Row.startTick] = 0;
    }
  }

  private discardAfterFailure(): void {
    let dispatches = this.writer.dispatches;
    const ring = this.ring;
    if (ring !== null) {
      let pos = this.readPos;
      for (let n = 0; n < this.size; n++) {
        if (ring[pos * Slot.width] === Code.Dispatch) dispatches++;
        this.sideA[pos] = null;
        this.sideB[pos] = null;
        if (++pos === this.capacity) pos = 0;
      }
    }
    this.fullDropped += this.size + this.writer.records;
    this.fullDroppedDispatches += dispatches;
    this.size = 0;
    this.writer.begin();
  }

  private encodeRing(): void {
    const ring = this.ring;
    if (ring === null) return;
    const w = this.writer;
    const cap = this.capacity;
    const side: SideStrings = { sideA: this.sideA, sideB: this.sideB, timeOrigin: this.timeOrigin };
    const busAt = DispatchSlot.bus;
    const typeAt = DispatchSlot.type;
    const dispatchCode = Code.Dispatch;
    const clock = this.windowClock;
    let columns = this.encodeColumns;
    for (const sink of this.sinks) if (sink.protocolVersion < 6) columns = undefined;
    const blocks = this.encodeBlock;
    // Most records of a drain come from one bus: its counters are looked up once per change of bus.
    let countsBus = -1;
    let counts = this.typeDispatches.get(countsBus) ?? new Float64Array(0);
    let pos = this.readPos;
    let size = this.size;
    try {
      while (size > 0) {
        const b = pos * Slot.width;
        const code = ring[b];
        if (code === dispatchCode) {
          const busId = ring[b + busAt];
          const typeId = ring[b + typeAt];
          if (busId !== countsBus || typeId >= counts.length) {
            counts = this.countsFor(busId, typeId);
            countsBus = busId;
          }
          // Runs of dispatch records (the bulk) go as one record each; what cannot start one, alone.
          // Dispatch columns when every sink reads them, else (or when the run does not fit them) a
          // block, when the host has the encoders (a page's has columns only).
          let n = columns === undefined ? 0 : columns(ring, pos, size, cap, w, clock, TARGET_BATCH_BYTES, countsBus, counts, this.sideA, this.sideB);
          if (n === 0 && blocks !== undefined) n = blocks(ring, pos, size, cap, w, clock, TARGET_BATCH_BYTES, countsBus, counts, this.sideA, this.sideB);
          if (n === 0) {
            counts[typeId]++;
            encodeSlot(ring, b, pos, side, w, clock);
            if (++pos === cap) pos = 0;
            size--;
          } else {
            pos += n;
            if (pos >= cap) pos -= cap;
            size -= n;
          }
        } else {
          if (code === Code.Enqueue) this.typeEnqueued.add(ring[b + EnqueueSlot.bus] * 0x4000000 + ring[b + EnqueueSlot.type]);
          encodeSlot(ring, b, pos, side, w, clock);
          pos++;
          if (pos === cap) pos = 0;
          size--;
        }
        if (w.byteLength >= TARGET_BATCH_BYTES) {
          this.readPos = pos;
          this.size = size;
          this.emitBatch();
          // A sink's write may have recorded (its code dispatched): those records follow in the ring.
          size = this.size;
        }
      }
    } finally {
      // Also after a failure: the records encoded so far have left the ring.
      this.readPos = pos;
      this.size = size;
    }
    if (!w.isEmpty) this.emitBatch();
  }

  private emitBatch(): void {
    const w = this.writer;
    const records = w.records;
    const dispatches = w.dispatches;
    // When every sink copies the frame (a page's WebSocket), a copy here would be the second of each byte.
    const view = this.sinks.every((s) => s.copiesFrames);
    this.delivery.deliverBatch(this.sinks, w.finish(view), records, dispatches);
    if (view) w.begin();
  }
}
