// Crafted probe streams for model and analysis tests, written with the protocol's own record types
// and encoders: records go through RecordEncoder → frames → StreamDecoder, exactly the bytes a
// live client or a trace file would carry, and come out as the decoded `StreamMessage`s the model
// eats. Times are ms since the time origin.
import {
  encodeControlFrame,
  PROTOCOL_VERSION,
  RecordEncoder,
  StreamDecoder,
  type BusRecord,
  type DetailLevel,
  type ProbeSnapshot,
  type SiteInfo,
  type StreamMessage,
  type SubscriptionSnapshot,
  type UnsubscribeReason,
} from '../../../runtime-probe/src/protocol/index';
import type { Model } from '../../../runtime-probe/src/analysis/model/index';

export const TIME_ORIGIN = 1_700_000_000_000;

export function site(file: string, line: number, functionName: string | null = null, column = 5): SiteInfo {
  return { file, line, column, functionName };
}

export interface SubscribeSpec {
  readonly id: number;
  readonly type: string;
  readonly bus?: number;
  readonly time?: number;
  readonly priority?: number;
  readonly label?: string | null;
  readonly owner?: string | null;
  /** The probe's per-process owner id (omitted: a stream from a probe that does not send ids). */
  readonly ownerId?: number;
  readonly once?: boolean;
  readonly site?: SiteInfo | null;
}

export interface HandlerSpec {
  readonly sub: number;
  /** Self time unless nested dispatches are given (then added to them). Default 0.01 ms. */
  readonly duration?: number;
  readonly consumed?: boolean;
  readonly throws?: string;
  /** Dispatches this handler makes (nested). */
  readonly nested?: readonly DispatchSpec[];
}

export interface DispatchSpec {
  readonly type: string;
  readonly bus?: number;
  /** Default: the builder's clock. */
  readonly start?: number;
  /** Handlers in call order; `delivered` and `consumedBy` follow from them. */
  readonly handlers?: readonly HandlerSpec[];
  /** Overrides (e.g. a dispatch without handler records). */
  readonly delivered?: number;
  readonly consumedBy?: number;
  readonly site?: SiteInfo | null;
  /** Extra time spent in the dispatch besides handlers. */
  readonly overhead?: number;
}

export class StreamBuilder {
  private readonly encoder = new RecordEncoder();
  private readonly decoder = new StreamDecoder();
  private pendingRecords: BusRecord[] = [];
  private out: StreamMessage[] = [];
  private seq = 0;
  /** Current time (ms since origin); dispatches without `start` begin here. */
  clock = 0;
  /** Records emitted, by kind (for assertions about what was sent). */
  readonly sent: BusRecord[] = [];

  constructor(readonly options: { readonly detail?: DetailLevel; readonly defaultBus?: number } = {}) {}

  private get bus(): number {
    return this.options.defaultBus ?? 1;
  }

  private control(message: Parameters<typeof encodeControlFrame>[0]): this {
    this.flushRecords();
    this.out.push(...this.decoder.push(encodeControlFrame(message)));
    return this;
  }

  welcome(detail: DetailLevel = this.options.detail ?? 'handlers'): this {
    return this.control({
      type: 'welcome',
      protocolVersion: PROTOCOL_VERSION,
      probeVersion: '0.1.0',
      app: { pid: 4242, name: 'crafted', cwd: '/tmp/crafted', startTime: TIME_ORIGIN, runtime: 'node test' },
      timeOrigin: TIME_ORIGIN,
      config: { detail, captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 0 },
    });
  }

  snapshot(snapshot: Partial<ProbeSnapshot> & { readonly subscriptions?: readonly SubscriptionSnapshot[] }, requestId: number | null = null): this {
    return this.control({
      type: 'snapshot',
      requestId,
      snapshot: {
        time: this.clock,
        timeOrigin: TIME_ORIGIN,
        lastSeq: this.seq,
        recording: true,
        buses: [],
        types: [],
        subscriptions: [],
        dispatching: [],
        breakOn: [],
        truncated: false,
        ...snapshot,
      },
    });
  }

  error(code: 'probe-stopping' | 'internal', message: string): this {
    return this.control({ type: 'error', code, message, supportedVersions: [PROTOCOL_VERSION] });
  }

  record(r: BusRecord): this {
    this.pendingRecords.push(r);
    this.sent.push(r);
    return this;
  }

  busCreated(bus: number, name: string, time = this.clock): this {
    return this.record({ kind: 'bus-created', time, bus, name });
  }

  subscribe(s: SubscribeSpec): this {
    const time = s.time ?? this.clock;
    if (time > this.clock) this.clock = time;
    return this.record({
      kind: 'subscribe',
      time,
      subscriptionId: s.id,
      bus: s.bus ?? this.bus,
      type: s.type,
      priority: s.priority ?? 0,
      label: s.label ?? null,
      owner: s.owner ?? null,
      ...(s.ownerId !== undefined ? { ownerId: s.ownerId } : {}),
      once: s.once ?? false,
      site: s.site ?? null,
    });
  }

  /** An owner was garbage-collected (`ownerId` as the probe sends it, or omitted). */
  ownerCollected(owner: string | null, removed: number, ownerId?: number, bus = this.bus, time = this.clock): this {
    return this.record({ kind: 'owner-collected', time, bus, owner, removed, ...(ownerId !== undefined ? { ownerId } : {}) });
  }

  unsubscribe(id: number, reason: UnsubscribeReason, calls = 0, time = this.clock): this {
    if (time > this.clock) this.clock = time;
    return this.record({ kind: 'unsubscribe', time, subscriptionId: id, reason, calls });
  }

  /**
   * One dispatch with its handler records (when the detail level has them), written in the
   * probe's order: nested dispatches and handler records as they end, the dispatch record last.
   * Advances the clock to the dispatch's end. Returns its seq.
   */
  dispatch(d: DispatchSpec, depth = 0, parentSeq = 0): number {
    const seq = ++this.seq;
    const start = d.start ?? this.clock;
    this.clock = start;
    const detail = this.options.detail ?? 'handlers';
    let delivered = 0;
    let consumedBy = 0;
    for (const h of d.handlers ?? []) {
      const hStart = this.clock;
      for (const n of h.nested ?? []) this.dispatch(n, depth + 1, seq);
      this.clock += h.duration ?? 0.01;
      delivered++;
      if (detail === 'handlers') {
        this.record({ kind: 'handler', seq, subscriptionId: h.sub, start: hStart, duration: this.clock - hStart, consumed: h.consumed === true });
      }
      if (h.throws !== undefined) {
        this.record({ kind: 'handler-error', seq, subscriptionId: h.sub, time: this.clock, message: h.throws, stack: null });
      }
      if (h.consumed === true) {
        consumedBy = h.sub;
        break;
      }
    }
    this.clock += d.overhead ?? 0.001;
    this.record({
      kind: 'dispatch',
      seq,
      bus: d.bus ?? this.bus,
      type: d.type,
      start,
      duration: this.clock - start,
      delivered: d.delivered ?? delivered,
      consumedBy: d.consumedBy ?? consumedBy,
      depth,
      parentSeq,
      site: d.site ?? null,
    });
    return seq;
  }

  depthLimit(type: string, depth: number, parentSeq = 0, bus = this.bus, time = this.clock): this {
    return this.record({ kind: 'depth-limit', time, bus, type, depth, parentSeq });
  }

  drops(count: number, dispatches: number): this {
    return this.record({ kind: 'drops', count, dispatches, reason: 'slow-client' });
  }

  /** Moves the clock forward. */
  wait(ms: number): this {
    this.clock += ms;
    return this;
  }

  private flushRecords(): void {
    if (this.pendingRecords.length === 0) return;
    for (const r of this.pendingRecords) this.encoder.write(r);
    this.pendingRecords = [];
    this.out.push(...this.decoder.push(this.encoder.writer.finish()));
  }

  /** The decoded messages built so far (and forgets them). */
  take(): StreamMessage[] {
    this.flushRecords();
    const m = this.out;
    this.out = [];
    return m;
  }

  /** Applies everything built so far to `model`. */
  into(model: Model): this {
    for (const m of this.take()) model.apply(m);
    return this;
  }
}
