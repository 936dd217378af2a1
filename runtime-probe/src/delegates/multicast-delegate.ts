// A multicast delegate (UE `TMulticastDelegate`): many functions, broadcast in the order they were
// added. Handles are process-wide, positive and never reused, so a stale handle can never remove
// somebody else's function. Removal during a broadcast is safe: the running broadcast skips what was
// removed and ignores what was added (the list is copied on write only while a broadcast runs).
import { defaultListenerError, describeValue } from './disposable';

/** Options for a {@link MulticastDelegate}. */
export interface MulticastDelegateOptions {
  /** Receives errors thrown by functions during `broadcast` (default: `console.error`). The other functions still run. */
  onError?: (error: unknown) => void;
}

/** Options for {@link MulticastDelegate.add}. */
export interface MulticastAddOptions {
  /** The object the function belongs to; held weakly. `removeAll(owner)` removes all of its functions. */
  owner?: object;
}

class Binding<Args extends unknown[]> {
  active = true;
  constructor(
    readonly handle: number,
    public fn: (...args: Args) => unknown,
    readonly owner: WeakRef<object> | undefined,
  ) {}
}

let nextHandle = 1;
const noop = (): void => {};

/** Many functions behind one call. Remove-during-broadcast is safe; handles are never reused. */
export class MulticastDelegate<Args extends unknown[] = []> {
  private bindings: Binding<Args>[] = [];
  /** Broadcasts iterating `bindings` right now; while non-zero, changes replace the array instead of mutating it. */
  private broadcasting = 0;
  private readonly onError: ((error: unknown) => void) | undefined;

  /** @param options `onError` receives errors thrown by functions during `broadcast`. */
  constructor(options?: MulticastDelegateOptions) {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new TypeError(`MulticastDelegate: options must be an object (got ${describeValue(options)})`);
    }
    const onError = options?.onError;
    if (onError !== undefined && typeof onError !== 'function') {
      throw new TypeError(`MulticastDelegate: options.onError must be a function (got ${describeValue(onError)})`);
    }
    this.onError = onError;
  }

  /** Number of functions currently added. */
  get size(): number {
    return this.bindings.length;
  }

  /**
   * Adds `fn` and returns its handle: a positive integer, unique in the process, never reused.
   * A function added during a broadcast is first called by the next broadcast.
   */
  add(fn: (...args: Args) => unknown, options?: MulticastAddOptions): number {
    if (typeof fn !== 'function') throw new TypeError(`MulticastDelegate.add: fn must be a function (got ${describeValue(fn)})`);
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new TypeError(`MulticastDelegate.add: options must be an object (got ${describeValue(options)})`);
    }
    const owner = options?.owner;
    if (owner !== undefined && (owner === null || (typeof owner !== 'object' && typeof owner !== 'function'))) {
      throw new TypeError(`MulticastDelegate.add: options.owner must be an object (got ${describeValue(owner)})`);
    }
    const binding = new Binding<Args>(nextHandle++, fn, owner === undefined ? undefined : new WeakRef(owner));
    if (this.broadcasting === 0) this.bindings.push(binding);
    else this.bindings = [...this.bindings, binding];
    return binding.handle;
  }

  /**
   * Removes the function added under `handle`. Returns false when the handle is unknown or already
   * removed. During a broadcast, a removed function is not called later in that broadcast.
   */
  remove(handle: number): boolean {
    if (!Number.isInteger(handle) || handle <= 0) {
      throw new TypeError(`MulticastDelegate.remove: handle must be a positive integer (got ${describeValue(handle)})`);
    }
    const list = this.bindings;
    for (let i = 0; i < list.length; i++) {
      if (list[i].handle === handle) {
        this.removeAt(i);
        return true;
      }
    }
    return false;
  }

  /** Removes every function added with `owner`; returns how many were removed. */
  removeAll(owner: object): number {
    if (owner === null || (typeof owner !== 'object' && typeof owner !== 'function')) {
      throw new TypeError(`MulticastDelegate.removeAll: owner must be an object (got ${describeValue(owner)})`);
    }
    return this.removeWhere((b) => b.owner !== undefined && b.owner.deref() === owner);
  }

  /** Removes every function. */
  clear(): void {
    this.removeWhere(() => true);
  }

  /**
   * Calls every function in the order they were added. A throwing function does not stop the others
   * (its error goes to `onError`). Functions whose owner has been garbage-collected are dropped
   * instead of called.
   */
  broadcast(...args: Args): void {
    const list = this.bindings;
    const n = list.length;
    if (n === 0) return;
    this.broadcasting++;
    try {
      for (let i = 0; i < n; i++) {
        const b = list[i];
        if (!b.active) continue;
        if (b.owner !== undefined && b.owner.deref() === undefined) {
          this.removeBinding(b);
          continue;
        }
        try {
          b.fn(...args);
        } catch (error) {
          this.report(error);
        }
      }
    } finally {
      this.broadcasting--;
    }
  }

  private report(error: unknown): void {
    const onError = this.onError;
    if (onError === undefined) {
      defaultListenerError(error, 'a MulticastDelegate');
      return;
    }
    try {
      onError(error);
    } catch (secondary) {
      defaultListenerError(secondary, 'a MulticastDelegate (its onError threw too)');
    }
  }

  private removeBinding(b: Binding<Args>): void {
    const i = this.bindings.indexOf(b);
    if (i >= 0) this.removeAt(i);
  }

  private removeAt(i: number): void {
    const list = this.bindings;
    const b = list[i];
    b.active = false;
    b.fn = noop; // release whatever the function closes over; a stale handle keeps nothing alive
    if (this.broadcasting === 0) list.splice(i, 1);
    else this.bindings = list.slice(0, i).concat(list.slice(i + 1));
  }

  private removeWhere(match: (b: Binding<Args>) => boolean): number {
    const list = this.bindings;
    const kept: Binding<Args>[] = [];
    let removed = 0;
    for (const b of list) {
      if (match(b)) {
        b.active = false;
        b.fn = noop;
        removed++;
      } else {
        kept.push(b);
      }
    }
    if (removed > 0) this.bindings = kept; // always a fresh array: safe whether or not a broadcast runs
    return removed;
  }
}
