// A page's link writes what the extension it negotiated with reads: version 6 gets dispatch columns
// (record code 18, a couple of bytes a dispatch); an extension that offers only 5 and 4 gets plain
// `dispatch` records (the page ships no version-4 block encoder), fewer bytes saved but every
// dispatch there. The page's real link and recorder run here in Node with a socket that behaves as a
// WebSocket does; the extension's side is the real stream decoder.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/browser/index';
import { PageLink, type PageSocket } from '../../../runtime-probe/src/browser/page-link';
import { pageRecorder, startTracing, stopTracing } from '../../../runtime-probe/src/browser/page-recorder';
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordCode, type DispatchRecord } from '../../../runtime-probe/src/protocol/index';
import { encodeControlFrame } from '../../../runtime-probe/src/protocol/messages';
import { StreamDecoder } from '../../../runtime-probe/src/protocol/stream';

const TOKEN = 'page-columns-token';

/** A WebSocket as the link sees it: open, nothing queued, and `send` takes a copy. */
class CopyingSocket implements PageSocket {
  binaryType: 'arraybuffer' | 'blob' = 'blob';
  readyState = 1;
  bufferedAmount = 0;
  onopen: ((this: never, ev: Event) => unknown) | null = null;
  onmessage: ((this: never, ev: MessageEvent) => unknown) | null = null;
  onclose: ((this: never, ev: Event) => unknown) | null = null;
  onerror: ((this: never, ev: Event) => unknown) | null = null;
  readonly sent: Uint8Array[] = [];
  send(data: Uint8Array): void {
    this.sent.push(data.slice());
  }
  close(): void {
    this.readyState = 3;
  }
  receive(frame: Uint8Array): void {
    (this.onmessage as unknown as (ev: { data: ArrayBuffer }) => void)({ data: frame.slice().buffer });
  }
}

interface Seen {
  readonly version: number;
  /** Record codes that start the record batches holding dispatches. */
  readonly codes: Set<number>;
  readonly bytesPerDispatch: number;
  readonly dispatches: DispatchRecord[];
  readonly dropped: number;
}

/** A page linked to an extension that offers `versions`, dispatching `n` (every 3rd nested), read back. */
function run(versions: number[], n: number): Seen {
  const recorder = pageRecorder();
  const socket = new CopyingSocket();
  const link = new PageLink(
    socket,
    recorder,
    { token: TOKEN, app: { pid: 0, name: 'columns', cwd: 'http://localhost:5173', startTime: Date.now(), runtime: 'test' }, maxBufferedBytes: 1 << 30 },
    { opened: () => undefined, closed: () => undefined },
  );
  startTracing(recorder);
  try {
    (socket.onopen as unknown as () => void)();
    socket.receive(encodeControlFrame({ type: 'hello', token: TOKEN, protocolVersions: versions, clientName: 'test' }));
    recorder.configure({ detail: 'dispatch', captureStacks: false });
    const bus = new EventBus<{ outer: number; inner: number }>({ name: 'page-columns' });
    bus.subscribe('outer', (i) => {
      if (i % 3 === 0) bus.dispatch('inner', i);
    });
    bus.subscribe('inner', () => undefined);
    bus.subscribe('inner', () => undefined);
    for (let i = 0; i < n; i++) bus.dispatch('outer', i);
    recorder.flushTo(link);

    const frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
    const stream = new StreamDecoder();
    const codes = new Set<number>();
    const dispatches: DispatchRecord[] = [];
    let version = 0;
    let dropped = 0;
    let bytes = 0;
    // After the page's own hello (it dials), what a probe sends: welcome, definitions, snapshot, batches.
    for (const chunk of socket.sent.slice(1)) {
      frames.push(chunk);
      for (let f = frames.next(); f !== undefined; f = frames.next()) {
        const m = stream.decodeFrame(f);
        if (m.type === 'welcome') version = m.protocolVersion;
        if (m.type !== 'records' || f.kind !== FrameKind.Records) continue;
        const mine = m.records.filter((r): r is DispatchRecord => r.kind === 'dispatch' && r.bus === bus.busId);
        for (const r of m.records) if (r.kind === 'drops') dropped += r.dispatches;
        if (mine.length === 0) continue;
        dispatches.push(...mine);
        codes.add(f.body[0]);
        bytes += f.body.length;
      }
    }
    return { version, codes, bytesPerDispatch: bytes / dispatches.length, dispatches, dropped };
  } finally {
    link.close();
    stopTracing(recorder);
  }
}

function assertExact(seen: Seen, n: number): void {
  const nested = Math.ceil(n / 3);
  assert.equal(seen.dispatches.length + seen.dropped, n + nested, 'delivered + dropped = dispatched');
  assert.equal(seen.dropped, 0);
  const bySeq = new Map(seen.dispatches.map((d) => [d.seq, d]));
  for (const d of seen.dispatches) {
    if (d.type === 'outer') {
      assert.equal(d.depth, 0);
      assert.equal(d.parentSeq, 0);
      assert.equal(d.delivered, 1);
    } else {
      assert.equal(d.type, 'inner');
      assert.equal(d.depth, 1);
      assert.equal(d.delivered, 2);
      assert.equal(bySeq.get(d.parentSeq)?.type, 'outer', 'a nested dispatch names its outer one');
    }
  }
}

test('a page linked at version 6 writes dispatch columns, a couple of bytes a dispatch, every dispatch exact', () => {
  const n = 30_000;
  const seen = run([6, 5, 4, 3, 2, 1], n);
  assert.equal(seen.version, 6);
  assert.ok(seen.codes.has(RecordCode.DispatchColumns), `codes ${[...seen.codes].join(', ')}`);
  assert.ok(!seen.codes.has(RecordCode.DispatchBlock), `codes ${[...seen.codes].join(', ')}`);
  assert.ok(seen.bytesPerDispatch < 8, `${seen.bytesPerDispatch.toFixed(1)} B a dispatch`);
  assertExact(seen, n);
});

test('a page linked at version 5 (an extension without columns) writes plain dispatch records, never columns, every dispatch exact', () => {
  const n = 30_000;
  const seen = run([5, 4], n);
  assert.equal(seen.version, 5);
  assert.ok(!seen.codes.has(RecordCode.DispatchColumns), `codes ${[...seen.codes].join(', ')}`);
  assertExact(seen, n);
});
