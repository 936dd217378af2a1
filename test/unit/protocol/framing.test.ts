// Framing: frames split at any byte boundary reassemble; oversized, empty, unknown and truncated
// frames fail at once with precise errors (never by waiting for bytes that never come).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameDecoder, FrameKind, MAX_CLIENT_FRAME_BYTES, ProtocolError, encodeFrame, utf8Encode } from '../../../runtime-probe/src/protocol/index';

function isProtocolError(code: string, pattern?: RegExp) {
  return (e: unknown) => e instanceof ProtocolError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

test('frames survive any split into chunks', () => {
  const bodies = [new Uint8Array(0), utf8Encode('{"type":"ping","requestId":1}'), new Uint8Array(70_000).fill(7)];
  const stream = new Uint8Array(bodies.reduce((n, b) => n + 5 + b.length, 0));
  let off = 0;
  for (const [i, b] of bodies.entries()) {
    const f = encodeFrame(i === 2 ? FrameKind.Records : FrameKind.Control, b);
    stream.set(f, off);
    off += f.length;
  }
  for (const chunkSize of [1, 2, 3, 5, 7, 4096, stream.length]) {
    const d = new FrameDecoder(1 << 20, 16);
    const got: { kind: number; body: number[] | number }[] = [];
    for (let i = 0; i < stream.length; i += chunkSize) {
      d.push(stream.subarray(i, i + chunkSize));
      for (let f = d.next(); f; f = d.next()) got.push({ kind: f.kind, body: f.body.length > 100 ? f.body.length : [...f.body] });
    }
    assert.deepEqual(
      got,
      [
        { kind: FrameKind.Control, body: [] },
        { kind: FrameKind.Control, body: [...bodies[1]] },
        { kind: FrameKind.Records, body: 70_000 },
      ],
      `chunk size ${chunkSize}`,
    );
    d.finish();
    assert.equal(d.bufferedBytes, 0);
  }
});

test('an oversized length is rejected from the 4-byte header alone', () => {
  const d = new FrameDecoder(MAX_CLIENT_FRAME_BYTES);
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, MAX_CLIENT_FRAME_BYTES + 1, true);
  d.push(header);
  assert.throws(() => d.next(), isProtocolError('frame-too-large', /65537 bytes exceeds the limit of 65536/));
  // The decoder stays failed.
  assert.throws(() => d.push(new Uint8Array(1)), isProtocolError('frame-too-large'));
});

test('an HTTP request or other text is rejected as not a Busscope peer', () => {
  const d = new FrameDecoder(MAX_CLIENT_FRAME_BYTES);
  d.push(utf8Encode('GET / HTTP/1.1\r\n'));
  assert.throws(() => d.next(), isProtocolError('frame-too-large', /does not look like a Busscope peer/));
});

test('length 0 and unknown kinds are malformed', () => {
  const zero = new FrameDecoder(100);
  zero.push(new Uint8Array([0, 0, 0, 0]));
  assert.throws(() => zero.next(), isProtocolError('malformed', /length 0/));
  const unknown = new FrameDecoder(100);
  unknown.push(new Uint8Array([3, 0, 0, 0, 9]));
  assert.throws(() => unknown.next(), isProtocolError('unknown-kind', /frame kind 9/));
});

test('a partial frame waits, and finish() reports it as truncated', () => {
  const d = new FrameDecoder(100);
  const f = encodeFrame(FrameKind.Control, utf8Encode('{}'));
  d.push(f.subarray(0, f.length - 1));
  assert.equal(d.next(), undefined);
  assert.throws(() => d.finish(), isProtocolError('truncated', /6 bytes left over/));
  d.push(f.subarray(f.length - 1));
  assert.ok(d.next());
  d.finish();
});
