// Where a source site's code comes from: the app's own files, a dependency in node_modules, or
// Node's internals. One definition, used by the probe (library emitters record at `lifecycle`
// detail) and by the extension (the collapsed "libraries" group). No Node built-ins here.

export type SiteOrigin = 'app' | 'library' | 'node';

const NODE_MODULES = /[\\/]node_modules[\\/]/;

/** Origin of a site's file (a path or a `file://` URL as a stack shows it). */
export function siteOrigin(file: string): SiteOrigin {
  if (file.startsWith('node:') || file.startsWith('internal/') || file === 'events.js' || file === 'net.js') return 'node';
  return NODE_MODULES.test(file) ? 'library' : 'app';
}

/**
 * A bus is a library bus when it has listeners and none of their sites is the app's own code.
 * Listeners without a site (sites off, or subscribed before the probe started) count as unknown:
 * a bus whose sites are all unknown is not called a library.
 */
export function isLibraryBus(sites: Iterable<string | undefined>): boolean {
  let known = 0;
  for (const file of sites) {
    if (file === undefined) continue;
    if (siteOrigin(file) === 'app') return false;
    known++;
  }
  return known > 0;
}
