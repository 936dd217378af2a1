// Drain side of the ring: one slot → one wire record, reading the slot through the same declared
// layouts (layouts.ts) the hot path wrote it with. Off the hot path; no Node built-ins.

import type { RecordWriter } from '../protocol/record-writer';
import { RecordCode } from '../protocol/records';
import {
  BUS_CREATED,
  BUS_DISPOSED,
  DEPTH_LIMIT,
  DISPATCH,
  ENQUEUE,
  FLUSH,
  HANDLER,
  HANDLER_ERROR,
  OWNER_COLLECTED,
  PAYLOAD,
  SUBSCRIBE,
  UNSUBSCRIBE,
} from './layouts';
import type { WindowClock } from './window-clock';

/** A duration's bound is sent when above this (ms); below, `startBound` says enough. */
export const DURATION_BOUND_SENT_MS = 0.1;

/** The strings of the slots that have them (see the layouts' `sideA`/`sideB`), by slot index. */
export interface SideStrings {
  readonly sideA: (string | null)[];
  readonly sideB: (string | null)[];
}

/**
 * Writes the record in the slot at `b` (slot index `pos`) and clears its side strings. Dispatch
 * ticks are resolved through `clock` (closed by the caller first).
 * Throws on an unknown code (the caller discards and counts what is left).
 */
export function encodeSlot(ring: Float64Array, b: number, pos: number, side: SideStrings, w: RecordWriter, clock: WindowClock): void {
  const code = ring[b];
  switch (code) {
    case RecordCode.Dispatch: {
      const at = DISPATCH.at;
      let start = ring[b + at.start];
      let bound = ring[b + at.startBound];
      if (start !== start) {
        const t = clock.resolve(ring[b + at.startTick]);
        start = t.time;
        bound = t.bound;
      }
      let end = ring[b + at.end];
      let endBound = 0;
      if (end !== end) {
        const t = clock.resolve(ring[b + at.endTick]);
        end = t.time;
        endBound = t.bound;
      }
      // Stated only when an end fell in a long window (a slow handler inside it): usually small.
      const durationBound = bound + endBound > DURATION_BOUND_SENT_MS ? bound + endBound : 0;
      w.dispatch(
        ring[b + at.seq],
        start,
        end > start ? end - start : 0,
        bound,
        ring[b + at.bus],
        ring[b + at.type],
        ring[b + at.delivered],
        ring[b + at.consumedBy],
        ring[b + at.depth],
        ring[b + at.parentSeq],
        ring[b + at.site],
        durationBound,
        0,
        null,
      );
      return;
    }
    case RecordCode.Handler: {
      const at = HANDLER.at;
      w.handler(ring[b + at.seq], ring[b + at.subscription], ring[b + at.start], ring[b + at.duration], ring[b + at.consumed] === 1);
      return;
    }
    case RecordCode.HandlerError: {
      const at = HANDLER_ERROR.at;
      w.handlerError(ring[b + at.seq], ring[b + at.subscription], ring[b + at.time], side.sideA[pos] ?? '', side.sideB[pos]);
      side.sideA[pos] = null;
      side.sideB[pos] = null;
      return;
    }
    case RecordCode.Payload:
      w.payload(ring[b + PAYLOAD.at.seq], side.sideA[pos] ?? 'null', ring[b + PAYLOAD.at.truncated] === 1);
      side.sideA[pos] = null;
      return;
    case RecordCode.Subscribe: {
      const at = SUBSCRIBE.at;
      w.subscribe(
        ring[b + at.time],
        ring[b + at.subscription],
        ring[b + at.bus],
        ring[b + at.type],
        ring[b + at.priority],
        ring[b + at.label],
        side.sideA[pos],
        ring[b + at.once] === 1,
        ring[b + at.site],
        ring[b + at.ownerId],
        ring[b + at.origin],
      );
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.Unsubscribe: {
      const at = UNSUBSCRIBE.at;
      w.unsubscribe(ring[b + at.time], ring[b + at.subscription], ring[b + at.reason], ring[b + at.calls]);
      return;
    }
    case RecordCode.Enqueue: {
      const at = ENQUEUE.at;
      w.enqueue(ring[b + at.time], ring[b + at.bus], ring[b + at.type], ring[b + at.queueLength]);
      return;
    }
    case RecordCode.Flush:
      w.flush(ring[b + FLUSH.at.time], ring[b + FLUSH.at.bus], ring[b + FLUSH.at.dispatched]);
      return;
    case RecordCode.DepthLimit: {
      const at = DEPTH_LIMIT.at;
      w.depthLimit(ring[b + at.time], ring[b + at.bus], ring[b + at.type], ring[b + at.depth], ring[b + at.parentSeq]);
      return;
    }
    case RecordCode.OwnerCollected: {
      const at = OWNER_COLLECTED.at;
      w.ownerCollected(ring[b + at.time], ring[b + at.bus], side.sideA[pos], ring[b + at.removed], ring[b + at.ownerId]);
      side.sideA[pos] = null;
      return;
    }
    case RecordCode.BusCreated:
      w.busCreated(ring[b + BUS_CREATED.at.time], ring[b + BUS_CREATED.at.bus], ring[b + BUS_CREATED.at.name], ring[b + BUS_CREATED.at.busKind], ring[b + BUS_CREATED.at.className]);
      return;
    case RecordCode.BusDisposed:
      w.busDisposed(ring[b + BUS_DISPOSED.at.time], ring[b + BUS_DISPOSED.at.bus]);
      return;
    default:
      throw new Error(`ring slot with unknown record code ${code}`);
  }
}
