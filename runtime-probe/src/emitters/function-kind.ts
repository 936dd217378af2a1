// The entry kind of emitters that store the user's functions as they are (mitt, nanoevents).
import type { EntryKind } from './emitter-bus';

export const FUNCTION_ENTRY_KIND: EntryKind = {
  label(entry) {
    const name = typeof entry === 'function' ? entry.name : undefined;
    return typeof name === 'string' && name !== '' ? name : undefined;
  },
  once() {
    return false;
  },
};
