// Limits both sides enforce. A peer that exceeds one gets `error` and the connection is closed.

/** Largest frame a client may send to the probe (the length field's value). Client messages are small JSON. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024;

/** Largest frame the probe sends (snapshots of big apps, record batches). Clients reject larger frames. */
export const MAX_PROBE_FRAME_BYTES = 32 * 1024 * 1024;

/** A client must complete `hello` within this time after connecting. */
export const HANDSHAKE_TIMEOUT_MS = 3000;

/** The probe keeps record batches below roughly this size (a batch may exceed it by one record). */
export const TARGET_BATCH_BYTES = 64 * 1024;

/** Upper bound of a captured payload's JSON (`configure.payloadSizeCap` is clamped to it). */
export const MAX_PAYLOAD_CAP_BYTES = 64 * 1024;

/** Longest `breakOn` list and longest event type name a client may send. */
export const MAX_BREAK_ON_TYPES = 1024;
export const MAX_TYPE_NAME_LENGTH = 1024;
