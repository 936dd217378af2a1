// What the analyses need to know about watched emitters (probe.watch, BUSSCOPE_EMITTERS), from
// what the stream carries: bus names and event names.
//  - An unnamed watched emitter is a bus named `ClassName#n`. Instances of one class are separate
//    objects: the same event name on a sibling instance is not a near miss ("`data` has listeners
//    on Socket#3") and their listeners are never summed.
//  - `newListener` / `removeListener` are Node's meta-events: lifecycle, not dispatches. A probe
//    does not record them as dispatches; a listener of them is never "never dispatched", and an
//    emit of them (from a trace or a probe that did record one) is never an unheard dispatch.
import type { NearMissEvidence } from './warning';

export const META_EVENTS: ReadonlySet<string> = new Set(['newListener', 'removeListener']);

/**
 * Listeners that exist so the event is handled if it ever comes: Node throws an `'error'` emitted
 * with no listener, so every careful app adds one that, with luck, never runs. Not "never dispatched".
 */
export const SAFETY_NET_EVENTS: ReadonlySet<string> = new Set(['error']);

/** `Socket` for an instance bus named `Socket#12` (the probe's default emitter names), else null. */
export function instanceClass(busName: string): string | null {
  let cls = classByBusName.get(busName);
  if (cls === undefined) {
    const m = /^(.+)#\d+$/.exec(busName);
    cls = m === null ? null : m[1];
    // Bus names are few; the cache only spares a regular expression per examined type.
    if (classByBusName.size >= 4096) classByBusName.clear();
    classByBusName.set(busName, cls);
  }
  return cls;
}

const classByBusName = new Map<string, string | null>();

const NONE: readonly NearMissEvidence[] = Object.freeze([]);

/** Near misses without the same name on a sibling instance of the same class (that is not a typo). */
export function withoutSiblingInstances(busName: string, nearMisses: readonly NearMissEvidence[]): readonly NearMissEvidence[] {
  if (nearMisses.length === 0) return NONE;
  const cls = instanceClass(busName);
  if (cls === null) return [...nearMisses];
  return nearMisses.filter((m) => m.reason !== 'other-bus' || instanceClass(m.busName) !== cls);
}
