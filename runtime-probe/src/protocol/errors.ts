// One error type for everything the protocol rejects. `code` is stable (tests and the extension
// branch on it); `message` is for people.

export type ProtocolErrorCode =
  /** Input ended in the middle of a frame, record or value. */
  | 'truncated'
  /** A frame's declared length exceeds the receiving side's limit. */
  | 'frame-too-large'
  /** Bytes that are not a valid frame, record batch or JSON message. */
  | 'malformed'
  /** A well-formed frame or record of a kind this version does not know. */
  | 'unknown-kind'
  /** A record refers to a string or site id that was never defined on this stream. */
  | 'undefined-reference'
  /** A trace file without the Busscope trace header. */
  | 'not-a-trace';

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}
