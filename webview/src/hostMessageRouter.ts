// Routes each message from the host to the inspector's handler for its kind; anything else goes to `dropped`.

import { assertNever, describeMessage, isHostToWebview, type HostToWebview } from '../../runtime-probe/src/analysis/inspector-messages';

/** One handler per kind of host message: a kind added to HostToWebview does not compile until it has one. */
export type HostMessageHandlers = { readonly [K in HostToWebview['type']]: (msg: Extract<HostToWebview, { readonly type: K }>) => void };

/** Calls the handler of `msg`'s kind, or `dropped` (with what it was and why) when it is not a host message. */
export function routeHostMessage(msg: unknown, handlers: HostMessageHandlers, dropped: (message: string, reason: string) => void): void {
  if (!isHostToWebview(msg)) {
    dropped(describeMessage(msg), 'not a message this inspector page knows (or of another version)');
    return;
  }
  switch (msg.type) {
    case 'snapshot':
      return handlers.snapshot(msg);
    case 'delta':
      return handlers.delta(msg);
    case 'session':
      return handlers.session(msg);
    case 'details':
      return handlers.details(msg);
    case 'reveal':
      return handlers.reveal(msg);
    case 'rangeStats':
      return handlers.rangeStats(msg);
    case 'exported':
      return handlers.exported(msg);
    case 'breakpoints':
      return handlers.breakpoints(msg);
    default:
      return assertNever(msg);
  }
}
