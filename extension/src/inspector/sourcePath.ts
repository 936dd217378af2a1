// Where a site's file is on this machine — the ONE rule for every place that opens or points at an
// app's source: the inspector's "open source", the trees' `busscope.openSite`, Problems entries.
// Probe sites carry absolute paths or file:// URLs (ESM stacks); a relative path is looked up in
// the workspace folders. Only local files: a site (which the app, or whoever controls it, wrote)
// can never make the extension reach a network share or open a remote URL. No `vscode`.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type SourcePath = { readonly path: string } | { readonly error: string };

/**
 * A browser app's site on a dev server of this machine (`http://localhost:5173/src/app.ts?t=1`): the
 * URL's path stands for a file of the workspace (`src/app.ts`), or for an absolute one under Vite's
 * `/@fs/` prefix. Only the path is used — nothing is fetched — and only for loopback hosts, so a
 * page's site can never name a remote file. Undefined for anything else.
 */
export function devServerPath(file: string): string | undefined {
  if (!/^https?:\/\//i.test(file)) return undefined;
  let url: URL;
  try {
    url = new URL(file);
  } catch {
    return undefined;
  }
  if (url.hostname !== 'localhost' && url.hostname !== '127.0.0.1' && url.hostname !== '[::1]') return undefined;
  let p: string;
  try {
    p = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (p.startsWith('/@fs/')) return p.slice('/@fs'.length);
  p = p.replace(/^\/+/, '');
  return p === '' ? undefined : p;
}

/**
 * `file` as a local path (absolute, or relative to be looked up), without touching the file
 * system; an error for other URL schemes, bad file URLs and network paths.
 */
export function localSourcePath(file: string): SourcePath {
  if (typeof file !== 'string' || file.length === 0) return { error: 'The site has no file name.' };
  let p = devServerPath(file) ?? file;
  if (/^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) {
    if (!p.startsWith('file:')) return { error: `${file} is not a local file (only file paths and file:// URLs are opened).` };
    try {
      p = fileURLToPath(p);
    } catch {
      return { error: `${file} is not a valid file URL.` };
    }
  }
  // A UNC or device path (\\server\share, //server/share, \\?\…) would make even the existence
  // check reach out over the network (and leak credentials on Windows): only local paths.
  if (/^[\\/]{2}/.test(p)) return { error: `${file} is a network path; only local files are opened.` };
  return { path: p };
}

/** True for an absolute local path on this platform (or a Windows drive path). */
export function isAbsoluteSourcePath(p: string): boolean {
  return path.isAbsolute(p) || /^[a-z]:[\\/]/i.test(p);
}

export function resolveSourcePath(file: string, workspaceFolders: readonly string[], exists: (p: string) => boolean): SourcePath {
  const local = localSourcePath(file);
  if ('error' in local) return local;
  const p = local.path;
  if (path.isAbsolute(p)) return exists(p) ? { path: p } : { error: `${p} does not exist on this machine (was the app built or run elsewhere?).` };
  for (const folder of workspaceFolders) {
    const candidate = path.resolve(folder, p);
    if (exists(candidate)) return { path: candidate };
  }
  return { error: `${file} was not found in the workspace folders.` };
}
