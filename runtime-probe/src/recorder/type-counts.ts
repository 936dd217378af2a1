// Per (bus, type) tallies of recorded dispatches and enqueues, kept by the drain for snapshots' counts.
// No Node built-ins here (the recorder core runs in pages and workers too).

/** Enqueue keys pack (bus, type id) into one number: type ids stay below this. */
const TYPE_KEY_SPAN = 0x4000000;

export class TypeCounts {
  /** Per bus id: dispatch records seen per type id (typed, so the drain adds without a map update per record). */
  private readonly dispatches = new Map<number, Float64Array>();
  /** (bus, type) keys with a recorded enqueue (a type may be enqueued and never dispatched yet). */
  private readonly enqueued = new Set<number>();

  /** The dispatch counters of one bus, with room for `typeId` (the drain adds to them directly). */
  countsFor(busId: number, typeId: number): Float64Array {
    let counts = this.dispatches.get(busId);
    if (counts === undefined || typeId >= counts.length) {
      const grown = new Float64Array(Math.max(16, typeId + 1, counts === undefined ? 0 : counts.length * 2));
      if (counts !== undefined) grown.set(counts);
      this.dispatches.set(busId, (counts = grown));
    }
    return counts;
  }

  addEnqueue(busId: number, typeId: number): void {
    this.enqueued.add(busId * TYPE_KEY_SPAN + typeId);
  }

  /** Dispatch records seen for (bus, type id); 0 for type id 0 (not interned). */
  dispatchCount(busId: number, typeId: number): number {
    if (typeId === 0) return 0;
    const counts = this.dispatches.get(busId);
    return counts !== undefined && typeId < counts.length ? counts[typeId] : 0;
  }

  /** Types with recorded dispatches or enqueues, per bus id (`texts`: the string table, by id). */
  recordedTypes(texts: readonly string[]): Map<number, Set<string>> {
    const out = new Map<number, Set<string>>();
    const add = (busId: number, typeId: number): void => {
      let set = out.get(busId);
      if (set === undefined) out.set(busId, (set = new Set()));
      set.add(texts[typeId]);
    };
    for (const [busId, counts] of this.dispatches) {
      for (let typeId = 1; typeId < counts.length; typeId++) if (counts[typeId] !== 0) add(busId, typeId);
    }
    for (const key of this.enqueued) add(Math.floor(key / TYPE_KEY_SPAN), key % TYPE_KEY_SPAN);
    return out;
  }
}
