// The model: everything the views and analyses know about one app, fed message by message from a
// live session or a trace file (both deliver the protocol's `StreamMessage`s). Per dispatch it
// does a few counter updates and one ring write — no allocation — so ingest keeps up with the
// probe's stream; every collection that grows with activity is bounded (see ModelOptions).
import {
  assertNever,
  DispatchColumns,
  type AppInfo,
  type BusKind,
  type BusRecord,
  type DispatchRecord,
  type DropReason,
  type EmitterWarningMessage,
  type ProducerDropsMessage,
  type ProducerConnectedMessage,
  type ErrorMessage,
  type HandlerErrorRecord,
  type HandlerRecord,
  type PayloadRecord,
  type ProbeSnapshot,
  type RecordSink,
  type RecordingConfig,
  type SiteInfo,
  type StreamMessage,
  type SubscribeRecord,
  type ThreadMessage,
  type UnsubscribeRecord,
} from '../../protocol/index';
import type { ThreadView } from './views';
import { DispatchRing } from './dispatchRing';
import { NestedTime } from './nestedTime';
import {
  BusState,
  ChurnCounter,
  EventTypeState,
  OwnerState,
  SiteRemovals,
  SubscriptionState,
  ownerKey,
  runsBefore,
  siteKey,
  type EndReason,
  type RateWindow,
} from './entities';
import { HandlerFlag, HandlerRing } from './handlerRing';
import { resolveModelOptions, type ModelOptions } from './options';
import { DurationHistogram } from './stats';

export type SessionState = 'waiting' | 'live' | 'ended';

export interface SessionInfo {
  readonly state: SessionState;
  readonly app: AppInfo | null;
  readonly probeVersion: string | null;
  readonly protocolVersion: number | null;
  /** Epoch ms of record time 0. */
  readonly timeOrigin: number;
  readonly config: RecordingConfig | null;
  /** Record time of the first snapshot (late attach: what happened before is only in its counts). */
  readonly attachedAt: number | null;
  readonly endedAt: number | null;
  /** Why the session ended (`app exited`, `detached`, `end of trace`, the probe's error message…). */
  readonly endReason: string | null;
  /** The probe's error, when it sent one. */
  readonly error: { readonly code: string; readonly message: string } | null;
}

export interface DropCounts {
  records: number;
  dispatches: number;
  readonly byReason: Record<DropReason, number>;
}

/** Records the model could not place (a subscription it never heard of, usually after drops). */
export interface IntegrityCounts {
  unknownSubscriptions: number;
}

const DEPTH_ERROR_PREFIX = 'DispatchDepthError';

/** Rows of a dispatch run the model counts before writing them to the timeline at once. */
const RUN_CHUNK = 1024;

export type ModelListener = (model: Model) => void;

/**
 * The model's `RecordSink`: one class for every model, so a decoder's calls into it have one target
 * whatever the model (a closure per model made the decoder's hot loop deoptimize at each new one).
 */
class ModelRecordSink implements RecordSink {
  constructor(private readonly model: Model) {}
  dispatch(
    seq: number,
    bus: number,
    type: string,
    typeId: number,
    start: number,
    startBound: number,
    duration: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    site: SiteInfo | null,
    _durationBound: number,
    traceId?: string,
    threadId?: number,
    enqueuedAt?: number,
  ): void {
    this.model.ingestDispatchFields(
      seq,
      bus,
      type,
      typeId,
      start,
      startBound,
      duration,
      delivered,
      consumedBy,
      depth,
      parentSeq,
      site,
      traceId,
      threadId,
      enqueuedAt,
    );
  }
  dispatchRun(columns: DispatchColumns): void {
    this.model.ingestDispatchRun(columns);
  }
  record(record: BusRecord): void {
    this.model.ingestRecord(record);
  }
}

export class Model {
  readonly options: ModelOptions;
  readonly timeline: DispatchRing;
  readonly handlerSlices: HandlerRing;
  readonly buses = new Map<number, BusState>();
  /** The app's worker threads that joined the session (protocol 5), by threadId; the main thread is not in it. */
  readonly threads = new Map<number, { name: string; startedAt: number; exitedAt: number | null }>();
  /** Every subscription known: live ones, and ended ones up to `maxEndedSubscriptions`. */
  readonly subscriptions = new Map<number, SubscriptionState>();
  /**
   * Owners with live subscriptions, by owner key (`ownerKey`): the probe's owner id when the stream
   * carries it, else the description.
   */
  readonly owners = new Map<string, OwnerState>();
  /** (type, subscribe site) → subscribe/unsubscribe cycles. */
  readonly churn = new Map<string, ChurnCounter>();
  readonly drops: DropCounts = { records: 0, dispatches: 0, byReason: { 'buffer-full': 0, 'slow-client': 0 } };
  readonly integrity: IntegrityCounts = { unknownSubscriptions: 0 };
  /** Event types by dense index (the timeline's type column). */
  private readonly typesByIndex: EventTypeState[] = [];
  private readonly sitesByIndex: SiteInfo[] = [];
  private readonly siteIndexByObject = new Map<SiteInfo, number>();
  private readonly siteIndexByKey = new Map<string, number>();
  /** Ended subscriptions in end order, for eviction. */
  private readonly endedOrder: SubscriptionState[] = [];
  private endedHead = 0;
  private readonly window: RateWindow;
  /**
   * Time spent in nested dispatches per running dispatch, since its last handler record: handler
   * records arrive after their nested dispatches and before their own dispatch record, so the
   * next handler record of `seq` takes it as the nested part of its duration (self time = the
   * rest). Entries live only while their dispatch runs: bounded by the nesting depth.
   */
  private readonly nestedTime = new NestedTime();
  /**
   * Payload previews by dispatch seq, in arrival order (seqs only grow), at most
   * `payloadPreviewCapacity`: the oldest goes first.
   */
  private readonly payloads = new Map<number, string>();
  /**
   * Event types by the stream's string id of their name (`RecordSink.dispatch`'s `typeId`): a
   * dispatch finds its type without hashing the name. Checked on use (name and bus must match), so
   * a stale entry from another stream costs one lookup, never a wrong type.
   */
  private readonly typesByNameId: (EventTypeState | undefined)[] = Model.emptyTypesByNameId();

  /**
   * Room for the first 256 ids, of the elements kind the table keeps: an empty array (small
   * integers, no room) made each new model's ingest code deoptimize at its first dispatches.
   */
  private static emptyTypesByNameId(): (EventTypeState | undefined)[] {
    return new Array<EventTypeState | undefined>(256).fill(undefined);
  }
  private session: SessionInfo = Model.emptySession();
  private readonly listeners = new Set<ModelListener>();

  /**
   * The type-change journal: indices of event types as they change (at most once per type between
   * two reads, see `readTypeChanges`), so a reader such as the analyzer looks at what changed
   * instead of at every type. Position `typeJournalStart + i` is `typeJournal[i]`; the oldest half
   * is dropped when a reader falls far behind (it is then told to look at everything).
   */
  private readonly typeJournal: number[] = [];
  private typeJournalStart = 0;
  private typeJournalEpoch = 0;
  private typeChanges = 0;

  /**
   * The few types some analyses judge, so that they need no pass over every type per run: types
   * that had a dispatch consumed (starved subscribers), hit the depth limit, or lost subscriptions
   * to a dead or collected owner. In first-seen order of that event.
   */
  readonly typesConsumed: EventTypeState[] = [];
  readonly typesDepthLimited: EventTypeState[] = [];
  readonly typesWithOwnerRemovals: EventTypeState[] = [];

  /** Incremented by every change; compare to know whether anything changed since you last looked. */
  version = 0;
  /** Incremented when the data starts over (`clear()`, another process): indices and ids are reused. */
  generation = 0;
  /** Record time of the latest thing seen (ms since the time origin). Analyses measure "now" by it. */
  now = 0;
  totalDispatches = 0;
  totalHandlerCalls = 0;
  totalHandlerErrors = 0;

  constructor(options: Partial<ModelOptions> = {}) {
    this.options = resolveModelOptions(options);
    this.timeline = new DispatchRing(this.options.timelineCapacity);
    this.handlerSlices = new HandlerRing(this.options.handlerSliceCapacity);
    this.window = { bucketMs: this.options.rateBucketMs, buckets: this.options.rateBuckets };
  }

  private static emptySession(): SessionInfo {
    return {
      state: 'waiting',
      app: null,
      probeVersion: null,
      protocolVersion: null,
      timeOrigin: 0,
      config: null,
      attachedAt: null,
      endedAt: null,
      endReason: null,
      error: null,
    };
  }

  get sessionInfo(): SessionInfo {
    return this.session;
  }

  // -------------------------------------------------------------------------------------------
  // Change notification: listeners run at most once per `apply` call that changed something.

  onDidChange(listener: ModelListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('Model.onDidChange: listener must be a function');
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private notify(): void {
    for (const l of this.listeners) {
      try {
        l(this);
      } catch {
        // A view's bug must not stop the model from taking the next message.
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // Input

  /**
   * Decodes a stream's record batches straight into this model (ProbeClientOptions.recordSink,
   * readTraceFile's sink): dispatch records become a ring row and counter updates without a record
   * object each. The batch's message (with `applied`) must still be `apply`ed: it notifies.
   */
  readonly recordSink: RecordSink = new ModelRecordSink(this);

  /** @internal `recordSink.dispatch`: one dispatch record, as fields. */
  ingestDispatchFields(
    seq: number,
    bus: number,
    type: string,
    typeId: number,
    start: number,
    startBound: number,
    duration: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    site: SiteInfo | null,
    traceId?: string,
    threadId?: number,
    enqueuedAt?: number,
  ): void {
    this.version++;
    const row = this.oneRow(seq, bus, type, start, startBound, duration, delivered, consumedBy, depth, parentSeq, site);
    this.ingestRow(this.typeById(typeId, bus, type), row, 0, traceId, threadId, enqueuedAt);
  }

  /** @internal `recordSink.dispatchRun`: a dispatch block's entries, one loop, nothing boxed per dispatch (dispatch-columns.ts). */
  ingestDispatchRun(c: DispatchColumns): void {
    const n = c.count;
    this.version += n;
    // In chunks of the scratch columns' length: each chunk's counters row by row, then its timeline
    // rows in one `pushRun` (column copies instead of a dozen stores per row).
    const typeIndex = this.runTypeIndex;
    const siteIndex = this.runSiteIndex;
    for (let from = 0; from < n; from += RUN_CHUNK) {
      const to = Math.min(n, from + RUN_CHUNK);
      for (let i = from; i < to; i++) {
        const t = this.typeById(c.typeId[i], c.bus[i], c.type[i]);
        typeIndex[i - from] = t.index;
        siteIndex[i - from] = this.countRow(t, c, i);
      }
      this.timeline.pushRun(c, from, to, typeIndex, siteIndex);
    }
  }

  /** The timeline's type and site index of the rows of a chunk of a run (see `ingestDispatchRun`). */
  private readonly runTypeIndex = new Uint32Array(RUN_CHUNK);
  private readonly runSiteIndex = new Int32Array(RUN_CHUNK);

  /** @internal `recordSink.record`: any other record. */
  ingestRecord(record: BusRecord): void {
    this.applyRecordQuietly(record);
  }

  /** The event type of a dispatch by the stream's string id of its name (cached; checked on use). */
  private typeById(typeId: number, bus: number, type: string): EventTypeState {
    let t = this.typesByNameId[typeId];
    if (t === undefined || t.busState.id !== bus || t.name !== type) {
      t = this.typeFor(bus, type);
      if (typeId < 65_536) this.typesByNameId[typeId] = t;
    }
    return t;
  }

  /** A one-row `DispatchColumns` (reused) for dispatches that arrive one at a time. */
  private readonly single = new DispatchColumns(1);
  private oneRow(
    seq: number,
    bus: number,
    type: string,
    start: number,
    startBound: number,
    duration: number,
    delivered: number,
    consumedBy: number,
    depth: number,
    parentSeq: number,
    site: SiteInfo | null,
  ): DispatchColumns {
    const c = this.single;
    c.count = 1;
    c.seq[0] = seq;
    c.bus[0] = bus;
    c.type[0] = type;
    c.start[0] = start;
    c.startBound[0] = startBound;
    c.duration[0] = duration;
    c.delivered[0] = delivered;
    c.consumedBy[0] = consumedBy;
    c.depth[0] = depth;
    c.parentSeq[0] = parentSeq;
    c.site[0] = site;
    return c;
  }

  /** Applies one message of a live session or trace file. */
  apply(message: StreamMessage): void {
    const before = this.version;
    let changedBySink = false;
    switch (message.type) {
      case 'records': {
        const records = message.records;
        for (let i = 0; i < records.length; i++) this.applyRecordQuietly(records[i]);
        // Records decoded into `recordSink` changed the model before this message: listeners still hear of it.
        if (message.applied !== undefined && message.applied > 0) changedBySink = true;
        break;
      }
      case 'welcome':
        // Another process (the app restarted): its ids start over, so the old data must go.
        if (this.session.app !== null && (this.session.app.pid !== message.app.pid || this.session.app.startTime !== message.app.startTime)) {
          this.resetData();
          this.session = Model.emptySession();
          this.now = 0;
        }
        this.session = {
          ...this.session,
          state: 'live',
          app: message.app,
          probeVersion: message.probeVersion,
          protocolVersion: message.protocolVersion,
          timeOrigin: message.timeOrigin,
          config: message.config,
        };
        this.version++;
        break;
      case 'snapshot':
        this.applySnapshot(message.snapshot);
        break;
      case 'configured':
        this.session = { ...this.session, config: message.config };
        this.version++;
        break;
      case 'error':
        this.applyError(message);
        break;
      case 'breakpoints':
      case 'pong':
        break;
      case 'emitter-warning':
        this.applyEmitterWarning(message);
        break;
      case 'thread':
        this.applyThread(message);
        break;
      case 'producer-drops':
        this.applyProducerDrops(message);
        break;
      case 'producer-connected':
        this.applyProducerConnected(message);
        break;
      default:
        assertNever(message, 'stream message');
    }
    if (this.version !== before || changedBySink) this.notify();
  }

  /** Applies records (e.g. read from a trace file) and notifies once. */
  applyRecords(records: readonly BusRecord[]): void {
    const before = this.version;
    for (let i = 0; i < records.length; i++) this.applyRecordQuietly(records[i]);
    if (this.version !== before) this.notify();
  }

  /** Applies one record and notifies. Prefer `apply`/`applyRecords` for batches. */
  applyRecord(record: BusRecord): void {
    const before = this.version;
    this.applyRecordQuietly(record);
    if (this.version !== before) this.notify();
  }

  /**
   * The session ended (the app exited, the client detached, the trace file ended). The state stays
   * as it was, inspectable, until `clear()`.
   */
  endSession(reason: string, time: number = this.now): void {
    if (this.session.state === 'ended') return;
    this.session = { ...this.session, state: 'ended', endedAt: time, endReason: reason };
    this.version++;
    this.notify();
  }

  /**
   * Advances "now" without a record (a quiet live app: windows and grace periods move on). Times
   * earlier than the latest record are ignored.
   */
  advanceTime(time: number): void {
    if (!Number.isFinite(time)) throw new TypeError(`Model.advanceTime: time must be a finite number, got ${time}`);
    if (time > this.now) {
      this.now = time;
      this.version++;
      this.notify();
    }
  }

  /**
   * Forgets everything recorded. While a session is live, its buses and live subscriptions stay
   * (as if from a snapshot taken now, with zeroed statistics): the app still has them, and the
   * records that follow refer to them.
   */
  clear(): void {
    const live = this.session.state === 'live';
    const keptBuses = live ? [...this.buses.values()] : [];
    const keptSubs = live ? [...this.subscriptions.values()].filter((s) => s.active) : [];
    this.resetData();
    if (!live) {
      this.session = Model.emptySession();
      this.now = 0;
    } else {
      this.session = { ...this.session, attachedAt: this.now };
      for (const b of keptBuses) {
        if (b.disposedAt === null) this.buses.set(b.id, describedBus(new BusState(b.id, b.name, b.createdAt), b.kind ?? undefined, b.className ?? undefined));
      }
      for (const s of keptSubs)
        this.addSubscription(s.id, s.bus, s.type.name, s.priority, s.label, s.owner, s.once, s.site, s.createdAt, this.now, true, 0, s.ownerId).origin =
          s.origin;
    }
    this.version++;
    this.notify();
  }

  private resetData(): void {
    this.generation++;
    this.buses.clear();
    this.threads.clear();
    this.subscriptions.clear();
    this.owners.clear();
    this.churn.clear();
    this.typesByIndex.length = 0;
    this.typesByNameId.fill(undefined);
    this.typesConsumed.length = 0;
    this.typesDepthLimited.length = 0;
    this.typesWithOwnerRemovals.length = 0;
    // Readers start over with the generation; cursors from before point past the new journal's end.
    this.typeJournalStart += this.typeJournal.length + 1;
    this.typeJournal.length = 0;
    this.sitesByIndex.length = 0;
    this.siteIndexByObject.clear();
    this.siteIndexByKey.clear();
    this.endedOrder.length = 0;
    this.endedHead = 0;
    this.nestedTime.clear();
    this.payloads.clear();
    this.timeline.clear();
    this.handlerSlices.clear();
    this.drops.records = 0;
    this.drops.dispatches = 0;
    this.drops.byReason['buffer-full'] = 0;
    this.drops.byReason['slow-client'] = 0;
    this.integrity.unknownSubscriptions = 0;
    this.totalDispatches = 0;
    this.totalHandlerCalls = 0;
    this.totalHandlerErrors = 0;
  }

  // -------------------------------------------------------------------------------------------
  // Lookups

  typeAt(index: number): EventTypeState | undefined {
    return this.typesByIndex[index];
  }

  get typeCount(): number {
    return this.typesByIndex.length;
  }

  /**
   * Calls `visit` with the index of every event type that changed since `cursor` (0, or what the
   * previous call returned) — a type may come more than once — and returns the cursor for the
   * next call, or -1 when changes since `cursor` were already dropped (or the data started over:
   * see `generation`): then treat every type as changed.
   */
  readTypeChanges(cursor: number, visit: (index: number) => void): number {
    const end = this.typeJournalStart + this.typeJournal.length;
    // Later changes of a type read now must be journaled again.
    this.typeJournalEpoch++;
    if (cursor < this.typeJournalStart || cursor > end) return -1;
    for (let i = cursor - this.typeJournalStart; i < this.typeJournal.length; i++) visit(this.typeJournal[i]);
    return end;
  }

  /** The cursor at which `readTypeChanges` reports nothing yet (the journal's end). */
  get typeChangeCursor(): number {
    return this.typeJournalStart + this.typeJournal.length;
  }

  /** Something the analyses read of `t` changed: bump its version and journal it (once per read). */
  private typeChanged(t: EventTypeState): void {
    t.version = ++this.typeChanges;
    if (t.journalEpoch === this.typeJournalEpoch) return;
    t.journalEpoch = this.typeJournalEpoch;
    const journal = this.typeJournal;
    journal.push(t.index);
    // Nobody read for a long time: keep the newest half (a reader behind it looks at everything).
    if (journal.length > 65_536 && journal.length > 4 * this.typesByIndex.length) {
      const dropped = journal.length >>> 1;
      journal.splice(0, dropped);
      this.typeJournalStart += dropped;
    }
  }

  /** Every event type known, in first-seen order. */
  allTypes(): readonly EventTypeState[] {
    return this.typesByIndex;
  }

  siteAt(index: number): SiteInfo | undefined {
    return index < 0 ? undefined : this.sitesByIndex[index];
  }

  findType(bus: number, name: string): EventTypeState | undefined {
    return this.buses.get(bus)?.types.get(name);
  }

  /**
   * The JSON preview of a dispatch's payload (sanitized and cut by the probe; a cut one ends with
   * ` …`), or null when it was not captured or is no longer kept.
   */
  payloadOf(seq: number): string | null {
    return this.payloads.get(seq) ?? null;
  }

  /** Payload previews kept now (at most `payloadPreviewCapacity`). */
  get payloadPreviewCount(): number {
    return this.payloads.size;
  }

  /** Milliseconds since the time origin → epoch ms. */
  toEpoch(time: number): number {
    return this.session.timeOrigin + time;
  }

  /** The record detail level the probe sends (handler timing needs `handlers`). */
  get detail(): RecordingConfig['detail'] | null {
    return this.session.config?.detail ?? null;
  }

  // -------------------------------------------------------------------------------------------
  // Records

  private applyPayload(r: PayloadRecord): void {
    const cap = this.options.payloadPreviewCapacity;
    if (cap === 0) return;
    this.payloads.delete(r.seq);
    this.payloads.set(r.seq, r.truncated ? `${r.json} …` : r.json);
    // Map keeps insertion order: its first key is the oldest preview.
    while (this.payloads.size > cap) this.payloads.delete(this.payloads.keys().next().value as number);
  }

  private applyRecordQuietly(r: BusRecord): void {
    this.version++;
    switch (r.kind) {
      case 'dispatch':
        return this.applyDispatch(r);
      case 'handler':
        return this.applyHandler(r);
      case 'handler-error':
        return this.applyHandlerError(r);
      case 'subscribe':
        return this.applySubscribe(r);
      case 'unsubscribe':
        return this.applyUnsubscribe(r);
      case 'payload':
        return this.applyPayload(r);
      case 'string':
      case 'site':
        return;
      case 'bus-created': {
        this.touch(r.time);
        const existing = this.buses.get(r.bus);
        const bus = existing ?? new BusState(r.bus, r.name, r.time);
        if (existing) {
          existing.name = r.name;
          existing.createdAt = r.time;
        } else this.buses.set(r.bus, bus);
        describedBus(bus, r.busKind, r.className);
        if (r.thread !== undefined) bus.thread = r.thread;
        return;
      }
      case 'bus-disposed': {
        this.touch(r.time);
        // A bus this stream never defined (an emitter collected between the snapshot and its
        // finalizer): nothing to show, and a nameless "bus N" with no types would be all it made.
        const b = this.buses.get(r.bus);
        if (b === undefined) return;
        b.disposedAt = r.time;
        this.settleClear(b, true);
        return;
      }
      case 'enqueue': {
        this.touch(r.time);
        const t = this.typeFor(r.bus, r.type);
        if (t.busState.pendingClear.length !== 0) this.settleClear(t.busState, false);
        t.enqueued++;
        if (r.queueLength > t.maxQueueLength) t.maxQueueLength = r.queueLength;
        const b = this.busFor(r.bus);
        b.enqueued++;
        if (b.queueWaitingSince === null) b.queueWaitingSince = r.time;
        b.queueLength = r.queueLength;
        if (r.queueLength > b.maxQueueLength) b.maxQueueLength = r.queueLength;
        return;
      }
      case 'flush': {
        this.touch(r.time);
        const b = this.busFor(r.bus);
        b.flushes++;
        b.lastFlushAt = r.time;
        // A flush dispatches until the queue is empty (events enqueued meanwhile included).
        b.queueLength = 0;
        b.queueWaitingSince = null;
        const sizes = b.recentFlushSizes;
        if (sizes.length === 8) sizes.shift();
        sizes.push(r.dispatched);
        return;
      }
      case 'depth-limit': {
        this.touch(r.time);
        const t = this.typeFor(r.bus, r.type);
        if (t.busState.pendingClear.length !== 0) this.settleClear(t.busState, false);
        if (t.depthLimitHits === 0) this.typesDepthLimited.push(t);
        t.depthLimitHits++;
        t.ensureDepthLimitRate().add(r.time);
        if (r.time < t.firstDepthLimitAt) t.firstDepthLimitAt = r.time;
        if (r.time > t.lastDepthLimitAt) t.lastDepthLimitAt = r.time;
        if (r.depth > t.maxRefusedDepth) t.maxRefusedDepth = r.depth;
        this.busFor(r.bus).depthLimitHits++;
        return;
      }
      case 'owner-collected': {
        this.touch(r.time);
        this.busFor(r.bus).ownersCollected++;
        if (r.owner !== null) {
          const o = this.owners.get(ownerKey(r.owner, r.ownerId));
          if (o) o.collectedAt = r.time;
        }
        return;
      }
      case 'drops':
        this.drops.records += r.count;
        this.drops.dispatches += r.dispatches;
        this.drops.byReason[r.reason] += r.count;
        return;
      default:
        assertNever(r, 'record');
    }
  }

  private touch(time: number): void {
    if (time > this.now) this.now = time;
  }

  private busFor(id: number): BusState {
    let b = this.buses.get(id);
    if (b === undefined) {
      b = new BusState(id, `bus ${id}`, this.now);
      this.buses.set(id, b);
    }
    return b;
  }

  private typeFor(bus: number, name: string): EventTypeState {
    const b = this.busFor(bus);
    let t = b.types.get(name);
    if (t === undefined) {
      t = new EventTypeState(this.typesByIndex.length, b, name, this.window);
      this.typesByIndex.push(t);
      b.types.set(name, t);
      this.typeChanged(t);
    }
    return t;
  }

  private siteIndex(site: SiteInfo): number {
    let i = this.siteIndexByObject.get(site);
    if (i !== undefined) return i;
    const key = siteKey(site);
    i = this.siteIndexByKey.get(key);
    if (i === undefined) {
      i = this.sitesByIndex.length;
      this.sitesByIndex.push(site);
      this.siteIndexByKey.set(key, i);
    }
    // Decoded sites are shared objects per stream; bound the identity cache anyway.
    if (this.siteIndexByObject.size < 65_536) this.siteIndexByObject.set(site, i);
    return i;
  }

  private applyDispatch(r: DispatchRecord): void {
    const t = this.typeFor(r.bus, r.type);
    const row = this.oneRow(r.seq, r.bus, r.type, r.start, r.startBound ?? 0, r.duration, r.delivered, r.consumedBy, r.depth, r.parentSeq, r.site);
    this.ingestRow(t, row, 0, r.traceId, r.threadId, r.enqueuedAt);
  }

  /** Dispatch row `i` of `c`, of type `t`: the type's counters, the bus's, and a timeline row. */
  private ingestRow(t: EventTypeState, c: DispatchColumns, i: number, traceId?: string, fromThread?: number, enqueuedAt?: number): void {
    const siteIdx = this.countRow(t, c, i);
    this.timeline.pushRow(c, i, t.index, siteIdx, traceId, fromThread, enqueuedAt);
  }

  /** The counters of dispatch row `i` of `c` (all but its timeline row); returns its site index (-1: none). */
  private countRow(t: EventTypeState, c: DispatchColumns, i: number): number {
    const seq = c.seq[i];
    const start = c.start[i];
    const duration = c.duration[i];
    const delivered = c.delivered[i];
    const consumedBy = c.consumedBy[i];
    const depth = c.depth[i];
    const parentSeq = c.parentSeq[i];
    const site = c.site[i];
    if (t.busState.pendingClear.length !== 0) this.settleClear(t.busState, false);
    this.typeChanged(t);
    t.dispatches++;
    if (start < t.firstDispatchAt) t.firstDispatchAt = start;
    if (start > t.lastDispatchAt) t.lastDispatchAt = start;
    t.rate.add(start);
    t.totalDuration += duration;
    if (duration > t.maxDuration) t.maxDuration = duration;
    if (depth > t.maxDepth) t.maxDepth = depth;
    if (delivered === 0) {
      t.unheard++;
      if (start > t.lastUnheardAt) t.lastUnheardAt = start;
    } else if (start > t.lastHeardAt) t.lastHeardAt = start;
    if (consumedBy !== 0) {
      if (t.consumed === 0) this.typesConsumed.push(t);
      t.consumed++;
      const consumers = t.ensureConsumers();
      let consumer = consumers.get(consumedBy);
      if (consumer === undefined) {
        const sub = this.subscriptions.get(consumedBy);
        consumer = { count: 0, priority: sub ? sub.priority : 0, label: sub ? sub.label : null };
        consumers.set(consumedBy, consumer);
      }
      consumer.count++;
      const sub = this.subscriptions.get(consumedBy);
      if (sub !== undefined) sub.consumed++;
    }
    let siteIdx = -1;
    if (site !== null) {
      siteIdx = this.siteIndex(site);
      if (t.dispatchSites.length < 8 && !t.dispatchSites.includes(this.sitesByIndex[siteIdx])) t.dispatchSites.push(this.sitesByIndex[siteIdx]);
    }
    const nested = this.nestedTime;
    nested.delete(seq);
    if (parentSeq !== 0) {
      // A parent whose record was dropped would leave its entry behind: keep the map small.
      if (nested.size > 4096) nested.clear();
      nested.add(parentSeq, duration);
    }
    t.busState.dispatches++;
    this.totalDispatches++;
    const end = start + duration;
    if (end > this.now) this.now = end;
    return siteIdx;
  }

  private applyHandler(r: HandlerRecord): void {
    const end = r.start + r.duration;
    if (end > this.now) this.now = end;
    // A sampled call stands for `sampleEvery` calls of its subscription (handler-sampler.ts).
    const weight = r.sampleEvery ?? 1;
    this.totalHandlerCalls += weight;
    this.handlerSlices.push(r.seq, r.subscriptionId, r.start, r.duration, r.consumed ? HandlerFlag.consumed : 0);
    const sub = this.subscriptions.get(r.subscriptionId);
    if (sub === undefined) {
      this.integrity.unknownSubscriptions++;
      this.nestedTime.delete(r.seq);
      return;
    }
    const firstCall = sub.callsObserved === 0 || sub.calls === 0;
    sub.calls += weight;
    sub.callsObserved += weight;
    // A first call ends "never dispatched" and "starved": the analyses look at its type again.
    if (firstCall) this.typeChanged(sub.type);
    if (end > sub.lastCalledAt) sub.lastCalledAt = end;
    let self = r.duration;
    const nestedMs = this.nestedTime.get(r.seq);
    if (nestedMs !== undefined) {
      self = Math.max(0, self - nestedMs);
      this.nestedTime.delete(r.seq);
    }
    let h = sub.durations;
    if (h === null) h = sub.durations = new DurationHistogram();
    h.add(self, weight);
  }

  private applyHandlerError(r: HandlerErrorRecord): void {
    this.touch(r.time);
    this.totalHandlerErrors++;
    this.handlerSlices.markThrew(r.seq, r.subscriptionId);
    const sub = this.subscriptions.get(r.subscriptionId);
    if (sub === undefined) {
      this.integrity.unknownSubscriptions++;
      return;
    }
    sub.errors++;
    const info = { time: r.time, seq: r.seq, message: r.message, stack: r.stack };
    if (r.message.startsWith(DEPTH_ERROR_PREFIX)) {
      sub.depthErrors++;
      sub.lastDepthError = info;
    } else sub.lastError = info;
    sub.type.handlerErrors++;
  }

  private applySubscribe(r: SubscribeRecord): void {
    this.touch(r.time);
    const sub = this.addSubscription(
      r.subscriptionId,
      r.bus,
      r.type,
      r.priority,
      r.label,
      r.owner,
      r.once,
      r.site,
      r.time,
      r.time,
      false,
      0,
      r.ownerId ?? null,
    );
    if (r.origin !== undefined) sub.origin = r.origin;
  }

  private addSubscription(
    id: number,
    bus: number,
    typeName: string,
    priority: number,
    label: string | null,
    owner: string | null,
    once: boolean,
    site: SiteInfo | null,
    createdAt: number,
    observedFrom: number,
    fromSnapshot: boolean,
    calls: number,
    ownerId: number | null,
  ): SubscriptionState {
    const existing = this.subscriptions.get(id);
    if (existing !== undefined && existing.active) return existing;
    const t = this.typeFor(bus, typeName);
    if (t.busState.pendingClear.length !== 0) this.settleClear(t.busState, false);
    const sub = new SubscriptionState(
      id,
      bus,
      t,
      priority,
      label,
      owner,
      once,
      site,
      site === null ? null : siteKey(site),
      createdAt,
      observedFrom,
      fromSnapshot,
      owner === null ? null : ownerId,
    );
    sub.calls = calls;
    sub.typeDispatchesAtStart = t.dispatches;
    let ahead = 0;
    for (const [consumerId, c] of t.consumers) if (runsBefore(c.priority, consumerId, priority, id)) ahead += c.count;
    sub.consumedAheadAtStart = ahead;
    this.subscriptions.set(id, sub);
    this.typeChanged(t);
    t.live.add(sub);
    t.subscribedEver++;
    t.ensureNetGrowth().add(observedFrom, 1);
    if (sub.ownerKey !== null && owner !== null) {
      let o = this.owners.get(sub.ownerKey);
      if (o === undefined) {
        o = new OwnerState(owner, sub.ownerId);
        this.owners.set(o.key, o);
      }
      o.live.add(sub);
      o.subscribedEver++;
    }
    return sub;
  }

  private applyUnsubscribe(r: UnsubscribeRecord): void {
    this.touch(r.time);
    const sub = this.subscriptions.get(r.subscriptionId);
    if (sub === undefined) {
      this.integrity.unknownSubscriptions++;
      return;
    }
    if (r.calls > sub.calls) {
      sub.calls = r.calls;
      this.typeChanged(sub.type);
    }
    this.endSubscription(sub, r.time, r.reason);
  }

  private endSubscription(sub: SubscriptionState, time: number, reason: EndReason): void {
    if (!sub.active) return;
    sub.endedAt = time;
    sub.endReason = reason;
    const t = sub.type;
    this.typeChanged(t);
    t.live.delete(sub);
    t.ensureNetGrowth().add(time, -1);
    if (reason === 'dead-owner' || reason === 'collected') {
      const key = sub.siteKey ?? `label:${sub.label ?? ''}`;
      if (t.ownerRemovals.size === 0) this.typesWithOwnerRemovals.push(t);
      const removals = t.ensureOwnerRemovals();
      let g = removals.get(key);
      if (g === undefined) {
        g = new SiteRemovals(sub.site, sub.label);
        removals.set(key, g);
      }
      g.add(time, sub.owner, sub.id, reason, sub.ownerId);
    }
    // Churn: cycles per (type, site), whatever the reason; the analysis judges rate and lifetime.
    if (reason !== 'missing-from-snapshot') {
      const key = `${t.index}|${sub.siteKey ?? `label:${sub.label ?? ''}`}`;
      let c = this.churn.get(key);
      if (c === undefined) {
        c = new ChurnCounter(t, sub.site, sub.label, this.window);
        this.churn.set(key, c);
      }
      c.cycles.add(time);
      c.lifetimes.add(time, Math.max(0, time - sub.createdAt));
      c.total++;
    }
    if (sub.ownerKey !== null) {
      const o = this.owners.get(sub.ownerKey);
      if (o !== undefined) {
        o.live.delete(sub);
        if (reason === 'dispose' && o.live.size > 0 && o.disposals.length < 4) {
          const othersCalls = new Map<number, number>();
          for (const other of o.live) othersCalls.set(other.id, other.calls);
          o.disposals.push({ time, subscriptionId: sub.id, createdAt: sub.createdAt, type: t.name, label: sub.label, othersCalls });
        }
        // After a `clear`, the owner waits for the verdict (bus disposed or not): see settleClear.
        if (reason !== 'clear') this.forgetOwnerIfIdle(o);
      }
    }
    if (reason === 'clear') {
      const b = t.busState;
      if (b.pendingClear.length < 100_000) b.pendingClear.push(sub);
    }
    this.endedOrder.push(sub);
    this.evictEnded();
  }

  private forgetOwnerIfIdle(o: OwnerState): void {
    if (o.live.size === 0 && o.retired.size === 0 && this.owners.get(o.key) === o) this.owners.delete(o.key);
  }

  /**
   * Decides what the bus's last `clear` was: its disposal (`teardown`: the subscriptions were
   * registered until the bus ended, and analyses keep judging them) or a plain `clear()`.
   */
  private settleClear(b: BusState, teardown: boolean): void {
    const subs = b.pendingClear;
    for (let i = 0; i < subs.length; i++) {
      const sub = subs[i];
      const o = sub.ownerKey === null ? undefined : this.owners.get(sub.ownerKey);
      if (teardown && this.subscriptions.get(sub.id) === sub) {
        sub.endedWithBus = true;
        this.typeChanged(sub.type);
        sub.type.ensureRetired().add(sub);
        // Not a shrinking listener count: the bus ended.
        sub.type.ensureNetGrowth().add(sub.endedAt ?? b.disposedAt ?? this.now, 1);
        o?.retired.add(sub);
      } else if (o !== undefined) this.forgetOwnerIfIdle(o);
    }
    subs.length = 0;
  }

  private evictEnded(): void {
    const max = this.options.maxEndedSubscriptions;
    while (this.endedOrder.length - this.endedHead > max) {
      const old = this.endedOrder[this.endedHead++];
      if (this.subscriptions.get(old.id) === old) this.subscriptions.delete(old.id);
      if (old.endedWithBus) {
        if (old.type.retired.size > 0 && old.type.ensureRetired().delete(old)) this.typeChanged(old.type);
        const o = old.ownerKey === null ? undefined : this.owners.get(old.ownerKey);
        if (o !== undefined) {
          o.retired.delete(old);
          this.forgetOwnerIfIdle(o);
        }
      }
    }
    // Compact the queue now and then instead of shifting per eviction.
    if (this.endedHead > 1024 && this.endedHead * 2 > this.endedOrder.length) {
      this.endedOrder.splice(0, this.endedHead);
      this.endedHead = 0;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Control messages

  /**
   * The threads in the session (protocol 5), main thread first; undefined while only the main thread
   * reported buses.
   */
  threadViews(): ThreadView[] | undefined {
    if (this.threads.size === 0) return undefined;
    const app = this.session.app;
    const main: ThreadView = { id: 0, name: 'main', startedAt: app === null ? 0 : app.startTime - this.session.timeOrigin, exitedAt: null };
    const out = [main];
    for (const [id, t] of this.threads) out.push({ id, name: t.name, startedAt: t.startedAt, exitedAt: t.exitedAt });
    return out.sort((a, b) => a.id - b.id);
  }

  /** A worker thread joined (with its snapshot) or exited. */
  private applyThread(m: ThreadMessage): void {
    this.version++;
    const known = this.threads.get(m.thread);
    if (known === undefined) this.threads.set(m.thread, { name: m.name, startedAt: m.startedAt, exitedAt: m.exitedAt });
    else known.exitedAt = m.exitedAt;
    if (m.snapshot !== null) this.applySnapshot(m.snapshot, m.thread);
    if (m.exitedAt !== null) this.touch(m.exitedAt);
  }

  /** `thread`: whose snapshot (a worker's, protocol 5; 0 the main thread's): it is the truth for that thread's buses only. */
  private applySnapshot(s: ProbeSnapshot, thread = 0): void {
    this.version++;
    this.touch(s.time);
    const origin = s.timeOrigin;
    if (thread === 0) {
      if (this.session.timeOrigin === 0 || this.session.state === 'waiting') this.session = { ...this.session, timeOrigin: origin };
      if (this.session.attachedAt === null) this.session = { ...this.session, attachedAt: s.time };
      if (this.session.state === 'waiting') this.session = { ...this.session, state: 'live' };
    }
    const toTime = (epoch: number): number => epoch - origin;
    for (const b of s.buses) {
      let bus = this.buses.get(b.id);
      if (bus === undefined) this.buses.set(b.id, (bus = describedBus(new BusState(b.id, b.name, toTime(b.createdAt)), b.kind, b.className)));
      else describedBus(bus, b.kind, b.className).name = b.name;
      bus.thread = thread;
    }
    for (const ts of s.types) {
      const t = this.typeFor(ts.bus, ts.type);
      // The probe counts dispatches while it records; what it counted before we saw records is
      // the difference (a refresh snapshot mid-stream adds nothing we already counted).
      const missing = ts.dispatches - t.dispatches;
      if (missing > 0) {
        this.typeChanged(t);
        t.dispatches += missing;
        t.dispatchesBeforeAttach += missing;
      }
    }
    const present = new Set<number>();
    for (const ss of s.subscriptions) {
      present.add(ss.id);
      const known = this.subscriptions.get(ss.id);
      if (known !== undefined && known.active) {
        if (ss.calls > known.calls) {
          known.calls = ss.calls;
          this.typeChanged(known.type);
        }
        continue;
      }
      const sub = this.addSubscription(
        ss.id,
        ss.bus,
        ss.type,
        ss.priority,
        ss.label,
        ss.owner,
        ss.once,
        ss.site,
        toTime(ss.createdAt),
        s.time,
        true,
        ss.calls,
        ss.ownerId ?? null,
      );
      if (ss.beforeProbe === true && ss.site === null) sub.beforeProbe = true;
      if (ss.origin !== undefined) sub.origin = ss.origin;
    }
    // A complete snapshot is the truth at its point in the stream: subscriptions it lacks ended
    // while records were dropped.
    if (!s.truncated) {
      for (const sub of [...this.subscriptions.values()]) {
        if (sub.active && !present.has(sub.id) && sub.type.busState.thread === thread) this.endSubscription(sub, s.time, 'missing-from-snapshot');
      }
    }
  }

  /**
   * A producer thread connected to a bus: where (its `connectProducer` call), kept on the bus for the
   * queue-growth warning to name and link. Distinct sites only, and a few: many workers run one file.
   */
  private applyProducerConnected(m: ProducerConnectedMessage): void {
    const bus = this.buses.get(m.bus);
    const site = m.site;
    if (bus === undefined || site === null || bus.producerSites.length >= 16) return;
    if (bus.producerSites.some((s) => s.file === site.file && s.line === site.line && s.column === site.column)) return;
    bus.producerSites.push(site);
    this.version++;
  }

  private applyProducerDrops(m: ProducerDropsMessage): void {
    const bus = this.buses.get(m.bus);
    if (bus === undefined) return;
    // The total makes a late-attached client exact; the per-batch count adds up on a stream that saw them all.
    bus.producerDropped = Math.max(bus.producerDropped + m.dropped, m.totalDropped);
    bus.producerDropPolicy = m.policy;
    bus.producerCap = m.cap;
    this.version++;
  }

  /**
   * Node's MaxListenersExceededWarning for a watched emitter: kept on its bus per event name, as
   * evidence for the listener-growth warning. Warnings about emitters that are not watched (no
   * bus) or not known have nothing to attach to.
   */
  private applyEmitterWarning(m: EmitterWarningMessage): void {
    if (m.bus === null) return;
    const bus = this.buses.get(m.bus);
    if (bus === undefined) return;
    bus.maxListenersWarnings.set(m.event, { count: m.count, time: m.time, message: m.message });
    const t = bus.types.get(m.event);
    if (t !== undefined) this.typeChanged(t);
    this.version++;
  }

  private applyError(m: ErrorMessage): void {
    this.session = {
      ...this.session,
      state: 'ended',
      endedAt: this.now,
      endReason: m.message,
      error: { code: m.code, message: m.message },
    };
    this.version++;
  }
}

/** Sets what the probe said the bus is (protocol 3 bus definitions, snapshots); unsaid keeps what was known. */
function describedBus(bus: BusState, kind: BusKind | undefined, className: string | undefined): BusState {
  if (kind !== undefined) bus.kind = kind;
  if (className !== undefined) bus.className = className;
  return bus;
}
