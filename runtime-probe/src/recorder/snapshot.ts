// The snapshot: buses, types, live subscriptions and the dispatches in progress. Synchronous and
// allocation-light enough to be evaluated from a debugger while the app is paused.

import { allBuses, type TracedSubscription } from '../bus/tracer';
import type { BusSnapshot, ProbeSnapshot, SubscriptionSnapshot, TypeSnapshot } from '../protocol/index';
import type { RecorderCore as Recorder } from './recorder-core';

const perf: { now(): number; readonly timeOrigin: number } = performance;

function siteOf(sub: TracedSubscription): SubscriptionSnapshot['site'] {
  const s = sub.site;
  if (s === undefined) return null;
  return { file: s.file, line: s.line, column: s.column, functionName: s.functionName ?? null };
}

export function buildSnapshot(recorder: Recorder | undefined): ProbeSnapshot {
  const buses: BusSnapshot[] = [];
  const types: TypeSnapshot[] = [];
  const subscriptions: SubscriptionSnapshot[] = [];
  const recorded = recorder?.recordedTypes();
  const firstTraced = recorder?.firstTracedSubscriptionId ?? 0;
  for (const bus of allBuses()) {
    const listeners = new Map<string, number>();
    let count = 0;
    for (const sub of bus.tracedSubscriptions()) {
      count++;
      listeners.set(sub.type, (listeners.get(sub.type) ?? 0) + 1);
      subscriptions.push({
        id: sub.id,
        bus: bus.busId,
        type: sub.type,
        priority: sub.priority,
        label: sub.label ?? null,
        owner: sub.ownerDescription ?? null,
        ownerId: sub.ownerId ?? null,
        once: sub.once,
        site: siteOf(sub),
        calls: sub.calls,
        createdAt: sub.createdAt,
        // No probe saw it subscribe (made before probe.start()): why it has no site.
        ...(sub.site === undefined && (firstTraced === 0 || sub.id < firstTraced) ? { beforeProbe: true } : {}),
        ...(sub.origin !== undefined ? { origin: sub.origin } : {}),
      });
    }
    buses.push({
      id: bus.busId,
      name: bus.name,
      createdAt: bus.createdAt,
      subscriptions: count,
      ...(bus.busKind !== undefined ? { kind: bus.busKind } : {}),
      ...(bus.className !== undefined ? { className: bus.className } : {}),
    });
    const names = new Set(listeners.keys());
    for (const t of recorded?.get(bus.busId) ?? []) names.add(t);
    for (const type of [...names].sort()) {
      types.push({ bus: bus.busId, type, listeners: listeners.get(type) ?? 0, dispatches: recorder?.dispatchCount(bus.busId, type) ?? 0 });
    }
  }
  subscriptions.sort((a, b) => a.id - b.id);
  const time = perf.now();
  return {
    time,
    timeOrigin: perf.timeOrigin,
    lastSeq: recorder?.lastSequence ?? 0,
    recording: recorder?.isRecording ?? false,
    buses,
    types,
    subscriptions,
    dispatching: recorder?.dispatching(time) ?? [],
    breakOn: recorder === undefined ? [] : [...recorder.breakOn].sort(),
    truncated: false,
  };
}
