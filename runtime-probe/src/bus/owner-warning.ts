// The warning printed when subscriptions end because their owner was garbage-collected. That is the
// weak-owner contract working, but usually a surprise (a service held by nothing but its own
// subscriptions silently stops handling events), so it is said once per subscribe site, like Node's
// MaxListenersExceededWarning. No Node built-ins: `process.emitWarning` when there is one, else
// `console.warn`.
import type { SourceSite } from './tracer';

/** What the warning needs of one removed subscription. */
export interface CollectedSubscription {
  readonly id: number;
  readonly type: string;
  readonly label: string | undefined;
  /** Known when the probe was started before the subscription was made (it captures sites). */
  readonly site: SourceSite | undefined;
}

export const OWNER_COLLECTED_WARNING = 'BusscopeOwnerCollectedWarning';
/** Keys (sites) already warned about. Bounded: a site key is a code location, but a key made of bus and type names may not be. */
const warned = new Set<string>();
const MAX_WARNINGS = 100;

/**
 * Without a site (no probe when it subscribed) the bus, type, label and owner class stand for the site:
 * capturing a stack at every owned subscribe costs several times the subscribe itself.
 */
function siteKey(bus: string, ownerDescription: string, sub: CollectedSubscription): string {
  const site = sub.site;
  if (site !== undefined) return `${site.file}:${site.line}:${site.column}`;
  const ownerClass = ownerDescription.split('#', 1)[0];
  return `\0${bus}\0${sub.type}\0${sub.label ?? ''}\0${ownerClass}`;
}

function describeSite(site: SourceSite | undefined): string {
  if (site === undefined) {
    return 'at an unknown site (start the probe before subscribing, or run with BUSSCOPE=1, to see where)';
  }
  return `at ${site.file}:${site.line}:${site.column}${site.functionName === undefined ? '' : ` in ${site.functionName}`}`;
}

function emit(message: string): void {
  const proc = (globalThis as { process?: { emitWarning?: unknown } }).process;
  if (proc !== undefined && typeof proc.emitWarning === 'function') {
    (proc.emitWarning as (warning: string, options: { type: string; code: string }) => void)(message, {
      type: OWNER_COLLECTED_WARNING,
      code: 'BUSSCOPE_OWNER_COLLECTED',
    });
  } else {
    console.warn(`${OWNER_COLLECTED_WARNING}: ${message}`);
  }
}

/**
 * Warns about `subs` (all of one owner, on one bus, just removed because the owner was collected),
 * once per subscribe site per process. Never throws: it runs in a FinalizationRegistry callback or
 * inside a dispatch.
 */
export function warnOwnerCollected(bus: string, ownerDescription: string, subs: readonly CollectedSubscription[]): void {
  try {
    for (let i = 0; i < subs.length; i++) {
      if (warned.size >= MAX_WARNINGS) return;
      const sub = subs[i];
      const key = siteKey(bus, ownerDescription, sub);
      if (warned.has(key)) continue;
      warned.add(key);
      let sameSite = 0;
      for (let k = i + 1; k < subs.length; k++) if (siteKey(bus, ownerDescription, subs[k]) === key) sameSite++;
      const what =
        `Subscription ${sub.id} to "${sub.type}"${sub.label === undefined ? '' : ` (label "${sub.label}")`} on bus "${bus}"` +
        (sameSite > 0 ? ` (and ${sameSite} more of this owner from the same site)` : '');
      emit(
        `${what} ended because its owner ${ownerDescription} was garbage-collected (nothing else referenced it): its ` +
          `handlers will never run again. Subscribed ${describeSite(sub.site)}. Keep a reference to the owner while it ` +
          `should receive events, or dispose the subscription (or bus.unsubscribeOwner) when done. ` +
          `Pass warnOnCollectedOwner: false to new EventBus() to silence this.` +
          (warned.size === MAX_WARNINGS ? ` (${MAX_WARNINGS} sites warned about; further ones are not reported.)` : ''),
      );
    }
  } catch {
    // a warning must never break the app (e.g. a throwing 'warning' listener)
  }
}
