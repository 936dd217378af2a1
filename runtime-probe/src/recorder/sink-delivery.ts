// Hands encoded batches to the recorder's sinks: definitions first (never dropped), then exact drop counts, then the batch or its count as dropped.
// Off the hot path; no Node built-ins (the recorder core runs in pages and workers too).

import { DROP_REASONS } from '../protocol/records';
import { RecordWriter } from '../protocol/record-writer';
import type { RecordSink } from './sink';
import type { SiteEntry, SiteTable, StringTable } from './tables';

const BUFFER_FULL = DROP_REASONS.indexOf('buffer-full');
const SLOW_CLIENT = DROP_REASONS.indexOf('slow-client');

export class SinkDelivery {
  private readonly controlWriter = new RecordWriter(4096);

  constructor(
    private readonly strings: StringTable,
    private readonly sites: SiteTable,
  ) {}

  /** Offers one batch (`records` records, `dispatches` of them dispatches) to every sink; a sink that cannot take it counts them. */
  deliverBatch(sinks: readonly RecordSink[], frame: Uint8Array, records: number, dispatches: number): void {
    for (const sink of sinks) {
      this.sendDefinitions(sink);
      if (sink.hasPendingDrops) {
        if (sink.canAccept(frame.length + 64)) this.writeDrops(sink);
      }
      if (!sink.hasPendingDrops && sink.canAccept(frame.length)) {
        sink.write(frame, records, dispatches);
      } else {
        sink.slowDropped += records;
        sink.slowDroppedDispatches += dispatches;
      }
    }
  }

  /** Definitions are never dropped: later records of this sink cannot be decoded without them. */
  sendDefinitions(sink: RecordSink): void {
    const toSites = this.sites.last;
    // Sites are source-mapped and interned here, once each: that may define strings they use.
    this.sites.resolveThrough(toSites);
    const toStrings = this.strings.last;
    if (sink.stringsSent === toStrings && sink.sitesSent === toSites) return;
    // Encoded per sink: definitions are rare (a new type name or site), and sinks differ in what they have.
    const w = this.controlWriter;
    w.begin();
    const texts = this.strings.texts;
    for (let id = sink.stringsSent + 1; id <= toStrings; id++) w.stringDef(id, texts[id]);
    const entries = this.sites.entries;
    for (let id = sink.sitesSent + 1; id <= toSites; id++) {
      const e = entries[id] as SiteEntry;
      w.siteDef(id, e.fileId, e.line, e.column, e.functionId);
    }
    const frame = w.finish();
    sink.write(frame);
    sink.stringsSent = toStrings;
    sink.sitesSent = toSites;
  }

  /** Sends `sink` its pending drop counts as `drops` records and clears them. */
  writeDrops(sink: RecordSink): void {
    const w = this.controlWriter;
    w.begin();
    if (sink.fullDropped !== 0) w.drops(sink.fullDropped, sink.fullDroppedDispatches, BUFFER_FULL);
    if (sink.slowDropped !== 0) w.drops(sink.slowDropped, sink.slowDroppedDispatches, SLOW_CLIENT);
    sink.fullDropped = sink.fullDroppedDispatches = sink.slowDropped = sink.slowDroppedDispatches = 0;
    sink.write(w.finish());
  }
}
