// What recording costs a page beyond the records themselves (issue 14's cost target): a record batch
// reaches the WebSocket with one copy, the socket's own (the link takes views of the recorder's
// encoder buffer, never a copy per batch that the GC then collects), and an attached recorder with
// nothing to record wakes nothing (no 10 ms drain timer ticking in an idle page). The page's real
// link and recorder run here in Node with a socket that behaves as a WebSocket does: `send` copies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/browser/index';
import { PageLink, type PageSocket } from '../../../runtime-probe/src/browser/page-link';
import { pageRecorder, startTracing, stopTracing } from '../../../runtime-probe/src/browser/page-recorder';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordDecoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';
import { encodeControlFrame } from '../../../runtime-probe/src/protocol/messages';
import { PROTOCOL_VERSION } from '../../../runtime-probe/src/protocol/version';
import { DEFAULT_RECORDING_CONFIG, RecorderCore, type RecorderClock } from '../../../runtime-probe/src/recorder/recorder-core';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';

const TOKEN = 'page-cost-token';

/** A WebSocket as the link sees it: open, nothing queued, and `send` takes a copy (as a browser's does). */
class CopyingSocket implements PageSocket {
  binaryType: 'arraybuffer' | 'blob' = 'blob';
  readyState = 1;
  bufferedAmount = 0;
  onopen: ((this: never, ev: Event) => unknown) | null = null;
  onmessage: ((this: never, ev: MessageEvent) => unknown) | null = null;
  onclose: ((this: never, ev: Event) => unknown) | null = null;
  onerror: ((this: never, ev: Event) => unknown) | null = null;
  /** The copies sent, and the buffer each was taken from. */
  readonly sent: { copy: Uint8Array; from: ArrayBufferLike }[] = [];
  send(data: Uint8Array): void {
    this.sent.push({ copy: data.slice(), from: data.buffer });
  }
  close(): void {
    this.readyState = 3;
  }
  /** The extension's side: a message arrives on the socket. */
  receive(frame: Uint8Array): void {
    const data = frame.slice().buffer;
    (this.onmessage as unknown as (ev: { data: ArrayBuffer }) => void)({ data });
  }
}

test("a page's record batches reach the WebSocket with one copy (send's own), every dispatch in them", () => {
  const recorder = pageRecorder();
  const socket = new CopyingSocket();
  let opened = false;
  const link = new PageLink(
    socket,
    recorder,
    { token: TOKEN, app: { pid: 0, name: 'cost', cwd: 'http://localhost:5173', startTime: Date.now(), runtime: 'test' }, maxBufferedBytes: 1 << 30 },
    { opened: () => (opened = true), closed: () => undefined },
  );
  startTracing(recorder);
  try {
    (socket.onopen as unknown as () => void)();
    socket.receive(encodeControlFrame({ type: 'hello', token: TOKEN, protocolVersions: [PROTOCOL_VERSION], clientName: 'test' }));
    assert.ok(opened, 'the link opened');
    recorder.configure({ detail: 'dispatch', captureStacks: false });
    const bus = new EventBus<{ tick: number }>({ name: 'cost' });
    let handled = 0;
    bus.subscribe('tick', (n) => {
      handled += n;
    });
    const N = 200_000;
    for (let i = 0; i < N; i++) bus.dispatch('tick', 1);
    recorder.flushTo(link);
    assert.equal(handled, N);

    // Every record batch the link sent was a view of one buffer, reused: the encoder's.
    const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
    const decoder = new RecordDecoder();
    decoder.version = PROTOCOL_VERSION;
    const records: BusRecord[] = [];
    const batchBuffers = new Set<ArrayBufferLike>();
    let batches = 0;
    for (const { copy, from } of socket.sent) {
      frames.push(copy);
      for (let f = frames.next(); f !== undefined; f = frames.next()) {
        if (f.kind !== FrameKind.Records) continue;
        const before = records.length;
        decoder.decode(f.body, records);
        if (records.slice(before).some((r) => r.kind === 'dispatch')) {
          batches++;
          batchBuffers.add(from);
        }
      }
    }
    assert.ok(batches >= 4, `${batches} batches of dispatch records`);
    assert.equal(batchBuffers.size, 1, `${batches} batches came from ${batchBuffers.size} buffers: a copy per batch before send's own`);
    // And nothing was lost to the reuse: delivered + dropped = dispatched.
    const delivered = records.filter((r) => r.kind === 'dispatch').length;
    const dropped = records.reduce((sum, r) => sum + (r.kind === 'drops' ? r.dispatches : 0), 0);
    assert.equal(delivered + dropped, N);
    assert.equal(dropped, 0);
  } finally {
    link.close();
    stopTracing(recorder);
  }
});

/** `performance`, counting its reads. */
class CountingClock implements RecorderClock {
  reads = 0;
  readonly timeOrigin = performance.timeOrigin;
  now(): number {
    this.reads++;
    return performance.now();
  }
}

class CountingSink extends RecordSink {
  frames = 0;
  canAccept(): boolean {
    return true;
  }
  write(): void {
    this.frames++;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('an attached recorder with nothing to record wakes nothing; the first record is delivered within the drain interval', async () => {
  const clock = new CountingClock();
  const recorder = new RecorderCore({
    maxBufferedRecords: 4096,
    config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
    sanitize: undefined,
    host: { clock, isProxy: undefined },
  });
  const sink = new CountingSink();
  setBusTracer(recorder);
  try {
    recorder.attach(sink, [], () => undefined);
    await sleep(20); // whatever attaching scheduled
    const idleFrom = clock.reads;
    await sleep(150);
    // A 10 ms drain timer would have run ~15 drains here, each reading the clock.
    assert.equal(clock.reads - idleFrom, 0, 'clock reads while idle');

    const bus = new EventBus<{ tick: number }>({ name: 'idle' });
    const framesBefore = sink.frames;
    bus.dispatch('tick', 1);
    const t0 = Date.now();
    while (sink.frames === framesBefore && Date.now() - t0 < 2000) await sleep(2);
    assert.ok(sink.frames > framesBefore, 'the dispatch reached the sink without a flush');

    await sleep(20);
    const quietFrom = clock.reads;
    await sleep(150);
    assert.equal(clock.reads - quietFrom, 0, 'clock reads once idle again');
  } finally {
    recorder.detach(sink, false);
    setBusTracer(undefined);
    recorder.shutdown();
  }
});
