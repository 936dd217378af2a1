// `watch(target, { name?, types? })` in the browser: an EventTarget (window, document, DOM nodes and
// the app's own; window/document/DOM nodes record only the listed `types`), a mitt or a nanoevents
// emitter, seen as a bus. The same watch scaffolding and mitt/nanoevents adapters as Node's
// `probe.watch`; only the EventTarget adapter is the browser's own (emitters/dom-event-target.ts).
import { domEventTargetKind } from '../emitters/dom-event-target';
import { MITT_KIND, NANOEVENTS_KIND } from '../emitters/function-kinds';
import { watchWith, type WatchHandle, type WatchOptions, type WatchRuntime } from '../emitters/watch-core';

export type { WatchHandle, WatchOptions } from '../emitters/watch-core';

const BROWSER_WATCH: WatchRuntime = {
  caller: 'watch',
  expected: 'an EventTarget, a mitt or a nanoevents emitter',
  // A browser cannot tell a Proxy apart; watching one throws from its traps or works as its traps say.
  isProxy: undefined,
  kinds: [/* @__PURE__ */ domEventTargetKind('watch'), MITT_KIND, NANOEVENTS_KIND],
};

/**
 * Shows an EventTarget, a mitt or a nanoevents emitter the page already has as a bus. For `window`,
 * `document` and DOM nodes, `types` lists the event types to record (required). Disposing the handle
 * puts the target's methods back.
 * @throws TypeError for another kind of target, or bad options (nothing is changed).
 */
export function watch(target: object, options?: WatchOptions): WatchHandle {
  return watchWith(BROWSER_WATCH, target, options);
}
