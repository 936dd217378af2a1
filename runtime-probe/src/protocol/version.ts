// Versioning (PROTOCOL.md, "Versioning"): the framing, `hello`, `welcome` and `error` are frozen
// across versions so that any two versions can at least tell each other they disagree. Everything
// else may change with PROTOCOL_VERSION. The client offers every version it speaks; the probe picks
// the highest one it also speaks, or answers `error{code: 'unsupported-version'}` and closes.

/**
 * The version the probe writes. Version 2: dispatch records carry the start's error bound and an
 * extension block (PROTOCOL.md, "Version 2"). Version 3: `bus-created` records carry an extension
 * block too (the bus's kind and class name), which a version-2 reader could not skip. Version 4:
 * dispatch blocks (dispatch-block.ts: runs of dispatch records in fixed-width entries with the clock
 * reads their times are interpolated from, so the probe's drain does no per-record encoding).
 * Version 5: worker threads — `thread` messages and `thread-records` batches (record code 17) carry
 * the buses of the app's worker threads (PROTOCOL.md, "Worker threads"). Version 6: dispatch columns
 * (record code 18: dispatch blocks in columns of the width each needs, ~6 bytes a dispatch, not 40).
 */
export const PROTOCOL_VERSION = 6;

/**
 * Every version a reader (client, trace reader, extension) can read, highest first: clients offer
 * them all, so a newer client still talks to an older probe, and old traces stay readable.
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION, 5, 4, 3, 2, 1]);

/**
 * The versions the probe writes. Batches are encoded once for every sink, so a probe writes one
 * encoding: version 5 is version 4 plus the worker threads' messages and batches, which a client
 * that negotiated 4 simply does not get (it sees the main thread's buses only); version 6 adds
 * dispatch columns, written only while every sink speaks 6 (RecordSink.protocolVersion), else the
 * version-4 dispatch blocks. A client that offers only 3 and lower is refused with `unsupported-version`.
 */
export const PROBE_PROTOCOL_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION, 5, 4]);

/** The highest version in both lists, or `undefined` when they share none. */
export function negotiateProtocolVersion(offered: readonly number[], supported: readonly number[] = SUPPORTED_PROTOCOL_VERSIONS): number | undefined {
  let best: number | undefined;
  for (const v of offered) {
    if (supported.includes(v) && (best === undefined || v > best)) best = v;
  }
  return best;
}
