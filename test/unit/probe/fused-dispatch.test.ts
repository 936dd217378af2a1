// Detail `dispatch` with the recorder alone on the tracer seam: the bus writes each dispatch record
// itself (the fused path, Node only: bus/fused-dispatch.ts, through the DispatchLog of bus/tracer.ts
// that the Node Recorder publishes) and the recorder's hooks see only what the log leaves out. These pin down that the two paths make one stream: fused and traced dispatches (an
// emitter's, one whose site is due) nest with the right parents, depths and sequence numbers; the
// fused path stops the moment something needs more of a dispatch (a trace id source, payloads, a
// breakpoint) and comes back after; and a ring that is full counts each dispatch it could not take.
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EventBus, probe } from '../../../runtime-probe/src/index';
import { readTraceFileMessages } from '../../../runtime-probe/src/client/index';
import type { BusRecord, DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder, RecorderCore } from '../../../runtime-probe/src/recorder/recorder';
import { encodeColumns } from '../../../runtime-probe/src/recorder/dispatch-columns';
import { hookTraceIdSource, setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { currentDispatchLog } from '../../../runtime-probe/src/bus/fused-dispatch';
import { DecodingSink } from '../../support/decoding-sink';

const TYPES = ['input', 'move', 'collide', 'damage', 'score', 'sound', 'render', 'net'] as const;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'busscope-fused-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function recording(
  maxBufferedRecords = 1 << 16,
  detail: 'dispatch' | 'handlers' = 'dispatch',
): { rec: Recorder; sink: DecodingSink; starts: () => number; stop: () => void } {
  const rec = new Recorder({
    maxBufferedRecords,
    config: { ...DEFAULT_RECORDING_CONFIG, detail, captureStacks: false },
    sanitize: undefined,
  });
  setBusTracer(rec);
  const sink = new DecodingSink();
  rec.attach(sink, [], () => undefined);
  // Counts the recorder's own dispatch hook: the traced path calls it, the fused path does not.
  let starts = 0;
  const start = rec.dispatchStart.bind(rec);
  rec.dispatchStart = (...args) => {
    starts++;
    return start(...args);
  };
  return {
    rec,
    sink,
    starts: () => starts,
    stop: () => {
      setBusTracer(undefined);
      rec.shutdown();
    },
  };
}

test('detail "dispatch": the bus writes the dispatch records itself; the recorder hooks only the first of each type and the ones due a site', () => {
  const { rec, sink, starts, stop } = recording();
  try {
    const bus = new EventBus<Record<string, number>>({ name: 'fused' });
    for (const t of TYPES) bus.subscribe(t, (n) => void (t === 'collide' && (n & 3) === 0 && bus.dispatch('damage', n)));
    let dispatched = 0;
    for (let i = 0; i < 8_000; i++) {
      const type = TYPES[(i * 5 + (i >> 3)) % TYPES.length];
      bus.dispatch(type, i);
      dispatched += type === 'collide' && (i & 3) === 0 ? 2 : 1;
    }
    assert.ok(currentDispatchLog() !== undefined, 'the log is installed');
    // First of each type (not interned yet, and its site is due), then every 1,000th of a type (site due).
    assert.ok(starts() <= 3 * TYPES.length, `${starts()} traced starts for ${dispatched} dispatches`);
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    assert.equal(dispatches.length, dispatched, 'every dispatch recorded');
    assert.equal(rec.lastSequence, dispatched);
    const bySeq = new Map(dispatches.map((d) => [d.seq, d]));
    assert.equal(bySeq.size, dispatched, 'sequence numbers are unique');
    let nested = 0;
    for (const d of dispatches) {
      const parent = bySeq.get(d.parentSeq);
      if (parent !== undefined) {
        nested++;
        assert.equal(d.type, 'damage');
        assert.equal(d.depth, 1);
        assert.equal(parent.type, 'collide', 'a nested dispatch names the one that made it');
        assert.equal(d.parentSeq, d.seq - 1);
      } else {
        assert.equal(d.depth, 0);
        assert.equal(d.parentSeq, 0);
      }
      assert.equal(d.delivered, 1);
      assert.ok(Number.isFinite(d.start) && (d.startBound ?? 0) > 0 && d.duration >= 0, 'timeline-grade: a start with its bound');
    }
    assert.equal(nested, dispatched - 8_000, 'every nested dispatch names its parent');
    const sites = dispatches.filter((d) => d.site !== null);
    assert.ok(sites.length >= TYPES.length, `sites still captured (${sites.length}): the first of each type at least`);
  } finally {
    stop();
  }
});

test('detail "handlers": the dispatches whose handlers are not timed take the fused path; each timed one stands for exactly the dispatches of its type up to the next', () => {
  const { rec, sink, starts, stop } = recording(1 << 18, 'handlers');
  try {
    const bus = new EventBus<Record<string, number>>({ name: 'fused-handlers' });
    for (const t of TYPES) bus.subscribe(t, (n) => void (t === 'collide' && (n & 3) === 0 && bus.dispatch('damage', n)));
    // A handler that throws now and then: every throw is recorded, timed dispatch or not.
    let throws = 0;
    bus.subscribe('sound', (n) => {
      if (n % 97 === 0) {
        throws++;
        throw new Error(`sound ${n}`);
      }
    });
    let dispatched = 0;
    const errors = console.error;
    console.error = () => undefined; // the bus reports handler errors
    try {
      for (let i = 0; i < 40_000; i++) {
        const type = TYPES[(i * 5 + (i >> 3)) % TYPES.length];
        bus.dispatch(type, i);
        dispatched += type === 'collide' && (i & 3) === 0 ? 2 : 1;
      }
    } finally {
      console.error = errors;
    }
    assert.ok(currentDispatchLog() !== undefined, 'the log is installed at detail handlers too');
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    assert.equal(dispatches.length, dispatched, 'every dispatch recorded');
    assert.ok(throws > 50);
    assert.equal(sink.of('handler-error').length, throws, 'every throw recorded');
    const timed = new Map(sink.of('handler').map((h) => [h.seq, h.sampleEvery ?? 1]));
    // Traced: the timed ones (each type's first 32, then sampled), plus the few due a site.
    assert.ok(timed.size < dispatched / 4, `${timed.size} of ${dispatched} dispatches timed: sampling took over`);
    const sited = dispatches.filter((d) => d.site !== null).length;
    assert.ok(starts() <= timed.size + sited + TYPES.length, `${starts()} traced starts for ${timed.size} timed dispatches and ${sited} sites`);
    // The sampler's gaps hold across both paths: a timed dispatch with weight g is followed, g
    // dispatches of its type later, by the next timed one (the fused ones took their turns).
    for (const type of TYPES) {
      const ofType = dispatches.filter((d) => d.type === type).sort((a, b) => a.seq - b.seq);
      let last = -1;
      let weight = 0;
      for (const [i, d] of ofType.entries()) {
        const w = timed.get(d.seq);
        if (w === undefined) continue;
        if (last >= 0) assert.equal(i - last, weight, `${type}: the timed dispatch at ${last} stood for ${weight}, the next came at ${i}`);
        last = i;
        weight = w;
      }
      assert.ok(last >= 0 && last + weight >= ofType.length, `${type}: the last timed dispatch stands for the rest`);
    }
  } finally {
    stop();
  }
});

test('detail "dispatch": emitter dispatches and fused bus dispatches nest both ways with the right parents, depths and order', async () => {
  const file = path.join(tmp, 'nest.trace');
  const recording = probe.record(file, { detail: 'dispatch', captureStacks: false });
  let watched: ReturnType<typeof probe.watch> | undefined;
  try {
    assert.ok(currentDispatchLog() !== undefined, 'recording at detail dispatch: the fused path is on');
    const bus = new EventBus<{ outer: number; inner: number; later: number }>({ name: 'fused-nest' });
    const ee = new EventEmitter();
    watched = probe.watch(ee, { name: 'pinger' });
    bus.subscribe('outer', (n) => {
      ee.emit('ping', n); // an emitter dispatch (traced) inside a fused one
    });
    ee.on('ping', (n: number) => {
      bus.dispatch('inner', n); // a fused dispatch inside the emitter's
    });
    bus.subscribe('inner', () => undefined);
    bus.subscribe('later', () => undefined);
    for (let i = 0; i < 3; i++) bus.dispatch('outer', i); // the first ones of a type go traced, later ones fused
    bus.dispatch('later', 0);
  } finally {
    await recording.stop();
    watched?.dispose();
  }
  const records: BusRecord[] = (await readTraceFileMessages(file)).flatMap((m) => (m.type === 'records' ? m.records : []));
  const dispatches = records.filter((r): r is DispatchRecord => r.kind === 'dispatch').sort((a, b) => a.seq - b.seq);
  const bySeq = new Map(dispatches.map((d) => [d.seq, d]));
  const outers = dispatches.filter((d) => d.type === 'outer');
  assert.equal(outers.length, 3);
  for (const o of outers) {
    assert.equal(o.depth, 0);
    assert.equal(o.parentSeq, 0);
    const ping = bySeq.get(o.seq + 1);
    const inner = bySeq.get(o.seq + 2);
    assert.equal(ping?.type, 'ping', 'the emitter dispatch takes the next sequence number');
    assert.equal(ping.depth, 1);
    assert.equal(ping.parentSeq, o.seq, 'its parent is the fused bus dispatch');
    assert.equal(inner?.type, 'inner');
    assert.equal(inner.depth, 2);
    assert.equal(inner.parentSeq, ping.seq, 'the bus dispatch inside the emitter names the emitter dispatch');
    assert.ok(o.start <= ping.start + (o.startBound ?? 0) + (ping.startBound ?? 0), 'the outer one starts first');
  }
  const later = dispatches.find((d) => d.type === 'later');
  assert.equal(later?.depth, 0);
  assert.equal(later.parentSeq, 0, 'nothing left open on the stack');
});

test('detail "dispatch": the fused path stops while a trace id source, payload capture or a breakpoint needs more, mid-dispatch included, and resumes after', () => {
  const { rec, sink, starts, stop } = recording();
  try {
    const bus = new EventBus<{ outer: number; inner: number }>({ name: 'switching' });
    let unhook: (() => void) | undefined;
    bus.subscribe('outer', (n) => {
      if (n === 1) unhook = hookTraceIdSource(() => 'b'.repeat(32)); // hooked inside a fused dispatch
      bus.dispatch('inner', n);
    });
    bus.subscribe('inner', () => undefined);
    bus.dispatch('outer', 0);
    bus.dispatch('outer', 0); // both types known now: fused
    const fusedStarts = starts();
    bus.dispatch('outer', 0);
    assert.equal(starts(), fusedStarts, 'fused: no hook calls');
    bus.dispatch('outer', 1);
    assert.equal(currentDispatchLog(), undefined, 'a trace id source: every dispatch through the hooks');
    assert.equal(starts(), fusedStarts + 1, 'the nested dispatch after the hooking went through the hook');
    unhook?.();
    assert.ok(currentDispatchLog() !== undefined, 'unhooked: fused again');
    rec.configure({ capturePayloads: true });
    assert.equal(currentDispatchLog(), undefined, 'payload capture: through the hooks');
    bus.dispatch('inner', 7);
    rec.configure({ capturePayloads: false });
    rec.setBreakOn(new Set(['nothing-here']));
    assert.equal(currentDispatchLog(), undefined, 'event breakpoints: through the hooks');
    rec.setBreakOn(new Set());
    assert.ok(currentDispatchLog() !== undefined);
    const before = starts();
    bus.dispatch('outer', 2);
    assert.equal(starts(), before, 'fused again');
    rec.flushTo(sink);
    const dispatches = sink.of('dispatch');
    assert.equal(dispatches.length, rec.lastSequence, 'every dispatch recorded once');
    const outer1 = dispatches.find((d) => d.type === 'outer' && d.traceId !== undefined);
    const nested = dispatches.filter((d) => d.traceId !== undefined);
    assert.deepEqual(
      nested.map((d) => d.type),
      ['inner', 'outer'],
      'the source is asked when a dispatch ends: the nested one and the outer one (fused at its start) both carry the id',
    );
    assert.equal(outer1?.depth, 0);
    assert.equal(nested[0].parentSeq, outer1?.seq);
    assert.equal(sink.count('payload'), 1, 'the one dispatch while payloads were on has its payload');
  } finally {
    stop();
  }
});

test('detail "dispatch": a full ring counts every fused dispatch it could not take (delivered + dropped = dispatched)', () => {
  const { rec, sink, stop } = recording(64);
  try {
    const bus = new EventBus<{ tick: number; during: number }>({ name: 'full' });
    bus.subscribe('tick', () => undefined);
    bus.subscribe('during', () => undefined);
    let dispatched = 0;
    for (let i = 0; i < 10; i++, dispatched += 2) {
      bus.dispatch('tick', i);
      bus.dispatch('during', i);
    }
    // A sink that makes the app dispatch while the recorder hands it a batch (the drain is running,
    // so nothing drains the ring): past its 64 slots, records are dropped and counted.
    const write = sink.write.bind(sink);
    let inWrite = false;
    sink.write = (frame: Uint8Array): void => {
      write(frame);
      if (inWrite) return;
      inWrite = true;
      for (let i = 0; i < 200; i++, dispatched++) bus.dispatch('during', i);
    };
    rec.flushTo(sink);
    sink.write = write;
    for (let i = 0; i < 100; i++, dispatched++) bus.dispatch('tick', i); // drains at its high water as usual
    rec.flushTo(sink);
    const delivered = sink.count('dispatch');
    const dropped = sink.of('drops').reduce((n, d) => n + d.dispatches, 0);
    assert.ok(dropped > 0, 'some were dropped');
    assert.equal(delivered + dropped, dispatched, `${delivered} delivered + ${dropped} dropped`);
  } finally {
    stop();
  }
});

test('detail "dispatch": the recorder core of pages and workers publishes no log, so every dispatch takes its hooks (the traced path), recorded in full', () => {
  // The core as a page runs it (browser/page-recorder.ts), in a process whose buses could fuse.
  const rec = new RecorderCore({
    maxBufferedRecords: 1 << 16,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
    host: { clock: performance, isProxy: undefined, encodeColumns },
  });
  setBusTracer(rec);
  let starts = 0;
  const start = rec.dispatchStart.bind(rec);
  rec.dispatchStart = (...args) => {
    starts++;
    return start(...args);
  };
  try {
    const sink = new DecodingSink();
    rec.attach(sink, [], () => undefined);
    assert.equal(currentDispatchLog(), undefined, 'no fused path');
    const bus = new EventBus<Record<string, number>>({ name: 'page-core' });
    for (const t of TYPES) bus.subscribe(t, () => undefined);
    for (let i = 0; i < 800; i++) bus.dispatch(TYPES[i % TYPES.length], i);
    rec.flushTo(sink);
    assert.equal(starts, 800, 'every dispatch through the hooks');
    assert.equal(sink.count('dispatch'), 800);
  } finally {
    setBusTracer(undefined);
    rec.shutdown();
  }
});
