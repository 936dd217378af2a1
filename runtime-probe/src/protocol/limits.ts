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

/** Longest `focus` list: buses one client wants at full detail although they are library emitters. */
export const MAX_FOCUS_BUSES = 4096;

/**
 * Largest frame a client may send before its `hello` proved the token (a real hello is well under
 * 2 KiB). Keeps an unauthenticated peer from making the app parse 64 KiB of JSON per frame.
 */
export const MAX_PREAUTH_FRAME_BYTES = 4 * 1024;

/** Deepest JSON nesting of a client message (real ones are 2 deep); checked before `JSON.parse`. */
export const MAX_CLIENT_JSON_DEPTH = 8;

/**
 * A frame whose header has arrived must make progress (some of its bytes arrive) within this time;
 * otherwise the reader closes the connection rather than hold a half-received frame forever.
 */
export const FRAME_STALL_TIMEOUT_MS = 5000;

/**
 * Distinct strings (and, separately, sites) one stream defines at most: the app's intern table
 * and every client's table stop growing there. Past it, or past `MAX_STRING_TABLE_BYTES`, new names
 * all share one definition whose text is `OVERFLOW_NAME`. Above the 100,000 distinct event names
 * the tools are meant to handle, with room for files, functions, labels and bus names.
 */
export const MAX_STRING_TABLE_ENTRIES = 131_072;

/** Text held by one string table, counted as 2 bytes per UTF-16 code unit (what a JS string costs). */
export const MAX_STRING_TABLE_BYTES = 16 * 1024 * 1024;

/** The text every name beyond a string table's cap resolves to. */
export const OVERFLOW_NAME = '(too many distinct names)';

/** Longest `app.runtime` / `probeVersion` in `welcome`. */
export const MAX_VERSION_TEXT_LENGTH = 256;
/** Longest app name in `welcome`. */
export const MAX_APP_NAME_LENGTH = 4096;
/** Longest path (`app.cwd`, a site's file) and `error.message`. */
export const MAX_PATH_LENGTH = 65536;
/** Longest name (bus, type, label, owner, function) in a snapshot. */
export const MAX_SNAPSHOT_NAME_LENGTH = 1024 * 1024;
