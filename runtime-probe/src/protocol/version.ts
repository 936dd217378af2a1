// Versioning (PROTOCOL.md, "Versioning"): the framing, `hello`, `welcome` and `error` are frozen
// across versions so that any two versions can at least tell each other they disagree. Everything
// else may change with PROTOCOL_VERSION. The client offers every version it speaks; the probe picks
// the highest one it also speaks, or answers `error{code: 'unsupported-version'}` and closes.

/** The version this module speaks. */
export const PROTOCOL_VERSION = 1;

/** Every version this module can speak, highest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION]);

/** The highest version in both lists, or `undefined` when they share none. */
export function negotiateProtocolVersion(
  offered: readonly number[],
  supported: readonly number[] = SUPPORTED_PROTOCOL_VERSIONS,
): number | undefined {
  let best: number | undefined;
  for (const v of offered) {
    if (supported.includes(v) && (best === undefined || v > best)) best = v;
  }
  return best;
}
