// Model sizes. Every buffer that grows with the app's activity is bounded by one of these.

export interface ModelOptions {
  /** Dispatches kept in the timeline ring (64 bytes each). */
  readonly timelineCapacity: number;
  /** Handler slices kept for recent dispatches (29 bytes each). */
  readonly handlerSliceCapacity: number;
  /** Ended subscriptions kept for inspection; older ones are forgotten (their counters stay). */
  readonly maxEndedSubscriptions: number;
  /** Sliding window of rates and growth: `rateBuckets` buckets of `rateBucketMs`. */
  readonly rateBucketMs: number;
  readonly rateBuckets: number;
  /** Payload previews kept (when the probe captures payloads), newest; 0 keeps none. */
  readonly payloadPreviewCapacity: number;
}

export const DEFAULT_MODEL_OPTIONS: ModelOptions = {
  timelineCapacity: 200_000,
  handlerSliceCapacity: 200_000,
  maxEndedSubscriptions: 5_000,
  rateBucketMs: 1_000,
  rateBuckets: 10,
  payloadPreviewCapacity: 10_000,
};

function positiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`ModelOptions.${name} must be a positive integer, got ${String(value)}`);
}

export function resolveModelOptions(options: Partial<ModelOptions> = {}): ModelOptions {
  const o: ModelOptions = { ...DEFAULT_MODEL_OPTIONS, ...stripUndefined(options) };
  positiveInteger('timelineCapacity', o.timelineCapacity);
  positiveInteger('handlerSliceCapacity', o.handlerSliceCapacity);
  if (!Number.isInteger(o.maxEndedSubscriptions) || o.maxEndedSubscriptions < 0) {
    throw new TypeError(`ModelOptions.maxEndedSubscriptions must be a non-negative integer, got ${String(o.maxEndedSubscriptions)}`);
  }
  if (!(o.rateBucketMs > 0) || !Number.isFinite(o.rateBucketMs))
    throw new TypeError(`ModelOptions.rateBucketMs must be a positive number, got ${String(o.rateBucketMs)}`);
  positiveInteger('rateBuckets', o.rateBuckets);
  if (!Number.isInteger(o.payloadPreviewCapacity) || o.payloadPreviewCapacity < 0) {
    throw new TypeError(`ModelOptions.payloadPreviewCapacity must be a non-negative integer, got ${String(o.payloadPreviewCapacity)}`);
  }
  return o;
}

/** `{ a: undefined }` must not override a default (settings often come through as undefined). */
export function stripUndefined<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
