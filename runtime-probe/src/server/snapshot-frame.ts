// The snapshot as one control frame, shared by the Node probe server and the browser connection
// (no Node built-ins).
// The protocol's modules by name, not its index: the page's bundle must not keep the reader's module state.
import { MAX_PROBE_FRAME_BYTES } from '../protocol/limits';
import { encodeControlFrame, type ProbeSnapshot } from '../protocol/messages';

/** The snapshot as one frame, cut to fit the frame limit if an app is enormous. */
export function encodeSnapshotFrame(snapshot: ProbeSnapshot, requestId: number | null): Uint8Array {
  let frame = encodeControlFrame({ type: 'snapshot', requestId, snapshot });
  if (frame.length - 4 <= MAX_PROBE_FRAME_BYTES) return frame;
  let keep = Math.floor(snapshot.subscriptions.length * ((MAX_PROBE_FRAME_BYTES * 0.9) / frame.length));
  for (;;) {
    const cut: ProbeSnapshot = { ...snapshot, subscriptions: snapshot.subscriptions.slice(0, keep), truncated: true };
    frame = encodeControlFrame({ type: 'snapshot', requestId, snapshot: cut });
    if (frame.length - 4 <= MAX_PROBE_FRAME_BYTES || keep === 0) return frame;
    keep = Math.floor(keep * 0.8);
  }
}
