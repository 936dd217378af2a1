// Instance-level method wrappers, undone exactly: each wrapper is an own property of the target,
// and disposing puts back what was there — the original own property descriptor, or no own property
// at all — so `Object.getOwnPropertyNames` and every descriptor equal the ones before watching.

import { describeValue } from '../delegates/disposable';

export interface InstalledMethods {
  /** Restores the own properties as they were before `installMethods`. */
  restore(): void;
  /**
   * Puts `value` in place of an installed method (the timing swap: the wrapper while something
   * records, the original otherwise). Does nothing when the app has assigned its own function there.
   */
  replace(name: string, value: Function): void;
}

/** The function a method name resolves to on `target` now (own or inherited). */
export function methodOf(target: object, name: string): Function {
  const value = (target as Record<string, unknown>)[name];
  if (typeof value !== 'function') throw new TypeError(`probe.watch: the target's ${name} is not a function (got ${describeValue(value)})`);
  return value;
}

/**
 * Checks that every wrapper can be installed and undone (so a refusal changes nothing), then installs
 * them. Wrappers are writable, configurable and not enumerable, like class methods; an own property
 * that was there (mitt's and nanoevents' methods are) keeps its enumerability while wrapped.
 */
export function installMethods(target: object, wrappers: Readonly<Record<string, Function>>): InstalledMethods {
  const names = Object.keys(wrappers);
  const before = new Map<string, PropertyDescriptor | undefined>();
  for (const name of names) {
    const own = Object.getOwnPropertyDescriptor(target, name);
    if (own !== undefined && own.configurable !== true) {
      throw new TypeError(`probe.watch: the target's own property "${name}" is not configurable, so it cannot be watched and restored`);
    }
    before.set(name, own);
  }
  const installed: string[] = [];
  try {
    for (const name of names) {
      const own = before.get(name);
      Object.defineProperty(target, name, {
        value: wrappers[name],
        writable: true,
        configurable: true,
        enumerable: own?.enumerable ?? false,
      });
      installed.push(name);
    }
  } catch (error) {
    restore(target, installed, before);
    throw error;
  }
  const current = new Map<string, Function>(names.map((name) => [name, wrappers[name]]));
  return {
    restore: () => restore(target, installed, before, current),
    replace: (name, value) => {
      const now = current.get(name);
      if (now === undefined || (target as Record<string, unknown>)[name] !== now) return;
      (target as Record<string, unknown>)[name] = value;
      current.set(name, value);
    },
  };
}

function restore(
  target: object,
  names: readonly string[],
  before: ReadonlyMap<string, PropertyDescriptor | undefined>,
  current?: ReadonlyMap<string, Function>,
): void {
  for (const name of names) {
    // The app assigned its own function over the wrapper meanwhile: that is the app's to keep.
    if (current !== undefined && Object.getOwnPropertyDescriptor(target, name)?.value !== current.get(name)) continue;
    const own = before.get(name);
    if (own === undefined) delete (target as Record<string, unknown>)[name];
    else Object.defineProperty(target, name, own);
  }
}
