// A destination of the record stream: a client socket or a trace file. The recorder encodes each
// batch once and offers it to every sink; a sink that has too much pending skips it, and the
// recorder counts what it skipped so the sink later receives an exact `drops` record.

export abstract class RecordSink {
  /**
   * The protocol version this sink's stream speaks. Dispatch columns (version 6) are written only
   * while every sink speaks 6; a sink that does not say gets the version-4 dispatch blocks (when the
   * recorder host has them: a page's does not).
   */
  protocolVersion = 5;
  /** String / site definitions this sink has been sent (ids 1 … n). */
  stringsSent = 0;
  sitesSent = 0;
  /** Records (and dispatch records among them) skipped because this sink was over its limit. */
  slowDropped = 0;
  slowDroppedDispatches = 0;
  /** Records the ring could not hold while this sink was attached. */
  fullDropped = 0;
  fullDroppedDispatches = 0;
  /**
   * True when `write` is done with a frame once it returns (it copies it, as a WebSocket's `send`
   * does): the recorder then hands it a view of its encoder's buffer instead of a copy of its own.
   */
  readonly copiesFrames: boolean = false;

  /** True when `bytes` more can be queued without exceeding this sink's limit. */
  abstract canAccept(bytes: number): boolean;
  /**
   * Queues one complete frame. Must not throw (report and mark the sink failed instead). A record
   * batch says how many records (and dispatch records) it holds; definitions, drops and control
   * frames do not, and must never be skipped (a worker's forwarding sink relies on it).
   */
  abstract write(frame: Uint8Array, records?: number, dispatches?: number): void;

  get hasPendingDrops(): boolean {
    return this.slowDropped !== 0 || this.fullDropped !== 0;
  }
}
