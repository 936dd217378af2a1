// A sink's `write` may itself cause records (its code dispatches an event on a recorded bus, an
// instrumented emitter fires inside it). Those records land in the ring while a drain is encoding
// it: they must go out with a later batch (or be counted as dropped), never vanish — delivered +
// dropped = dispatched holds for them too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../runtime-probe/src/index';
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordDecoder, type BusRecord } from '../../../runtime-probe/src/protocol/index';
import { DEFAULT_RECORDING_CONFIG, Recorder } from '../../../runtime-probe/src/recorder/recorder';
import { RecordSink } from '../../../runtime-probe/src/recorder/sink';
import { setBusTracer } from '../../../runtime-probe/src/bus/tracer';

/** Decodes what it is given; its first `echoes` record batches each dispatch one `echo` event. */
class EchoingSink extends RecordSink {
  readonly records: BusRecord[] = [];
  echoed = 0;
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  private readonly decoder = new RecordDecoder();
  constructor(
    version: number,
    private readonly echoes: number,
    private readonly echo: () => void,
  ) {
    super();
    this.protocolVersion = version;
    this.decoder.version = version;
  }
  canAccept(): boolean {
    return true;
  }
  write(frame: Uint8Array, records?: number): void {
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.decoder.decode(f.body, this.records);
    if (records !== undefined && this.echoed < this.echoes) {
      this.echoed++;
      this.echo();
    }
  }
}

for (const version of [5, 6]) {
  test(`version ${version}: dispatches a sink makes while the drain writes to it are delivered, not overwritten`, () => {
    const rec = new Recorder({
      maxBufferedRecords: 1 << 16,
      config: { ...DEFAULT_RECORDING_CONFIG, detail: 'dispatch', captureStacks: false },
      sanitize: undefined,
    });
    setBusTracer(rec);
    try {
      const bus = new EventBus<{ tick: number; echo: number }>({ name: 'reentrant' });
      bus.subscribe('tick', () => undefined);
      bus.subscribe('echo', () => undefined);
      const sink = new EchoingSink(version, 6, () => bus.dispatch('echo', 0));
      rec.attach(sink, [], () => undefined);
      // Enough dispatches for several batches per drain (a batch closes at 64 KB).
      const ticks = 120_000;
      for (let i = 0; i < ticks; i++) bus.dispatch('tick', i);
      rec.flushTo(sink);
      rec.flushTo(sink);
      const dispatches = sink.records.filter((r) => r.kind === 'dispatch');
      const dropped = sink.records.filter((r) => r.kind === 'drops').reduce((n, r) => n + (r.kind === 'drops' ? r.dispatches : 0), 0);
      assert.equal(sink.echoed, 6);
      assert.equal(dispatches.filter((d) => d.kind === 'dispatch' && d.type === 'tick').length + dropped, ticks);
      assert.equal(
        dispatches.filter((d) => d.kind === 'dispatch' && d.type === 'echo').length,
        sink.echoed,
        'every dispatch made inside a sink write is delivered',
      );
      rec.detach(sink, false);
    } finally {
      setBusTracer(undefined);
      rec.shutdown();
    }
  });
}
