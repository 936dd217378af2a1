// Decodes record batches into `BusRecord`s, resolving interned strings and sites. One decoder per
// stream (connection or trace file): it holds the definitions announced so far.

import { ByteReader } from './bytes';
import { ProtocolError } from './errors';
import {
  DROP_REASONS,
  RecordCode,
  UNSUBSCRIBE_REASONS,
  type BusRecord,
  type SiteInfo,
} from './records';

const MS_PER_NS = 1e-6;

export class RecordDecoder {
  /** Index = string id; [0] is unused (0 means "none"). */
  private readonly strings: (string | undefined)[] = [undefined];
  private readonly sites: (SiteInfo | undefined)[] = [undefined];

  /** Number of strings defined so far (ids 1 … n are valid when defined densely). */
  get stringCount(): number {
    return this.strings.length - 1;
  }

  /** The definition of string `id`, if announced. */
  stringById(id: number): string | undefined {
    return this.strings[id];
  }

  /**
   * Appends the records of one batch body (the frame body, after the kind byte) to `out`.
   * Throws `ProtocolError` on truncation, unknown record codes or undefined ids; records decoded
   * before the error are already in `out`.
   */
  decode(body: Uint8Array, out: BusRecord[]): void {
    const r = new ByteReader(body);
    let timeNs = 0;
    let seq = 0;
    while (r.pos < r.end) {
      const code = r.u8();
      switch (code) {
        case RecordCode.String: {
          const id = r.uvarint();
          const text = r.string();
          this.define(this.strings, id, text, 'string');
          out.push({ kind: 'string', id, text });
          break;
        }
        case RecordCode.Site: {
          const id = r.uvarint();
          const file = this.str(r.uvarint());
          const line = r.uvarint();
          const column = r.uvarint();
          const functionName = this.optStr(r.uvarint());
          const site: SiteInfo = Object.freeze({ file, line, column, functionName });
          this.define(this.sites, id, site, 'site');
          out.push({ kind: 'site', id, site });
          break;
        }
        case RecordCode.BusCreated: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const name = this.str(r.uvarint());
          out.push({ kind: 'bus-created', time: timeNs * MS_PER_NS, bus, name });
          break;
        }
        case RecordCode.BusDisposed: {
          timeNs += r.svarint();
          out.push({ kind: 'bus-disposed', time: timeNs * MS_PER_NS, bus: r.uvarint() });
          break;
        }
        case RecordCode.Subscribe: {
          timeNs += r.svarint();
          const subscriptionId = r.uvarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          const priority = r.f64();
          const label = this.optStr(r.uvarint());
          const flags = r.uvarint();
          const once = (flags & 1) === 1;
          const owner = (flags & 2) === 2 ? r.string() : null;
          const site = this.optSite(r.uvarint());
          // Above bits 0–1: the owner's id (0 = not sent). Arithmetic: flags may exceed 32 bits.
          const ownerId = owner === null ? 0 : Math.floor(flags / 4);
          if (ownerId === 0) out.push({ kind: 'subscribe', time: timeNs * MS_PER_NS, subscriptionId, bus, type, priority, label, owner, once, site });
          else out.push({ kind: 'subscribe', time: timeNs * MS_PER_NS, subscriptionId, bus, type, priority, label, owner, once, site, ownerId });
          break;
        }
        case RecordCode.Unsubscribe: {
          timeNs += r.svarint();
          const subscriptionId = r.uvarint();
          const reasonCode = r.uvarint();
          const reason = UNSUBSCRIBE_REASONS[reasonCode];
          if (reason === undefined) throw new ProtocolError('malformed', `unknown unsubscribe reason code ${reasonCode}`);
          out.push({ kind: 'unsubscribe', time: timeNs * MS_PER_NS, subscriptionId, reason, calls: r.uvarint() });
          break;
        }
        case RecordCode.Dispatch: {
          seq += r.svarint();
          timeNs += r.svarint();
          const duration = r.uvarint() * MS_PER_NS;
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          const delivered = r.uvarint();
          const consumedBy = r.uvarint();
          const depth = r.uvarint();
          const parentDelta = r.uvarint();
          const site = this.optSite(r.uvarint());
          out.push({
            kind: 'dispatch',
            seq,
            bus,
            type,
            start: timeNs * MS_PER_NS,
            duration,
            delivered,
            consumedBy,
            depth,
            parentSeq: parentDelta === 0 ? 0 : seq - parentDelta,
            site,
          });
          break;
        }
        case RecordCode.Handler: {
          seq += r.svarint();
          const subscriptionId = r.uvarint();
          timeNs += r.svarint();
          const duration = r.uvarint() * MS_PER_NS;
          const consumed = (r.uvarint() & 1) === 1;
          out.push({ kind: 'handler', seq, subscriptionId, start: timeNs * MS_PER_NS, duration, consumed });
          break;
        }
        case RecordCode.HandlerError: {
          seq += r.svarint();
          const subscriptionId = r.uvarint();
          timeNs += r.svarint();
          const message = r.string();
          const stack = (r.uvarint() & 1) === 1 ? r.string() : null;
          out.push({ kind: 'handler-error', seq, subscriptionId, time: timeNs * MS_PER_NS, message, stack });
          break;
        }
        case RecordCode.Payload: {
          seq += r.svarint();
          const truncated = (r.uvarint() & 1) === 1;
          out.push({ kind: 'payload', seq, json: r.string(), truncated });
          break;
        }
        case RecordCode.Enqueue: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          out.push({ kind: 'enqueue', time: timeNs * MS_PER_NS, bus, type, queueLength: r.uvarint() });
          break;
        }
        case RecordCode.Flush: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          out.push({ kind: 'flush', time: timeNs * MS_PER_NS, bus, dispatched: r.uvarint() });
          break;
        }
        case RecordCode.DepthLimit: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const type = this.str(r.uvarint());
          const depth = r.uvarint();
          seq += r.svarint();
          out.push({ kind: 'depth-limit', time: timeNs * MS_PER_NS, bus, type, depth, parentSeq: seq });
          break;
        }
        case RecordCode.OwnerCollected: {
          timeNs += r.svarint();
          const bus = r.uvarint();
          const hasOwner = r.uvarint();
          const owner = (hasOwner & 1) === 1 ? r.string() : null;
          const removed = r.uvarint();
          // Above bit 0: the owner's id (0 = not sent).
          const ownerId = owner === null ? 0 : Math.floor(hasOwner / 2);
          if (ownerId === 0) out.push({ kind: 'owner-collected', time: timeNs * MS_PER_NS, bus, owner, removed });
          else out.push({ kind: 'owner-collected', time: timeNs * MS_PER_NS, bus, owner, removed, ownerId });
          break;
        }
        case RecordCode.Drops: {
          const count = r.uvarint();
          const dispatches = r.uvarint();
          const reasonCode = r.uvarint();
          const reason = DROP_REASONS[reasonCode];
          if (reason === undefined) throw new ProtocolError('malformed', `unknown drop reason code ${reasonCode}`);
          out.push({ kind: 'drops', count, dispatches, reason });
          break;
        }
        default:
          throw new ProtocolError('unknown-kind', `unknown record code ${code} at byte ${r.pos - 1} of a batch`);
      }
    }
  }

  private define<T>(table: (T | undefined)[], id: number, value: T, what: string): void {
    if (id === 0) throw new ProtocolError('malformed', `${what} id 0 is reserved`);
    // Ids are dense and announced in order; a gap means the stream lost definitions.
    if (id > table.length) throw new ProtocolError('malformed', `${what} id ${id} defined before id ${table.length}`);
    table[id] = value;
  }

  private str(id: number): string {
    const s = this.strings[id];
    if (s === undefined) throw new ProtocolError('undefined-reference', `string id ${id} used before its definition`);
    return s;
  }

  private optStr(id: number): string | null {
    return id === 0 ? null : this.str(id);
  }

  private optSite(id: number): SiteInfo | null {
    if (id === 0) return null;
    const s = this.sites[id];
    if (s === undefined) throw new ProtocolError('undefined-reference', `site id ${id} used before its definition`);
    return s;
  }
}
