// Trace files: a 16-byte header, then exactly the frames a live client receives after its `hello`
// (welcome, records, snapshot, …), so one reader (StreamDecoder) serves both.
//
//   bytes 0-7   "BUSTRACE" (ASCII)
//   bytes 8-9   u16 LE trace format version (TRACE_FORMAT_VERSION)
//   bytes 10-11 u16 LE protocol version of the frames that follow
//   bytes 12-15 reserved, 0

import { ProtocolError } from './errors';
import { SUPPORTED_PROTOCOL_VERSIONS } from './version';

export const TRACE_MAGIC = 'BUSTRACE';
export const TRACE_FORMAT_VERSION = 1;
export const TRACE_HEADER_BYTES = 16;
/** Suggested file extension. */
export const TRACE_FILE_EXTENSION = '.bustrace';

export interface TraceHeader {
  readonly formatVersion: number;
  readonly protocolVersion: number;
}

export function encodeTraceHeader(protocolVersion: number): Uint8Array {
  const out = new Uint8Array(TRACE_HEADER_BYTES);
  for (let i = 0; i < TRACE_MAGIC.length; i++) out[i] = TRACE_MAGIC.charCodeAt(i);
  const view = new DataView(out.buffer);
  view.setUint16(8, TRACE_FORMAT_VERSION, true);
  view.setUint16(10, protocolVersion, true);
  return out;
}

/** Checks the header; throws `not-a-trace`, `truncated` or `malformed` (unsupported versions). */
export function parseTraceHeader(bytes: Uint8Array): TraceHeader {
  if (bytes.length < TRACE_HEADER_BYTES) {
    for (let i = 0; i < Math.min(bytes.length, TRACE_MAGIC.length); i++) {
      if (bytes[i] !== TRACE_MAGIC.charCodeAt(i)) throw new ProtocolError('not-a-trace', 'not a Busscope trace file (bad magic)');
    }
    throw new ProtocolError('truncated', `trace file shorter than its ${TRACE_HEADER_BYTES}-byte header`);
  }
  for (let i = 0; i < TRACE_MAGIC.length; i++) {
    if (bytes[i] !== TRACE_MAGIC.charCodeAt(i)) throw new ProtocolError('not-a-trace', 'not a Busscope trace file (bad magic)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const formatVersion = view.getUint16(8, true);
  const protocolVersion = view.getUint16(10, true);
  if (formatVersion !== TRACE_FORMAT_VERSION) {
    throw new ProtocolError('malformed', `trace format version ${formatVersion} is not supported (this reader: ${TRACE_FORMAT_VERSION})`);
  }
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) {
    throw new ProtocolError(
      'malformed',
      `trace written with protocol version ${protocolVersion}; this reader speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  return { formatVersion, protocolVersion };
}
