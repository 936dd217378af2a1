// Reads a trace file as the same messages a live client receives (welcome, snapshot, records, …).

import fs from 'node:fs';
import { MAX_PROBE_FRAME_BYTES, StreamDecoder, TRACE_HEADER_BYTES, parseTraceHeader, type RecordSink, type StreamMessage } from '../protocol/index';

const CHUNK = 256 * 1024;

/**
 * Yields every message of the trace in order. Throws `ProtocolError` (`not-a-trace`, `malformed`,
 * `truncated`, …) after yielding every complete message before the problem; a trace cut short by a
 * crash therefore yields everything it holds, then throws `truncated`. With `sink`, record batches
 * after the welcome are decoded into it (as `ProbeClientOptions.recordSink`).
 */
export async function* readTraceFile(file: string, sink?: RecordSink): AsyncGenerator<StreamMessage, void, undefined> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const header = new Uint8Array(TRACE_HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, TRACE_HEADER_BYTES, 0);
    parseTraceHeader(header.subarray(0, bytesRead));
    const decoder = new StreamDecoder(MAX_PROBE_FRAME_BYTES);
    const buf = new Uint8Array(CHUNK);
    let position = TRACE_HEADER_BYTES;
    for (;;) {
      const r = await handle.read(buf, 0, CHUNK, position);
      if (r.bytesRead === 0) break;
      position += r.bytesRead;
      // One frame at a time: a sink gets a batch's records only after the reader took the messages before it.
      decoder.feed(buf.subarray(0, r.bytesRead));
      for (let m = decoder.next(sink); m !== undefined; m = decoder.next(sink)) yield m;
    }
    decoder.finish();
  } finally {
    await handle.close();
  }
}

/** All messages of a trace file at once (small traces, tests). */
export async function readTraceFileMessages(file: string): Promise<StreamMessage[]> {
  const out: StreamMessage[] = [];
  for await (const m of readTraceFile(file)) out.push(m);
  return out;
}
