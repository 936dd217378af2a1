// Encodes decoded-form records (strings, not ids): interns strings and sites, emitting their
// definitions before first use. For tools and tests that write streams from `BusRecord`s (the probe
// itself encodes straight from its ring buffer with `RecordWriter`).

import { RecordWriter } from './record-writer';
import { assertNever } from './assert-never';
import { BUS_KINDS, DROP_REASONS, UNSUBSCRIBE_REASONS, type BusRecord, type SiteInfo } from './records';
import { SITE_ORIGINS } from './site-origin';

export class RecordEncoder {
  private readonly stringIds = new Map<string, number>();
  private readonly siteIds = new Map<string, number>();

  constructor(readonly writer: RecordWriter = new RecordWriter()) {}

  /** Id of `text`, defining it in the current batch when new. */
  string(text: string): number {
    let id = this.stringIds.get(text);
    if (id === undefined) {
      id = this.stringIds.size + 1;
      this.stringIds.set(text, id);
      this.writer.stringDef(id, text);
    }
    return id;
  }

  private optString(text: string | null): number {
    return text === null ? 0 : this.string(text);
  }

  site(site: SiteInfo | null): number {
    if (site === null) return 0;
    const key = `${site.file}\n${site.line}\n${site.column}\n${site.functionName ?? ''}`;
    let id = this.siteIds.get(key);
    if (id === undefined) {
      const fileId = this.string(site.file);
      const fnId = this.optString(site.functionName);
      id = this.siteIds.size + 1;
      this.siteIds.set(key, id);
      this.writer.siteDef(id, fileId, site.line, site.column, fnId);
    }
    return id;
  }

  /**
   * Writes one record. `string` and `site` records are ignored: definitions are emitted
   * automatically, once, before the first record that needs them.
   */
  write(r: BusRecord): void {
    const w = this.writer;
    switch (r.kind) {
      case 'string':
      case 'site':
        return;
      case 'bus-created':
        return w.busCreated(
          r.time,
          r.bus,
          this.string(r.name),
          r.busKind === undefined ? 0 : BUS_KINDS.indexOf(r.busKind) + 1,
          r.className === undefined ? 0 : this.string(r.className),
        );
      case 'bus-disposed':
        return w.busDisposed(r.time, r.bus);
      case 'subscribe': {
        const type = this.string(r.type);
        const label = this.optString(r.label);
        const site = this.site(r.site);
        return w.subscribe(
          r.time,
          r.subscriptionId,
          r.bus,
          type,
          r.priority,
          label,
          r.owner,
          r.once,
          site,
          r.ownerId ?? 0,
          r.origin === undefined ? 0 : SITE_ORIGINS.indexOf(r.origin) + 1,
        );
      }
      case 'unsubscribe':
        return w.unsubscribe(r.time, r.subscriptionId, UNSUBSCRIBE_REASONS.indexOf(r.reason), r.calls);
      case 'dispatch': {
        const type = this.string(r.type);
        const site = this.site(r.site);
        return w.dispatch(
          r.seq,
          r.start,
          r.duration,
          r.startBound ?? 0,
          r.bus,
          type,
          r.delivered,
          r.consumedBy,
          r.depth,
          r.parentSeq,
          site,
          r.durationBound ?? 0,
          r.threadId ?? 0,
          r.traceId ?? null,
          r.enqueuedAt === undefined ? 0 : r.start - r.enqueuedAt,
        );
      }
      case 'handler':
        return w.handler(r.seq, r.subscriptionId, r.start, r.duration, r.consumed, r.sampleEvery ?? 0);
      case 'handler-error':
        return w.handlerError(r.seq, r.subscriptionId, r.time, r.message, r.stack);
      case 'payload':
        return w.payload(r.seq, r.json, r.truncated);
      case 'enqueue':
        return w.enqueue(r.time, r.bus, this.string(r.type), r.queueLength);
      case 'flush':
        return w.flush(r.time, r.bus, r.dispatched);
      case 'depth-limit':
        return w.depthLimit(r.time, r.bus, this.string(r.type), r.depth, r.parentSeq);
      case 'owner-collected':
        return w.ownerCollected(r.time, r.bus, r.owner, r.removed, r.ownerId ?? 0);
      case 'drops':
        return w.drops(r.count, r.dispatches, DROP_REASONS.indexOf(r.reason));
      default:
        return assertNever(r, 'record');
    }
  }
}
