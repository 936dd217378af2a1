// Chrome Trace Event JSON (the format Perfetto and chrome://tracing open) from a model. Plain
// TypeScript, no `vscode`.
//
// Layout: one trace "process" per bus (pid = bus id) and one "thread" per event type (tid = the
// model's type index + 1), so each bus/type pair is its own track:
//  - dispatches are complete slices ('X') on their type's track; handler calls are 'X' slices on the
//    same track, nested inside their dispatch (a nested dispatch of the same type nests inside the
//    handler that made it; one of another type sits on its own track, linked by a flow arrow);
//  - consumption and handler errors are thread-scoped instant events ('i') at the handler's end;
//  - listener counts are counter events ('C') per type, stepped at every subscribe/unsubscribe;
//  - subscription lifetimes are async slices ('b'/'e', category `subscription`, one id each);
//  - metadata ('M') names processes and threads and orders them.
// Timestamps are microseconds (the format's unit) since the session's time origin, shifted so none
// is negative; `otherData.timeOriginEpochMs` says what 0 is.
//
// The probe measures nested times exactly, but after ms → µs conversion a child can stick out of its
// parent by a rounding step, which trace viewers report as misnested. So every child is clamped into
// its parent (handlers into their dispatch, nested dispatches into their parent), siblings are kept
// from overlapping, and a final pass per track guarantees proper nesting whatever the input.
import type { Model } from '../../../runtime-probe/src/analysis/model/index';
import type { SubscriptionState } from '../../../runtime-probe/src/analysis/model/index';

export type ChromeTracePhase = 'X' | 'i' | 'C' | 'b' | 'e' | 'M' | 's' | 'f';

export interface ChromeTraceEvent {
  readonly name: string;
  readonly ph: ChromeTracePhase;
  /** Microseconds. */
  readonly ts: number;
  readonly pid: number;
  readonly tid: number;
  readonly cat?: string;
  /** Microseconds ('X' only). */
  readonly dur?: number;
  /** Instant scope ('i' only): thread. */
  readonly s?: 't';
  /** Async and flow events: the id pairing begin and end. */
  readonly id?: string;
  /** Flow end binding: the enclosing slice. */
  readonly bp?: 'e';
  readonly args?: Readonly<Record<string, unknown>>;
}

export interface ChromeTraceOtherData {
  readonly exporter: 'busscope';
  readonly app: string | null;
  readonly appPid: number | null;
  /** Epoch ms of ts 0. */
  readonly timeOriginEpochMs: number;
  readonly dispatchesExported: number;
  readonly handlerSlicesExported: number;
  /** Dispatches the model's bounded timeline no longer held (not in this trace). */
  readonly dispatchesOverwritten: number;
  readonly droppedRecords: number;
  readonly droppedDispatches: number;
}

export interface ChromeTrace {
  readonly traceEvents: ChromeTraceEvent[];
  readonly displayTimeUnit: 'ms';
  readonly otherData: ChromeTraceOtherData;
}

/** Categories used, so viewers can filter. */
export const TRACE_CATEGORIES = {
  dispatch: 'dispatch',
  handler: 'handler',
  consume: 'consume',
  error: 'error',
  subscription: 'subscription',
  listeners: 'listeners',
} as const;

interface Slice {
  /** 0 dispatch, 1 handler. */
  readonly kind: 0 | 1;
  readonly pid: number;
  readonly tid: number;
  ts: number;
  end: number;
  readonly depth: number;
  readonly seq: number;
  /** Handler slices: the ring row, for name and flags. */
  readonly row: number;
}

/** ms → µs, rounded to the nanosecond so equal times stay equal after conversion. */
function micros(ms: number, base: number): number {
  return Math.round((ms - base) * 1e6) / 1e3;
}

function subscriberName(sub: SubscriptionState | undefined, id: number): string {
  if (sub === undefined) return `subscription #${id}`;
  return sub.label ?? sub.owner ?? `subscription #${id}`;
}

/** Builds the whole trace in memory. For big models prefer `chromeTraceChunks`, which streams. */
export function buildChromeTrace(model: Model): ChromeTrace {
  const { events, otherData } = collect(model);
  return { traceEvents: [...events], displayTimeUnit: 'ms', otherData };
}

/**
 * The trace as JSON text in chunks of roughly `chunkChars` characters (one event per line), so a
 * writer can stream a large trace to disk without one giant string.
 */
export function* chromeTraceChunks(model: Model, chunkChars = 1 << 20): Generator<string> {
  if (!Number.isInteger(chunkChars) || chunkChars < 1) throw new TypeError(`chromeTraceChunks: chunkChars must be a positive integer, got ${chunkChars}`);
  const { events, otherData } = collect(model);
  let chunk = '{"traceEvents":[\n';
  let first = true;
  for (const event of events) {
    chunk += (first ? '' : ',\n') + JSON.stringify(event);
    first = false;
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = '';
    }
  }
  chunk += `\n],\n"displayTimeUnit":"ms",\n"otherData":${JSON.stringify(otherData)}}\n`;
  yield chunk;
}

/**
 * Prepares the slices (clamped and nested) eagerly, and returns the events as a generator, so a
 * streaming writer never holds every event object at once.
 */
function collect(model: Model): { events: Iterable<ChromeTraceEvent>; otherData: ChromeTraceOtherData } {
  const ring = model.timeline;
  const hs = model.handlerSlices;
  const info = model.sessionInfo;

  // Earliest time anywhere in the export: subscriptions made before attach have negative times.
  let base = 0;
  for (let k = 0; k < ring.size; k++) base = Math.min(base, ring.start[ring.physicalIndex(k)]);
  for (const s of model.subscriptions.values()) base = Math.min(base, s.createdAt);
  for (const b of model.buses.values()) base = Math.min(base, b.createdAt);
  base = Math.floor(base);
  const endOfTrace = micros(Math.max(model.now, 0), base);

  const tidOfType = (typeIndex: number): number => typeIndex + 1;
  const appName = info.app?.name ?? null;

  // --- Dispatch and handler slices.
  const slices: Slice[] = [];
  const dispatchBySeq = new Map<number, Slice>();
  for (let k = 0; k < ring.size; k++) {
    const i = ring.physicalIndex(k);
    const ts = micros(ring.start[i], base);
    const slice: Slice = {
      kind: 0,
      pid: ring.bus[i],
      tid: tidOfType(ring.typeIndex[i]),
      ts,
      end: Math.max(ts, micros(ring.start[i] + ring.duration[i], base)),
      depth: ring.depth[i],
      seq: ring.seq[i],
      row: i,
    };
    slices.push(slice);
    dispatchBySeq.set(slice.seq, slice);
  }
  // Parents first, so a child is clamped into an already-clamped parent.
  const byDepth = slices.slice().sort((a, b) => a.depth - b.depth || a.ts - b.ts);
  for (const d of byDepth) {
    if (d.depth === 0) continue;
    const parent = dispatchBySeq.get(ring.parentSeq[d.row]);
    if (parent !== undefined) clampInto(d, parent);
  }
  const handlersBySeq = new Map<number, Slice[]>();
  for (let k = 0; k < hs.size; k++) {
    const i = hs.physicalIndex(k);
    const dispatch = dispatchBySeq.get(hs.seq[i]);
    if (dispatch === undefined) continue; // its dispatch left the timeline ring (or was dropped)
    const ts = micros(hs.start[i], base);
    const h: Slice = {
      kind: 1,
      pid: dispatch.pid,
      tid: dispatch.tid,
      ts,
      end: Math.max(ts, micros(hs.start[i] + hs.duration[i], base)),
      depth: dispatch.depth,
      seq: dispatch.seq,
      row: i,
    };
    clampInto(h, dispatch);
    let list = handlersBySeq.get(h.seq);
    if (list === undefined) handlersBySeq.set(h.seq, (list = []));
    list.push(h);
  }
  for (const list of handlersBySeq.values()) {
    list.sort((a, b) => a.ts - b.ts);
    for (let j = 1; j < list.length; j++) {
      const prev = list[j - 1];
      if (list[j].ts < prev.end) list[j].ts = Math.min(prev.end, list[j].end);
      if (list[j].end < list[j].ts) list[j].end = list[j].ts;
    }
    slices.push(...list);
  }
  // Nested dispatches of the same track must also sit inside the handler that made them: the
  // generic pass below takes care of it (the handler encloses the nested dispatch in time).
  nestPerTrack(slices);

  let handlerSlicesExported = 0;
  for (const list of handlersBySeq.values()) handlerSlicesExported += list.length;

  function* generate(): Generator<ChromeTraceEvent> {
    // --- Metadata: processes (buses) and threads (types).
    let busOrder = 0;
    for (const bus of model.buses.values()) {
      yield { name: 'process_name', ph: 'M', ts: 0, pid: bus.id, tid: 0, args: { name: `bus ${bus.name}` } };
      if (appName !== null) yield { name: 'process_labels', ph: 'M', ts: 0, pid: bus.id, tid: 0, args: { labels: appName } };
      yield { name: 'process_sort_index', ph: 'M', ts: 0, pid: bus.id, tid: 0, args: { sort_index: busOrder++ } };
      let typeOrder = 0;
      for (const t of bus.types.values()) {
        yield { name: 'thread_name', ph: 'M', ts: 0, pid: bus.id, tid: tidOfType(t.index), args: { name: t.name } };
        yield { name: 'thread_sort_index', ph: 'M', ts: 0, pid: bus.id, tid: tidOfType(t.index), args: { sort_index: typeOrder++ } };
      }
    }

    // --- Dispatch and handler slices, consumption and errors.
    for (const s of slices) {
      if (s.kind === 0) {
        const i = s.row;
        const type = model.typeAt(ring.typeIndex[i]);
        const consumedBy = ring.consumedBy[i];
        const site = model.siteAt(ring.siteIndex[i]);
        const args: Record<string, unknown> = {
          seq: s.seq,
          delivered: ring.delivered[i],
          depth: s.depth,
        };
        if (ring.parentSeq[i] !== 0) args.parentSeq = ring.parentSeq[i];
        if (consumedBy !== 0) args.consumedBy = `${subscriberName(model.subscriptions.get(consumedBy), consumedBy)} (#${consumedBy})`;
        if (site !== undefined) args.site = `${site.file}:${site.line}:${site.column}`;
        yield {
          name: type?.name ?? `type ${ring.typeIndex[i]}`,
          cat: TRACE_CATEGORIES.dispatch,
          ph: 'X',
          ts: s.ts,
          dur: durationMicros(s),
          pid: s.pid,
          tid: s.tid,
          args,
        };
        continue;
      }
      const i = s.row;
      const subId = hs.subscription[i];
      const sub = model.subscriptions.get(subId);
      const flags = hs.flags[i];
      const consumed = (flags & 1) !== 0;
      const threw = (flags & 2) !== 0;
      const args: Record<string, unknown> = { seq: s.seq, subscription: subId };
      if (sub !== undefined) {
        args.priority = sub.priority;
        if (sub.owner !== null) args.owner = sub.owner;
        if (sub.site !== null) args.site = `${sub.site.file}:${sub.site.line}:${sub.site.column}`;
      }
      if (consumed) args.consumed = true;
      if (threw) args.threw = true;
      const name = subscriberName(sub, subId);
      yield { name, cat: TRACE_CATEGORIES.handler, ph: 'X', ts: s.ts, dur: durationMicros(s), pid: s.pid, tid: s.tid, args };
      if (consumed) {
        yield {
          name: `consumed by ${name}`,
          cat: TRACE_CATEGORIES.consume,
          ph: 'i',
          s: 't',
          ts: s.end,
          pid: s.pid,
          tid: s.tid,
          args: { seq: s.seq, subscription: subId },
        };
      }
      if (threw) {
        const err = sub?.lastError;
        const message = err !== null && err !== undefined && err.seq === s.seq ? err.message : 'handler threw';
        yield {
          name: `error in ${name}`,
          cat: TRACE_CATEGORIES.error,
          ph: 'i',
          s: 't',
          ts: s.end,
          pid: s.pid,
          tid: s.tid,
          args: { seq: s.seq, subscription: subId, message },
        };
      }
    }

    // Consumption when handler timing was not recorded (detail `dispatch`): mark it at the dispatch end.
    for (const d of dispatchBySeq.values()) {
      const consumedBy = ring.consumedBy[d.row];
      if (consumedBy === 0 || handlersBySeq.has(d.seq)) continue;
      const name = subscriberName(model.subscriptions.get(consumedBy), consumedBy);
      yield {
        name: `consumed by ${name}`,
        cat: TRACE_CATEGORIES.consume,
        ph: 'i',
        s: 't',
        ts: d.end,
        pid: d.pid,
        tid: d.tid,
        args: { seq: d.seq, subscription: consumedBy },
      };
    }

    // Flow arrows from a dispatch to the nested dispatches it caused on other tracks.
    for (const d of dispatchBySeq.values()) {
      if (d.depth === 0) continue;
      const parent = dispatchBySeq.get(ring.parentSeq[d.row]);
      if (parent === undefined || (parent.pid === d.pid && parent.tid === d.tid)) continue;
      const id = `nested-${d.seq}`;
      yield { name: 'nested dispatch', cat: TRACE_CATEGORIES.dispatch, ph: 's', id, ts: d.ts, pid: parent.pid, tid: parent.tid };
      yield { name: 'nested dispatch', cat: TRACE_CATEGORIES.dispatch, ph: 'f', bp: 'e', id, ts: d.ts, pid: d.pid, tid: d.tid };
    }

    // --- Subscription lifetimes (async slices) and listener counts (counters).
    const subs = [...model.subscriptions.values()].sort((a, b) => a.createdAt - b.createdAt || a.id - b.id);
    const steps: { ts: number; pid: number; type: string; delta: 1 | -1 }[] = [];
    for (const sub of subs) {
      const name = `${sub.type.name} ← ${subscriberName(sub, sub.id)}`;
      const id = `sub-${sub.id}`;
      const begin = micros(sub.createdAt, base);
      const args: Record<string, unknown> = { subscription: sub.id, type: sub.type.name, priority: sub.priority };
      if (sub.owner !== null) args.owner = sub.owner;
      if (sub.site !== null) args.site = `${sub.site.file}:${sub.site.line}:${sub.site.column}`;
      yield { name, cat: TRACE_CATEGORIES.subscription, ph: 'b', id, ts: begin, pid: sub.bus, tid: tidOfType(sub.type.index), args };
      const end = sub.endedAt === null ? Math.max(begin, endOfTrace) : Math.max(begin, micros(sub.endedAt, base));
      const endArgs: Record<string, unknown> = sub.endedAt === null ? { active: true, calls: sub.calls } : { reason: sub.endReason, calls: sub.calls };
      yield { name, cat: TRACE_CATEGORIES.subscription, ph: 'e', id, ts: end, pid: sub.bus, tid: tidOfType(sub.type.index), args: endArgs };
      steps.push({ ts: begin, pid: sub.bus, type: sub.type.name, delta: 1 });
      if (sub.endedAt !== null) steps.push({ ts: end, pid: sub.bus, type: sub.type.name, delta: -1 });
    }
    steps.sort((a, b) => a.ts - b.ts || a.delta - b.delta);
    const counts = new Map<string, number>();
    for (let j = 0; j < steps.length; j++) {
      const st = steps[j];
      const key = `${st.pid}\u0000${st.type}`;
      const n = (counts.get(key) ?? 0) + st.delta;
      counts.set(key, n);
      // One counter sample per (track, time): later steps at the same time overwrite earlier ones.
      const next = steps[j + 1];
      if (next !== undefined && next.ts === st.ts && next.pid === st.pid && next.type === st.type) continue;
      yield { name: `listeners: ${st.type}`, cat: TRACE_CATEGORIES.listeners, ph: 'C', ts: st.ts, pid: st.pid, tid: 0, args: { listeners: n } };
    }
  }

  return {
    events: generate(),
    otherData: {
      exporter: 'busscope',
      app: appName,
      appPid: info.app?.pid ?? null,
      timeOriginEpochMs: info.timeOrigin + base,
      dispatchesExported: dispatchBySeq.size,
      handlerSlicesExported,
      dispatchesOverwritten: ring.overwritten,
      droppedRecords: model.drops.records,
      droppedDispatches: model.drops.dispatches,
    },
  };
}

function durationMicros(s: Slice): number {
  return Math.round((s.end - s.ts) * 1e3) / 1e3;
}

function clampInto(child: Slice, parent: Slice): void {
  if (child.ts < parent.ts) child.ts = parent.ts;
  if (child.ts > parent.end) child.ts = parent.end;
  if (child.end > parent.end) child.end = parent.end;
  if (child.end < child.ts) child.end = child.ts;
}

/**
 * Sorts slices by track, start, longer first, shallower first, and clamps each to the slice that
 * encloses it, so that on every track any two slices are disjoint or nested.
 */
function nestPerTrack(slices: Slice[]): void {
  slices.sort((a, b) => a.pid - b.pid || a.tid - b.tid || a.ts - b.ts || b.end - a.end || a.depth * 2 + a.kind - (b.depth * 2 + b.kind));
  const stack: Slice[] = [];
  let pid = -1;
  let tid = -1;
  for (const s of slices) {
    if (s.pid !== pid || s.tid !== tid) {
      stack.length = 0;
      pid = s.pid;
      tid = s.tid;
    }
    // Pop what ended before `s` starts (touching ends count as ended, except a zero-length slice
    // starting at the same instant, which it then contains).
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.end < s.ts || (top.end === s.ts && top.ts < top.end)) stack.pop();
      else break;
    }
    const top = stack[stack.length - 1];
    if (top !== undefined && s.end > top.end) s.end = top.end;
    stack.push(s);
  }
}
