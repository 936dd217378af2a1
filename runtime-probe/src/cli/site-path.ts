// Sites as terminals and editors link them: `path:line:column`, the path relative to the working
// folder when it is inside it (shorter; VS Code's terminal and compilers' problem matchers resolve
// it), else absolute; `file:` URLs (ESM stack frames) become paths.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SiteInfo } from '../protocol/index';

/** The site's file as a local path when it is one (a `file:` URL or a path), else the text as given. */
export function siteFilePath(file: string): string {
  if (file.startsWith('file:')) {
    try {
      return fileURLToPath(file);
    } catch {
      return file;
    }
  }
  return file;
}

export function displayPath(file: string, cwd: string): string {
  const local = siteFilePath(file);
  if (!path.isAbsolute(local)) return local;
  const rel = path.relative(cwd, local);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : local;
}

export function siteLocation(site: SiteInfo, cwd: string): string {
  return `${displayPath(site.file, cwd)}:${site.line}:${site.column}`;
}
