// The VS Code `Emitter<T>` idiom (UE's `DECLARE_EVENT`): the owner keeps the Emitter private and
// hands out only `emitter.event`, a function anyone may subscribe through; only the holder of the
// Emitter can `fire`. Built on MulticastDelegate, so a listener removed while firing is not called
// later in that fire, and one added while firing waits for the next.
import { defaultListenerError, describeValue, disposeSymbol, type Disposable } from './disposable';
import { MulticastDelegate } from './multicast-delegate';

/**
 * The subscribe side of an {@link Emitter}: safe to hand to anyone. Calls `listener` (with `this` set
 * to `thisArgs`) on every `fire`; the returned Disposable stops that. When `disposables` is given,
 * the returned Disposable is also pushed onto it.
 */
export type EmitterEvent<T> = (listener: (value: T) => unknown, thisArgs?: unknown, disposables?: Disposable[]) => Disposable;

/** Options for an {@link Emitter}. */
export interface EmitterOptions {
  /** Receives errors thrown by listeners during `fire` (default: `console.error`). The other listeners still run. */
  onError?: (error: unknown) => void;
}

class ListenerDisposable implements Disposable {
  constructor(
    private delegate: MulticastDelegate<[unknown]> | undefined,
    private readonly handle: number,
  ) {}
  dispose(): void {
    const d = this.delegate;
    if (d === undefined) return;
    this.delegate = undefined;
    d.remove(this.handle);
  }
  [disposeSymbol](): void {
    this.dispose();
  }
}

const noopDisposable: Disposable = Object.freeze({
  dispose(): void {},
  [disposeSymbol](): void {},
});

/** An event source whose `event` can be handed out while `fire` stays with the holder. */
export class Emitter<T> implements Disposable {
  /** Subscribe here. Hand this function out; keep the Emitter itself private. */
  readonly event: EmitterEvent<T>;
  private readonly listeners: MulticastDelegate<[unknown]>;
  private disposed = false;

  /** @param options `onError` receives errors thrown by listeners during `fire`. */
  constructor(options?: EmitterOptions) {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new TypeError(`Emitter: options must be an object (got ${describeValue(options)})`);
    }
    const onError = options?.onError;
    if (onError !== undefined && typeof onError !== 'function') {
      throw new TypeError(`Emitter: options.onError must be a function (got ${describeValue(onError)})`);
    }
    this.listeners = new MulticastDelegate<[unknown]>({ onError: onError ?? ((error) => defaultListenerError(error, 'an Emitter')) });
    this.event = (listener, thisArgs, disposables) => {
      if (typeof listener !== 'function') {
        throw new TypeError(`Emitter.event: listener must be a function (got ${describeValue(listener)})`);
      }
      if (disposables !== undefined && !Array.isArray(disposables)) {
        throw new TypeError(`Emitter.event: disposables must be an array (got ${describeValue(disposables)})`);
      }
      if (this.disposed) return noopDisposable;
      const fn = thisArgs === undefined ? listener : (value: unknown) => listener.call(thisArgs, value as T);
      const result = new ListenerDisposable(this.listeners, this.listeners.add(fn as (value: unknown) => unknown));
      disposables?.push(result);
      return result;
    };
  }

  /** Number of listeners currently subscribed. */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /** Calls every listener with `value`, in subscription order. Does nothing after `dispose()`. */
  fire(value: T): void {
    if (this.disposed) return;
    this.listeners.broadcast(value);
  }

  /** Removes every listener; later subscriptions get a no-op Disposable and `fire` does nothing. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.listeners.clear();
  }

  /** Same as `dispose()`, for `using`. */
  [disposeSymbol](): void {
    this.dispose();
  }
}
