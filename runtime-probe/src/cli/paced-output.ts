// Writing a session's output to stdout without outrunning it. A slow reader (a pager, a full pipe)
// makes write() return false; then the source is paused until the one 'drain' listener, installed
// once for the whole session, resumes it. Text handed over while paused is still buffered by the
// stream, so nothing is lost: what was already read from the socket is written, and the probe counts
// (in a `drops` record) what it could not send meanwhile. One listener, however many writes.

export interface PacedOutputHooks {
  /** The output is full: stop reading the source. */
  readonly pause: () => void;
  /** The output drained: read again. */
  readonly resume: () => void;
  /** The output is gone (EPIPE: `busscope tail … | head`): stop the session. */
  readonly broken: () => void;
}

export class PacedOutput {
  private full = false;
  private brokenPipe = false;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly hooks: PacedOutputHooks,
  ) {
    out.on('drain', this.onDrain);
    out.on('error', this.onError);
  }

  get isBroken(): boolean {
    return this.brokenPipe;
  }

  write(text: string): void {
    if (this.brokenPipe) return;
    if (!this.out.write(text) && !this.full) {
      this.full = true;
      this.hooks.pause();
    }
  }

  /** Removes the drain listener (the stream outlives the session). The error listener stays: a late EPIPE must not crash the CLI. */
  dispose(): void {
    this.out.removeListener('drain', this.onDrain);
  }

  private readonly onDrain = (): void => {
    if (!this.full) return;
    this.full = false;
    this.hooks.resume();
  };

  private readonly onError = (): void => {
    if (this.brokenPipe) return;
    this.brokenPipe = true;
    this.hooks.broken();
  };
}
