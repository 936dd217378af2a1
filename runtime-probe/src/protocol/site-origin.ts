// Where a listener's code comes from: the app's own files, a dependency in node_modules, or Node's
// internals — and, from that, which buses are libraries'. One definition, used by the probe (library
// emitters record at `lifecycle` detail), the analyses (no dispatch-dependent findings on them), the
// extension's views and the inspector (the collapsed "libraries" group). No Node built-ins here.

import type { BusKind } from './records';

/** Wire code = index + 1 (0: not said); see `SubscribeRecord.origin`. */
export const SITE_ORIGINS = ['app', 'library', 'node'] as const;
export type SiteOrigin = (typeof SITE_ORIGINS)[number];

const NODE_MODULES = /[\\/]node_modules[\\/]/;

/** Origin of a site's file (a path or a `file://` URL as a stack shows it). */
export function siteOrigin(file: string): SiteOrigin {
  if (file.startsWith('node:') || file.startsWith('internal/') || file === 'events.js' || file === 'net.js') return 'node';
  return NODE_MODULES.test(file) ? 'library' : 'app';
}

/** What `isLibraryBus` reads of a listener (a model subscription, an inspector view, the probe's shadow). */
export interface ListenerOriginLike {
  /** The probe's verdict, when it said (process-wide emitters: it read the subscribing stack itself). */
  readonly origin?: SiteOrigin | null;
  readonly site?: { readonly file: string } | null;
}

/**
 * A listener's origin: the probe's verdict when it gave one, else its subscribe site's file's;
 * undefined when neither is known (sites off, subscribed before the probe started). The probe's
 * verdict comes first because a subscribe site skips Node's frames: Node's own listeners (a socket's
 * `end`, a response's `finish`) have no site at all.
 */
export function listenerOrigin(listener: ListenerOriginLike): SiteOrigin | undefined {
  const origin = listener.origin;
  if (origin !== undefined && origin !== null) return origin;
  const file = listener.site?.file;
  return file === undefined ? undefined : siteOrigin(file);
}

/**
 * A bus is a library bus when it is an emitter (not Busscope's own EventBus, whose users wrote
 * against it) that has listeners, none of them the app's own. Listeners of unknown origin do not
 * decide: a bus whose listeners are all unknown is not called a library. `kind` null or undefined
 * (a probe that does not say) judges by the listeners alone.
 */
export function isLibraryBus(kind: BusKind | null | undefined, listeners: Iterable<ListenerOriginLike>): boolean {
  if (kind === 'bus') return false;
  let known = 0;
  for (const l of listeners) {
    const origin = listenerOrigin(l);
    if (origin === undefined) continue;
    if (origin === 'app') return false;
    known++;
  }
  return known > 0;
}
