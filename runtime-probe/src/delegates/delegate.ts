// A single-cast delegate (UE `TDelegate`): one slot, rebinding overwrites. Useful where exactly one
// party answers ("who provides the current camera?") and a missing binding is a programming error.
import { describeValue } from './disposable';

/** One bindable function slot. `bind` overwrites the previous function. */
export class Delegate<Args extends unknown[] = [], R = void> {
  private fn: ((...args: Args) => R) | undefined = undefined;

  /** Binds `fn`, replacing any function bound before. */
  bind(fn: (...args: Args) => R): void {
    if (typeof fn !== 'function') throw new TypeError(`Delegate.bind: fn must be a function (got ${describeValue(fn)})`);
    this.fn = fn;
  }

  /** Removes the bound function, if any. */
  unbind(): void {
    this.fn = undefined;
  }

  /** True when a function is bound. */
  isBound(): boolean {
    return this.fn !== undefined;
  }

  /** Calls the bound function and returns its result. Throws an `Error` when nothing is bound. */
  execute(...args: Args): R {
    const fn = this.fn;
    if (fn === undefined) throw new Error('Delegate.execute: no function is bound (use executeIfBound to tolerate that)');
    return fn(...args);
  }

  /** Calls the bound function when there is one; returns `undefined` when nothing is bound. */
  executeIfBound(...args: Args): R | undefined {
    const fn = this.fn;
    return fn === undefined ? undefined : fn(...args);
  }
}
