// The Chrome Trace exporter on a crafted stream: a consumed dispatch, a dispatch whose handler
// dispatches another type (nested, another track) and throws there, a same-type recursion (nested on
// the same track), an unheard dispatch, subscriptions made before attach and one that ends. The
// output must be valid Trace Event JSON, in microseconds, with every child inside its parent.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { BusRecord, ProbeSnapshot, SiteInfo } from '../../../runtime-probe/src/protocol/index';
import { buildChromeTrace, chromeTraceChunks, type ChromeTraceEvent } from '../../../extension/src/export/chromeTrace';
import { sliceContains, validateChromeTrace } from '../../../extension/src/export/validateChromeTrace';
import { writeChromeTraceFile } from '../../../extension/src/export/writeChromeTrace';
import { Model } from '../../../runtime-probe/src/analysis/model/index';

const ORIGIN = 1_700_000_000_000;
const site = (line: number): SiteInfo => ({ file: '/game/src/systems.ts', line, column: 5, functionName: null });

function craftedModel(): Model {
  const model = new Model();
  model.apply({
    type: 'welcome',
    protocolVersion: 1,
    probeVersion: '0.1.0',
    app: { pid: 4242, name: 'game', cwd: '/game', startTime: ORIGIN - 1000, runtime: 'node v20' },
    timeOrigin: ORIGIN,
    config: { detail: 'handlers', captureStacks: true, capturePayloads: false, payloadSizeCap: 1024, dispatchSiteEvery: 1000 },
  });
  const snapshot: ProbeSnapshot = {
    time: 0,
    timeOrigin: ORIGIN,
    lastSeq: 0,
    recording: true,
    buses: [{ id: 1, name: 'gameplay', createdAt: ORIGIN - 500, subscriptions: 1 }],
    types: [{ bus: 1, type: 'tick', listeners: 1, dispatches: 0 }],
    subscriptions: [{ id: 1, bus: 1, type: 'tick', priority: 0, label: 'Ticker', owner: null, once: false, site: site(3), calls: 0, createdAt: ORIGIN - 400 }],
    dispatching: [],
    breakOn: [],
    truncated: false,
  };
  model.apply({ type: 'snapshot', requestId: null, snapshot });
  const records: BusRecord[] = [
    { kind: 'subscribe', time: 1, subscriptionId: 2, bus: 1, type: 'hit', priority: 10, label: 'Shield', owner: 'Player#1', once: false, site: site(10) },
    { kind: 'subscribe', time: 1.5, subscriptionId: 3, bus: 1, type: 'hit', priority: 0, label: 'HealthBar', owner: null, once: false, site: site(20) },
    { kind: 'subscribe', time: 2, subscriptionId: 4, bus: 1, type: 'damage', priority: 0, label: 'Damage', owner: null, once: false, site: site(30) },
    // seq 1: consumed by the shield.
    { kind: 'handler', seq: 1, subscriptionId: 2, start: 10.1, duration: 0.3, consumed: true },
    { kind: 'dispatch', seq: 1, bus: 1, type: 'hit', start: 10, duration: 5, delivered: 1, consumedBy: 2, depth: 0, parentSeq: 0, site: null },
    // seq 2 'tick' → its handler dispatches 'damage' (seq 3, depth 1), whose handler throws.
    { kind: 'handler', seq: 3, subscriptionId: 4, start: 21.5, duration: 1.5, consumed: false },
    { kind: 'handler-error', seq: 3, subscriptionId: 4, time: 23, message: 'Error: boom', stack: null },
    { kind: 'dispatch', seq: 3, bus: 1, type: 'damage', start: 21, duration: 3, delivered: 1, consumedBy: 0, depth: 1, parentSeq: 2, site: null },
    // The handler starts a hair before its dispatch (as if rounded): the exporter must clamp it.
    { kind: 'handler', seq: 2, subscriptionId: 1, start: 19.9999996, duration: 10.0000008, consumed: false },
    { kind: 'dispatch', seq: 2, bus: 1, type: 'tick', start: 20, duration: 10, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: site(99) },
    // seq 4 'tick' recursing into 'tick' (seq 5) on the same track.
    { kind: 'handler', seq: 5, subscriptionId: 1, start: 40.6, duration: 0.3, consumed: false },
    { kind: 'dispatch', seq: 5, bus: 1, type: 'tick', start: 40.5, duration: 0.5, delivered: 1, consumedBy: 0, depth: 1, parentSeq: 4, site: null },
    { kind: 'handler', seq: 4, subscriptionId: 1, start: 40.2, duration: 1.6, consumed: false },
    { kind: 'dispatch', seq: 4, bus: 1, type: 'tick', start: 40, duration: 2, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: null },
    { kind: 'unsubscribe', time: 50, subscriptionId: 3, reason: 'dispose', calls: 0 },
    { kind: 'dispatch', seq: 6, bus: 1, type: 'misspeled', start: 60, duration: 0.01, delivered: 0, consumedBy: 0, depth: 0, parentSeq: 0, site: null },
  ];
  model.applyRecords(records);
  return model;
}

const slices = (events: readonly ChromeTraceEvent[], cat: string) => events.filter((e) => e.ph === 'X' && e.cat === cat);
const seqOf = (e: ChromeTraceEvent) => (e.args as { seq: number }).seq;

describe('Chrome Trace export', () => {
  it('is valid Trace Event JSON: required fields, µs timestamps, balanced async slices, proper nesting', () => {
    const trace = buildChromeTrace(craftedModel());
    const { problems, counts } = validateChromeTrace(JSON.parse(JSON.stringify(trace)));
    assert.deepEqual(problems, []);
    assert.equal(trace.displayTimeUnit, 'ms');
    for (const ph of ['X', 'i', 'C', 'b', 'e', 'M', 's', 'f']) assert.ok((counts[ph] ?? 0) > 0, `has ${ph} events`);
  });

  it('puts dispatches on per-bus/per-type tracks with metadata names, in microseconds', () => {
    const trace = buildChromeTrace(craftedModel());
    const ev = trace.traceEvents;
    const procName = ev.find((e) => e.ph === 'M' && e.name === 'process_name');
    assert.deepEqual(procName && { pid: procName.pid, name: procName.args?.name }, { pid: 1, name: 'bus gameplay' });
    const threads = new Map(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.args?.name as string, e.tid]));
    assert.deepEqual([...threads.keys()].sort(), ['damage', 'hit', 'misspeled', 'tick']);
    assert.equal(new Set(threads.values()).size, 4, 'one track per type');

    const dispatches = slices(ev, 'dispatch');
    assert.equal(dispatches.length, 6);
    for (const d of dispatches) assert.equal(d.tid, threads.get(d.name), `${d.name} is on its type's track`);
    // The earliest time in the export is the bus, created 500 ms before the time origin: ts 0.
    const hit = dispatches.find((d) => seqOf(d) === 1)!;
    assert.equal(hit.ts, (10 + 500) * 1000);
    assert.equal(hit.dur, 5000);
    assert.equal(trace.otherData.timeOriginEpochMs, ORIGIN - 500);
    assert.equal(trace.otherData.app, 'game');
    const tick = dispatches.find((d) => seqOf(d) === 2)!;
    assert.equal(tick.args?.site, '/game/src/systems.ts:99:5');
    assert.equal(dispatches.find((d) => seqOf(d) === 6)!.args?.delivered, 0);
  });

  it('nests every handler inside its dispatch, and a same-type recursion inside the handler that made it', () => {
    const ev = buildChromeTrace(craftedModel()).traceEvents;
    const dispatches = new Map(slices(ev, 'dispatch').map((d) => [seqOf(d), d]));
    const handlers = slices(ev, 'handler');
    assert.equal(handlers.length, 5);
    for (const h of handlers) {
      const d = dispatches.get(seqOf(h))!;
      assert.ok(d, `dispatch of handler ${h.name}`);
      assert.equal(h.pid, d.pid);
      assert.equal(h.tid, d.tid);
      assert.ok(sliceContains(d, h), `${h.name} [${h.ts}, +${h.dur}] inside dispatch ${seqOf(d)} [${d.ts}, +${d.dur}]`);
    }
    // The clamped handler of seq 2 starts exactly at its dispatch.
    const ticker = handlers.find((h) => seqOf(h) === 2)!;
    assert.equal(ticker.ts, dispatches.get(2)!.ts);
    // seq 5 (tick within tick) lies inside the seq-4 handler, on the same track.
    const outerHandler = handlers.find((h) => seqOf(h) === 4)!;
    const inner = dispatches.get(5)!;
    assert.equal(inner.tid, outerHandler.tid);
    assert.ok(sliceContains(outerHandler, inner));
    assert.deepEqual(inner.args && { depth: inner.args.depth, parentSeq: inner.args.parentSeq }, { depth: 1, parentSeq: 4 });
    // seq 3 (damage inside tick) is on another track, linked by a flow from the tick track.
    const flowStart = ev.find((e) => e.ph === 's' && e.id === 'nested-3')!;
    const flowEnd = ev.find((e) => e.ph === 'f' && e.id === 'nested-3')!;
    assert.equal(flowStart.tid, dispatches.get(2)!.tid);
    assert.equal(flowEnd.tid, dispatches.get(3)!.tid);
    assert.ok(sliceContains(dispatches.get(2)!, { ts: flowStart.ts }));
  });

  it('marks consumption and errors as instant events inside the dispatch', () => {
    const ev = buildChromeTrace(craftedModel()).traceEvents;
    const dispatches = new Map(slices(ev, 'dispatch').map((d) => [seqOf(d), d]));
    const consumed = ev.filter((e) => e.ph === 'i' && e.cat === 'consume');
    assert.equal(consumed.length, 1);
    assert.equal(consumed[0].name, 'consumed by Shield');
    assert.equal(consumed[0].s, 't');
    assert.ok(sliceContains(dispatches.get(1)!, consumed[0]));
    assert.equal(dispatches.get(1)!.args?.consumedBy, 'Shield (#2)');
    const errors = ev.filter((e) => e.ph === 'i' && e.cat === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0].name, 'error in Damage');
    assert.equal(errors[0].args?.message, 'Error: boom');
    assert.equal(errors[0].tid, dispatches.get(3)!.tid);
  });

  it('draws subscription lifetimes as async slices and listener counts as counters', () => {
    const ev = buildChromeTrace(craftedModel()).traceEvents;
    const begins = ev.filter((e) => e.ph === 'b' && e.cat === 'subscription');
    const ends = ev.filter((e) => e.ph === 'e' && e.cat === 'subscription');
    assert.deepEqual(begins.map((e) => e.id).sort(), ['sub-1', 'sub-2', 'sub-3', 'sub-4']);
    assert.deepEqual(ends.map((e) => e.id).sort(), ['sub-1', 'sub-2', 'sub-3', 'sub-4']);
    const healthEnd = ends.find((e) => e.id === 'sub-3')!;
    assert.equal(healthEnd.ts, (50 + 500) * 1000);
    assert.equal(healthEnd.args?.reason, 'dispose');
    assert.equal(ends.find((e) => e.id === 'sub-2')!.args?.active, true);
    assert.equal(begins.find((e) => e.id === 'sub-1')!.ts, 100_000, 'subscribed 400 ms before the origin');

    const hitCounts = ev.filter((e) => e.ph === 'C' && e.name === 'listeners: hit').map((e) => [e.ts, e.args?.listeners]);
    assert.deepEqual(hitCounts, [
      [501_000, 1],
      [501_500, 2],
      [550_000, 1],
    ]);
  });

  it('streams the same trace in chunks, and writes it to a file', async () => {
    const model = craftedModel();
    const whole = buildChromeTrace(model);
    const chunks = [...chromeTraceChunks(model, 256)];
    assert.ok(chunks.length > 5, 'small chunks requested, many produced');
    assert.deepEqual(JSON.parse(chunks.join('')), JSON.parse(JSON.stringify(whole)));

    const dir = mkdtempSync(path.join(os.tmpdir(), 'busscope-export-'));
    try {
      const file = path.join(dir, 'trace.json');
      const written = await writeChromeTraceFile(model, file);
      const text = readFileSync(file, 'utf8');
      assert.equal(written.bytes, Buffer.byteLength(text));
      assert.deepEqual(validateChromeTrace(JSON.parse(text)).problems, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exports only what the bounded rings still hold, and says how much was overwritten', () => {
    const model = new Model({ timelineCapacity: 2, handlerSliceCapacity: 10 });
    const records: BusRecord[] = [{ kind: 'bus-created', time: 0, bus: 1, name: 'b' }];
    for (let seq = 1; seq <= 3; seq++) {
      records.push({ kind: 'handler', seq, subscriptionId: 9, start: seq * 10 + 1, duration: 1, consumed: false });
      records.push({ kind: 'dispatch', seq, bus: 1, type: 't', start: seq * 10, duration: 3, delivered: 1, consumedBy: 0, depth: 0, parentSeq: 0, site: null });
    }
    model.applyRecords(records);
    const trace = buildChromeTrace(model);
    assert.deepEqual(validateChromeTrace(trace).problems, []);
    assert.deepEqual(slices(trace.traceEvents, 'dispatch').map(seqOf), [2, 3]);
    assert.deepEqual(slices(trace.traceEvents, 'handler').map(seqOf), [2, 3], 'the handler of the overwritten dispatch is left out');
    assert.equal(trace.otherData.dispatchesOverwritten, 1);
    assert.equal(slices(trace.traceEvents, 'handler')[0].name, 'subscription #9', 'an unknown subscriber still gets a name');
  });

  it('exports an empty model as a valid, empty trace', () => {
    const trace = buildChromeTrace(new Model());
    assert.deepEqual(validateChromeTrace(trace).problems, []);
    assert.equal(trace.traceEvents.length, 0);
  });

  it('the validator catches misnesting, missing fields and unmatched async ends', () => {
    const bad = {
      traceEvents: [
        { name: 'a', ph: 'X', ts: 0, dur: 10, pid: 1, tid: 1 },
        { name: 'b', ph: 'X', ts: 5, dur: 10, pid: 1, tid: 1 },
        { name: 'c', ph: 'X', ts: -1, dur: 1, pid: 1, tid: 1 },
        { name: 'd', ph: 'e', ts: 3, pid: 1, tid: 1, cat: 'x', id: '9' },
        { ph: 'i', ts: 3, pid: 1, tid: 1 },
      ],
    };
    const { problems } = validateChromeTrace(bad);
    assert.ok(
      problems.some((p) => p.includes('without nesting')),
      problems.join('\n'),
    );
    assert.ok(problems.some((p) => p.includes('ts must be')));
    assert.ok(problems.some((p) => p.includes('ends without a begin')));
    assert.ok(problems.some((p) => p.includes('name must be')));
  });
});
