// The recorder's ring slots, declared once per record kind. The hot path writes a slot through these
// offsets and the drain (ring-encoder.ts) reads it through the same ones, so a field added to a kind
// is added here and nowhere can the writer and the reader disagree about where it lives.
//
// A slot is SLOT_WIDTH doubles; offset 0 always holds the record code (RecordCode). Strings that do
// not fit a double (owner descriptions, error texts, payload JSON) ride in two side arrays indexed by
// slot (`sideA`/`sideB`), named per kind below.
// No Node built-ins here (the recorder core runs in pages and workers too).

import { RecordCode } from '../protocol/records';

/** Offsets of one record kind: field name → index in the slot (1 … width-1; 0 is the code). */
export type SlotFields = { readonly [field: string]: number };

export interface SlotLayout<F extends SlotFields> {
  readonly code: number;
  /** Field → offset in the slot. */
  readonly at: F;
  /** Doubles used, code included. */
  readonly width: number;
  /** What the side arrays carry for this kind (documentation, and checked by the layout test). */
  readonly sideA?: string;
  readonly sideB?: string;
}

/** Offsets 1, 2, … in the order given. */
function layout<const N extends readonly string[]>(
  code: number,
  names: N,
  side: { sideA?: string; sideB?: string } = {},
): SlotLayout<{ readonly [K in N[number]]: number }> {
  const at: Record<string, number> = {};
  names.forEach((n, i) => {
    at[n] = i + 1;
  });
  return Object.freeze({ code, at: Object.freeze(at) as { readonly [K in N[number]]: number }, width: names.length + 1, ...side });
}

/**
 * A dispatch, written when it ends. Its start and end are either times already known (`start`,
 * `end`; exact reads at detail `handlers`, or resolved at a drain while it ran) or NaN with a
 * window-clock tick (`startTick`, `endTick`) resolved at drain (window-clock.ts). `startBound` is
 * the start's error bound (ms) when `start` is known.
 */
export const DISPATCH = layout(RecordCode.Dispatch, [
  'seq',
  'startTick',
  'endTick',
  'start',
  'end',
  'startBound',
  'bus',
  'type',
  'delivered',
  'consumedBy',
  'depth',
  'parentSeq',
  'site',
] as const);
/** `sampleEvery`: N of a timed dispatch that stands for N of its type (handler-sampler.ts). */
export const HANDLER = layout(RecordCode.Handler, ['seq', 'subscription', 'start', 'duration', 'consumed', 'sampleEvery'] as const);
export const HANDLER_ERROR = layout(RecordCode.HandlerError, ['seq', 'subscription', 'time'] as const, { sideA: 'message', sideB: 'stack' });
export const PAYLOAD = layout(RecordCode.Payload, ['seq', 'truncated'] as const, { sideA: 'json' });
/** `busKind`: BUS_KINDS index + 1 (0: not said); `className`: string id (0: none). */
export const BUS_CREATED = layout(RecordCode.BusCreated, ['time', 'bus', 'name', 'busKind', 'className'] as const);
export const BUS_DISPOSED = layout(RecordCode.BusDisposed, ['time', 'bus'] as const);
export const SUBSCRIBE = layout(
  RecordCode.Subscribe,
  ['time', 'subscription', 'bus', 'type', 'priority', 'label', 'once', 'site', 'ownerId', 'origin'] as const,
  { sideA: 'owner' },
);
export const UNSUBSCRIBE = layout(RecordCode.Unsubscribe, ['time', 'subscription', 'reason', 'calls'] as const);
export const OWNER_COLLECTED = layout(RecordCode.OwnerCollected, ['time', 'bus', 'removed', 'ownerId'] as const, { sideA: 'owner' });
export const ENQUEUE = layout(RecordCode.Enqueue, ['time', 'bus', 'type', 'queueLength'] as const);
export const FLUSH = layout(RecordCode.Flush, ['time', 'bus', 'dispatched'] as const);
export const DEPTH_LIMIT = layout(RecordCode.DepthLimit, ['time', 'bus', 'type', 'depth', 'parentSeq'] as const);

/** Every layout written to the ring. */
export const SLOT_LAYOUTS: readonly SlotLayout<SlotFields>[] = [
  DISPATCH,
  HANDLER,
  HANDLER_ERROR,
  PAYLOAD,
  BUS_CREATED,
  BUS_DISPOSED,
  SUBSCRIBE,
  UNSUBSCRIBE,
  OWNER_COLLECTED,
  ENQUEUE,
  FLUSH,
  DEPTH_LIMIT,
];

/** Doubles per ring slot: the widest layout. */
export const SLOT_WIDTH = Math.max(...SLOT_LAYOUTS.map((l) => l.width));
