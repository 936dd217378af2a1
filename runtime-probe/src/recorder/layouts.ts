// The recorder's ring slots, declared once per record kind. The hot path writes a slot through these
// offsets and the drain (ring-encoder.ts) reads it through the same ones, so a field added to a kind
// is added here and nowhere can the writer and the reader disagree about where it lives.
//
// A slot is SLOT_WIDTH doubles; offset 0 always holds the record code (RecordCode). Strings that do
// not fit a double (owner descriptions, error texts, payload JSON) ride in two side arrays indexed by
// slot (`sideA`/`sideB`), named per kind below.
// No Node built-ins here (the recorder core runs in pages and workers too).

import { RecordCode } from '../protocol/records';

/**
 * A record kind's slot: its code and its fields, an enum of offsets 1 … width-1 (0 holds the code).
 * The recorder writes `ring[r + DispatchSlot.seq]` and the drain reads the same: a bundler inlines
 * enum members, so the page's code holds `ring[r + 1]` — no layout object, no field name shipped.
 */
export interface SlotLayout {
  readonly code: number;
  /** The kind's offsets enum (field → offset; TypeScript adds offset → field). */
  readonly fields: object;
  /** What the side arrays carry for this kind (documentation, and checked by the layout test). */
  readonly sideA?: string;
  readonly sideB?: string;
}

/**
 * A dispatch, written when it ends. Its start and end are either times already known (`start`,
 * `end`; exact reads at detail `handlers`, or resolved at a drain while it ran) or NaN with a
 * window-clock tick (`startTick`, `endTick`) resolved at drain (window-clock.ts). `startBound` is
 * the start's error bound (ms) when `start` is known.
 */
export enum DispatchSlot {
  seq = 1,
  startTick,
  endTick,
  start,
  end,
  startBound,
  bus,
  type,
  delivered,
  consumedBy,
  depth,
  parentSeq,
  site,
}

/** `sampleEvery`: N of a timed dispatch that stands for N of its type (handler-sampler.ts). */
export enum HandlerSlot {
  seq = 1,
  subscription,
  start,
  duration,
  consumed,
  sampleEvery,
}

export enum HandlerErrorSlot {
  seq = 1,
  subscription,
  time,
}

export enum PayloadSlot {
  seq = 1,
  truncated,
}

/** `busKind`: BUS_KINDS index + 1 (0: not said); `className`: string id (0: none). */
export enum BusCreatedSlot {
  time = 1,
  bus,
  name,
  busKind,
  className,
}

export enum BusDisposedSlot {
  time = 1,
  bus,
}

export enum SubscribeSlot {
  time = 1,
  subscription,
  bus,
  type,
  priority,
  label,
  once,
  site,
  ownerId,
  origin,
}

export enum UnsubscribeSlot {
  time = 1,
  subscription,
  reason,
  calls,
}

export enum OwnerCollectedSlot {
  time = 1,
  bus,
  removed,
  ownerId,
}

export enum EnqueueSlot {
  time = 1,
  bus,
  type,
  queueLength,
}

export enum FlushSlot {
  time = 1,
  bus,
  dispatched,
}

export enum DepthLimitSlot {
  time = 1,
  bus,
  type,
  depth,
  parentSeq,
}

/**
 * Every kind written to the ring, for the layout test (the recorder uses the enums). A function, so
 * a bundle that never calls it leaves it and the enum objects out.
 */
export function slotLayouts(): readonly SlotLayout[] {
  return [
    { code: RecordCode.Dispatch, fields: DispatchSlot },
    { code: RecordCode.Handler, fields: HandlerSlot },
    { code: RecordCode.HandlerError, fields: HandlerErrorSlot, sideA: 'message', sideB: 'stack' },
    { code: RecordCode.Payload, fields: PayloadSlot, sideA: 'json' },
    { code: RecordCode.BusCreated, fields: BusCreatedSlot },
    { code: RecordCode.BusDisposed, fields: BusDisposedSlot },
    { code: RecordCode.Subscribe, fields: SubscribeSlot, sideA: 'owner' },
    { code: RecordCode.Unsubscribe, fields: UnsubscribeSlot },
    { code: RecordCode.OwnerCollected, fields: OwnerCollectedSlot, sideA: 'owner' },
    { code: RecordCode.Enqueue, fields: EnqueueSlot },
    { code: RecordCode.Flush, fields: FlushSlot },
    { code: RecordCode.DepthLimit, fields: DepthLimitSlot },
  ];
}

/**
 * The numbers the recorder writes, as enum members: a bundler writes them in as literals, where a
 * module constant (or `RecordCode.Dispatch`) is a load at every use. The layout test checks them.
 */
export enum Slot {
  /** Doubles per ring slot: the widest kind (a dispatch: the code and 13 fields). */
  width = 14,
}

/** The ring's record codes: RecordCode's (protocol/records.ts), for the same reason as `Slot`. */
export enum Code {
  BusCreated = 3,
  BusDisposed,
  Subscribe,
  Unsubscribe,
  Dispatch,
  Handler,
  HandlerError,
  Payload,
  Enqueue,
  Flush,
  DepthLimit,
  OwnerCollected,
}

/** Doubles per ring slot (`Slot.width`). */
export const SLOT_WIDTH: number = Slot.width;
