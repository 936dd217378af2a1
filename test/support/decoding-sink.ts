// A recorder sink for tests, defined once: it decodes every batch the recorder writes into records,
// and can refuse batches (like a socket that stopped draining) to exercise the recorder's drops.
import { FrameDecoder, FrameKind, MAX_PROBE_FRAME_BYTES, RecordDecoder, type BusRecord } from '../../runtime-probe/src/protocol/index';
import { RecordSink } from '../../runtime-probe/src/recorder/sink';

export class DecodingSink extends RecordSink {
  /** False: the sink refuses batches (the recorder counts them as dropped). */
  accepting = true;
  readonly records: BusRecord[] = [];
  private readonly frames = new FrameDecoder(MAX_PROBE_FRAME_BYTES);
  private readonly decoder = new RecordDecoder();
  canAccept(): boolean {
    return this.accepting;
  }
  write(frame: Uint8Array): void {
    this.frames.push(frame);
    for (let f = this.frames.next(); f; f = this.frames.next()) if (f.kind === FrameKind.Records) this.decoder.decode(f.body, this.records);
  }
  /** The records of one kind, in order. */
  of<K extends BusRecord['kind']>(kind: K): Extract<BusRecord, { kind: K }>[] {
    return this.records.filter((r): r is Extract<BusRecord, { kind: K }> => r.kind === kind);
  }
  count(kind: BusRecord['kind']): number {
    return this.of(kind).length;
  }
}
